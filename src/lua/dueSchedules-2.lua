--[[
  dueSchedules — the schedules whose next tick is due by the Redis clock, earliest first, with
  their definitions, for the engine to compute each one's next tick and fire it through
  fireSchedules-11.lua (DESIGN.md §3, "Schedules"); a tick that found schedules it cannot fire
  reads again past them (`offset`). Reads only.

  Input:
    KEYS[1] schedules  zset   schedule id -> next tick due (ms, Redis clock)
    KEYS[2] schedule   hash   schedule id -> definition (JSON)
    ARGV[1] limit      the most schedules answered, 1..100 (the engine's bound per read)
    ARGV[2] offset     due schedules passed over first, earliest first (0..1,000): those an
                       earlier read of the same tick could not fire

  Output: flat { now, id, nextRunAt, definition, … }: now (ms, Redis clock), then per due
  schedule its id, its score as Redis writes it, and its definition's JSON text (false when
  the hash lacks it, which the engine skips).

  Cost: O(log n + offset + limit). A queue with no schedule answers { now } from one ZRANGEBYSCORE.
]]
--- @include "nowMs"

local schedulesKey = KEYS[1]
local scheduleKey = KEYS[2]
local limit = tonumber(ARGV[1])
local offset = tonumber(ARGV[2])

local now = nowMs()
local due = redis.call('ZRANGEBYSCORE', schedulesKey, '-inf', now, 'WITHSCORES', 'LIMIT', offset,
  limit)
local reply = { now }
for i = 1, #due, 2 do
  reply[#reply + 1] = due[i]
  reply[#reply + 1] = due[i + 1]
  reply[#reply + 1] = redis.call('HGET', scheduleKey, due[i])
end
return reply
