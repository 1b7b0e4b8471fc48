--[[
  The reply of the group-steering scripts (setLimit, clearLimit, pause, resume), so a mutation
  answers in the same round trip: { limit (raw field or false), active, pending, paused 0|1 }.
  The engine derives onRing and state from these by I1.
]]
local function groupReply(k, group, laneKey)
  return {
    redis.call('HGET', k.glimit, group),
    redis.call('HGET', k.gactive, group) or '0',
    redis.call('ZCARD', laneKey),
    redis.call('SISMEMBER', k.paused, group),
  }
end
