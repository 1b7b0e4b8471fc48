--[[
  setRateLimit — at most `max` claims of a group per `windowMs` (DESIGN.md §3, "Rate limits";
  includes/rateLimit.lua), on top of its concurrency limit; then settle the ring. The current
  window (`gwindow`) is judged again under the new rate: one that has ended under the new
  length is forgotten (the next claim starts a new one); one still open whose claims reach the
  new max rate-limits the group until it ends (ZADD `ratelimited`, de-ring: an LREM, the
  O(ring) price of a change that takes a group off the ring, as setLimit's park); one below the
  new max frees a rate-limited group at once (ZREM, re-ring with a wake when serviceable).

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
    ARGV[2] max        claims per window, an integer 1..1,000,000 (validated by the engine)
    ARGV[3] windowMs   the window's length, ms, an integer 1..2,592,000,000 (validated)
    ARGV[4] actor      who asked (history, includes/history.lua historyArgs)
    ARGV[5] cap        the queue history stream's cap (count)

  Built keys (includes/keys.lua, from the base): grate, gwindow, ratelimited, the history
  streams, and readGroup's.

  Output: groupReply (includes/groupReply.lua), the group after.
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) and a limit is set (includes/groupState.lua).

  Memory: runs at maxmemory (includes/allowAtMaxmemory.lua): a few bytes at most.

  History: when the rate changed, one entry: action setRateLimit, before and after
  { rateLimit: { max, windowMs } or null } (the same rate again records nothing).

  Events: hset grate; hdel gwindow (window over); zadd or zrem ratelimited; zadd groups + gseen; rpush
  ring + lpush/ltrim wake (re-ring) or lrem ring (de-ring); xadd history (rate
  changed).
]]
--- @include "allowAtMaxmemory"
--- @include "registry"
--- @include "nowMs"
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
local max = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local rate = ARGV[2] .. ':' .. ARGV[3]

allowAtMaxmemory(k.glimit)
local before = readGroup(k, group, laneKey)
local now = nowMs()
local windowKey = rateWindowKeyOf(k.base)
local start, claims = parseWindow(redis.call('HGET', windowKey, group))
local limitedUntil = false
if start ~= nil and now < start + windowMs then
  if claims >= max then
    limitedUntil = string.format('%d', start + windowMs)
  end
else
  start = nil
end
-- Judged before the first write below (standing refuses an active count it cannot read).
local judged = judgeFields(k, group, before, 'rateLimitedUntil', limitedUntil)
judged.after.rate = rate

redis.call('HSET', rateKeyOf(k.base), group, rate)
if start == nil then
  redis.call('HDEL', windowKey, group)
end
if limitedUntil then
  redis.call('ZADD', rateLimitedKeyOf(k.base), limitedUntil, group)
else
  redis.call('ZREM', rateLimitedKeyOf(k.base), group)
end
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)

-- History: only a change of the rate is an entry (a call that changes nothing records nothing).
if before.rate ~= rate then
  recordHistory(k.base, historyArgs(ARGV[4], ARGV[5]), 'setRateLimit', group,
    rateState(before.rate), rateState(rate))
end
return fieldsReply(judged.after)
