--[[
  setRateLimit — a token bucket per group: `max` tokens refill per `windowMs`, at most `burst`
  held (DESIGN.md §3, "Rate limits"; includes/rateLimit.lua), on top of its concurrency limit;
  then settle the ring. The bucket (`gwindow`) is judged again under the new rate: its state
  under the rate before (no rate or no field before: full, under the new burst; whole windows
  folded in), its
  tokens at most the new burst, then refilled under the new one (no field when full); when the
  whole tokens fall short of the head job's cost (at most burst; 1 for an empty lane) the group
  is rate-limited until they refill (ZADD
  `ratelimited`, de-ring: an LREM, the O(ring) price of a change that takes a group off the
  ring, as setLimit's park); otherwise a rate-limited group is freed at once (ZREM, re-ring with
  a wake when serviceable).

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
    ARGV[2] max        tokens refilled per window, an integer 1..1,000,000 (validated by the engine)
    ARGV[3] windowMs   the window's length, ms, an integer 1..2,592,000,000 (validated)
    ARGV[4] burst      tokens the bucket holds at most, an integer 1..1,000,000 (validated)
    ARGV[5] actor      who asked (history, includes/history.lua historyArgs)
    ARGV[6] cap        the queue history stream's cap (count)

  Built keys (includes/keys.lua, from the base): grate, gwindow, ratelimited, settings (its
  `reopenAt` lowered to a new reopening before it, includes/nextDue.lua), the head job's hash
  (its cost), the history streams, and readGroup's.

  Output: groupReply (includes/groupReply.lua), the group after.
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) and a limit is set (includes/groupState.lua).

  Memory: runs at maxmemory (includes/allowAtMaxmemory.lua): a few bytes at most.

  History: when the rate changed, one entry: action setRateLimit, before and after
  { rateLimit: { max, windowMs, burst } or null } (the same rate again records nothing; an old
  two-part rate is the same as its three-part form with burst = max).

  Events: hset grate; hset or hdel gwindow; zadd (+ hset settings reopenAt) or zrem ratelimited;
  zadd groups + gseen; rpush
  ring + lpush/ltrim wake (re-ring) or lrem ring (de-ring); xadd history (rate changed).
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
local burst = tonumber(ARGV[4])
local rate = ARGV[2] .. ':' .. ARGV[3] .. ':' .. ARGV[4]

allowAtMaxmemory(k.glimit)
local before = readGroup(k, group, laneKey)
local now = nowMs()
local windowKey = rateWindowKeyOf(k.base)
-- The bucket under the rate before, at most the new burst, refilled under the new. No rate or
-- no bucket before: full (a full bucket has no field), so full under the new burst too.
local tokens, at = burst, now
local oldMax, oldWindowMs, oldBurst = parseRate(before.rate)
local raw = redis.call('HGET', windowKey, group)
if oldMax and raw then
  tokens, at = bucketAt(raw, now, oldMax, oldWindowMs, oldBurst)
end
local whole
tokens, at, whole = refill(math.min(tokens, burst), at, now, max, windowMs, burst)
local _, cost = headCost(k.base, laneKey)
local need = math.min(cost or 1, burst)
local limitedUntil = false
if whole < need then
  limitedUntil = string.format('%d', readyAt(tokens, at, need, max, windowMs))
end
-- Judged before the first write below (standing refuses an active count it cannot read).
local judged = judgeFields(k, group, before, 'rateLimitedUntil', limitedUntil)
judged.after.rate = rate

redis.call('HSET', rateKeyOf(k.base), group, rate)
if whole >= burst then
  redis.call('HDEL', windowKey, group)
else
  redis.call('HSET', windowKey, group, string.format('%d:%d', tokens, at))
end
if limitedUntil then
  redis.call('ZADD', rateLimitedKeyOf(k.base), limitedUntil, group)
  lowerDue(settingsKeyOf(k.base), 'reopenAt', limitedUntil)
else
  redis.call('ZREM', rateLimitedKeyOf(k.base), group)
end
registerGroup(groupsKey, k.base, group, nowMs())
settleJudged(k, group, judged)

-- History: only a change of the rate is an entry (a call that changes nothing records nothing).
if oldMax ~= max or oldWindowMs ~= windowMs or oldBurst ~= burst then
  recordHistory(k.base, historyArgs(ARGV[5], ARGV[6]), 'setRateLimit', group,
    rateState(before.rate), rateState(rate))
end
return fieldsReply(judged.after)
