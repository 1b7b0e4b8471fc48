--[[
  changeJobPriority — an operator's new priority for a job that has not run yet (DESIGN.md §3,
  "Priorities"). A pending job moves to its new place in its group's lane at once (its lane
  score for the new priority: by priority, then FIFO by id, includes/priority.lua), noted where
  every lane write is (includes/heads.lua noteLaneHead); a delayed job keeps it in its hash for
  when it is promoted (includes/promote.lua places it by its `score`). The hash holds
  `priority` and `score` only when the priority is not the default 5 (DESIGN.md §2, "Job
  layout"). The group's standing does not change: its lane holds the same jobs; but its lane's
  head may, and a serviceable group then moves to the tail of its new head's level (DESIGN.md
  §3, "Levels"; includes/levels.lua relevel), a priority other than 5 marking the queue as
  one with levels (markPrioritized) first. A job in any
  other state (active, completed, dead), or already at that priority, is answered as it is,
  unchanged — promoteJob's rule for a job not in a state the action applies to.

  Input:
    KEYS[1] job      hash   the job
    KEYS[2] glimit   hash   group -> limit      (the group's standing, includes/groupState.lua)
    KEYS[3] gactive  hash   group -> active count
    KEYS[4] ring     list   the rota of level 5 (includes/levels.lua moves the group)
    KEYS[5] paused   set    paused groups

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
          includes/retentionAge.lua; nothing written). Refuses DATA_OUT_OF_RANGE (a pending
          job's group whose active count cannot be held exactly, includes/groupState.lua)
          before any write.

  History: when it changed, one entry: action changeJobPriority, group the job's; before
  { state, priority } and after { state, priority } of the job; detail { id }. Nothing for
  JOB_NOT_FOUND or a job left unchanged.

  Events: zadd lane + heads (a pending job); the group's move between levels (lrem/rpush ring,
  zadd/zrem levels, set prioritized); hset/hdel job; xadd P:{Q}:history. None when nothing
  was changed.
]]
--- @include "keys"
--- @include "heads"
--- @include "priority"
--- @include "groupState"
--- @include "levels"
--- @include "history"
--- @include "operatedJob"

local jobKey = KEYS[1]
local k = { glimit = KEYS[2], gactive = KEYS[3], ring = KEYS[4], paused = KEYS[5], base = ARGV[1] }
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
  -- Judged before the first write: it may refuse an active count (includes/groupState.lua).
  local serviceable = groupState(k, group, laneKey)
  if priority ~= DEFAULT_PRIORITY then
    markPrioritized(base)
  end
  redis.call('ZADD', laneKey, 'XX', score, id)
  noteLaneHead(base, group, tonumber(id))
  if serviceable then
    levels().relevel(k, group, laneKey)
  end
end
if priority == DEFAULT_PRIORITY then
  redis.call('HDEL', jobKey, 'priority', 'score')
else
  redis.call('HSET', jobKey, 'priority', priority, 'score', string.format('%d', score))
end
recordHistory(base, h, 'changeJobPriority', group, { state = state, priority = was },
  { state = state, priority = priority }, { id = id })
return { id, jobFields(base, id), 1 }
