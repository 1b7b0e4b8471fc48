--[[
  The reply of the group-steering scripts (setLimit, clearLimit, pause, resume), so a mutation
  answers in the same round trip: { limit (raw field or false), active, pending, paused 0|1 }.
  The engine derives onRing and state from these by I1.
  readGroup reads them as a table { limit, active, pending, paused } (standing() in groupState
  judges it); a script that changes one field edits its copy and replies with fieldsReply,
  rather than reading all four again.
]]
local function readGroup(k, group, laneKey)
  return {
    limit = redis.call('HGET', k.glimit, group),
    active = redis.call('HGET', k.gactive, group) or '0',
    pending = redis.call('ZCARD', laneKey),
    paused = redis.call('SISMEMBER', k.paused, group),
  }
end

local function fieldsReply(g)
  return { g.limit, g.active, g.pending, g.paused }
end

local function groupReply(k, group, laneKey)
  return fieldsReply(readGroup(k, group, laneKey))
end
