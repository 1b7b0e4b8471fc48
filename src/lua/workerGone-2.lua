--[[
  workerGone — a worker that closes leaves the registry at once (DESIGN.md §4.9 "Workers").

  Input:
    KEYS[1] workers     zset  worker id -> when it lapses (ms)
    KEYS[2] workerinfo  hash  worker id -> JSON

    ARGV[1] id          the worker's id

  Output: 1 when it was registered, else 0.

  Events: zrem workers; hdel workerinfo. Runs at maxmemory: it only removes.
]]
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return removed
