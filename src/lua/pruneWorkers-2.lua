--[[
  pruneWorkers — the reaper's pass forgets at most `batch` workers whose heartbeat lapsed (the
  earliest lapsed first), so a crashed fleet leaves the registry in a bounded number of passes
  (DESIGN.md §4.9 "Workers"). O(batch · log n).

  Input:
    KEYS[1] workers     zset  worker id -> when it lapses (ms, Redis clock)
    KEYS[2] workerinfo  hash  worker id -> JSON

    ARGV[1] batch       the most workers forgotten by this call (1..10,000)

  Output: the number of workers forgotten (`batch` when more may be due).

  Events: zrem workers; hdel workerinfo. Runs at maxmemory: it only removes.
]]
--- @include "nowMs"

local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', nowMs(), 'LIMIT', 0, tonumber(ARGV[1]))
if #ids > 0 then
  redis.call('ZREM', KEYS[1], unpack(ids))
  redis.call('HDEL', KEYS[2], unpack(ids))
end
return #ids
