--[[
  The guard of complete, retry and extendLease (invariant I5): the job must be active and
  hold the caller's token. A reaped-then-reclaimed job has a new token, so a stale worker's
  token can never act on it.

  Returns nil when the caller holds the lease, else a status code:
    -1  JOB_NOT_FOUND  no job hash (never enqueued, completed, or deleted by hand; in the
                       last case the reaper still releases the permit from `leases`), or a
                       completed or dead job past its retention age, gone to every read
                       though no trim has reached it yet (DESIGN.md §2, Retention;
                       includes/retentionAge.lua, `settingsKey`'s policies, Redis clock)
    -2  LEASE_LOST     the job exists but is not active, or the token does not match
  The holding path costs what it did (HGET, ZSCORE); only a refusal reads the state, and the
  retention only for a finished job. complete and completeAndClaim make the holding check
  themselves, reading the job's group with its token (HMGET), and ask checkLease only for why
  a lease is not held.
]]
--- @include "nowMs"
--- @include "retentionAge"

local JOB_NOT_FOUND = -1
local LEASE_LOST = -2

local function checkLease(activeKey, jobKey, id, token, settingsKey)
  -- The token first: on the common (holding) path that is two reads, not three.
  if redis.call('HGET', jobKey, 'token') == token and redis.call('ZSCORE', activeKey, id) then
    return nil
  end
  local job = redis.call('HMGET', jobKey, 'state', 'finishedAt')
  if not job[1] and redis.call('EXISTS', jobKey) == 0 then
    return JOB_NOT_FOUND
  end
  if finishedPast(settingsKey, job[1], job[2], nowMs()) then
    return JOB_NOT_FOUND
  end
  return LEASE_LOST
end
