--[[
  retry — give an active job back: release its group's permit at once, then put the job back
  at the front of its own lane (its original FIFO score: it is next), or into `dead` once its
  attempts reached maxAttempts. Re-rings the group with a wake if that made it serviceable.

  Input:
    KEYS[1]  glimit   hash   group -> limit
    KEYS[2]  gactive  hash   group -> active count
    KEYS[3]  ring     list   serviceable groups
    KEYS[4]  paused   set    paused groups
    KEYS[5]  wake     list   wake tokens
    KEYS[6]  active   zset   active job id -> lease deadline (ms)
    KEYS[7]  leases   hash   active job id -> group
    KEYS[8]  dead     zset   dead job id -> time it died (ms)
    KEYS[9]  stats    hash   counters
    KEYS[10] job      hash   the job

    ARGV[1] base   'P:{Q}:' — the lane P:{Q}:g:<group>:pending of the job's group is built from
                   it (includes/keys.lua; same slot)
    ARGV[2] id
    ARGV[3] token
    ARGV[4] error  why it failed ('' for no reason), kept as the job's lastError

  Output: { id, field1, value1, ... } (the job hash after the retry: state 'pending' or
          'dead'), or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) (includes/groupState.lua). attempts and maxAttempts are compared as decimal
  text, exactly, whatever their size (includes/requeueJob.lua).

  Events: zrem active; hdel leases; hincrby/hdel gactive; zadd lane or zadd dead; hset job;
  hincrby stats; rpush ring + lpush/ltrim wake (re-ring).
]]
--- @include "nowMs"
--- @include "settleGroup"
--- @include "checkLease"
--- @include "releaseJob"
--- @include "requeueJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], dead = KEYS[8], stats = KEYS[9],
}
local jobKey = KEYS[10]
local base = ARGV[1]
local id = ARGV[2]
local token = ARGV[3]
local err = ARGV[4]

local denied = checkLease(k.active, jobKey, id, token)
if denied then
  return denied
end

local group, raw = leaseGroup(k, id, jobKey)
local active = group and checkedActive(k.gactive, group, raw)
local laneKey, wasServiceable, wasSaturated
group, laneKey, wasServiceable, wasSaturated = releaseJob(k, base, id, group, active)
if requeueJob(k, jobKey, id, laneKey, nowMs(), err) == 'pending' then
  redis.call('HINCRBY', k.stats, 'retried', 1)
end
settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
return { id, redis.call('HGETALL', jobKey) }
