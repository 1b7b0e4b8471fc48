--[[
  Milliseconds from the Redis clock (TIME), never a client's: API replicas' clocks differ
  (DESIGN.md §2). Exact as a Lua number: ms since the epoch stay below 2^53 until the year
  287,396, and a lease deadline adds at most 86,400,000 to them.
]]
local scriptNow
local function nowMs()
  -- Read once per script: one call, and one instant for everything the script stamps.
  if scriptNow == nil then
    local t = redis.call('TIME')
    scriptNow = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return scriptNow
end
