--[[
  A job's priority as its place in its group's lane (DESIGN.md §3, "Priorities"), written once.
  A lane is a zset scored so that ZPOPMIN takes the most urgent job first and, within a
  priority, the oldest: a job's score is its id shifted by a step per level away from the
  default, so a job of the default priority keeps the score it always had (its id).
    PRIORITY_STEP     10^15: ids stay below it (MAX_JOB_ID), so the levels never overlap and
                      every score, id ± 4 × 10^15, is an exact double
    MAX_JOB_ID        10^15 − 1, the last id `seq` may mint
    DEFAULT_PRIORITY  5; priorities run from 1 (first) to 9 (last)
    laneScoreOf(id, priority)   the lane score of job `id` (a number) at `priority` (a number)
    levelOf(score)    the priority a lane score stands at (1–9): 5 + floor(score / 10^15),
                      held within 1–9 for a score another writer chose
    orderOf(score)    the enqueue order a lane score stands for: the score less its level's
                      shift, so the id for a job Ringmaster enqueued, whatever its priority
                      (the oldest pending job is the lowest order, includes/heads.lua)
    levelStartOf(level)  the lowest lane score of `level` (its shift): a level's jobs are the
                      scores from it to the next level's start
  A job goes back to its lane (retry, reap, promotion, requeueDead) at its hash's `score`, else
  its id: the score enqueue gave it, so those paths need none of these. enqueue's writeJob
  (includes/enqueueJob.lua) computes laneScoreOf in place, with 5 and 10^15 as literals: each
  function a script names is a closure made on every call (~1,000 Redis instructions), and each
  upvalue it reads ~500 more (measured), which a default-priority enqueue is not to pay
  (docs/PERFORMANCE.md 13); test/lanes/priority.test.ts holds its scores to this rule.
]]
local PRIORITY_STEP = 1e15
local MAX_JOB_ID = 1e15 - 1
local DEFAULT_PRIORITY = 5

local function laneScoreOf(id, priority)
  return tonumber(id) + (priority - DEFAULT_PRIORITY) * PRIORITY_STEP
end

local function levelOf(score)
  local level = DEFAULT_PRIORITY + math.floor(tonumber(score) / PRIORITY_STEP)
  if level < 1 then
    return 1
  elseif level > 9 then
    return 9
  end
  return level
end

local function orderOf(score)
  return tonumber(score) - (levelOf(score) - DEFAULT_PRIORITY) * PRIORITY_STEP
end

local function levelStartOf(level)
  return (level - DEFAULT_PRIORITY) * PRIORITY_STEP
end
