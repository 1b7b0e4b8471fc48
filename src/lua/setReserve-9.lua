--[[
  setReserve — a group's reserve: the permits of the queue's cap it gets before any group at or
  above its own reserve while permits are scarce (DESIGN.md §3, "The queue's cap and reserves";
  the claim's side is includes/queueCap.lua). 0 deletes it. The sum of the reserves is kept in
  `settings.reserved` beside them, so the cap's rule (the sum never exceeds the cap) is judged
  in O(1). The ring and the group's standing (I1) do not change, so nothing is woken.
  Registers the group (ZADD groups + gseen) and records the change in the steering history
  (action setReserve, before/after { reserve }) when the reserve changed.

  Input:
    KEYS[1] glimit   hash   group -> limit (its name gives the base 'P:{Q}:')
    KEYS[2] gactive  hash   group -> active count (read for the reply)
    KEYS[3] ring     list   serviceable groups (unchanged)
    KEYS[4] paused   set    paused groups (read for the reply)
    KEYS[5] wake     list   wake tokens (unchanged)
    KEYS[6] lane     zset   the group's pending jobs (read for the reply)
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters (unchanged)
    KEYS[9] settings hash   queue settings: limit (the cap), reserved (the sum of the reserves)
    Built from the base (includes/keys.lua): greserve, goverride (a pending timed cap), history.

    ARGV[1] group
    ARGV[2] reserve  a non-negative integer (validated by the engine); 0 clears it
    ARGV[3] actor    who asks (history)
    ARGV[4] cap      the queue history's cap (count)

  Output: { status, groupReply (includes/groupReply.lua) } — status 1 (set; the reply as it
          stands after), or refused with nothing written (BAD_USER_INPUT `reserve`):
          -1 the reserve is above the group's own limit; -2 the sum of the reserves would pass
          the queue's cap, or the cap a pending timed cap reverts to (§4.8).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset or hdel greserve; hincrby settings reserved; zadd groups + gseen; xadd history.
  Cost: O(1).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "groupReply"
--- @include "history"
--- @include "overrides"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local settingsKey = KEYS[9]
local group = ARGV[1]
local reserve = tonumber(ARGV[2])
local h = historyArgs(ARGV[3], ARGV[4])

local g = readGroup(k, group, laneKey)
local before = parseLimit(g.reserve) or 0
local limit = parseLimit(g.limit)
if limit ~= nil and limit < reserve then
  return { -1, fieldsReply(g) }
end
local queue = redis.call('HMGET', settingsKey, 'limit', 'reserved')
local sum = (parseLimit(queue[2]) or 0) - before + reserve
local cap = parseLimit(queue[1])
local pending = readOverride(k.base, overrideMember('queueLimit', ''))
if reserve > before and ((cap ~= nil and sum > cap)
    or (pending ~= nil and pending.revertTo ~= cjson.null and sum > pending.revertTo)) then
  return { -2, fieldsReply(g) }
end

allowAtMaxmemory(k.glimit)
if reserve == 0 then
  redis.call('HDEL', reserveKeyOf(k.base), group)
  g.reserve = false
else
  g.reserve = ARGV[2]
  redis.call('HSET', reserveKeyOf(k.base), group, ARGV[2])
end
if reserve ~= before then
  redis.call('HINCRBY', settingsKey, 'reserved', reserve - before)
end
registerGroup(groupsKey, k.base, group, nowMs())
if before ~= reserve then
  recordHistory(k.base, h, 'setReserve', group, { reserve = before }, { reserve = reserve }, nil)
end
return { 1, fieldsReply(g) }
