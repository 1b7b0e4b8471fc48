--[[
  pauseQueue — pause the whole queue: while `paused` is set in its settings the claim scripts
  (claim, completeAndClaim) claim nothing, for every group. Nothing else changes: completions,
  retries, lease extensions and reaping go on, delayed jobs are still promoted, and the ring and
  every group's limit, pause flag and counts are left as they are (invariant I1 is about the
  ring as the rota; the queue's pause is a gate in front of it), so resumeQueue finds the rota
  exactly as it was.

  Input:
    KEYS[1] settings hash   queue settings: paused = '1' while the queue is paused

    ARGV[1] actor   who asks (history, includes/history.lua)
    ARGV[2] cap     the queue history's cap (count; 0 records nothing)

  Output: 1 when the queue was running (now paused), 0 when it was paused already.

  History: when it was running, one entry: action pauseQueue, group '', before
  { paused: false }, after { paused: true } (a call that changes nothing records nothing).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most (an operator must be
  able to stop the queue during a memory incident); see includes/allowAtMaxmemory.lua.

  Events: hset settings, xadd P:{Q}:history (when it was running).
]]
--- @include "allowAtMaxmemory"
--- @include "history"

local settingsKey = KEYS[1]
local h = historyArgs(ARGV[1], ARGV[2])

allowAtMaxmemory(settingsKey)
if redis.call('HGET', settingsKey, 'paused') == '1' then
  return 0
end
redis.call('HSET', settingsKey, 'paused', '1')
recordHistory(baseOf(settingsKey, 'settings'), h, 'pauseQueue', '', { paused = false },
  { paused = true }, nil)
return 1
