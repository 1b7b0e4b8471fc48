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
    ARGV[5] actor            who asks (history, includes/history.lua)
    ARGV[6] cap              the queue history's cap (count; 0 records nothing)

  Output: { completedCount, completedAgeMs, deadCount, deadAgeMs } in force after the call
          (the defaults where none is stored; an age false for no age bound)

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most (shrinking the
  retention is what an operator does in a memory incident); see includes/allowAtMaxmemory.lua.

  History: when the policies in force changed, one entry: action setRetention, group '', before
  and after the policies { completed = { count, ageMs }, dead = { count, ageMs } } (ageMs null:
  no age bound). A call that changes nothing records nothing.

  Events: hset settings (when a field was given); xadd P:{Q}:history (when a policy changed).
]]
--- @include "allowAtMaxmemory"
--- @include "retention"
--- @include "history"

local settingsKey = KEYS[1]
local FIELDS = { 'completedCount', 'completedAgeMs', 'deadCount', 'deadAgeMs' }
local h = historyArgs(ARGV[5], ARGV[6])

-- The policies in force, as the history records them.
local function policies()
  local completedCount, completedAgeMs = retentionOf(settingsKey, 'completed')
  local deadCount, deadAgeMs = retentionOf(settingsKey, 'dead')
  return {
    completed = { count = completedCount, ageMs = completedAgeMs or cjson.null },
    dead = { count = deadCount, ageMs = deadAgeMs or cjson.null },
  }
end

allowAtMaxmemory(settingsKey)
local before = policies()
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
local after = policies()
local function same(a, b)
  return a.count == b.count and a.ageMs == b.ageMs
end
if not (same(before.completed, after.completed) and same(before.dead, after.dead)) then
  recordHistory(baseOf(settingsKey, 'settings'), h, 'setRetention', '', before, after, nil)
end
local function age(ms)
  if ms == cjson.null then
    return false
  end
  return ms
end
return { after.completed.count, age(after.completed.ageMs), after.dead.count, age(after.dead.ageMs) }
