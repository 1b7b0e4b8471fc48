--[[
  The queue's "next due at" (DESIGN.md §3, "Next due at"): two fields of `settings`, each a
  lower bound of the earliest score of a zset, so that a claim call that finds its bound in the
  future (in the HMGET of `settings` it makes anyway, asked for these two only when the probe,
  includes/quietQueue.lua, found a delayed job or a rate key) reads nothing of that zset:
    `delayedAt`  ≤ the earliest run-at time in `delayed` (ms, Redis clock)
    `reopenAt`   ≤ the earliest reopening in `ratelimited` (ms, Redis clock)
  'none' when the zset was found empty; absent (or not a finite number) when unknown, as on a
  Redis written before the fields: the claim reads the zset as before and writes the field.
  Every writer that adds to one of the zsets lowers its field when it adds earlier (lowerDue,
  or keepDue in a claim, which read the field already); a writer that removes leaves it low,
  which costs the next claim call one read of the zset that then rewrites the field (keepDue).
  A bound above the earliest would strand what is due until the reaper's pass rewrites it:
  Queue.audit reports it and Queue.repair rewrites it (reconcileDue-2.lua).

  Few top-level names (a script's main function holds at most 200 locals, and completeAndClaim
  is near that): the fields are named as literals, 'delayedAt' and 'reopenAt'.
    dueKnown                the fields as this call knows them, field -> raw text (false for
                            absent): set by the caller from its read of `settings` (a claim's
                            HMGET), then kept by keepDue; nil until set
    dueOf(raw)              a stored field as a number: math.huge for 'none', nil for unknown
    lowerDue(settingsKey, field, at)
                            a writer's, after adding a member at `at` (ms, a number or integer
                            text): the field lowered to it when above it ('none' included); one
                            HGET, and an HSET when lowered; an unknown field is left as it is
    keepDue(settingsKey, field, zsetKey, at)
                            a call whose dueKnown holds the field keeps it: with zsetKey, after a
                            promotion, the zset's first score (ZRANGE 0 0; 'none' when empty),
                            exact for the rest of the call; without, a writer's after adding at
                            `at` (ms, a number), lowered to it when below (lowerDue's rule, no
                            HGET); an HSET only when the field changes

  Events: hset settings delayedAt / reopenAt.
]]

local dueKnown

local function dueOf(raw)
  if raw == 'none' then
    return math.huge
  end
  local at = tonumber(raw)
  -- NaN and the infinities are no time: unknown.
  if at == nil or at ~= at or at == math.huge or at == -math.huge then
    return nil
  end
  return at
end

local function lowerDue(settingsKey, field, at)
  local bound = dueOf(redis.call('HGET', settingsKey, field))
  -- Floored, so never above it (a score written by another writer may have a fraction).
  at = math.floor(tonumber(at))
  if bound ~= nil and at < bound then
    redis.call('HSET', settingsKey, field, string.format('%d', at))
  end
end

local function keepDue(settingsKey, field, zsetKey, at)
  local raw
  if zsetKey then
    local first = redis.call('ZRANGE', zsetKey, 0, 0, 'WITHSCORES')
    raw = first[2] or 'none'
  else
    local bound = dueKnown ~= nil and dueOf(dueKnown[field])
    if not bound or at >= bound then
      return
    end
    raw = string.format('%d', at)
  end
  if raw ~= dueKnown[field] then
    redis.call('HSET', settingsKey, field, raw)
    dueKnown[field] = raw
  end
end
