--[[
  setLimit — write a group's limit, then reconcile the ring.
  If active >= limit the group is de-ringed at once (a limit below the live count parks it
  until enough jobs finish; 0 parks it outright); if the new limit makes a paused-free group
  with pending work serviceable, it is re-ringed with a wake, without waiting for a completion.
  As in the original design, the de-ring runs whenever active >= limit, even when I1 says the group
  was not on the ring, so a ring left stale by another writer is healed (the original design's claim
  leaves a group with an empty lane on the ring); a later re-ring then cannot duplicate it. That
  LREM is the O(ring) price of a setLimit that parks a group (DESIGN.md §3, "Cost").

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] lane     zset   the group's pending jobs
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters

    ARGV[1] group
    ARGV[2] limit    a non-negative integer (validated by the engine)
    ARGV[3] forMs    '' for a plain call; else ms (1..2,592,000,000, validated by the engine): a
                     timed override (DESIGN.md §4.8) reverting at Redis now + forMs to the limit
                     before the first pending one (includes/overrides.lua)
    ARGV[4] actor    who asks, for the history (includes/history.lua historyArgs)
    ARGV[5] cap      the queue history's cap (count)

  Timed overrides: with forMs, ZADD overrides 'limit:<group>' and HSET goverride (the JSON);
  without, a pending limit revert is dropped (a plain call wins). A timed call that would revert
  to the value it sets is that plain call (includes/overrides.lua steerOverride, DESIGN.md §4.8).
  History (includes/overrides.lua recordSteering; none when nothing changed): one entry, action
  setLimit, before/after { limit, paused, active, pending }, detail { forMs, until } (timed) or {
  cancelled } (a plain call that dropped a pending revert).

  Output: groupReply (includes/groupReply.lua)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1): it could not be compared with the limit exactly (includes/groupState.lua).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset glimit; zadd groups + gseen; zadd/zrem overrides, hset/hdel goverride; xadd history; rpush ring + lpush/ltrim wake (re-ring) or lrem ring
  (de-ring, when it was there); hincrby stats (saturation changed).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "settleGroup"
--- @include "groupReply"
--- @include "history"
--- @include "overrides"
--- @include "ringLog"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]
local limit = ARGV[2]
local forMs = tonumber(ARGV[3])
local h = historyArgs(ARGV[4], ARGV[5])
local member = overrideMember('limit', group)

allowAtMaxmemory(k.glimit)
local before = readGroup(k, group, laneKey)
local judged = judgeFields(k, group, before, 'limit', limit)
redis.call('HSET', k.glimit, group, limit)
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)
if judged.saturated and not judged.wasServiceable then
  levels().leaveRota(k, group)
end
local current = parseLimit(before.limit)
local override, detail = steerOverride(k.base, member, forMs,
  current == nil and cjson.null or current, tonumber(limit), h.actor, before.limitOverride)
judged.after.limitOverride = override
recordSteering(k.base, h, 'setLimit', group, before, judged.after, detail)
return fieldsReply(judged.after)
