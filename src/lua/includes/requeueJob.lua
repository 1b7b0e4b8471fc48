--[[
  After a released lease (retry, reap): record the failed attempt, then put the job back —
  at the front of its own lane with its original score (its place by priority, then FIFO), or
  into `delayed` until its backoff has passed, or bury it in `dead` once its attempts reach
  maxAttempts (DESIGN.md §3, retry and backoff).
  A job whose hash is gone (deleted by hand) goes back to its lane as a bare id, as a job
  written by another implementation of the seed would be: it has no policy, no error list.

  The failed attempt (only for a job whose hash exists): an entry
  {"attempt":n,"at":ms,"message":"…","stack":"…"|null} is pushed on the job's error list
  (errorsKeyOf, newest first, trimmed to ERRORS_KEPT = Defaults.errorsKept) and the message
  becomes lastError (an empty message clears it: lastError is the last attempt's reason, none). cjson writes numbers with
  14 significant digits: `at` (13 digits until the year 2286) and attempt are exact.

  The wait of a job with attempts left: failure.delayMs when given (retry's explicit delay,
  overrides the policy), else its stored backoff policy (backoff, backoffDelayMs,
  backoffMaxDelayMs, backoffJitter), else 0:
    FIXED        delayMs
    EXPONENTIAL  min(delayMs × 2^(attempts − 1), maxDelayMs), attempts = the attempt that
                 just failed (1 for the first)
    never more than MAX_DELAY_MS (includes/bounds.lua, the longest delay an enqueue may ask): an
    EXPONENTIAL policy without maxDelayMs stops growing there; then with jitter j the wait is
    wait × (1 − j × failure.r), r in [0, 1) from the engine; floored to whole ms.
  A policy field that is not what the engine writes (another writer's) counts as no policy.
  wait > 0: state 'delayed', runAt = now + wait, in `delayed` and the group's delayed index,
  stats.delayed + 1, the queue's `delayedAt` lowered to runAt (includes/nextDue.lua; promotion,
  includes/promote.lua, returns it to its lane); wait 0: its lane,
  stats.pending + 1.

  Dead: state 'dead', finishedAt, stats.dead + 1, and — by the queue's dead retention
  (includes/retention.lua, read once per script into k.deadRetention) — kept in `dead` and its
  group's dead index, then at most TRIM_PER_ADD of the oldest past the policy trimmed; with a
  retention count of 0 the job is forgotten at once (hash and error list deleted).

  Exact whatever the fields hold (includes/safeInteger.lua): attempts and maxAttempts are
  compared as decimal text, never as doubles (an attempts that is not an integer counts as 0; a
  maxAttempts that is not one means no limit, as before). The score is the one the hash holds
  (its priority's, DESIGN.md §3 "Priorities"), or the id (finiteScore: NaN or an infinity falls
  back to the id, then 0, rather than making ZADD fail after the release was written).

  k: k.dead, k.delayed (zsets), k.stats, k.settings (hashes); k.deadRetention is filled in.
  base: 'P:{Q}:' (the group's delayed and dead indexes and the error list are built from it,
  includes/keys.lua). laneKey is the group's pending zset; a job put back there is noted in
  `heads` (includes/heads.lua).
  failure: { message = text ('' for none), stack = text or nil, delayMs = ms or nil, r = [0, 1) }.
  A watched job's new state is noted (includes/jobEvents.lua).
  Returns the outcome 'pending', 'delayed' or 'dead', and, when a dead job was forgotten at
  once, its hash fields as they were just before (a flat list), for the caller's reply.
]]
--- @include "keys"
--- @include "bounds"
--- @include "safeInteger"
--- @include "retention"
--- @include "heads"
--- @include "groupRanks"
--- @include "jobEvents"
--- @include "nextDue"

local ERRORS_KEPT = 10

-- The wait (ms) a job's stored policy asks after its attempt `attempts` failed; 0 for none.
local function backoffWait(policy, attempts, r)
  local kind, delayMs = policy[1], safeInteger(policy[2])
  if (kind ~= 'FIXED' and kind ~= 'EXPONENTIAL') or delayMs == nil or delayMs <= 0 then
    return 0
  end
  local maxDelayMs = safeInteger(policy[3])
  if maxDelayMs == nil or maxDelayMs < 0 or maxDelayMs > MAX_DELAY_MS then
    maxDelayMs = MAX_DELAY_MS
  end
  local wait = delayMs
  if kind == 'EXPONENTIAL' then
    local n = safeInteger(attempts) or 1
    -- 2^60 × 1 ms is past any cap: stop doubling before the double overflows.
    local exponent = math.max(0, math.min(n - 1, 60))
    wait = delayMs * 2 ^ exponent
  end
  wait = math.min(wait, maxDelayMs, MAX_DELAY_MS)
  local jitter = tonumber(policy[4])
  if jitter and jitter > 0 and jitter <= 1 then
    wait = wait * (1 - jitter * r)
  end
  return math.floor(wait)
end

-- Push the failed attempt on the job's error list, newest first, bounded.
local function recordFailure(base, jobKey, id, attempts, now, failure)
  local stack = failure.stack
  if stack == nil then
    stack = cjson.null
  end
  local entry = cjson.encode({
    attempt = safeInteger(attempts) or 0, at = now, message = failure.message, stack = stack,
  })
  local errorsKey = errorsKeyOf(base, id)
  redis.call('LPUSH', errorsKey, entry)
  redis.call('LTRIM', errorsKey, 0, ERRORS_KEPT - 1)
  if failure.message ~= '' then
    redis.call('HSET', jobKey, 'lastError', failure.message)
  else
    redis.call('HDEL', jobKey, 'lastError')
  end
end

local function requeueJob(k, base, jobKey, id, group, laneKey, now, failure)
  local job = redis.call('HMGET', jobKey, 'attempts', 'maxAttempts', 'score', 'backoff',
    'backoffDelayMs', 'backoffMaxDelayMs', 'backoffJitter')
  local attempts = isInteger(job[1]) and job[1] or '0'
  local maxAttempts = isInteger(job[2]) and job[2] or nil
  local score = finiteScore(job[3]) or finiteScore(id) or 0
  local exists = redis.call('EXISTS', jobKey) == 1
  if exists then
    redis.call('HDEL', jobKey, 'token', 'leaseUntil')
    recordFailure(base, jobKey, id, attempts, now, failure)
  end
  if exists and maxAttempts and compareIntegers(attempts, maxAttempts) >= 0 then
    redis.call('HSET', jobKey, 'state', 'dead', 'finishedAt', now)
    -- Before a retention of 0 forgets it: DEAD ends a watcher's subscription.
    noteJobEvent(base, id)
    redis.call('HINCRBY', k.stats, 'dead', 1)
    if k.deadRetention == nil then
      local count, ageMs = retentionOf(k.settings, 'dead')
      k.deadRetention = { count = count, ageMs = ageMs }
    end
    local keep = k.deadRetention
    if keep.count == 0 then
      local fields = jobFields(base, id)
      forget(base, id)
      return 'dead', fields
    end
    retain(k.dead, groupDeadKeyOf(base, group), id, now)
    trim(base, 'dead', k.dead, keep.count, keep.ageMs, now, TRIM_PER_ADD)
    return 'dead'
  end
  local wait = 0
  if exists then
    wait = failure.delayMs or backoffWait({ job[4], job[5], job[6], job[7] }, attempts, failure.r)
  end
  if wait > 0 then
    local runAt = now + wait
    redis.call('ZADD', k.delayed, runAt, id)
    redis.call('ZADD', groupDelayedKeyOf(base, group), runAt, id)
    lowerDue(k.settings, 'delayedAt', runAt)
    redis.call('HSET', jobKey, 'state', 'delayed', 'runAt', runAt)
    noteJobEvent(base, id)
    redis.call('HINCRBY', k.stats, 'delayed', 1)
    return 'delayed'
  end
  if redis.call('ZADD', laneKey, score, id) == 1 then
    addPending(base, group, 1)
  end
  -- Its id as a number: the score itself when it is the id (includes/heads.lua).
  noteLaneHead(base, group, job[3] and finiteScore(id) or score)
  if exists then
    redis.call('HSET', jobKey, 'state', 'pending')
    noteJobEvent(base, id)
  end
  redis.call('HINCRBY', k.stats, 'pending', 1)
  return 'pending'
end
