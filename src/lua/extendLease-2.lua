--[[
  extendLease — push an active job's lease deadline out to now + leaseMs (Redis clock), for
  the caller holding its token. Only ever out: a deadline already later is kept (ZADD GT), so
  a late or duplicate extension can never shorten a lease.

  Input:
    KEYS[1] active   zset   active job id -> lease deadline (ms)
    KEYS[2] job      hash   the job

    ARGV[1] id
    ARGV[2] token
    ARGV[3] leaseMs  1..86,400,000 (validated by the engine)
    ARGV[4] base     'P:{Q}:' — P:{Q}:payloads, for the reply's payload, and P:{Q}:settings,
                     whose retention a refusal reads (includes/checkLease.lua: a finished job
                     past its age is JOB_NOT_FOUND), are built from it
                     (includes/keys.lua; same slot)

  Output: { id, { field1, value1, ... } } (the job hash and its payload, from P:{Q}:payloads:
  includes/payloads.lua, jobFields), or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: zadd active; hset job.
]]
--- @include "allowAtMaxmemory"
--- @include "nowMs"
--- @include "checkLease"
--- @include "payloads"

local activeKey = KEYS[1]
local jobKey = KEYS[2]
local id = ARGV[1]
local token = ARGV[2]
local leaseMs = tonumber(ARGV[3])
local base = ARGV[4]

local denied = checkLease(activeKey, jobKey, id, token, settingsKeyOf(base))
if denied then
  return denied
end
allowAtMaxmemory(activeKey)

redis.call('ZADD', activeKey, 'XX', 'GT', nowMs() + leaseMs, id)
redis.call('HSET', jobKey, 'leaseUntil', redis.call('ZSCORE', activeKey, id))
return { id, jobFields(base, id) }
