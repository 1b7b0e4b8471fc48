--[[
  resumeQueue — end a queue's pause (pauseQueue): the claim scripts claim again, from the ring
  as it stands. When the queue was paused, a wake token is pushed so that parked workers claim
  at once rather than at their park timeout (a worker woken that finds work passes a token on,
  so one token wakes as many as there is work for).

  Input:
    KEYS[1] settings hash   queue settings: paused
    KEYS[2] wake     list   wake tokens, trimmed to WAKE_LENGTH (includes/keys.lua)

  Output: 1 when the queue was paused (now running), 0 when it was running already (nothing
          written).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hdel settings; lpush/ltrim wake (when it was paused).
]]
--- @include "allowAtMaxmemory"
--- @include "keys"

local settingsKey = KEYS[1]
local wakeKey = KEYS[2]

allowAtMaxmemory(settingsKey)
if redis.call('HDEL', settingsKey, 'paused') == 0 then
  return 0
end
redis.call('LPUSH', wakeKey, '1')
redis.call('LTRIM', wakeKey, 0, WAKE_LENGTH - 1)
return 1
