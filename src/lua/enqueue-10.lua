--[[
  enqueue — add a job to the tail of its group's lane; re-ring the group with a wake if the job
  makes it serviceable (its lane was empty and it is neither paused nor at its limit).

  With an idempotency key (a retried enqueue makes no second job) the key is looked up before anything is written:
  a key already used within its window answers the job it made and writes nothing (a producer
  that retries after a lost reply, or ioredis resending the call after a reconnect, cannot add
  a second job); a key used for a different request (group, payload, maxAttempts: compared by
  the fingerprint the engine computes) is refused. A new job records the key for keyTtlMs.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] lane     zset   the group's pending jobs
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters
    KEYS[9] seq      string job id counter
    KEYS[10] idem    hash   P:{Q}:idem:<key>: id, fingerprint, enqueuedAt of the job the key
                            made, expiring keyTtlMs after it; with no key, P:{Q}:idem: (no key
                            is empty, so that name is never read or written)

    ARGV[1] base         'P:{Q}:' — the job key P:{Q}:job:<id> of the new job, or of the job
                         an idempotency key made, is built from it (the id is only known
                         here; includes/keys.lua), and shares the queue's slot
    ARGV[2] group
    ARGV[3] payload      JSON text, or '' for none
    ARGV[4] maxAttempts  1..100 (validated by the engine)
    ARGV[5] keyTtlMs     how long the key is remembered, ms; '' for a call with no key
    ARGV[6] fingerprint  of the request (hex of a hash of group, maxAttempts and payload)

  Output: { id, { field1, value1, ... }, outcome }
    outcome 0  a new job: its hash
            1  the key's job, nothing written: its hash as it is now, or, once it completed
               (its hash is deleted), { group, payload, maxAttempts, enqueuedAt, state
               'completed' } from the request and the key
            2  the key was used for another request: the id of its job and no fields;
               nothing written
  Refuses (DATA_OUT_OF_RANGE, nothing written) when `seq` is not an integer from 0 to
  2^53−2: the new id would not be exact in Lua, nor as its lane score (a double); nor would it
  be a decimal job id. Also when the group has a limit and its active count is not an integer
  within ±(2^53−1) (includes/groupState.lua).

  Events: incr seq; hset job; hset + pexpire idem (with a key); zadd lane; zadd groups;
  hincrby stats; rpush ring + lpush/ltrim wake (re-ring). None for outcomes 1 and 2.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "settleGroup"

-- The last id `seq` may hold: INCR then mints 2^53−1, the last id a double holds exactly.
local LAST_SEQ = 9007199254740990

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local seqKey = KEYS[9]
local idemKey = KEYS[10]
local base = ARGV[1]
local group = ARGV[2]
local payload = ARGV[3]
local maxAttempts = ARGV[4]
local keyTtlMs = ARGV[5]
local fingerprint = ARGV[6]

local CREATED, EXISTING, CONFLICT = 0, 1, 2

if keyTtlMs ~= '' then
  local seen = redis.call('HMGET', idemKey, 'id', 'fingerprint', 'enqueuedAt')
  if seen[1] then
    if seen[2] ~= fingerprint then
      return { seen[1], {}, CONFLICT }
    end
    local fields = redis.call('HGETALL', jobKeyOf(base, seen[1]))
    if #fields == 0 then
      fields = { 'group', group, 'maxAttempts', maxAttempts, 'enqueuedAt', seen[3],
        'state', 'completed' }
      if payload ~= '' then
        fields[#fields + 1] = 'payload'
        fields[#fields + 1] = payload
      end
    end
    return { seen[1], fields, EXISTING }
  end
end

local last = redis.call('GET', seqKey)
if last and not (isSafeInteger(last) and tonumber(last) >= 0 and tonumber(last) <= LAST_SEQ) then
  refuse(seqKey, nil, last, 'a job id counter from 0 to ' .. string.format('%d', LAST_SEQ)
    .. ' (ids past 2^53−1 are not exact in Lua nor as lane scores)',
    'Send new jobs to a new queue; lower the counter only if no job id above its new value is in use.')
end
local wasServiceable, wasSaturated = groupState(k, group, laneKey)
local seq = redis.call('INCR', seqKey)
local id = string.format('%d', seq)
local jobKey = jobKeyOf(base, id)
redis.call('HSET', jobKey, 'group', group, 'state', 'pending', 'attempts', 0,
  'maxAttempts', maxAttempts, 'score', id, 'enqueuedAt', nowMs())
if payload ~= '' then
  redis.call('HSET', jobKey, 'payload', payload)
end
if keyTtlMs ~= '' then
  redis.call('HSET', idemKey, 'id', id, 'fingerprint', fingerprint, 'enqueuedAt', nowMs())
  redis.call('PEXPIRE', idemKey, keyTtlMs)
end
redis.call('ZADD', laneKey, seq, id)
redis.call('ZADD', groupsKey, 0, group)
redis.call('HINCRBY', k.stats, 'enqueued', 1)
redis.call('HINCRBY', k.stats, 'pending', 1)
settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
return { id, redis.call('HGETALL', jobKey), CREATED }
