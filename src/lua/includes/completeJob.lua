--[[
  Complete an active job whose lease the caller holds (complete): release its group's permit,
  re-ring the group with a wake if that made it serviceable, then keep or forget the job by the
  queue's completed retention (includes/finishCompleted.lua: count 0 deletes the hash and its
  error list; else the hash is kept, state 'completed', in `completed` and its group's index,
  and the oldest past the policy are trimmed).
  completeAndClaim completes by the same rules without calling this: it shares its pieces (the
  lease check's refusals, checkLease; the group of a job, its hash's read with the token; the
  permit's release, readPermits and releasePermits; finishCompleted), but reads and writes once
  per batch what this reads and writes once per job (completeAndClaim-1.lua has the figures).
  The release is releasePermits' for one group: only the active count changes, so the group's
  pause flag and lane are read only when the release takes it below its limit.

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
--- @include "checkLease"
--- @include "releasePermits"
--- @include "finishCompleted"
--- @include "payloads"
--- @include "capWake"
--- @include "throughput"

-- releasePermits' `taken` for one job.
local ONE_TAKEN = { 1 }

local function completeJob(k, jobKey, base, id, token, result)
  -- The lease check (checkLease's holding path) reads the job's group with its token: the
  -- group its claim leased it under (DESIGN.md §2 `leases`); its lease's when the hash has none.
  local held = redis.call('HMGET', jobKey, 'token', 'group')
  if held[1] ~= token or not redis.call('ZSCORE', k.active, id) then
    return checkLease(k.active, jobKey, id, token, k.settings) or LEASE_LOST
  end

  local group = held[2] or redis.call('HGET', k.leases, id) or nil
  local groups = { group }
  local limits, actives = readPermits(k, groups)
  if group and actives[1] == nil then
    checkedActive(k.gactive, group, redis.call('HGET', k.gactive, group)) -- refuses
  end
  redis.call('ZREM', k.active, id)
  redis.call('HDEL', k.leases, id)
  redis.call('HINCRBY', k.stats, 'active', '-1')
  releasePermits(k, base, groups, ONE_TAKEN, limits, actives, groups, 1)
  -- The reply is the hash as it ends: read once, then patched here (the hash is deleted, or
  -- rewritten by finishCompleted below, the same way).
  local fields = jobFields(base, id)
  local count, ageMs, capped = retentionOf(k.settings, 'completed')
  local now = nowMs()
  finishCompleted(k, base, { id }, groups, now, count, ageMs, result ~= '' and { result } or nil)
  -- Patched in place (a table built anew costs an allocation per doubling).
  local length, w = #fields, 0
  for i = 1, length, 2 do
    local name = fields[i]
    if name ~= 'token' and name ~= 'leaseUntil' and name ~= 'state' and name ~= 'finishedAt' then
      fields[w + 1] = name
      fields[w + 2] = fields[i + 1]
      w = w + 2
    end
  end
  fields[w + 1] = 'state'
  fields[w + 2] = 'completed'
  fields[w + 3] = 'finishedAt'
  fields[w + 4] = now
  w = w + 4
  if count > 0 and result ~= '' then
    fields[w + 1] = 'result'
    fields[w + 2] = result
    w = w + 2
  end
  for i = length, w + 1, -1 do
    fields[i] = nil
  end
  redis.call('HINCRBY', k.stats, 'completed', '1')
  countThroughput(base, 0, 0, 1, 0)
  wakeCapped(k, capped)
  return { id, fields }
end
