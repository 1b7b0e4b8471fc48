--[[
  removeSchedule — delete a schedule: no tick of it fires after this call (DESIGN.md §3,
  "Schedules"); the jobs it enqueued stay. Records the removal in the steering history
  (includes/history.lua: action removeSchedule, group the schedule's, before its definition
  with its payload as payloadBytes and payloadSha1, detail { schedule = id }); removing an
  absent schedule writes and records nothing.

  Input:
    KEYS[1] schedules  zset   schedule id -> next tick due (ms); its name gives the base
    KEYS[2] schedule   hash   schedule id -> definition (JSON)
    KEYS[3] schedruns  hash   schedule id -> '<lastRunAt>:<lastJobId>'
    Built from the base (includes/keys.lua): history.

    ARGV[1] id     the schedule's id (validated by the engine)
    ARGV[2] actor  who asks (history)
    ARGV[3] cap    the queue history's cap (count)

  Output: 1 when a schedule was removed, 0 when there was none.

  Events: zrem schedules; hdel schedule, schedruns; xadd history (removed).

  Cost: O(log n).
]]
--- @include "keys"
--- @include "history"

local schedulesKey = KEYS[1]
local scheduleKey = KEYS[2]
local runsKey = KEYS[3]
local base = baseOf(schedulesKey, 'schedules')
local id = ARGV[1]
local h = historyArgs(ARGV[2], ARGV[3])

local old = redis.call('HGET', scheduleKey, id)
if not old then
  return 0
end
-- An unreadable definition is removed all the same, recorded with no group and no before.
local before = storedSchedule(old)
local group = before and type(before.group) == 'string' and before.group or ''
redis.call('ZREM', schedulesKey, id)
redis.call('HDEL', scheduleKey, id)
redis.call('HDEL', runsKey, id)
recordHistory(base, h, 'removeSchedule', group, before and scheduleForHistory(before), nil, {
  schedule = id,
})
return 1
