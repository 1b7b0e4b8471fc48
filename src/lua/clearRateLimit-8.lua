--[[
  clearRateLimit — remove a group's rate limit (DESIGN.md §3, "Rate limits";
  includes/rateLimit.lua): its rate, its current window and its place in `ratelimited` go, so a
  rate-limited group is freed at once (re-ringed with a wake when serviceable). A group with no
  rate limit is left as it is (the call still registers it and records the history).

  Input:
    KEYS[1] glimit   hash   group -> limit (its name gives the base of the operations keys)
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] lane     zset   the group's pending jobs
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters

    ARGV[1] group
    ARGV[2] actor    who asked (history, includes/history.lua historyArgs)
    ARGV[3] cap      the queue history stream's cap (count)

  Built keys (includes/keys.lua, from the base): grate, gwindow, ratelimited, the history
  streams, and readGroup's.

  Output: groupReply (includes/groupReply.lua), the group after.
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) and a limit is set (includes/groupState.lua).

  Memory: runs at maxmemory (includes/allowAtMaxmemory.lua).

  History: when the group had a rate, one entry: action clearRateLimit, before
  { rateLimit: { max, windowMs } }, after { rateLimit: null } (no rate: nothing recorded).

  Events: hdel grate and gwindow; zrem ratelimited; zadd groups + gseen; rpush ring + lpush/ltrim wake
  (re-ring); xadd history (a rate removed).
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "registry"
--- @include "settleGroup"
--- @include "groupReply"
--- @include "history"
--- @include "rateLimit"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]

allowAtMaxmemory(k.glimit)
local before = readGroup(k, group, laneKey)
-- Judged before the first write below (standing refuses an active count it cannot read).
local judged = judgeFields(k, group, before, 'rateLimitedUntil', false)
judged.after.rate = false

redis.call('HDEL', rateKeyOf(k.base), group)
redis.call('HDEL', rateWindowKeyOf(k.base), group)
redis.call('ZREM', rateLimitedKeyOf(k.base), group)
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)

-- History: only a rate removed is an entry (a group with none records nothing).
if before.rate then
  recordHistory(k.base, historyArgs(ARGV[2], ARGV[3]), 'clearRateLimit', group,
    rateState(before.rate), rateState(false))
end
return fieldsReply(judged.after)
