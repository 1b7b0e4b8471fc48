--[[
  enqueue — add a job to the tail of its group's lane; re-ring the group with a wake if the job
  makes it serviceable (its lane was empty and it is neither paused nor at its limit).

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

    ARGV[1] base         'P:{Q}:' — the job key P:{Q}:job:<id> is built from it (the id is
                         only known here), and shares the queue's slot
    ARGV[2] group
    ARGV[3] payload      JSON text, or '' for none
    ARGV[4] maxAttempts  1..100 (validated by the engine)

  Output: { id, field1, value1, ... } — the new job hash
  Refuses (DATA_OUT_OF_RANGE, nothing written) when `seq` is not an integer from 0 to
  2^53−2: the new id would not be exact in Lua, nor as its lane score (a double); nor would it
  be a decimal job id. Also when the group has a limit and its active count is not an integer
  within ±(2^53−1) (includes/groupState.lua).

  Events: incr seq; hset job; zadd lane; zadd groups; hincrby stats; rpush ring + lpush/ltrim
  wake (re-ring).
]]
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
local base = ARGV[1]
local group = ARGV[2]
local payload = ARGV[3]
local maxAttempts = ARGV[4]

local last = redis.call('GET', seqKey)
if last and not (isSafeInteger(last) and tonumber(last) >= 0 and tonumber(last) <= LAST_SEQ) then
  refuse(seqKey, nil, last, 'a job id counter from 0 to ' .. string.format('%d', LAST_SEQ)
    .. ' (ids past 2^53−1 are not exact in Lua nor as lane scores)',
    'Send new jobs to a new queue; lower the counter only if no job id above its new value is in use.')
end
local wasServiceable, wasSaturated = groupState(k, group, laneKey)
local seq = redis.call('INCR', seqKey)
local id = string.format('%d', seq)
local jobKey = base .. 'job:' .. id
redis.call('HSET', jobKey, 'group', group, 'state', 'pending', 'attempts', 0,
  'maxAttempts', maxAttempts, 'score', id, 'enqueuedAt', nowMs())
if payload ~= '' then
  redis.call('HSET', jobKey, 'payload', payload)
end
redis.call('ZADD', laneKey, seq, id)
redis.call('ZADD', groupsKey, 0, group)
redis.call('HINCRBY', k.stats, 'enqueued', 1)
redis.call('HINCRBY', k.stats, 'pending', 1)
settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
return { id, redis.call('HGETALL', jobKey) }
