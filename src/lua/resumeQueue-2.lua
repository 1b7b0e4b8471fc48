--[[
  resumeQueue — end a queue's pause (pauseQueue): the claim scripts claim again, from the ring
  as it stands. When the queue was paused, a wake token is pushed so that parked workers claim
  at once rather than at their park timeout (a worker woken that finds work passes a token on,
  so one token wakes as many as there is work for).

  Input:
    KEYS[1] settings hash   queue settings: paused
    KEYS[2] wake     list   wake tokens, trimmed to WAKE_LENGTH (includes/keys.lua)

    ARGV[1] actor   who asks (history, includes/history.lua)
    ARGV[2] cap     the queue history's cap (count; 0 records nothing)

  Output: 1 when the queue was paused (now running), 0 when it was running already (nothing
          written).

  History: when it was paused, one entry: action resumeQueue, group '', before
  { paused: true }, after { paused: false }.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hdel settings; lpush/ltrim wake; xadd P:{Q}:history (when it was paused).
]]
--- @include "allowAtMaxmemory"
--- @include "keys"
--- @include "history"

local settingsKey = KEYS[1]
local wakeKey = KEYS[2]
local h = historyArgs(ARGV[1], ARGV[2])

allowAtMaxmemory(settingsKey)
if redis.call('HDEL', settingsKey, 'paused') == 0 then
  return 0
end
redis.call('LPUSH', wakeKey, '1')
redis.call('LTRIM', wakeKey, 0, WAKE_LENGTH - 1)
recordHistory(baseOf(settingsKey, 'settings'), h, 'resumeQueue', '', { paused = true },
  { paused = false }, nil)
return 1
