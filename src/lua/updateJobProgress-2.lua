--[[
  updateJobProgress — set an active job's progress, for the caller holding its token (DESIGN.md
  §3, "Progress and logs"): its JSON text in the job hash's `progress` field, kept with the job
  (across retries, and while a retention keeps it) and deleted with it; a watched job gets a
  jobChanged entry carrying it (includes/jobEvents.lua).

  Input:
    KEYS[1] active    zset  active job id -> lease deadline (ms)
    KEYS[2] job       hash  the job

    ARGV[1] id
    ARGV[2] token
    ARGV[3] progress  JSON text: a number 0..100 or an object, at most `Limits.progressBytes`
                      (validated by the engine)
    ARGV[4] base      'P:{Q}:' — payloads, settings (the refusal's retention: includes/
                      checkLease.lua) and the event list are built from it (includes/keys.lua)

  Output: { id, { field1, value1, ... } } (the job as includes/payloads.lua's jobFields answers
  it), or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)

  Events: hset job; rpush/ltrim/expire job:<id>:events (watched jobs only).
]]
--- @include "checkLease"
--- @include "jobEvents"
--- @include "payloads"

local jobKey = KEYS[2]
local id = ARGV[1]
local base = ARGV[4]

local denied = checkLease(KEYS[1], jobKey, id, ARGV[2], settingsKeyOf(base))
if denied then
  return denied
end
redis.call('HSET', jobKey, 'progress', ARGV[3])
noteJobEvent(base, id)
return { id, jobFields(base, id) }
