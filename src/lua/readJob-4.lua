--[[
  readJob — one job as Queue.job reads it (DESIGN.md §4.1): its hash, payload, result (of a
  completed job that has one, from P:{Q}:results beside `payloads`) and error list, or
  nothing when it is gone. Read-only, O(1) plus the job's error list (bounded,
  Defaults.errorsKept).

  Gone includes a completed or dead job past its retention age that no trim has reached yet
  (includes/retentionAge.lua): the reaper trims in batches, so without this check a job would
  read COMPLETED after its policy dropped it, until the next pass. Read in one script so the
  retention, the clock (TIME, the trim's clock) and the hash are of one instant and one node.
  A script that writes nothing runs at maxmemory (includes/allowAtMaxmemory.lua: Redis refuses
  only a script's first write), as the plain reads it replaces did.

  Input:
    KEYS[1] job       hash  P:{Q}:job:<id>
    KEYS[2] payloads  hash  job id -> payload (DESIGN.md §2, "Job layout")
    KEYS[3] errors    list  the job's failed attempts, newest first (JSON)
    KEYS[4] settings  hash  the queue's retention policies (includes/retention.lua)

    ARGV[1] id        the job's id (its field in payloads)

  Output: { fields, errors }
    fields  the job hash, flat { field, value, ... }, its payload appended as 'payload' when it
            has one, its result as 'result' when the hash says hasResult (includes/payloads.lua);
            {} when there is no hash or the job is past its retention age
    errors  the error list's entries ({} when gone, or when the key is not a list: another
            writer's key reads as no errors rather than failing the read)

  Events: none.
]]
--- @include "nowMs"
--- @include "retentionAge"
--- @include "payloads"

local jobKey = KEYS[1]
local payloadsKey = KEYS[2]
local errorsKey = KEYS[3]
local settingsKey = KEYS[4]
local id = ARGV[1]

local fields = redis.call('HGETALL', jobKey)
if #fields == 0 or pastRetention(settingsKey, fields, nowMs()) then
  return { {}, {} }
end
local payload = redis.call('HGET', payloadsKey, id)
if payload then
  fields[#fields + 1] = 'payload'
  fields[#fields + 1] = payload
end
withResult(baseOf(payloadsKey, 'payloads'), id, fields)
local errors = {}
if redis.call('TYPE', errorsKey).ok == 'list' then
  errors = redis.call('LRANGE', errorsKey, 0, -1)
end
return { fields, errors }
