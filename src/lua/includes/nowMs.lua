--[[
  Milliseconds from the Redis clock (TIME), never a client's: API replicas' clocks differ
  (DESIGN.md §2).
]]
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
