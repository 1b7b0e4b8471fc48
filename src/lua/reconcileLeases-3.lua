--[[
  reconcileLeases — the first step of Queue.audit / Queue.repair: make `active` and `leases`
  agree, since every permit count is derived from them. O(active jobs), bounded by the work in
  flight, not by the number of groups.
    - a lease whose job is not in `active` can never be reaped: dropped
    - an active job with no lease gets one from its job hash's group (so the reaper can
      release its permit); with no group anywhere it is left for the reaper to drop

  Input:
    KEYS[1] active   zset   active job id -> lease deadline (ms)
    KEYS[2] leases   hash   active job id -> group
    KEYS[3] groups   zset   group registry (unused here; named for symmetry with reconcileGroups)

    ARGV[1] base    'P:{Q}:' — job keys P:{Q}:job:<id> are built from it (includes/keys.lua;
                    same slot)
    ARGV[2] mode    'audit' (change nothing) or 'repair'
    ARGV[3] actor   who asks (history, includes/history.lua)
    ARGV[4] cap     the queue history's cap (count; 0 records nothing)

  Output: findings, flat: { subject, kind, expected, found, ... } where subject is a job id
    kind 'LEASE' — expected and found describe the lease entry

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group whose leases
  it changed, step 'leases', before/after `{ ["lease <id>"] = found / expected }`.

  Events (repair only): hdel/hset leases; xadd history.
]]
--- @include "keys"
--- @include "repairHistory"
local activeKey = KEYS[1]
local leasesKey = KEYS[2]
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local log = repairLog('leases')

local findings = {}
local function report(subject, kind, expected, found)
  findings[#findings + 1] = subject
  findings[#findings + 1] = kind
  findings[#findings + 1] = expected
  findings[#findings + 1] = found
end

local leases = redis.call('HGETALL', leasesKey)
for i = 1, #leases, 2 do
  local id = leases[i]
  if not redis.call('ZSCORE', activeKey, id) then
    local found = 'lease for group ' .. leases[i + 1]
    report(id, 'LEASE', 'no lease (job not active)', found)
    if repair then
      redis.call('HDEL', leasesKey, id)
      noteRepair(log, leases[i + 1], 'lease ' .. id, found, 'no lease (job not active)')
    end
  end
end

for _, id in ipairs(redis.call('ZRANGE', activeKey, 0, -1)) do
  if redis.call('HEXISTS', leasesKey, id) == 0 then
    local group = redis.call('HGET', jobKeyOf(base, id), 'group')
    if group then
      report(id, 'LEASE', 'lease for group ' .. group, 'no lease')
      if repair then
        redis.call('HSET', leasesKey, id, group)
        noteRepair(log, group, 'lease ' .. id, 'no lease', 'lease for group ' .. group)
      end
    else
      report(id, 'LEASE', 'a lease', 'no lease and no job hash: left for the reaper')
    end
  end
end

recordRepairs(base, historyArgs(ARGV[3], ARGV[4]), log)
return findings
