--[[
  reaperUnlock — release a queue's reaper lock at the end of its holder's pass (DESIGN.md §3,
  "reap"), so the next reaper due by its own interval reaps at once. Compare and delete: a pass
  that outlived the lock's lifetime leaves alone the lock another reaper took since.

  Input:
    KEYS[1] lock  string  P:{Q}:reaper: the holder's id while its pass runs

    ARGV[1] id    the caller's id (`host:pid:n`)

  Output: 1 when the lock was the caller's (now deleted), else 0.

  Memory: writes nothing but a DEL, which Redis never refuses for memory.

  Events: del lock (when it was the caller's).
]]

local lockKey = KEYS[1]
local id = ARGV[1]

if redis.call('GET', lockKey) == id then
  redis.call('DEL', lockKey)
  return 1
end
return 0
