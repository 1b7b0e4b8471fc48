--[[
  readWorkers — the queue's live workers (DESIGN.md §4.9 "Workers"): those whose heartbeat has
  not lapsed on the Redis clock (a lapsed one is left out before the reaper prunes it). Read
  only.

  Input:
    KEYS[1] workers     zset  worker id -> when it lapses (ms, Redis clock)
    KEYS[2] workerinfo  hash  worker id -> JSON (workerBeat-2.lua)
    KEYS[3] active      zset  active job id -> lease deadline

    ARGV[1] base        'P:{Q}:' — the active jobs' hashes are built from it (includes/keys.lua)
    ARGV[2] max         the most workers answered (1..10,000), the earliest to lapse first
    ARGV[3] countOnly   '1': answer the count of live workers alone

  Output: { now, count } with countOnly; else { now, ids, infos, leases }: the live workers'
          ids, their JSON (false when missing), and for each one the number of active jobs whose
          `worker` field names it when its info says `client` (a GraphQL client reports no
          count: its leases are counted, one HGET per active job, only when such a worker is
          listed), else false.
]]
--- @include "keys"
--- @include "nowMs"

local now = nowMs()
local above = '(' .. string.format('%d', now)
if ARGV[3] == '1' then
  return { now, redis.call('ZCOUNT', KEYS[1], above, '+inf') }
end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], above, '+inf', 'LIMIT', 0, tonumber(ARGV[2]))
local infos = {}
local CHUNK = 1000
for from = 1, #ids, CHUNK do
  local part = redis.call('HMGET', KEYS[2], unpack(ids, from, math.min(#ids, from + CHUNK - 1)))
  for i = 1, #part do
    infos[#infos + 1] = part[i]
  end
end
local leases, clients, anyClient = {}, {}, false
for i = 1, #ids do
  leases[i] = false
  local info = infos[i]
  if info and string.find(info, '"client":true', 1, true) then
    clients[ids[i]] = i
    leases[i] = 0
    anyClient = true
  end
end
if anyClient then
  local jobPrefix = jobPrefixOf(ARGV[1])
  local active = redis.call('ZRANGE', KEYS[3], 0, -1)
  for j = 1, #active do
    local worker = redis.call('HGET', jobPrefix .. active[j], 'worker')
    local at = worker and clients[worker]
    if at then
      leases[at] = leases[at] + 1
    end
  end
end
return { now, ids, infos, leases }
