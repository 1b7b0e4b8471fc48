--[[
  cancelOverride — drop a group's pending timed override of one kind (DESIGN.md §4.8): the value
  it set stays, and nothing reverts it. Nothing pending: nothing is written (no history entry).
  Neither the ring nor any count changes: the group's limit and pause are what they were.

  Input:
    KEYS[1] glimit   hash   group -> limit (read for the reply)
    KEYS[2] gactive  hash   group -> active count (read for the reply)
    KEYS[3] paused   set    paused groups (read for the reply)
    KEYS[4] lane     zset   the group's pending jobs (read for the reply)
    Built from base (KEYS[1] less 'glimit', includes/keys.lua): overrides, goverride, history.

    ARGV[1] group
    ARGV[2] kind     'limit' or 'pause' (validated by the engine)
    ARGV[3] actor    who asks, for the history (includes/history.lua historyArgs)
    ARGV[4] cap      the queue history's cap (count)

  Output: groupReply (includes/groupReply.lua), after the call.
  One history entry when something was dropped: action cancelOverride, before/after
  { limit, paused, active, pending } (equal), detail { kind, cancelled = the override }.

  Memory: runs at maxmemory (noeviction): it removes, and adds a history entry at most; see
  includes/allowAtMaxmemory.lua.

  Events: zrem overrides, hdel goverride, xadd history (only when one was pending).
  Cost: O(log n).
]]
--- @include "allowAtMaxmemory"
--- @include "groupReply"
--- @include "history"
--- @include "overrides"

local k = {
  base = baseOf(KEYS[1], 'glimit'), glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3],
}
local laneKey = KEYS[4]
local group = ARGV[1]
local kind = ARGV[2]
local h = historyArgs(ARGV[3], ARGV[4])
local member = overrideMember(kind, group)

if redis.call('ZSCORE', overridesKeyOf(k.base), member)
  or redis.call('HEXISTS', overrideDataKeyOf(k.base), member) == 1 then
  allowAtMaxmemory(k.glimit)
  local o = dropOverride(k.base, member)
  local g = readGroup(k, group, laneKey)
  recordHistory(k.base, h, 'cancelOverride', group, groupBrief(g), groupBrief(g),
    { kind = kind, cancelled = o or {} })
end
return groupReply(k, group, laneKey)
