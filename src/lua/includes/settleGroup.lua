--[[
  Bring the ring and the saturated counter in line with a group's new state, given its state
  before the script changed it (both from groupState). Re-ring happens only on the transition
  to serviceable, so membership never needs an LPOS scan: by I1 a group that was not
  serviceable was not on the ring. The only O(ring) step is the LREM of a de-ring from the
  middle of the ring (DESIGN.md §3, "Cost").

  reRing(k, group, level) puts one group at the tail of its rota with a fresh round of its weight
  and a wake token: the ring's, or in a queue with levels (includes/levels.lua) that of its lane
  head's level, `level` when the caller knows it (else read); reRingAll(k, base, groups, n) puts
  groups[1..n] at the ring's tail in one RPUSH, one HDEL of their turns, one LPUSH of a token
  each (at most WAKE_LENGTH) and one LTRIM (enqueueMany's batch, whose jobs are all of the
  default level and whose lanes were empty; base 'P:{Q}:', whose gturns it names). A de-ring takes the
  group off whichever rota holds it, and a group that stays serviceable while its lane changed
  (applyStanding, settleAfterGain with `added`) is re-levelled.

  k: k.ring (list), k.wake (list), k.stats (hash), plus groupState's keys.
  Events: rpush on ring and lpush/ltrim on wake (re-ring), lrem on ring (de-ring),
  hincrby on stats (saturated changed); each change of the ring logged while it is watched
  (includes/ringLog.lua).
]]
--- @include "keys"
--- @include "groupState"
--- @include "weights"
--- @include "ringLog"
--- @include "levels"

-- Put a group that just became serviceable at the tail of the ring, and wake a parked worker.
local function reRing(k, group, level)
  -- Its level is its lane head's (includes/levels.lua), read only in a queue with levels. A
  -- re-ring follows most completions of a group at its limit, so a queue known to have none
  -- (leveledQueue false) makes no call more than before, and one not asked yet asks in one
  -- EXISTS with the ring log's question, which a re-ring asks anyway (includes/ringLog.lua).
  if level == nil and leveledQueue ~= false then
    local base = baseOf(k.ring, 'ring')
    if leveledQueue == nil then
      local marker = prioritizedKeyOf(base)
      local present = redis.call('EXISTS', ringWatchedKeyOf(base), marker, marker)
      knownRingWatched(present % 2 == 1)
      leveledQueue = present >= 2
    end
    if leveledQueue then
      level = levels().headLevel(laneKeyOf(base, group)) or DEFAULT_PRIORITY
    end
  end
  if level ~= nil and level ~= DEFAULT_PRIORITY then
    levels().enterRota(k, baseOf(k.ring, 'ring'), group, level)
  else
    redis.call('RPUSH', k.ring, group)
    logRingPush(k.ring, { group }, 1)
  end
  resetTurns(k.ring, group) -- a fresh round of its weight (includes/weights.lua)
  redis.call('LPUSH', k.wake, '1')
  redis.call('LTRIM', k.wake, 0, WAKE_LENGTH - 1)
end

-- The ring and the saturated counter for a change of standing already known on both sides.
local function reRingAll(k, base, groups, n)
  if n == 1 then
    reRing(k, groups[1], DEFAULT_PRIORITY)
    return
  end
  redis.call('RPUSH', k.ring, unpack(groups, 1, n))
  logRingPush(k.ring, groups, n)
  -- A fresh round of each one's weight (includes/weights.lua, resetTurns).
  redis.call('HDEL', turnsKeyOf(base), unpack(groups, 1, n))
  local tokens = {}
  for i = 1, math.min(n, WAKE_LENGTH) do
    tokens[i] = '1'
  end
  redis.call('LPUSH', k.wake, unpack(tokens))
  redis.call('LTRIM', k.wake, 0, WAKE_LENGTH - 1)
end

local function applyStanding(k, group, wasServiceable, wasSaturated, serviceable, saturated)
  if serviceable and not wasServiceable then
    reRing(k, group)
  elseif wasServiceable and not serviceable then
    levels().leaveRota(k, group)
  elseif serviceable then
    -- Its lane may have changed (a removal, a purge): its head's level says its rota.
    levels().relevel(k, group, laneKeyOf(baseOf(k.ring, 'ring'), group))
  end
  if saturated ~= wasSaturated then
    redis.call('HINCRBY', k.stats, 'saturated', saturated and 1 or -1)
  end
end

local function settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
  local serviceable, saturated = groupState(k, group, laneKey)
  applyStanding(k, group, wasServiceable, wasSaturated, serviceable, saturated)
end

--[[
  settleGroup for a steering script (setLimit, clearLimit, resume) that read the group's fields
  once (readGroup) and changes one of them, in two steps. judgeFields, before the script's first
  write: the state before and after the change, judged from the fields rather than read again
  (it refuses an active count it cannot read exactly — standing — so nothing has been written
  yet). settleJudged, after the write: the ring and the saturated counter brought in line.
  judgeFields returns { after = the group's fields after the change, wasServiceable, wasSaturated,
  serviceable, saturated }.
]]
local function judgeFields(k, group, before, field, value)
  local after = {}
  for name, v in pairs(before) do
    after[name] = v
  end
  after[field] = value
  local wasServiceable, wasSaturated = standing(k, group, before)
  local serviceable, saturated = standing(k, group, after)
  return {
    after = after, wasServiceable = wasServiceable, wasSaturated = wasSaturated,
    serviceable = serviceable, saturated = saturated,
  }
end

local function settleJudged(k, group, j)
  applyStanding(k, group, j.wasServiceable, j.wasSaturated, j.serviceable, j.saturated)
end

--[[
  settleGroup for a change that can only help the group (a job added to its lane, a permit
  released): a group that was serviceable still is, and was and stays below its limit, so there
  is nothing to settle and its state need not be read again — the common case on a busy queue.
  `added`: jobs went to its lane, so a group that was serviceable may have a more urgent head
  (re-levelled; nothing read in a queue without levels).
]]
local function settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated, added)
  if not wasServiceable then
    settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
  elseif added and leveledQueue ~= false then
    levels().relevel(k, group, laneKey)
  end
end
