--[[
  A group's standing against invariant I1 (DESIGN.md §3), written once for every script.

  k is the script's key table: k.paused (set), k.glimit (hash), k.gactive (hash).
  laneKey is the group's pending zset.

  limitOf: the group's limit, or nil for none. A field that is not a non-negative integer
  (written by hand or by another writer) counts as no limit (DESIGN.md §2).
  activeOf: the group's active count; a missing or garbage field counts as 0.
  parseLimit, parseActive: the same rules for a field value already read (an HMGET).
  groupState returns two booleans and the limit it read (`active`, optional, judges the group
  as if its active count were that number: reconcileGroups asks what the group's state is with
  the count it derives):
    serviceable  not paused, below its limit (or no limit), pending > 0 — on the ring by I1
    saturated    a limit is set and active >= limit (counted in stats.saturated)
    limit        the limit (nil for none)
  standing is the same judgement for fields already read (readGroup in groupReply.lua), so a
  script that changes one field knows the state after without reading the others again.
]]
local function parseLimit(raw)
  if raw and string.match(raw, '^%d+$') then
    return tonumber(raw)
  end
  return nil
end

local function parseActive(raw)
  local n = tonumber(raw or '0')
  if n == nil or n < 0 then
    return 0
  end
  return n
end

local function limitOf(glimitKey, group)
  return parseLimit(redis.call('HGET', glimitKey, group))
end

local function activeOf(gactiveKey, group)
  return parseActive(redis.call('HGET', gactiveKey, group))
end

local function groupState(k, group, laneKey, active)
  local limit = limitOf(k.glimit, group)
  local saturated = limit ~= nil and (active or activeOf(k.gactive, group)) >= limit
  if saturated or redis.call('SISMEMBER', k.paused, group) == 1 then
    return false, saturated, limit
  end
  return redis.call('ZCARD', laneKey) > 0, saturated, limit
end

local function standing(g)
  local limit = parseLimit(g.limit)
  local saturated = limit ~= nil and parseActive(g.active) >= limit
  return not saturated and g.paused == 0 and g.pending > 0, saturated
end
