--[[
  Complete an active job whose lease the caller holds (shared by complete and
  completeAndClaim): release its group's permit, re-ring the group with a wake if that made it
  serviceable, and delete the job hash (retention: completed jobs are counted, not kept).

  k: glimit, gactive, ring, paused, wake, active, leases, stats. jobKey: the job's hash.
  base: 'P:{Q}:' (the lane of the job's group is built from it).
  Returns { id, job fields as they were, state 'completed' }, or a checkLease status code.
]]
--- @include "nowMs"
--- @include "settleGroup"
--- @include "checkLease"
--- @include "releaseJob"

local function completeJob(k, jobKey, base, id, token)
  local denied = checkLease(k.active, jobKey, id, token)
  if denied then
    return denied
  end

  local group = redis.call('HGET', k.leases, id) or redis.call('HGET', jobKey, 'group')
  local laneKey = base .. 'g:' .. group .. ':pending'
  local wasServiceable, wasSaturated = groupState(k, group, laneKey)
  releaseJob(k, id, jobKey)
  redis.call('HDEL', jobKey, 'token', 'leaseUntil')
  redis.call('HSET', jobKey, 'state', 'completed', 'finishedAt', nowMs())
  local job = redis.call('HGETALL', jobKey)
  redis.call('DEL', jobKey)
  redis.call('HINCRBY', k.stats, 'completed', 1)
  settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
  return { id, job }
end
