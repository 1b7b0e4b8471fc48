--[[
  promoteJob — an operator's "run it now": a delayed job goes to its group's lane at once, at
  its FIFO place (its score), as if its run-at time had come (includes/promote.lua), and the
  group is re-ringed with a wake if that makes it serviceable. A job that exists but is not
  delayed is answered as it is, unchanged.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] stats    hash   counters
    KEYS[7] delayed  zset   delayed job id -> when it runs (ms)
    KEYS[8] job      hash   the job

    ARGV[1] base  'P:{Q}:' — the job's group's lane and delayed index, and the retention's
                  P:{Q}:settings (read only), are built from it (includes/keys.lua; same slot)
    ARGV[2] id
    ARGV[3] actor  who asks (history, includes/history.lua)
    ARGV[4] cap    the queue history's cap (count; 0 records nothing)

  Output: { id, { field1, value1, ... }, promoted } — the job hash after the call (its payload
  appended, includes/payloads.lua); promoted 1
          when it was moved, 0 when it was not delayed (nothing written) — or -1
          (JOB_NOT_FOUND: no job hash, or a completed or dead job past its retention age, with a
          group or without,
          gone to every read though no trim has reached it yet, DESIGN.md §2 Retention,
          includes/retentionAge.lua; nothing written).
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the job is delayed and its group's active
  count is not an integer within ±(2^53−1) (includes/groupState.lua).

  History: when it was promoted, one entry: action promoteJob, group the job's; before
  { state, runAt } and after { state, runAt } of the job; detail { id }. Nothing for
  JOB_NOT_FOUND, a refusal, or a job that was not delayed (nothing written).

  Events: zrem delayed, zrem g:<group>:delayed, zadd lane + heads + zincrby gpending, hset/hdel job, hincrby stats;
  rpush ring + lpush/ltrim wake (re-ring); xadd P:{Q}:history. None when
  nothing was promoted.
]]
--- @include "promote"
--- @include "history"
--- @include "operatedJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  stats = KEYS[6], delayed = KEYS[7],
}
local jobKey = KEYS[8]
local base = ARGV[1]
local id = ARGV[2]
local h = historyArgs(ARGV[3], ARGV[4])

-- The job's state as the history records it: { state, runAt } (runAt null when none).
local function stateFrom(state, runAt)
  return { state = state or cjson.null, runAt = safeInteger(runAt) or cjson.null }
end
local function stateOf()
  local job = redis.call('HMGET', jobKey, 'state', 'runAt')
  return stateFrom(job[1], job[2])
end

local job, answer = operatedJob(base, jobKey, id, 'runAt')
if answer then
  return answer
end
local group = job[1]
local before = stateFrom(job[2], job[4])
local promoted = 0
if redis.call('ZSCORE', k.delayed, id) then
  -- promoteJob leaves a job whose group's count it cannot read where it is; an operator's
  -- explicit call is refused instead, so the refusal says why.
  checkedActive(k.gactive, group, redis.call('HGET', k.gactive, group))
  if promoteJob(k, base, id) then
    promoted = 1
    recordHistory(base, h, 'promoteJob', group, before, stateOf(), { id = id })
  end
end
return { id, jobFields(base, id), promoted }
