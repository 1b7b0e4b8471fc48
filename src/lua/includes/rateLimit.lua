--[[
  Per-group rate limits (DESIGN.md §3, "Rate limits"): at most `max` claims of a group per
  `windowMs`, on top of its concurrency limit. Fixed windows: a window starts at the first claim
  after the previous one ended.
    `grate`        hash  group -> '<max>:<windowMs>'
    `gwindow`      hash  group -> '<startMs>:<claims>' (the current window)
    `ratelimited`  zset  group -> when its window reopens (ms, Redis clock)
  all built from the queue's base (includes/keys.lua). A group in `ratelimited` is not
  serviceable (I1's rate clause, isServiceable in includes/groupState.lua).

    parseRate(raw)      max, windowMs of a stored rate, or nil (missing or not two positive safe
                        integers: no rate limit, as src/lanes/queue/state.ts parseRate reads it)
    parseWindow(raw)    startMs, claims of a stored window, or nil
    rateState(raw)      a stored rate as the history records it: { rateLimit = { max, windowMs } },
                        or { rateLimit = null } for none
    readRateStates(k, groups, states)
                        the claim's batch read (includes/claimJobs.lua readStates): for each of
                        `groups` sets states[group].limited (in `ratelimited`) and, for a group
                        with a rate, .rateMax, .rateWindowMs, .windowStart, .windowClaims —
                        one HMGET of `grate` and one ZMSCORE of `ratelimited` for all, and one
                        HMGET of `gwindow` for those with a rate
    countRateClaim(base, batch, group, g)
                        count one claim of `group` (g: its batch state, claimed at batch.now)
                        into its window: a window over (or none) starts afresh at now; the claim
                        that reaches max ZADDs the group to `ratelimited` at the window's end
                        and sets g.limited, so the claim leaves it off the ring. O(1); nothing
                        for a group without a rate
    promoteReopened(k, base, now, max)
                        up to `max` groups whose window reopened by `now` (ms, as text or a
                        number): ZRANGEBYSCORE … LIMIT, ZREM, window reset (HDEL `gwindow`), and
                        each that is now serviceable re-ringed with a wake (it was not on the
                        ring: I1). A group whose active count cannot be counted exactly leaves
                        `ratelimited` but is not settled (as promotion, includes/promote.lua;
                        Queue.repair re-rings it). Returns how many left `ratelimited`.
                        O(log n + max)
    nextReopen(k)       the earliest reopening in `ratelimited` (ms), or false; O(log n)
    earliestAt(a, b)    the earlier of two times (ms or false)

  k: glimit (its name gives the base when k.base is absent), gactive, ring, paused, wake.
  Events: hset gwindow, zadd ratelimited (count); zrem ratelimited, hdel gwindow, rpush ring,
  lpush/ltrim wake (promoteReopened).
]]
--- @include "keys"
--- @include "safeInteger"
--- @include "settleGroup"

-- `<a>:<b>`, two exact non-negative integers (a rate `<max>:<windowMs>`, a window
-- `<startMs>:<claims>`); nil for anything else.
local function parsePair(raw)
  if type(raw) ~= 'string' then
    return nil
  end
  local a, b = string.match(raw, '^(%d+):(%d+)$')
  return safeInteger(a), safeInteger(b)
end

local function parseRate(raw)
  local max, windowMs = parsePair(raw)
  if max and windowMs and max >= 1 and windowMs >= 1 then
    return max, windowMs
  end
  return nil
end

local function rateState(raw)
  local max, windowMs = parseRate(raw)
  if max == nil then
    return { rateLimit = cjson.null }
  end
  return { rateLimit = { max = max, windowMs = windowMs } }
end

local function parseWindow(raw)
  local start, claims = parsePair(raw)
  if start and claims then
    return start, claims
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
    local max, windowMs = parseRate(rates[i])
    if max then
      g.rateMax, g.rateWindowMs = max, windowMs
      rated[#rated + 1] = group
    end
  end
  if #rated > 0 then
    local windows = redis.call('HMGET', rateWindowKeyOf(base), unpack(rated))
    for i, group in ipairs(rated) do
      local g = states[group]
      g.windowStart, g.windowClaims = parseWindow(windows[i])
    end
  end
end

local function countRateClaim(base, batch, group, g)
  if g.rateMax == nil then
    return
  end
  local now = tonumber(batch.now)
  if g.windowStart == nil or now >= g.windowStart + g.rateWindowMs then
    g.windowStart, g.windowClaims = now, 0
  end
  g.windowClaims = g.windowClaims + 1
  redis.call('HSET', rateWindowKeyOf(base), group,
    string.format('%d:%d', g.windowStart, g.windowClaims))
  if g.windowClaims >= g.rateMax then
    redis.call('ZADD', rateLimitedKeyOf(base), string.format('%d', g.windowStart + g.rateWindowMs),
      group)
    g.limited = true
  end
end

local function promoteReopened(k, base, now, max)
  local key = rateLimitedKeyOf(base)
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, max)
  if #due == 0 then
    return 0
  end
  redis.call('ZREM', key, unpack(due))
  redis.call('HDEL', rateWindowKeyOf(base), unpack(due))
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

local function nextReopen(k)
  local first = redis.call('ZRANGE', rateLimitedKeyOf(rateBaseOf(k)), 0, 0, 'WITHSCORES')
  return first[2] and tonumber(first[2]) or false
end

local function earliestAt(a, b)
  if a == false then
    return b
  end
  if b == false then
    return a
  end
  return math.min(a, b)
end
