--[[
  reconcileDue — Queue.audit / Queue.repair of the queue's "next due at" (DESIGN.md §3, "Next
  due at"; §4.5): `settings.delayedAt` and `settings.reopenAt` are lower bounds of the earliest
  score of `delayed` and of `ratelimited` (includes/nextDue.lua), kept by every writer of those
  zsets. One above the earliest (written by hand, or by a writer that does not keep it) would
  leave what is due there until the reaper's next pass rewrites it. One atomic step: the two
  fields and each zset's first score, so traffic during it makes no false finding. O(log n).

  Findings (kind DUE), one per field above its zset's earliest score (a field absent, or not a
  time, reads as unknown and is no finding; a bound below it is allowed):
    subject 'delayedAt' or 'reopenAt'  expected 'at most <earliest>', found the stored value;
                                       repair writes the earliest score (HSET)

  Input:
    KEYS[1] settings  hash   queue settings: delayedAt, reopenAt
    KEYS[2] delayed   zset   delayed job id -> run-at time (ms)
    Built from the base (KEYS[1] less 'settings', includes/keys.lua): ratelimited, history.

    ARGV[1] mode    'audit' (change nothing) or 'repair'
    ARGV[2] actor   who asks (includes/history.lua)
    ARGV[3] cap     the queue history's cap (0 records nothing)

  Output: { findings } — flat { subject, 'DUE', expected, found, ... }

  History (repair only, includes/repairHistory.lua): one entry 'repair', group '', step 'due',
  before/after { <field> } for each field rewritten.

  Events (repair only): hset settings delayedAt / reopenAt, xadd history.
]]
--- @include "keys"
--- @include "nextDue"
--- @include "repairHistory"

local settingsKey = KEYS[1]
local base = baseOf(settingsKey, 'settings')
local repair = ARGV[1] == 'repair'
local h = historyArgs(ARGV[2], ARGV[3])
local log = repairLog('due')
local findings = {}

local stored = redis.call('HMGET', settingsKey, 'delayedAt', 'reopenAt')
local zsets = { KEYS[2], rateLimitedKeyOf(base) }
for i, field in ipairs({ 'delayedAt', 'reopenAt' }) do
  local bound = dueOf(stored[i])
  local first = redis.call('ZRANGE', zsets[i], 0, 0, 'WITHSCORES')
  if bound ~= nil and first[2] ~= nil and bound > tonumber(first[2]) then
    findings[#findings + 1] = field
    findings[#findings + 1] = 'DUE'
    findings[#findings + 1] = 'at most ' .. first[2]
    findings[#findings + 1] = stored[i]
    if repair then
      redis.call('HSET', settingsKey, field, first[2])
      noteRepair(log, '', field, stored[i], first[2])
    end
  end
end
recordRepairs(base, h, log)
return { findings }
