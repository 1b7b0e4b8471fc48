--[[
  Bring the ring and the saturated counter in line with a group's new state, given its state
  before the script changed it (both from groupState). Re-ring happens only on the transition
  to serviceable, so membership never needs an LPOS scan: by I1 a group that was not
  serviceable was not on the ring. The only O(ring) step is the LREM of a de-ring from the
  middle of the ring (DESIGN.md §3, "Cost").

  k: k.ring (list), k.wake (list), k.stats (hash), plus groupState's keys.
  Events: rpush on ring and lpush/ltrim on wake (re-ring), lrem on ring (de-ring),
  hincrby on stats (saturated changed).
]]
--- @include "groupState"

local WAKE_LENGTH = 64

-- Put a group that just became serviceable at the tail of the ring, and wake a parked worker.
local function reRing(k, group)
  redis.call('RPUSH', k.ring, group)
  redis.call('LPUSH', k.wake, '1')
  redis.call('LTRIM', k.wake, 0, WAKE_LENGTH - 1)
end

local function settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
  local serviceable, saturated = groupState(k, group, laneKey)
  if serviceable and not wasServiceable then
    reRing(k, group)
  elseif wasServiceable and not serviceable then
    redis.call('LREM', k.ring, 0, group)
  end
  if saturated ~= wasSaturated then
    redis.call('HINCRBY', k.stats, 'saturated', saturated and 1 or -1)
  end
end

--[[
  settleGroup for a change that can only help the group (a job added to its lane, a permit
  released): a group that was serviceable still is, and was and stays below its limit, so there
  is nothing to settle and its state need not be read again — the common case on a busy queue.
]]
local function settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
  if not wasServiceable then
    settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
  end
end
