--[[
  resume — clear the paused flag; re-ring the group with a wake only if it is serviceable
  (a group at its limit stays off until a permit frees; an empty one until work arrives).

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
    ARGV[2] forMs    '' for a plain call; else ms (1..2,592,000,000, validated by the engine): a
                     timed resume (DESIGN.md §4.8) reverting at Redis now + forMs to whether the
                     group was paused before the first pending override of the pause kind
                     (includes/overrides.lua): a paused group is paused again
    ARGV[3] actor    who asks, for the history (includes/history.lua historyArgs)
    ARGV[4] cap      the queue history's cap (count)

  Timed overrides: an override of the pause kind (member 'pause:<group>'), as pause's: with forMs,
  ZADD overrides and HSET goverride; without, a pending pause revert is dropped (a plain call
  wins). A timed call that would revert to the value it sets is that plain call
  (includes/overrides.lua steerOverride, DESIGN.md §4.8). History (includes/overrides.lua
  recordSteering; none when nothing changed): one entry, action resume, before/after { limit,
  paused, active, pending }, detail { forMs, until } (timed) or { cancelled } when a plain call
  dropped a pending revert.

  Output: groupReply (includes/groupReply.lua)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group has a limit and its active count
  is not an integer within ±(2^53−1) (includes/groupState.lua).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: srem paused; zadd groups + gseen; zadd/zrem overrides, hset/hdel goverride; xadd history;
  rpush ring + lpush/ltrim wake (re-ring).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "settleGroup"
--- @include "groupReply"
--- @include "history"
--- @include "overrides"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]
local forMs = tonumber(ARGV[2])
local h = historyArgs(ARGV[3], ARGV[4])
local member = overrideMember('pause', group)

allowAtMaxmemory(k.paused)
local before = readGroup(k, group, laneKey)
local judged = judgeFields(k, group, before, 'paused', 0)
redis.call('SREM', k.paused, group)
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)
-- judged.after was read before this write: the reply carries the override now pending.
local override, detail = steerOverride(k.base, member, forMs, before.paused == 1, false, h.actor,
  before.pauseOverride)
judged.after.pauseOverride = override
recordSteering(k.base, h, 'resume', group, before, judged.after, detail)
return fieldsReply(judged.after)
