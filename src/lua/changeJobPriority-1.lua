--[[
  changeJobPriority — an operator's new priority for a job that has not run yet (DESIGN.md §3,
  "Priorities"). A pending job moves to its new place in its group's lane at once (its lane
  score for the new priority: by priority, then FIFO by id, includes/priority.lua), noted where
  every lane write is (includes/heads.lua noteLaneHead); a delayed job keeps it in its hash for
  when it is promoted (includes/promote.lua places it by its `score`). The hash holds
  `priority` and `score` only when the priority is not the default 5 (DESIGN.md §2, "Job
  layout"). The group's standing does not change: its lane holds the same jobs. A job in any
  other state (active, completed, dead), or already at that priority, is answered as it is,
  unchanged — promoteJob's rule for a job not in a state the action applies to.

  Input:
    KEYS[1] job   hash   the job

    ARGV[1] base      'P:{Q}:' — the job's group's lane and the retention's P:{Q}:settings (read
                      only) are built from it (includes/keys.lua; same slot)
    ARGV[2] id        a decimal job id (validated by the engine)
    ARGV[3] priority  1..9 (validated by the engine)
    ARGV[4] actor     who asks (history, includes/history.lua)
    ARGV[5] cap       the queue history's cap (count; 0 records nothing)

  Output: { id, { field1, value1, ... }, changed } — the job hash after the call (its payload
          appended, includes/payloads.lua); changed 1 when its priority was changed, 0 when it
          was not pending or delayed, or already at that priority (nothing written) — or -1
          (JOB_NOT_FOUND: no job hash, or a completed or dead job past its retention age, with
          a group or without, gone to every read, DESIGN.md §2 Retention,
          includes/retentionAge.lua; nothing written).

  History: when it changed, one entry: action changeJobPriority, group the job's; before
  { state, priority } and after { state, priority } of the job; detail { id }. Nothing for
  JOB_NOT_FOUND or a job left unchanged.

  Events: zadd lane + heads (a pending job); hset/hdel job; xadd P:{Q}:history. None when
  nothing was changed.
]]
--- @include "keys"
--- @include "heads"
--- @include "priority"
--- @include "history"
--- @include "operatedJob"

local jobKey = KEYS[1]
local base = ARGV[1]
local id = ARGV[2]
local priority = tonumber(ARGV[3])
local h = historyArgs(ARGV[4], ARGV[5])

local job, answer = operatedJob(base, jobKey, id, 'priority')
if answer then
  return answer
end
local group, state = job[1], job[2]
-- A stored priority that is not one of 1–9 (another writer's) reads as the default.
local was = tonumber(job[4])
if was == nil or was ~= math.floor(was) or was < 1 or was > 9 then
  was = DEFAULT_PRIORITY
end
local laneKey = laneKeyOf(base, group)
local movable = state == 'delayed'
  or (state == 'pending' and redis.call('ZSCORE', laneKey, id) ~= false)
if not movable or was == priority then
  return { id, jobFields(base, id), 0 }
end

local score = laneScoreOf(id, priority)
if state == 'pending' then
  redis.call('ZADD', laneKey, 'XX', score, id)
  noteLaneHead(base, group, score, tonumber(id))
end
if priority == DEFAULT_PRIORITY then
  redis.call('HDEL', jobKey, 'priority', 'score')
else
  redis.call('HSET', jobKey, 'priority', priority, 'score', string.format('%d', score))
end
recordHistory(base, h, 'changeJobPriority', group, { state = state, priority = was },
  { state = state, priority = priority }, { id = id })
return { id, jobFields(base, id), 1 }
