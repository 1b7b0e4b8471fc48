--[[
  complete — finish an active job whose lease the caller holds: release its group's permit and
  re-ring the group with a wake if that made it serviceable (it was at its limit, is not
  paused, and has pending work). The job hash is deleted (retention: completed jobs are
  counted in stats, not kept).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] leases   hash   active job id -> group
    KEYS[8] stats    hash   counters
    KEYS[9] job      hash   the job

    ARGV[1] base   'P:{Q}:' — the lane P:{Q}:g:<group>:pending of the job's group (read from
                   `leases`) is built from it; it shares the queue's slot
    ARGV[2] id
    ARGV[3] token

  Output: { id, field1, value1, ... } (the job as it was, state 'completed'),
          or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)

  Events: zrem active; hdel leases; hincrby/hdel gactive; del job; hincrby stats;
  rpush ring + lpush/ltrim wake (re-ring).
]]
--- @include "nowMs"
--- @include "settleGroup"
--- @include "checkLease"
--- @include "releaseJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], stats = KEYS[8],
}
local jobKey = KEYS[9]
local base = ARGV[1]
local id = ARGV[2]
local token = ARGV[3]

local denied = checkLease(k.active, jobKey, id, token)
if denied then
  return denied
end

local group = redis.call('HGET', k.leases, id) or redis.call('HGET', jobKey, 'group')
local laneKey = base .. 'g:' .. group .. ':pending'
local wasServiceable, wasSaturated = groupState(k, group, laneKey)
releaseJob(k, id, jobKey)
redis.call('HDEL', jobKey, 'token', 'leaseUntil')
redis.call('HSET', jobKey, 'state', 'completed', 'finishedAt', nowMs())
local job = redis.call('HGETALL', jobKey)
redis.call('DEL', jobKey)
redis.call('HINCRBY', k.stats, 'completed', 1)
settleGroup(k, group, laneKey, wasServiceable, wasSaturated)
return { id, job }
