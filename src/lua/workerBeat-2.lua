--[[
  workerBeat — a worker's heartbeat: register it in the queue's worker registry, or refresh it
  (DESIGN.md §4.9 "Workers"). The worker is live until `lapseMs` after this beat on the Redis
  clock; a read leaves it out from then on, and the reaper's pass prunes it
  (pruneWorkers-2.lua). O(log n) in workers; nothing per job.

  Input:
    KEYS[1] workers     zset  worker id -> when it lapses (ms, Redis clock)
    KEYS[2] workerinfo  hash  worker id -> JSON {hostname, pid, concurrency, active, startedAt,
                              lastSeenAt, version, heartbeatMs, client}

    ARGV[1] id           the worker's id (checked by the engine: 1..200 characters, no control
                         characters)
    ARGV[2] hostname     '' for none
    ARGV[3] pid          decimal, '' for none
    ARGV[4] concurrency  decimal, '' for none
    ARGV[5] active       decimal: the jobs it holds now, as it reports them; '' for a client
                         (GraphQL), whose count the read takes from its leases (readWorkers-3.lua)
    ARGV[6] version      '' for none
    ARGV[7] heartbeatMs  how often it beats (ms); it lapses 3 beats after this one
    ARGV[8] fresh        '1': a worker starting now (startedAt = now); else startedAt is kept
                         from the stored info (now when there is none)

  Output: { now, lapsesAt } — ms, Redis clock.

  Events: zadd workers; hset workerinfo.

  Runs at maxmemory (includes/allowAtMaxmemory.lua): a worker keeps beating through a memory
  incident, as it keeps its leases; a beat adds a few hundred bytes only for a worker new to
  the registry.
]]
--- @include "nowMs"
--- @include "allowAtMaxmemory"

local workersKey, infoKey = KEYS[1], KEYS[2]
local id = ARGV[1]
local heartbeatMs = tonumber(ARGV[7])
local now = nowMs()

local startedAt = now
if ARGV[8] ~= '1' then
  local stored = redis.call('HGET', infoKey, id)
  if stored then
    local ok, info = pcall(cjson.decode, stored)
    if ok and type(info) == 'table' and type(info.startedAt) == 'number'
      and redis.call('ZSCORE', workersKey, id) then
      startedAt = info.startedAt
    end
  end
end

local function numberOrNull(text)
  if text == '' then
    return cjson.null
  end
  return tonumber(text)
end

local lapsesAt = now + 3 * heartbeatMs
allowAtMaxmemory(workersKey)
redis.call('ZADD', workersKey, lapsesAt, id)
redis.call('HSET', infoKey, id, cjson.encode({
  hostname = ARGV[2] == '' and cjson.null or ARGV[2],
  pid = numberOrNull(ARGV[3]),
  concurrency = numberOrNull(ARGV[4]),
  active = numberOrNull(ARGV[5]),
  startedAt = startedAt,
  lastSeenAt = now,
  version = ARGV[6] == '' and cjson.null or ARGV[6],
  heartbeatMs = heartbeatMs,
  client = ARGV[5] == '',
}))
return { now, lapsesAt }
