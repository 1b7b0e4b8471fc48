--[[
  setWeight — a group's weight: the turns it gets in a row each time the rota comes round to it
  (DESIGN.md §3, "Weights"; includes/weights.lua). Weight 1, the default, deletes the field.
  The ring is not reordered and the group's standing (I1) does not change, with one exception:
  the turns the group has taken in the current round count against the new weight, so when a
  lowered weight is already reached (the group mid-round at the head of the ring), its round
  ends now — its count is reset and it moves from the head to the tail (LPOP + RPUSH, O(1)), as
  the claim would have moved it. A raised weight lets a round in progress go on to it.
  Registers the group (ZADD groups) and records the change in the steering history
  (includes/history.lua: action setWeight, before { weight }, after { weight }) when the weight
  changed (a call that changes nothing records nothing).

  Input:
    KEYS[1] glimit   hash   group -> limit (its name gives the base 'P:{Q}:')
    KEYS[2] gactive  hash   group -> active count (read for the reply)
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups (read for the reply)
    KEYS[5] wake     list   wake tokens (unchanged: a weight makes no group serviceable)
    KEYS[6] lane     zset   the group's pending jobs (read for the reply)
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters (unchanged)
    Built from the base (includes/keys.lua): gweight, gturns, history; prioritized and
    levels (includes/levels.lua), for a group at the head of another level's rota.

    ARGV[1] group
    ARGV[2] weight   an integer 1..1,000 (validated by the engine)
    ARGV[3] actor    who asks (history)
    ARGV[4] cap      the queue history's cap (count)

  Output: groupReply (includes/groupReply.lua), the weight as set.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset or hdel gweight; hdel gturns (a round ended or weight 1); lpop + rpush ring (a
  round ended at the head); zadd groups + gseen; xadd history (weight changed).

  Cost: O(1) (HGETs, an LINDEX 0, at most one LPOP + RPUSH; the history's XADD with an exact
  MAXLEN trims what it passes).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "groupReply"
--- @include "history"
--- @include "weights"
--- @include "ringLog"
--- @include "levels"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]
local weight = tonumber(ARGV[2])
local h = historyArgs(ARGV[3], ARGV[4])

local g = readGroup(k, group, laneKey)
local before = parseWeight(g.weight)
local turnsKey = turnsKeyOf(k.base)
local turns = safeInteger(redis.call('HGET', turnsKey, group)) or 0

allowAtMaxmemory(k.glimit)
if weight == 1 then
  redis.call('HDEL', weightKeyOf(k.base), group)
  g.weight = false
else
  g.weight = string.format('%d', weight)
  redis.call('HSET', weightKeyOf(k.base), group, g.weight)
end
if turns > 0 and turns >= weight then
  -- Its round is over under the new weight: a fresh one next time, from the tail.
  if redis.call('LINDEX', k.ring, 0) == group then
    redis.call('LPOP', k.ring)
    redis.call('RPUSH', k.ring, group)
    logRingPop(k.ring, 1)
    logRingPush(k.ring, { group }, 1)
  elseif levels().isLeveled(k.base) then
    -- The head of its level's rota, the same (DESIGN.md §3, "Levels").
    levels().headToTail(k, k.base, group)
  end
end
if weight == 1 or turns >= weight then
  redis.call('HDEL', turnsKey, group)
end
registerGroup(groupsKey, k.base, group, nowMs())
if before ~= weight then
  recordHistory(k.base, h, 'setWeight', group, { weight = before }, { weight = weight }, nil)
end
return fieldsReply(g)
