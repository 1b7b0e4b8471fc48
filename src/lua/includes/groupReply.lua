--[[
  The reply of the group-steering scripts (setLimit, clearLimit, pause, resume, …), so a mutation
  answers in the same round trip, and of the group reads (readGroups, readSnapshot):
    { limit (raw field or false), active, pending, paused 0|1,
      weight (raw or false), rate ('<max>:<windowMs>:<burst>', an old '<max>:<windowMs>', or false),
      rateLimitedUntil (ms as text, or false), limitOverride (JSON or false),
      pauseOverride (JSON or false), rateReopenedAt (ms as text, or false),
      reserve (raw field of `greserve`, or false; DESIGN.md §3 "The queue's cap and reserves"),
      maxPending (raw field of `gmaxpending`, the group's own backlog bound, or false; DESIGN.md
      §3 "Backlog bounds") }
  (GROUP_FIELD_COUNT of them; src/lanes/queue/state.ts `groupInfo` parses them). The engine derives
  onRing and state from these by I1.
  A reply judges the rate against the script's clock (includes/nowMs.lua, DESIGN.md §3 "Rate
  limits"): a group in `ratelimited` whose reopening is in the future answers it as
  rateLimitedUntil; one whose reopening has come (score <= now: the window reopened, and no
  claim or reap has promoted the group yet) answers rateLimitedUntil false and the reopening as
  rateReopenedAt — it is no longer rate-limited, only off the ring until the next claim puts it
  back. The scripts' own judgements (standing, isServiceable) keep reading the zset as it is.
  readGroup reads them as a table { limit, active, pending, paused, weight, rate,
  rateLimitedUntil, limitOverride, pauseOverride, reserve, maxPending } (standing() in groupState judges it); a script
  that changes one field edits its copy and replies with fieldsReply, rather than reading all of
  them again. k.base ('P:{Q}:') names the operations keys (includes/keys.lua).
]]
--- @include "keys"
--- @include "nowMs"

local GROUP_FIELD_COUNT = 12

local function readGroup(k, group, laneKey)
  local overrides =
    redis.call('HMGET', overrideDataKeyOf(k.base), 'limit:' .. group, 'pause:' .. group)
  return {
    limit = redis.call('HGET', k.glimit, group),
    active = redis.call('HGET', k.gactive, group) or '0',
    pending = redis.call('ZCARD', laneKey),
    paused = redis.call('SISMEMBER', k.paused, group),
    weight = redis.call('HGET', weightKeyOf(k.base), group),
    rate = redis.call('HGET', rateKeyOf(k.base), group),
    rateLimitedUntil = redis.call('ZSCORE', rateLimitedKeyOf(k.base), group),
    limitOverride = overrides[1],
    pauseOverride = overrides[2],
    reserve = redis.call('HGET', reserveKeyOf(k.base), group),
    maxPending = redis.call('HGET', maxPendingKeyOf(k.base), group),
  }
end

local function fieldsReply(g)
  local limitedUntil, reopenedAt = g.rateLimitedUntil, false
  -- TIME only for a group in `ratelimited`: a reply of any other group costs nothing more.
  if limitedUntil and tonumber(limitedUntil) <= nowMs() then
    limitedUntil, reopenedAt = false, g.rateLimitedUntil
  end
  return {
    g.limit, g.active, g.pending, g.paused, g.weight, g.rate, limitedUntil,
    g.limitOverride, g.pauseOverride, reopenedAt, g.reserve, g.maxPending,
  }
end

-- Append g's fields to the flat reply of a multi-group read.
local function appendFields(flat, g)
  for _, value in ipairs(fieldsReply(g)) do
    flat[#flat + 1] = value
  end
end

local function groupReply(k, group, laneKey)
  return fieldsReply(readGroup(k, group, laneKey))
end
