--[[
  retry — give an active job back after a failed attempt: release its group's permit at once,
  record the failure (its error list and lastError), then put the job back at the front of its
  own lane (its original FIFO score: it is next), or into `delayed` for its wait (an explicit
  delay, else its backoff policy), or into `dead` once its attempts reached maxAttempts
  (includes/requeueJob.lua). Re-rings the group with a wake if that made it serviceable.

  Input:
    KEYS[1]  glimit    hash   group -> limit
    KEYS[2]  gactive   hash   group -> active count
    KEYS[3]  ring      list   serviceable groups
    KEYS[4]  paused    set    paused groups
    KEYS[5]  wake      list   wake tokens
    KEYS[6]  active    zset   active job id -> lease deadline (ms)
    KEYS[7]  leases    hash   active job id -> group
    KEYS[8]  dead      zset   dead job id -> time it died (ms)
    KEYS[9]  stats     hash   counters
    KEYS[10] delayed   zset   delayed job id -> when it runs (ms)
    KEYS[11] settings  hash   the queue's settings (dead retention; delayedAt)
    KEYS[12] job       hash   the job

    ARGV[1] base     'P:{Q}:' — the job's group's lane P:{Q}:g:<group>:pending, delayed index
                     P:{Q}:g:<group>:delayed and dead index P:{Q}:g:<group>:dead, and the job's
                     error list P:{Q}:job:<id>:errors, and the throughput hash
                     P:{Q}:throughput are built from it (includes/keys.lua; same slot)
    ARGV[2] id
    ARGV[3] token
    ARGV[4] error    the failure's message ('' for none; ≤ 1,024 characters, cut by the engine)
    ARGV[5] stack    its stack ('' for none: null in the error entry; ≤ 8,192 characters)
    ARGV[6] delayMs  the wait before the job runs again, overriding its backoff policy
                     (0..2,592,000,000; 0 = at once), or '' to follow the policy
    ARGV[7] r        a random number in [0, 1) for the policy's jitter

  Output: { id, field1, value1, ... } (the job hash and its payload, includes/payloads.lua,
          after the retry: state 'pending', 'delayed'
          or 'dead'; a dead job forgotten at once by a dead retention of 0 answers its hash as
          it was just before), or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) (includes/groupState.lua). attempts and maxAttempts are compared as decimal
  text, exactly, whatever their size (includes/requeueJob.lua).

  Events: zrem active; hdel leases; hincrby/hdel gactive + zadd/zrem gactiverank; lpush + ltrim
  errors; hset job; then zadd lane + heads + zincrby gpending, or zadd delayed + g:<group>:delayed
  (+ hset settings delayedAt when earlier, includes/nextDue.lua), or zadd dead + g:<group>:dead (and the trim of dead: zrem, del job + errors); hincrby stats; hset
  throughput (a failed attempt, includes/throughput.lua); rpush ring + lpush/ltrim wake (re-ring);
  hdel settings capped + lpush/ltrim wake when a claim was held back by the queue's cap
  (includes/capWake.lua).
]]
--- @include "nowMs"
--- @include "settleGroup"
--- @include "checkLease"
--- @include "releaseJob"
--- @include "requeueJob"
--- @include "capWake"
--- @include "throughput"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], dead = KEYS[8], stats = KEYS[9], delayed = KEYS[10],
  settings = KEYS[11],
}
local jobKey = KEYS[12]
local base = ARGV[1]
local id = ARGV[2]
local token = ARGV[3]
local failure = {
  message = ARGV[4],
  stack = ARGV[5] ~= '' and ARGV[5] or nil,
  delayMs = ARGV[6] ~= '' and tonumber(ARGV[6]) or nil,
  r = tonumber(ARGV[7]) or 0,
}

local denied = checkLease(k.active, jobKey, id, token, k.settings)
if denied then
  return denied
end

local group, raw = leaseGroup(k, id, jobKey)
local active = group and checkedActive(k.gactive, group, raw)
local laneKey, wasServiceable, wasSaturated
group, laneKey, wasServiceable, wasSaturated = releaseJob(k, base, id, group, active)
local outcome, forgotten = requeueJob(k, base, jobKey, id, group, laneKey, nowMs(), failure)
if outcome ~= 'dead' then
  redis.call('HINCRBY', k.stats, 'retried', 1)
end
-- Every failed attempt, whatever became of the job (includes/throughput.lua).
countThroughput(base, 0, 0, 0, 1)
settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated, true)
-- A claim the queue's cap held back is woken (includes/capWake.lua): one HGET more per retry.
wakeCapped(k, redis.call('HGET', k.settings, 'capped'))
return { id, forgotten or jobFields(base, id) }
