--[[
  A group's standing against invariant I1 (DESIGN.md §3), written once for every script.

  isServiceable IS I1: a group belongs on the ring exactly when it is not saturated, not paused,
  not rate-limited, and its lane holds a job. Every script that asks whether a group is
  serviceable asks it here:
  the settling scripts through groupState and standing (below), the claim before and after it
  serves a group (claimJobs.lua), a batch of completions when a permit frees a group
  (releasePermits.lua). (src/lanes/queue/state.ts, `groupState`, derives the same for the engine's
  reads.)
    isServiceable(k, group, laneKey, limit, active, paused, pending, limited)
      -> serviceable, saturated
  The caller passes what it has already read; what it leaves nil is read here, in the order that
  reads least, and only when the answer still depends on it:
    limit    the group's limit, nil for none (parseLimit, limitOf); never read here
    active   its active count, nil to read it (activeOf, which refuses a count it cannot hold
             exactly) — only when a limit is set
    paused   true or false, nil to read it (SISMEMBER k.paused) — only when not saturated
    pending  the lane's size, nil to read it (ZCARD laneKey) — only when neither saturated
             nor paused
    limited  true or false: the group is rate-limited (in `ratelimited`, DESIGN.md §3 "Rate
             limits"), nil to read it (ZSCORE) — only when every other clause passes
  isSaturated(limit, active) is I1's limit clause alone: a limit is set and active >= limit
  (counted in stats.saturated); a batch of releases asks it before and after (releasePermits).

  k is the script's key table: k.paused (set), k.glimit (hash), k.gactive (hash); the
  `ratelimited` zset is built from k.base, or from k.glimit's name when the script has no base
  (rateLimitedKeyFor).
  laneKey is the group's pending zset (includes/keys.lua, laneKeyOf).

  limitOf: the group's limit, or nil for none. A field that is not a non-negative integer
  within 2^53−1 (written by hand or by another writer) counts as no limit (DESIGN.md §2; a
  larger one could not be compared exactly, and no group runs that many jobs).
  activeOf: the group's active count; a missing field counts as 0, a negative one as 0. A field
  that is not an integer within ±(2^53−1) (includes/safeInteger.lua) cannot be counted exactly:
  activeOf refuses the script (DATA_OUT_OF_RANGE, checkedActive) — every caller reads it before
  its first write — and Queue.repair rewrites it from the live leases.
  parseLimit, parseActive: the same rules for a field value already read (an HMGET);
  parseActive answers nil for a field activeOf would refuse, checkedActive refuses it. A count
  of one or two digits (the commonest by far) is known without safeInteger's check, which formats
  the number back: a text (not a number: `raw ~= n`) of one character that reads as a number
  below 10, or of two that reads as one from 10 to 99, can only be that number's digits.
  groupState(k, group, laneKey, active) reads the limit and asks isServiceable, reading the
  rest as it needs it (`active`, optional, judges the group as if its active count were that
  number: reconcileGroups asks what the group's state is with the count it derives).
  standing(k, group, g) asks it of the fields readGroup already read (groupReply.lua), so a
  script that changes one field knows the state after without reading the others again; the
  active count is judged only when a limit is set, and refused then if it is not a safe integer
  (the steering scripts judge before they write: judgeFields).
]]
--- @include "keys"
--- @include "safeInteger"

local function parseLimit(raw)
  local n = raw and tonumber(raw)
  if n and n >= 0 and n < 100 and raw ~= n and #raw == (n < 10 and 1 or 2) then
    return n
  end
  n = safeInteger(raw)
  if n and n >= 0 then
    return n
  end
  return nil
end

local function parseActive(raw)
  if not raw then
    return 0
  end
  local n = tonumber(raw)
  if n and n >= 0 and n < 100 and raw ~= n and #raw == (n < 10 and 1 or 2) then
    return n
  end
  n = safeInteger(raw)
  if n == nil then
    return nil
  end
  return n < 0 and 0 or n
end

local function checkedActive(gactiveKey, group, raw)
  local n = parseActive(raw)
  if n == nil then
    refuse(gactiveKey, group, raw, 'an active count within ±(2^53−1)',
      'Repair the queue (Queue.repair, or the repairQueue mutation): it rewrites active counts'
      .. ' from the live leases.')
  end
  return n
end

local function limitOf(glimitKey, group)
  return parseLimit(redis.call('HGET', glimitKey, group))
end

local function activeOf(gactiveKey, group)
  return checkedActive(gactiveKey, group, redis.call('HGET', gactiveKey, group))
end

local function isSaturated(limit, active)
  return limit ~= nil and active >= limit
end

-- The queue's `ratelimited` zset for a key table (k.base, else derived from k.glimit).
local function rateLimitedKeyFor(k)
  if k.rateLimited == nil then
    k.rateLimited = rateLimitedKeyOf(k.base or baseOf(k.glimit, 'glimit'))
  end
  return k.rateLimited
end

local function isServiceable(k, group, laneKey, limit, active, paused, pending, limited)
  if limit ~= nil and active == nil then
    active = activeOf(k.gactive, group)
  end
  -- isSaturated's clause written out: the claim asks this once per job, and a Lua call costs
  -- about what a redis.call does (docs/PERFORMANCE.md "Redis: fewer Lua calls per job").
  if limit ~= nil and active >= limit then
    return false, true
  end
  if paused == nil then
    paused = redis.call('SISMEMBER', k.paused, group) == 1
  end
  if paused then
    return false, false
  end
  if pending == nil then
    pending = redis.call('ZCARD', laneKey)
  end
  if pending <= 0 then
    return false, false
  end
  if limited == nil then
    limited = redis.call('ZSCORE', rateLimitedKeyFor(k), group) ~= false
  end
  return not limited, false
end

local function groupState(k, group, laneKey, active)
  return isServiceable(k, group, laneKey, limitOf(k.glimit, group), active)
end

local function standing(k, group, g)
  local limit = parseLimit(g.limit)
  local active = limit and checkedActive(k.gactive, group, g.active)
  local limited
  if g.rateLimitedUntil ~= nil then
    limited = g.rateLimitedUntil ~= false
  end
  return isServiceable(k, group, nil, limit, active, g.paused == 1, g.pending, limited)
end
