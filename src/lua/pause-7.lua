--[[
  pause — mark the group paused and drop it from the ring. Its backlog and
  its active jobs are untouched: pause stops new turns, it cancels and drains nothing.
  The LREM runs whether or not I1 says the group was on the ring, as the original design's does, so
  a ring left stale by another writer is healed too; pause is the one O(ring) step by design.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] lane     zset   the group's pending jobs
    KEYS[6] groups   zset   group registry
    KEYS[7] stats    hash   counters (unchanged; named for the reply's key table)

    ARGV[1] group
    ARGV[2] forMs    '' for a plain call; else ms (1..2,592,000,000, validated by the engine): a
                     timed pause (DESIGN.md §4.8) reverting at Redis now + forMs to whether the
                     group was paused before the first pending one (includes/overrides.lua)
    ARGV[3] actor    who asks, for the history (includes/history.lua historyArgs)
    ARGV[4] cap      the queue history's cap (count)

  Timed overrides: with forMs, ZADD overrides 'pause:<group>' and HSET goverride (the JSON);
  without, a pending pause revert is dropped (a plain call wins). A timed call that would revert
  to the value it sets is that plain call (includes/overrides.lua steerOverride, DESIGN.md §4.8).
  History (includes/overrides.lua recordSteering; none when nothing changed): one entry, action
  pause, before/after { limit, paused, active, pending }, detail { forMs, until } (timed) or {
  cancelled } (a plain call that dropped a pending revert).

  Output: groupReply (includes/groupReply.lua)

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: sadd paused; lrem ring (when it was there); zadd groups + gseen; zadd/zrem overrides,
  hset/hdel goverride; xadd history.
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "groupReply"
--- @include "history"
--- @include "overrides"
--- @include "ringLog"
--- @include "levels"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], stats = KEYS[7],
}
local laneKey = KEYS[5]
local groupsKey = KEYS[6]
local group = ARGV[1]
local forMs = tonumber(ARGV[2])
local h = historyArgs(ARGV[3], ARGV[4])
local member = overrideMember('pause', group)

allowAtMaxmemory(k.paused)
local before = readGroup(k, group, laneKey)
redis.call('SADD', k.paused, group)
levels().leaveRota(k, group)
registerGroup(groupsKey, k.base, group, nowMs())
local _, detail = steerOverride(k.base, member, forMs, before.paused == 1, true, h.actor,
  before.pauseOverride)
local after = readGroup(k, group, laneKey)
recordSteering(k.base, h, 'pause', group, before, after, detail)
return fieldsReply(after)
