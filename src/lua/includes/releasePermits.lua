--[[
  Give permits back to several groups at once (completeAndClaim's completions): `positions`
  maps each group in `groups` to the places, ascending, of its jobs in the batch of leases just
  ended. Each group's active count drops by that many (its field removed at 0, never negative:
  invariant I3).

  Only the active count changes, so the group's standing can change in one way only: a group
  that was saturated (active >= limit) and no longer is (isSaturated before and after, in
  includes/groupState.lua). Then the saturated counter drops, and the group is re-ringed with a
  wake if it is now serviceable (isServiceable, which reads its pause flag and lane): the
  transition to serviceable (I1). A group that was below its limit, or has none, was either serviceable
  already or is held off by its pause or its empty lane, which a release does not change: so
  nothing of it is read but its limit and count, two HMGETs for all the groups together.
  Groups are re-ringed in the order of the completion that took each below its limit, as one
  complete after another would have.

  The limits and counts are read first, by readPermits, before the caller writes anything:
  { [group] = { limit, active } }, active nil for a count that is not an integer within
  ±(2^53−1) (includes/groupState.lua) — the caller completes none of that group's jobs.

  k: glimit, gactive, ring, paused, wake, stats. base: 'P:{Q}:' (lane keys are built from it,
  includes/keys.lua).
  Events: hset/hdel gactive; zadd/zrem gactiverank; rpush ring + lpush/ltrim wake and hincrby stats (re-ring).
]]
--- @include "keys"
--- @include "settleGroup"
--- @include "groupRanks"

local function readPermits(k, groups)
  local counts = {}
  if #groups == 0 then
    return counts
  end
  local limits = redis.call('HMGET', k.glimit, unpack(groups))
  local actives = redis.call('HMGET', k.gactive, unpack(groups))
  for i, group in ipairs(groups) do
    counts[group] = { limit = parseLimit(limits[i]), active = parseActive(actives[i]) }
  end
  return counts
end

local function releasePermits(k, base, groups, positions, counts)
  if #groups == 0 then
    return
  end
  local keep, drop, freed = {}, {}, {}
  for _, group in ipairs(groups) do
    local before = counts[group].active
    local mine = positions[group]
    local after = before - #mine
    if after > 0 then
      keep[#keep + 1] = group
      keep[#keep + 1] = string.format('%d', after)
    else
      drop[#drop + 1] = group
      after = 0
    end
    local limit = counts[group].limit
    if isSaturated(limit, before) and not isSaturated(limit, after) then
      -- The (before - limit + 1)-th of its completions is the one that freed it.
      freed[#freed + 1] = { at = mine[before - limit + 1], group = group, limit = limit,
        active = after }
    end
  end
  -- gactive and its ranking (includes/groupRanks.lua) in step.
  if #keep > 0 then
    redis.call('HSET', k.gactive, unpack(keep))
    setActiveRanks(base, keep)
  end
  if #drop > 0 then
    redis.call('HDEL', k.gactive, unpack(drop))
    dropActiveRanks(base, drop)
  end
  if #freed == 0 then
    return
  end
  table.sort(freed, function(a, b)
    return a.at < b.at
  end)
  for _, f in ipairs(freed) do
    -- Below its limit now, so I1 turns on its pause flag and its lane, read here.
    if isServiceable(k, f.group, laneKeyOf(base, f.group), f.limit, f.active) then
      reRing(k, f.group)
    end
  end
  redis.call('HINCRBY', k.stats, 'saturated', -#freed)
end
