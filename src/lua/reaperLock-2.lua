--[[
  reaperLock — take a queue's reaper lock for one pass, when the queue is due by the caller's own
  interval (DESIGN.md §3, "reap"). Saves work only: the reap itself is atomic, so two reapers of
  one queue never take a lease back twice whether or not this lets both through.

  Input:
    KEYS[1] lock      string  P:{Q}:reaper: the holder's id while its pass runs, expiring after
                              lockMs (a holder that died mid-pass blocks the others that long)
    KEYS[2] reapedAt  string  P:{Q}:reapedAt: when the last pass began (ms, Redis clock)

    ARGV[1] id          the caller's id (`host:pid:n`)
    ARGV[2] intervalMs  the caller's interval (ms, 1..86,400,000)
    ARGV[3] lockMs      the lock's lifetime (ms)

  Output: 1 when taken (lock set to id, reapedAt to now), or when the lock holds id already
  (nothing written: this call sent again on a reconnect after its reply was lost); 0 when
  another holds the lock (a lock with no expiry, written by hand, is given lockMs), or when the
  last pass began less than intervalMs ago by the Redis clock (a reapedAt that is not a number,
  or later than now, is ignored, so a stray or restored value cannot stop reaping).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most (the reaper frees
  memory: it drains leases and trims retention); see includes/allowAtMaxmemory.lua. reapedAt
  never has a TTL, so the PERSIST changes nothing.

  Events: set lock, set reapedAt (when taken); pexpire lock (a lock with no expiry).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"

local lockKey = KEYS[1]
local reapedAtKey = KEYS[2]
local id = ARGV[1]
local intervalMs = tonumber(ARGV[2])
local lockMs = tonumber(ARGV[3])

allowAtMaxmemory(reapedAtKey)
local ttl = redis.call('PTTL', lockKey)
if ttl ~= -2 then
  if ttl == -1 then
    redis.call('PEXPIRE', lockKey, lockMs)
  end
  -- pcall: a lock key of another type, written by hand, is another's.
  if redis.pcall('GET', lockKey) == id then
    return 1
  end
  return 0
end
local now = nowMs()
local last = tonumber(redis.call('GET', reapedAtKey) or '')
if last and last <= now and now - last < intervalMs then
  return 0
end
redis.call('SET', lockKey, id, 'PX', lockMs)
redis.call('SET', reapedAtKey, now)
return 1
