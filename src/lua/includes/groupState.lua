--[[
  A group's standing against invariant I1 (DESIGN.md §3), written once for every script.

  k is the script's key table: k.paused (set), k.glimit (hash), k.gactive (hash).
  laneKey is the group's pending zset.

  limitOf: the group's limit, or nil for none. A field that is not a non-negative integer
  within 2^53−1 (written by hand or by another writer) counts as no limit (DESIGN.md §2; a
  larger one could not be compared exactly, and no group runs that many jobs).
  activeOf: the group's active count; a missing field counts as 0, a negative one as 0. A field
  that is not an integer within ±(2^53−1) (includes/safeInteger.lua) cannot be counted exactly:
  activeOf refuses the script (DATA_OUT_OF_RANGE, checkedActive) — every caller reads it before
  its first write — and Queue.repair rewrites it from the live leases.
  parseLimit, parseActive: the same rules for a field value already read (an HMGET);
  parseActive answers nil for a field activeOf would refuse, checkedActive refuses it.
  groupState returns two booleans and the limit it read (`active`, optional, judges the group
  as if its active count were that number: reconcileGroups asks what the group's state is with
  the count it derives):
    serviceable  not paused, below its limit (or no limit), pending > 0 — on the ring by I1
    saturated    a limit is set and active >= limit (counted in stats.saturated)
    limit        the limit (nil for none)
  standing is the same judgement for fields already read (readGroup in groupReply.lua), so a
  script that changes one field knows the state after without reading the others again; like
  groupState it reads the active count only when a limit is set, and refuses it then if it is
  not a safe integer (the steering scripts judge before they write: judgeFields).
]]
--- @include "safeInteger"

local function parseLimit(raw)
  local n = safeInteger(raw)
  if n and n >= 0 then
    return n
  end
  return nil
end

local function parseActive(raw)
  if not raw then
    return 0
  end
  local n = safeInteger(raw)
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

local function groupState(k, group, laneKey, active)
  local limit = limitOf(k.glimit, group)
  local saturated = limit ~= nil and (active or activeOf(k.gactive, group)) >= limit
  if saturated or redis.call('SISMEMBER', k.paused, group) == 1 then
    return false, saturated, limit
  end
  return redis.call('ZCARD', laneKey) > 0, saturated, limit
end

local function standing(k, group, g)
  local limit = parseLimit(g.limit)
  local saturated = limit ~= nil and checkedActive(k.gactive, group, g.active) >= limit
  return not saturated and g.paused == 0 and g.pending > 0, saturated
end
