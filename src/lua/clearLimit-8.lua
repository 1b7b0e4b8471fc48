--[[
  clearLimit — remove a group's limit (unlimited from now on); re-ring it with a wake if that
  makes it serviceable.

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
    ARGV[2] actor    who asks, for the history (includes/history.lua historyArgs)
    ARGV[3] cap      the queue history's cap (count)

  A plain call of the limit kind: a pending timed limit revert (DESIGN.md §4.8) is dropped.
  History (includes/overrides.lua recordSteering; none when nothing changed): one entry, action
  clearLimit, before/after { limit, paused, active, pending }, detail { cancelled } when it
  dropped a pending revert.

  Output: groupReply (includes/groupReply.lua)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group had a limit and its active count
  is not an integer within ±(2^53−1) (includes/groupState.lua).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hdel glimit; zadd groups + gseen; zrem overrides, hdel goverride; xadd history; rpush ring + lpush/ltrim wake (re-ring);
  hincrby stats (saturation changed).
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
local h = historyArgs(ARGV[2], ARGV[3])

allowAtMaxmemory(k.glimit)
local before = readGroup(k, group, laneKey)
local judged = judgeFields(k, group, before, 'limit', false)
redis.call('HDEL', k.glimit, group)
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)
local detail =
  cancelledDetail(dropOverride(k.base, overrideMember('limit', group), before.limitOverride))
judged.after.limitOverride = false
recordSteering(k.base, h, 'clearLimit', group, before, judged.after, detail)
return fieldsReply(judged.after)
