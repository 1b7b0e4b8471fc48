--[[
  End a job's lease and give its group's permit back: the one place a permit is released
  (complete, retry, reap), so no path can release it twice. The group comes from `leases`,
  never only from the job hash, so a permit is released even if the hash is gone.

  k: k.active (zset), k.leases (hash), k.gactive (hash), k.stats (hash), and groupState's keys.
  base: 'P:{Q}:' (the group's lane key is built from it).
  Returns, for the caller to settle the group afterwards (settleAfterGain):
    group, laneKey, wasServiceable, wasSaturated — the group's state before the release;
  or nil when no group is known anywhere (the lease, if any, is still ended).
  The active count never goes below 0, and its field is removed at 0 (invariant I3).
]]
--- @include "groupState"

local function releaseJob(k, base, id, jobKey)
  local group = redis.call('HGET', k.leases, id) or redis.call('HGET', jobKey, 'group')
  local laneKey, wasServiceable, wasSaturated
  if group then
    laneKey = base .. 'g:' .. group .. ':pending'
    wasServiceable, wasSaturated = groupState(k, group, laneKey)
  end
  if redis.call('ZREM', k.active, id) == 1 then
    redis.call('HDEL', k.leases, id)
    redis.call('HINCRBY', k.stats, 'active', -1)
    if group and redis.call('HINCRBY', k.gactive, group, -1) <= 0 then
      redis.call('HDEL', k.gactive, group)
    end
  end
  if not group then
    return nil
  end
  return group, laneKey, wasServiceable, wasSaturated
end
