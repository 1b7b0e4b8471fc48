--[[
  setRetention — set a queue's retention of completed and dead jobs (DESIGN.md §2,
  "Retention"; read by includes/retention.lua). A field given replaces the stored one; one left
  '' keeps it (absent = the default). Nothing is trimmed here: each completion (or death) trims
  at most TRIM_PER_ADD jobs past the new policy per job it keeps, and the reaper trims by age
  and count every pass, so a smaller policy is reached incrementally at a flat cost per call.

  Input:
    KEYS[1] settings hash   queue settings: completedCount, completedAgeMs, deadCount, deadAgeMs

    ARGV[1] completedCount   0..1,000,000, or '' to keep (validated by the engine)
    ARGV[2] completedAgeMs   1..31,536,000,000, 'none' for no age bound, or '' to keep
    ARGV[3] deadCount        as completedCount
    ARGV[4] deadAgeMs        as completedAgeMs

  Output: { completedCount, completedAgeMs, deadCount, deadAgeMs } in force after the call
          (the defaults where none is stored; an age false for no age bound)

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most (shrinking the
  retention is what an operator does in a memory incident); see includes/allowAtMaxmemory.lua.

  Events: hset settings (when a field was given).
]]
--- @include "allowAtMaxmemory"
--- @include "retention"

local settingsKey = KEYS[1]
local FIELDS = { 'completedCount', 'completedAgeMs', 'deadCount', 'deadAgeMs' }

allowAtMaxmemory(settingsKey)
local writes = {}
for i, field in ipairs(FIELDS) do
  if ARGV[i] ~= '' then
    writes[#writes + 1] = field
    writes[#writes + 1] = ARGV[i]
  end
end
if #writes > 0 then
  redis.call('HSET', settingsKey, unpack(writes))
end
local completedCount, completedAgeMs = retentionOf(settingsKey, 'completed')
local deadCount, deadAgeMs = retentionOf(settingsKey, 'dead')
return { completedCount, completedAgeMs or false, deadCount, deadAgeMs or false }
