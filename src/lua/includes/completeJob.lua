--[[
  Complete an active job whose lease the caller holds (complete): release its group's permit,
  re-ring the group with a wake if that made it serviceable, then keep or forget the job by the
  queue's completed retention (includes/finishCompleted.lua: count 0 deletes the hash and its
  error list; else the hash is kept, state 'completed', in `completed` and its group's index,
  and the oldest past the policy are trimmed).
  completeAndClaim completes by the same rules without calling this: it shares its pieces (the
  lease check's refusals, checkLease; the group of a job, permitGroup in releaseJob.lua; I1
  and the re-ring, isServiceable and reRing; finishCompleted), but reads and writes once per
  batch what this reads and writes once per job (completeAndClaim-11.lua has the figures).

  k: glimit, gactive, ring, paused, wake, active, leases, stats, settings, completed.
  A claim the queue's cap held back is woken (includes/capWake.lua).
  jobKey: the job's hash.
  base: 'P:{Q}:' (the lane of the job's group is built from it, includes/keys.lua).
  result: the result's JSON text, '' for none (kept only with the job: finishCompleted).
  Returns { id, job fields as they were, state 'completed', finishedAt, and 'result' when it
  was kept }, or a checkLease status code.
  Refuses (DATA_OUT_OF_RANGE) before its first write when the group's active count is not an
  integer within ±(2^53−1) (includes/groupState.lua, checkedActive).
]]
--- @include "nowMs"
--- @include "settleGroup"
--- @include "checkLease"
--- @include "releaseJob"
--- @include "finishCompleted"
--- @include "payloads"
--- @include "capWake"
--- @include "throughput"

local function completeJob(k, jobKey, base, id, token, result)
  local denied = checkLease(k.active, jobKey, id, token, k.settings)
  if denied then
    return denied
  end

  local group, raw = leaseGroup(k, id, jobKey)
  local active = group and checkedActive(k.gactive, group, raw)
  local laneKey, wasServiceable, wasSaturated
  group, laneKey, wasServiceable, wasSaturated = releaseJob(k, base, id, group, active)
  -- The reply is the hash as it ends: read once, then patched here (the hash is deleted, or
  -- rewritten by finishCompleted below, the same way).
  local fields = jobFields(base, id)
  local count, ageMs, capped = retentionOf(k.settings, 'completed')
  local now = nowMs()
  finishCompleted(k, base, { id }, { jobKey }, { group }, now, count, ageMs, { result })
  local job = {}
  for i = 1, #fields, 2 do
    local name = fields[i]
    if name ~= 'token' and name ~= 'leaseUntil' and name ~= 'state' and name ~= 'finishedAt' then
      job[#job + 1] = name
      job[#job + 1] = fields[i + 1]
    end
  end
  job[#job + 1] = 'state'
  job[#job + 1] = 'completed'
  job[#job + 1] = 'finishedAt'
  job[#job + 1] = now
  if count > 0 and result ~= '' then
    job[#job + 1] = 'result'
    job[#job + 1] = result
  end
  redis.call('HINCRBY', k.stats, 'completed', 1)
  countThroughput(base, 0, 0, 1, 0)
  settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
  wakeCapped(k, capped)
  return { id, job }
end
