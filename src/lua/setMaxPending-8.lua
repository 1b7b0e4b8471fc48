--[[
  setMaxPending — a group's backlog bound: the pending + delayed jobs an enqueue may leave it
  holding (DESIGN.md §3, "Backlog bounds"; the enqueues' side is includes/maxPending.lua). ''
  clears it (the queue's default, if any, applies again). Jobs it already holds stay, whatever
  the bound; the ring and the group's standing (I1) do not change, so nothing is woken.
  Registers the group (ZADD groups + gseen) and records the change in the steering history
  (action setMaxPending, before/after { maxPending }, null for none) when the bound changed.

  Input:
    KEYS[1] glimit   hash   group -> limit (its name gives the base 'P:{Q}:')
    KEYS[2] gactive  hash   group -> active count (read for the reply)
    KEYS[3] ring     list   serviceable groups (unchanged)
    KEYS[4] paused   set    paused groups (read for the reply)
    KEYS[5] wake     list   wake tokens (unchanged)
    KEYS[6] lane     zset   the group's pending jobs (read for the reply)
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters (unchanged)
    Built from the base (includes/keys.lua): gmaxpending, history.

    ARGV[1] group
    ARGV[2] maxPending  a non-negative integer (validated by the engine), or '' to clear it
    ARGV[3] actor    who asks (history)
    ARGV[4] cap      the queue history's cap (count)

  Output: groupReply (includes/groupReply.lua), the bound as set.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset or hdel gmaxpending; zadd groups + gseen; xadd history (bound changed).
  Cost: O(1).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "groupState"
--- @include "groupReply"
--- @include "history"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]
local bound = ARGV[2]
local h = historyArgs(ARGV[3], ARGV[4])

local g = readGroup(k, group, laneKey)
local before = parseLimit(g.maxPending)

allowAtMaxmemory(k.glimit)
if bound == '' then
  redis.call('HDEL', maxPendingKeyOf(k.base), group)
  g.maxPending = false
else
  redis.call('HSET', maxPendingKeyOf(k.base), group, bound)
  g.maxPending = bound
end
registerGroup(groupsKey, k.base, group, nowMs())
local after = parseLimit(g.maxPending)
if before ~= after then
  recordHistory(k.base, h, 'setMaxPending', group, { maxPending = before or cjson.null },
    { maxPending = after or cjson.null }, nil)
end
return fieldsReply(g)
