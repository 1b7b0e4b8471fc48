--[[
  forgetGroups — forget the groups no call has registered for `graceMs` and that are idle and
  unset (DESIGN.md §3, "Forgetting groups"), at most `batch` per call, the longest unseen
  first, so a queue whose tenants come and go costs nothing for the ones gone.

  A group is idle and unset when nothing of it is left but its registry entries: no active
  count (gactive), an empty lane, no delayed, retained completed or retained dead jobs (its
  index keys absent), no limit (any glimit field, even one the scripts read as none), not
  paused, no rate limit, not rate-limited, no weight, no reserve (greserve), no backlog bound (gmaxpending), no timed override (goverride `limit:` and
  `pause:` fields). Such a group is forgotten: it leaves `groups` and `gseen`, and its leftovers
  go with it — its `heads` entry, its rate window (gwindow) and its turns (gturns). Every other
  read then answers it as a group never used (IDLE, nothing set), which it is.
  A group found busy or set stays registered, its `gseen` entry moved to now: it is looked at
  again a grace later (a group that is never idle costs one look per grace).

  Input:
    KEYS[1] groups   zset   group registry
    KEYS[2] gseen    zset   group -> when a call last registered it (ms, Redis clock)
    KEYS[3] glimit   hash   group -> limit
    KEYS[4] gactive  hash   group -> active count
    KEYS[5] paused   set    paused groups

    ARGV[1] base     'P:{Q}:' — the group's lane and delayed, completed and dead indexes, and
                     heads, gpending, gactiverank, grate, gwindow, ratelimited, gweight, greserve, gmaxpending, gturns and goverride are built
                     from it (includes/keys.lua; same slot)
    ARGV[2] graceMs  how long a group stays registered after the last call that registered it
                     (ms, 0..2,592,000,000)
    ARGV[3] batch    the most groups looked at in this call (1..10,000)

  Output: { forgotten, kept } — groups forgotten, and groups looked at and kept (busy or set);
          their sum is `batch` when more may be due.

  Events: zrem groups, gseen, heads, gpending, gactiverank; hdel gwindow, gturns (for each group forgotten);
  zadd gseen (for each group kept).

  Cost: O(batch · log n): per group looked at, one EXISTS of its four job indexes and at most
  nine O(1) reads (HEXISTS, SISMEMBER, ZSCORE, HMGET), stopping at the first that holds it.
  Runs at maxmemory: it only removes, or moves a score (includes/allowAtMaxmemory.lua).
]]
--- @include "keys"
--- @include "nowMs"
--- @include "allowAtMaxmemory"

local groupsKey, seenKey, glimitKey, gactiveKey, pausedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4],
  KEYS[5]
local base = ARGV[1]
local graceMs = tonumber(ARGV[2])
local batch = tonumber(ARGV[3])

local now = nowMs()
local due = redis.call('ZRANGEBYSCORE', seenKey, '-inf', now - graceMs, 'LIMIT', 0, batch)
if #due == 0 then
  return { 0, 0 }
end
allowAtMaxmemory(seenKey)

-- Whether anything but its registry entries holds the group, cheapest and likeliest first.
local function held(group)
  if redis.call('HEXISTS', gactiveKey, group) == 1 then
    return true
  end
  if redis.call('EXISTS', laneKeyOf(base, group), groupDelayedKeyOf(base, group),
      groupCompletedKeyOf(base, group), groupDeadKeyOf(base, group)) > 0 then
    return true
  end
  if redis.call('HEXISTS', glimitKey, group) == 1
    or redis.call('SISMEMBER', pausedKey, group) == 1
    or redis.call('HEXISTS', rateKeyOf(base), group) == 1
    or redis.call('ZSCORE', rateLimitedKeyOf(base), group) ~= false
    or redis.call('HEXISTS', weightKeyOf(base), group) == 1
    or redis.call('HEXISTS', reserveKeyOf(base), group) == 1
    or redis.call('HEXISTS', maxPendingKeyOf(base), group) == 1 then
    return true
  end
  local overrides = redis.call('HMGET', overrideDataKeyOf(base), 'limit:' .. group,
    'pause:' .. group)
  return overrides[1] ~= false or overrides[2] ~= false
end

local forget, keep = {}, {}
for _, group in ipairs(due) do
  if held(group) then
    keep[#keep + 1] = now
    keep[#keep + 1] = group
  else
    forget[#forget + 1] = group
  end
end
if #forget > 0 then
  redis.call('ZREM', groupsKey, unpack(forget))
  redis.call('ZREM', seenKey, unpack(forget))
  redis.call('ZREM', headsKeyOf(base), unpack(forget))
  redis.call('ZREM', pendingRankKeyOf(base), unpack(forget))
  redis.call('ZREM', activeRankKeyOf(base), unpack(forget))
  redis.call('HDEL', rateWindowKeyOf(base), unpack(forget))
  redis.call('HDEL', turnsKeyOf(base), unpack(forget))
end
if #keep > 0 then
  redis.call('ZADD', seenKey, unpack(keep))
end
return { #forget, #keep / 2 }
