--[[
  Per-group rate limits (DESIGN.md §3, "Rate limits"): a token bucket per group, on top of its
  concurrency limit. `max` tokens refill per `windowMs`, at most `burst` are held; a claim of a
  job takes its cost (1 unless enqueued with `cost`) and the head job decides (FIFO).
    `grate`        hash  group -> '<max>:<windowMs>:<burst>' (an old '<max>:<windowMs>' reads as
                   burst = max)
    `gwindow`      hash  group -> '<tokens>:<atMs>' (the bucket: whole tokens at atMs before the
                   refill since then, which may have been spent already, so tokens may be below 0;
                   no field: a full bucket). An old fixed window '<startMs>:<claims>' (first >
                   second) reads as max − claims tokens now while that window is open, else full
    `ratelimited`  zset  group -> when it can next claim: when enough tokens for its head job's
                   cost (or 1 with an empty lane) have refilled (ms, Redis clock)
  all built from the queue's base (includes/keys.lua). A group in `ratelimited` is not
  serviceable (I1's rate clause, isServiceable in includes/groupState.lua).

  Exact integer arithmetic (no fractions stored): tokens(now) = tokens + floor((now − atMs) ×
  max / windowMs), capped at burst (the cap restarts the bucket at now, full); whole windows are
  folded into tokens first, so the product stays below 2^53 (max ≤ 10^6, windowMs ≤ 2.6 × 10^9).

    parseRate(raw)      max, windowMs, burst of a stored rate, or nil (missing or not positive
                        safe integers: no rate limit, as src/lanes/queue/state.ts parseRate)
    rateState(raw)      a stored rate as the history records it: { rateLimit = { max, windowMs,
                        burst } }, or { rateLimit = null } for none
    refill(tokens, atMs, now, max, windowMs, burst)
                        a bucket's state folded to now: tokens, atMs (whole windows added as max
                        tokens each; a full bucket restarts at now) and whole (usable now)
    bucketAt(raw, now, max, windowMs, burst)
                        the bucket of a stored `gwindow` value at now: tokens, atMs (its state
                        to store) and whole (tokens usable now). Missing: full. Malformed: empty
                        at now (never over the rate; Queue.audit reports it)
    readyAt(tokens, atMs, need, max, windowMs)
                        when the bucket holds `need` whole tokens (ms)
    headCost(base, laneKey)
                        the id and cost of a lane's head job (ZRANGE 0 0, HGET cost), or nil
                        for an empty lane; a missing or malformed cost counts as 1
    costOverBurst(base, group, cost)
                        an enqueue's check of a job's cost (text, ≠ 1): the group's burst when
                        it has a rate and cost is above it (the enqueue is refused), else nil.
                        One HGET of `grate`, asked only for a job with a cost
    readRateStates(k, groups, states)
                        the claim's batch read (includes/claimJobs.lua readStates): for each of
                        `groups` sets states[group].limited (in `ratelimited`) and, for a group
                        with a rate, .rateMax, .rateWindowMs, .rateBurst, .bucket (raw) — one
                        HMGET of `grate` and one ZMSCORE of `ratelimited` for all, and one HMGET
                        of `gwindow` for those with a rate
    rateAllows(base, group, g, laneKey, now)
                        before a claim of a group with a rate: whether its bucket holds its head
                        job's cost (min(cost, burst)); when not, ZADDs the group to `ratelimited`
                        at readyAt, lowers the call's known `reopenAt` to it (includes/nextDue.lua)
                        and sets g.limited (the claim leaves it off the ring). O(1)
    countRateClaim(base, group, g, laneKey, now)
                        after the claim: the cost taken (HSET `gwindow`), and the next head's cost
                        read; a bucket short of it ZADDs the group to `ratelimited` at readyAt and
                        sets g.limited. O(1); nothing for a group without a rate
    promoteReopened(k, base, now, max)
                        up to `max` groups whose reopening came by `now` (ms, as text or a
                        number): ZRANGEBYSCORE … LIMIT, ZREM (the bucket is kept: it holds the
                        tokens), and each that is now serviceable re-ringed with a wake (it was
                        not on the ring: I1). A group whose active count cannot be counted exactly
                        leaves `ratelimited` but is not settled (as promotion, includes/promote.lua;
                        Queue.repair re-rings it). Returns how many left `ratelimited`.
                        O(log n + max)

  k: glimit (its name gives the base when k.base is absent), gactive, ring, paused, wake.
  Events: hset gwindow, zadd ratelimited, hset settings reopenAt when earlier (count,
  rateAllows); zrem ratelimited, rpush ring,
  lpush/ltrim wake (promoteReopened).
]]
--- @include "keys"
--- @include "safeInteger"
--- @include "settleGroup"
--- @include "nextDue"

local function parseRate(raw)
  if type(raw) ~= 'string' then
    return nil
  end
  local a, b, c = string.match(raw, '^(%d+):(%d+):(%d+)$')
  if a == nil then
    a, b = string.match(raw, '^(%d+):(%d+)$')
  end
  local max, windowMs = safeInteger(a), safeInteger(b)
  -- An old two-part rate: burst = max, the fixed window's allowance.
  local burst = max
  if c ~= nil then
    burst = safeInteger(c)
  end
  if max and windowMs and burst and max >= 1 and windowMs >= 1 and burst >= 1 then
    return max, windowMs, burst
  end
  return nil
end

local function rateState(raw)
  local max, windowMs, burst = parseRate(raw)
  if max == nil then
    return { rateLimit = cjson.null }
  end
  return { rateLimit = { max = max, windowMs = windowMs, burst = burst } }
end

-- Tokens refilled since atMs, folded in: whole windows first (max each), then the part window.
local function refill(tokens, atMs, now, max, windowMs, burst)
  if atMs > now then
    atMs = now
  end
  if tokens > burst then
    tokens = burst
  end
  local windows = math.floor((now - atMs) / windowMs)
  if windows > burst then
    return burst, now, burst
  end
  tokens, atMs = tokens + windows * max, atMs + windows * windowMs
  local whole = tokens + math.floor((now - atMs) * max / windowMs)
  if whole >= burst then
    -- Full: the bucket restarts at now (what refilled past burst is lost, as in any bucket).
    return burst, now, burst
  end
  return tokens, atMs, whole
end

local function bucketAt(raw, now, max, windowMs, burst)
  if raw == nil or raw == false then
    return burst, now, burst
  end
  local a, b = string.match(raw, '^(%-?%d+):(%d+)$')
  a, b = safeInteger(a), safeInteger(b)
  if a == nil or b == nil then
    -- Malformed: empty at now, so never over the rate.
    return 0, now, 0
  end
  if a > b then
    -- An old fixed window `<startMs>:<claims>`: what it had left while open, then full.
    if now >= a + windowMs then
      return burst, now, burst
    end
    local left = math.min(burst, math.max(0, max - b))
    return left, now, left
  end
  return refill(a, b, now, max, windowMs, burst)
end

local function readyAt(tokens, atMs, need, max, windowMs)
  local owed = (need - tokens) * windowMs
  local wait = math.floor(owed / max)
  if wait * max < owed then
    wait = wait + 1
  end
  return atMs + wait
end

local function headCost(base, laneKey)
  local head = redis.call('ZRANGE', laneKey, 0, 0)
  if head[1] == nil then
    return nil
  end
  local cost = safeInteger(redis.call('HGET', jobKeyOf(base, head[1]), 'cost'))
  if cost == nil or cost < 1 then
    cost = 1
  end
  return head[1], cost
end

local function costOverBurst(base, group, cost)
  local _, _, burst = parseRate(redis.call('HGET', rateKeyOf(base), group))
  if burst and tonumber(cost) > burst then
    return burst
  end
  return nil
end

local function rateBaseOf(k)
  return k.base or baseOf(k.glimit, 'glimit')
end

local function readRateStates(k, groups, states)
  local base = rateBaseOf(k)
  local rates = redis.call('HMGET', rateKeyOf(base), unpack(groups))
  local limited = redis.call('ZMSCORE', rateLimitedKeyOf(base), unpack(groups))
  local rated = {}
  for i, group in ipairs(groups) do
    local g = states[group]
    g.limited = limited[i] ~= false
    local max, windowMs, burst = parseRate(rates[i])
    if max then
      g.rateMax, g.rateWindowMs, g.rateBurst = max, windowMs, burst
      rated[#rated + 1] = group
    end
  end
  if #rated > 0 then
    local buckets = redis.call('HMGET', rateWindowKeyOf(base), unpack(rated))
    for i, group in ipairs(rated) do
      states[group].bucket = buckets[i]
    end
  end
end

-- Rate-limits g until its bucket holds `need` tokens; the claim's known reopening bound is
-- lowered to it (includes/nextDue.lua).
local function limitUntilReady(base, group, g, cost)
  local need = math.min(cost, g.rateBurst)
  local at = readyAt(g.tokens, g.tokensAt, need, g.rateMax, g.rateWindowMs)
  redis.call('ZADD', rateLimitedKeyOf(base), string.format('%d', at), group)
  keepDue(settingsKeyOf(base), 'reopenAt', nil, at)
  g.limited = true
end

local function rateAllows(base, group, g, laneKey, now)
  if g.tokens == nil then
    g.tokens, g.tokensAt, g.whole = bucketAt(g.bucket, now, g.rateMax, g.rateWindowMs,
      g.rateBurst)
  end
  if g.headCost == nil then
    local id, cost = headCost(base, laneKey)
    if id == nil then
      return true
    end
    g.headCost = cost
  end
  if g.whole >= math.min(g.headCost, g.rateBurst) then
    return true
  end
  limitUntilReady(base, group, g, g.headCost)
  return false
end

local function countRateClaim(base, group, g, laneKey, now)
  -- A cost above burst takes the whole bucket (a limit set after the job was enqueued).
  local cost = math.min(g.headCost or 1, g.rateBurst)
  g.tokens, g.whole = g.tokens - cost, g.whole - cost
  redis.call('HSET', rateWindowKeyOf(base), group, string.format('%d:%d', g.tokens, g.tokensAt))
  local _, nextCost = headCost(base, laneKey)
  g.headCost = nextCost
  if g.whole < math.min(nextCost or 1, g.rateBurst) then
    limitUntilReady(base, group, g, nextCost or 1)
  end
end

local function promoteReopened(k, base, now, max)
  local key = rateLimitedKeyOf(base)
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, max)
  if #due == 0 then
    return 0
  end
  redis.call('ZREM', key, unpack(due))
  for _, group in ipairs(due) do
    local active = parseActive(redis.call('HGET', k.gactive, group))
    if active ~= nil then
      -- Not on the ring before (rate-limited, I1); its saturation is unchanged.
      local serviceable = isServiceable(k, group, laneKeyOf(base, group),
        limitOf(k.glimit, group), active, nil, nil, false)
      if serviceable then
        reRing(k, group)
      end
    end
  end
  return #due
end
