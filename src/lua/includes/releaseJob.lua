--[[
  End a job's lease and give its group's permit back: the one place a permit is released
  (complete, retry, reap), so no path can release it twice. For retry and reap the group comes
  from `leases`, never only from the job hash, so a permit is released even if the hash is gone;
  complete holds the hash (its token matched) and reads the group from it with the token, the
  group its claim wrote to both (DESIGN.md §2 `leases`), and `leases` only for a hash without
  one; it then passes the count to releaseJob as leaseGroup would.

  In two steps, so a caller can refuse before its first write. leaseGroup reads: the job's group
  (permitGroup: its lease's, else its hash's; nil when none is known anywhere) and that group's
  active count field as stored (raw). The
  caller judges the count — checkedActive refuses one that is not an integer within ±(2^53−1)
  (DATA_OUT_OF_RANGE), as complete and retry do; reap skips such a job instead — and passes the
  count to releaseJob, which writes.

  k: k.active (zset), k.leases (hash), k.gactive (hash), k.stats (hash), and groupState's keys.
  base: 'P:{Q}:' (the group's lane key is built from it, includes/keys.lua).
  releaseJob returns, for the caller to settle the group afterwards (settleAfterGain):
    group, laneKey, wasServiceable, wasSaturated — the group's state before the release;
  or nil when no group is known anywhere (the lease, if any, is still ended).
  The active count never goes below 0, and its field is removed at 0 (invariant I3).
]]
--- @include "keys"
--- @include "groupState"
--- @include "groupRanks"

-- The group whose permit a job holds: `leased`, its field of `leases` as read (false for
-- none), else its hash's group (nil when neither names one).
local function permitGroup(leased, jobKey)
  return leased or redis.call('HGET', jobKey, 'group')
end

local function leaseGroup(k, id, jobKey)
  local group = permitGroup(redis.call('HGET', k.leases, id), jobKey)
  if not group then
    return nil, nil
  end
  return group, redis.call('HGET', k.gactive, group)
end

local function releaseJob(k, base, id, group, active)
  local laneKey, wasServiceable, wasSaturated
  if group then
    laneKey = laneKeyOf(base, group)
    wasServiceable, wasSaturated = groupState(k, group, laneKey, active)
  end
  if redis.call('ZREM', k.active, id) == 1 then
    redis.call('HDEL', k.leases, id)
    redis.call('HINCRBY', k.stats, 'active', '-1')
    if group then
      -- gactive and its ranking (includes/groupRanks.lua) in step.
      if active <= 1 then
        redis.call('HDEL', k.gactive, group)
        redis.call('ZREM', activeRankKeyOf(base), group)
      else
        local left = string.format('%d', active - 1)
        redis.call('HSET', k.gactive, group, left)
        redis.call('ZADD', activeRankKeyOf(base), '-' .. left, group)
      end
    end
  end
  if not group then
    return nil
  end
  return group, laneKey, wasServiceable, wasSaturated
end
