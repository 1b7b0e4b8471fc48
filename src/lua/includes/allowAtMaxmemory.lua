--[[
  Lets a script that writes a few bytes run while Redis is at maxmemory with the noeviction
  policy (an operator must be able to pause or limit a tenant during a memory
  incident, and a worker to keep its lease). Works the same on Redis 6.2 and 7+.

  How Redis decides: a script without a `#!lua` line is refused for memory (OOM) only at a
  command that may add memory (SADD, HSET, ZADD, INCR…), and only while the script has written
  nothing yet — once it has, Redis cannot stop it halfway, so it lets every later command
  through (6.2 `luaRedisGenericCommand` and 7.x `scriptVerifyOOM`: "only if this is the first
  write in the context of this script"). So the script's first write is a PERSIST, a write
  command Redis never refuses for memory, on a key the script owns. Ringmaster never sets a
  TTL, so PERSIST changes nothing (a TTL set by hand, which would one day lose the key, is
  dropped). Redis 7's `#!lua flags=allow-oom` does the same, but a `#!` line does not compile
  on 6.2, so the scripts would need two texts and a version check.

  Include it only in scripts that add a few bytes at most; a script that may add memory
  (enqueue) must not, so Redis refuses it, before it writes anything, with OOM.

  key: any key the script was passed in KEYS.
]]
local function allowAtMaxmemory(key)
  redis.call('PERSIST', key)
end
