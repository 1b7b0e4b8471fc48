--[[
  upsertSchedule — create a schedule, or replace one's definition (DESIGN.md §3, "Schedules").
  A new schedule, or one whose timing changed (everyMs, cron or timezone), is due at
  `nextRunAt`, the first tick after now the engine computed; one whose timing is unchanged
  keeps its next tick (a new payload does not move it). Its last tick (`schedruns`) is kept.
  Records the change in the steering history (includes/history.lua: action upsertSchedule,
  group the schedule's, before the definition replaced (none for a new one, or one that is not a
  JSON object: an unreadable schedule), after the new one,
  each with its payload as payloadBytes and payloadSha1, detail { schedule = id }) when the
  definition changed; a call that changes nothing records nothing.

  Input:
    KEYS[1] schedules  zset   schedule id -> next tick due (ms); its name gives the base
    KEYS[2] schedule   hash   schedule id -> definition (JSON)
    KEYS[3] schedruns  hash   schedule id -> '<lastRunAt>:<lastJobId>' (read)
    Built from the base (includes/keys.lua): history.

    ARGV[1] id         the schedule's id (validated by the engine)
    ARGV[2] definition JSON text { group, everyMs, cron, timezone, payload, maxAttempts,
                       backoff, priority } (validated and written by the engine)
    ARGV[3] nextRunAt  its first tick after now (ms, Redis clock; computed by the engine)
    ARGV[4] max        the most schedules a queue holds (Limits.maxSchedules)
    ARGV[5] actor      who asks (history)
    ARGV[6] cap        the queue history's cap (count)

  Output: { status, nextRunAt, runs }: status 1 created, 0 replaced, −1 refused (the queue holds
  `max` schedules already, nothing written); nextRunAt as it stands after the call (ms); runs
  the schedule's '<lastRunAt>:<lastJobId>', or false before its first tick.

  Events: zadd schedules (created, or timing changed); hset schedule; xadd history (changed).

  Cost: O(log n).
]]
--- @include "keys"
--- @include "history"

local schedulesKey = KEYS[1]
local scheduleKey = KEYS[2]
local runsKey = KEYS[3]
local base = baseOf(schedulesKey, 'schedules')
local id = ARGV[1]
local definition = ARGV[2]
local nextRunAt = ARGV[3]
local max = tonumber(ARGV[4])
local h = historyArgs(ARGV[5], ARGV[6])

local old = redis.call('HGET', scheduleKey, id)
if not old and redis.call('HLEN', scheduleKey) >= max then
  return { -1, false, false }
end
local after = cjson.decode(definition)
-- An unreadable definition replaced is as none: the new one's timing counts from now.
local before = old and storedSchedule(old) or nil
local sameTiming = before ~= nil and before.everyMs == after.everyMs and before.cron == after.cron
  and before.timezone == after.timezone
local score = sameTiming and redis.call('ZSCORE', schedulesKey, id)
if score then
  nextRunAt = score
else
  redis.call('ZADD', schedulesKey, nextRunAt, id)
end
if old ~= definition then
  redis.call('HSET', scheduleKey, id, definition)
  recordHistory(
    base,
    h,
    'upsertSchedule',
    after.group,
    before and scheduleForHistory(before),
    scheduleForHistory(after),
    { schedule = id }
  )
end
return { old and 0 or 1, nextRunAt, redis.call('HGET', runsKey, id) }
