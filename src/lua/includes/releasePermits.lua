--[[
  Give permits back to several groups at once (completeAndClaim's completions; complete's one,
  includes/completeJob.lua): `groups` lists each group once, `taken[i]` how many of the batch of
  leases just ended were groups[i]'s, and groupOf[j] (j = 1..released) the group of the batch's
  j-th job (nil for none). Each group's active count drops by its taken (its field removed at 0,
  never negative: invariant I3).

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
  limits, actives, the i-th of groups[i] (parseLimit, parseActive: a limit nil for none, an
  active count nil when it is not an integer within ±(2^53−1), includes/groupState.lua) — the
  caller completes none of that group's jobs, and releasePermits passes over it.

  k: glimit, gactive, ring, paused, wake, stats. base: 'P:{Q}:' (lane keys are built from it,
  includes/keys.lua).
  Events: hset/hdel gactive; zadd/zrem gactiverank; rpush ring + lpush/ltrim wake and hincrby stats (re-ring).
]]
--- @include "keys"
--- @include "settleGroup"
--- @include "groupRanks"

-- The commonest limits and counts, read without parseLimit's and parseActive's tonumber and
-- format (each about a command's dispatch): '0'..'9' are what both answer for them.
local SMALL_COUNTS = { ['0'] = 0, ['1'] = 1, ['2'] = 2, ['3'] = 3, ['4'] = 4, ['5'] = 5,
  ['6'] = 6, ['7'] = 7, ['8'] = 8, ['9'] = 9 }

local function readPermits(k, groups)
  if #groups == 0 then
    return {}, {}
  end
  local limits = redis.call('HMGET', k.glimit, unpack(groups))
  local actives = redis.call('HMGET', k.gactive, unpack(groups))
  -- Parsed in place: the replies are the answer (no table more per call or per group).
  for i = 1, #groups do
    limits[i] = SMALL_COUNTS[limits[i]] or parseLimit(limits[i])
    actives[i] = SMALL_COUNTS[actives[i]] or parseActive(actives[i])
  end
  return limits, actives
end

-- The place in the batch (1..released) of the nth of `group`'s completions: asked only of a
-- group its completions freed.
local function nthOf(groupOf, released, group, nth)
  for j = 1, released do
    if groupOf[j] == group then
      nth = nth - 1
      if nth == 0 then
        return j
      end
    end
  end
end

local function releasePermits(k, base, groups, taken, limits, actives, groupOf, released)
  local keep, drop, freed
  for i = 1, #groups do
    local before = actives[i]
    -- nil: a count refused by the caller (none of its jobs completed).
    if before ~= nil then
      local group = groups[i]
      local after = before - taken[i]
      if after > 0 then
        keep = keep or {}
        keep[#keep + 1] = group
        keep[#keep + 1] = string.format('%d', after)
      else
        drop = drop or {}
        drop[#drop + 1] = group
        after = 0
      end
      local limit = limits[i]
      if isSaturated(limit, before) and not isSaturated(limit, after) then
        -- The (before - limit + 1)-th of its completions is the one that freed it.
        freed = freed or {}
        freed[#freed + 1] = { at = nthOf(groupOf, released, group, before - limit + 1),
          group = group, limit = limit, active = after }
      end
    end
  end
  -- gactive and its ranking (includes/groupRanks.lua) in step.
  if keep then
    redis.call('HSET', k.gactive, unpack(keep))
    setActiveRanks(base, keep)
  end
  if drop then
    redis.call('HDEL', k.gactive, unpack(drop))
    dropActiveRanks(base, drop)
  end
  if freed == nil then
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
