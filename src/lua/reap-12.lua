--[[
  reap — the queue's housekeeping by the Redis clock, in bounded batches so a large backlog
  never blocks Redis for long; the caller repeats while any batch came back full.

  1. Take back every job whose lease has passed: release its group's permit and retry it as
     retry does (includes/requeueJob.lua: error entry 'lease expired' with no stack; back to
     its lane, or into `delayed` for its backoff, or dead at maxAttempts), counting it in
     stats.reaped. The group comes from `leases`, so a permit is released even when the job
     hash was deleted by hand. The jitter of the i-th job reaped (0-based) uses
     r_i = frac(r + i × 0.6180339887): one random number per call, spread evenly. A call
     that reaped any wakes a claim the queue's cap held back (includes/capWake.lua).
  2. Promote up to `batch` delayed jobs whose run-at time has come (includes/promote.lua), so
     they reach their lanes even when no worker claims.
  2b. Up to `batch` groups whose rate window reopened leave `ratelimited` and are re-ringed
     with a wake when serviceable (includes/rateLimit.lua promoteReopened: reopened).
  2c. The queue's "next due at" (`delayedAt`, `reopenAt` in settings, includes/nextDue.lua):
     each present rewritten as its zset's first score ('none' when empty) when it differs.
  3. Trim retained completed and dead jobs past their retention (count or age; at most `batch`
     of each, includes/retention.lua), so old entries go without traffic.
  4. Drop up to `batch` job watches past their time from P:{Q}:watched (includes/jobEvents.lua:
     a live feed that stopped without a word leaves its registrations there; the key itself
     expires with its latest registration, watchJobs-1.lua, in queues the reaper never walks).

  Input:
    KEYS[1]  glimit     hash   group -> limit
    KEYS[2]  gactive    hash   group -> active count
    KEYS[3]  ring       list   serviceable groups
    KEYS[4]  paused     set    paused groups
    KEYS[5]  wake       list   wake tokens
    KEYS[6]  active     zset   active job id -> lease deadline (ms)
    KEYS[7]  leases     hash   active job id -> group
    KEYS[8]  dead       zset   dead job id -> time it died (ms)
    KEYS[9]  stats      hash   counters
    KEYS[10] delayed    zset   delayed job id -> when it runs (ms)
    KEYS[11] settings   hash   the queue's settings (retention policies; delayedAt, reopenAt)
    KEYS[12] completed  zset   retained completed job id -> when it completed (ms)

    ARGV[1] base   'P:{Q}:' — each job's key P:{Q}:job:<id> and error list, and its group's
                   lane, delayed and dead indexes, and the throughput hash P:{Q}:throughput
                   are built from it (includes/keys.lua; same slot)
    ARGV[2] batch  the most jobs to reap, to promote, and to trim of each kind in this call
    ARGV[3] r      a random number in [0, 1) for the backoff jitter

  Output: { reaped, promoted, trimmedCompleted, trimmedDead, reopened, unwatched } (counts).
          A job whose group's active count is not an integer within ±(2^53−1) is not reaped
          (nor counted), nor promoted: nothing of it is written (includes/releaseJob.lua,
          includes/promote.lua).

  Events: as retry, for each job reaped; hincrby stats reaped; one hset throughput for all it
  reaped (failed attempts, includes/throughput.lua); as promotion for each job
  promoted; zrem ratelimited, rpush ring + lpush/ltrim wake for each group
  reopened; zrem completed/dead and their group indexes, del job + errors for each trimmed;
  zrem watched; a watched job's events (includes/jobEvents.lua); hset settings delayedAt /
  reopenAt (a bound rewritten, or lowered by a backoff's delay); hdel settings capped +
  lpush/ltrim wake (includes/capWake.lua).
]]
--- @include "keys"
--- @include "nowMs"
--- @include "settleGroup"
--- @include "releaseJob"
--- @include "requeueJob"
--- @include "promote"
--- @include "retention"
--- @include "rateLimit"
--- @include "jobEvents"
--- @include "capWake"
--- @include "throughput"
--- @include "nextDue"

local GOLDEN = 0.6180339887

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], dead = KEYS[8], stats = KEYS[9], delayed = KEYS[10],
  settings = KEYS[11], completed = KEYS[12],
}
local base = ARGV[1]
local batch = tonumber(ARGV[2])
local r = tonumber(ARGV[3]) or 0

local now = nowMs()
local expired = redis.call('ZRANGEBYSCORE', k.active, '-inf', now, 'LIMIT', 0, batch)
local reaped = 0
for _, id in ipairs(expired) do
  local jobKey = jobKeyOf(base, id)
  local group, raw = leaseGroup(k, id, jobKey)
  local active = group and parseActive(raw)
  -- A group whose active count is not a safe integer cannot be released exactly: its job is
  -- left as it is (still expired, reaped once Queue.repair has rewritten the count), and the
  -- rest of the batch goes on, so one damaged field cannot stop reaping for the whole queue.
  if not group or active ~= nil then
    local laneKey, wasServiceable, wasSaturated
    group, laneKey, wasServiceable, wasSaturated = releaseJob(k, base, id, group, active)
    -- With no group anywhere there is no lane to requeue into (the lease is ended all the same).
    if group then
      local spread = r + reaped * GOLDEN
      local failure = { message = 'lease expired', r = spread - math.floor(spread) }
      requeueJob(k, base, jobKey, id, group, laneKey, now, failure)
      settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated, true)
    end
    redis.call('HINCRBY', k.stats, 'reaped', 1)
    reaped = reaped + 1
  end
end

-- The expired leases taken back, failed attempts (includes/throughput.lua): once per call.
countThroughput(base, 0, 0, 0, reaped)

local promoted = promoteDue(k, base, now, batch)
local reopened = promoteReopened(k, base, string.format('%d', now), batch)
-- The queue's "next due at" (includes/nextDue.lua), each field that is there rewritten from the
-- zset it bounds, so a bound above the earliest (written by hand or by another writer) strands
-- nothing past this pass; an absent one stays unknown (the next claim call writes it).
local due = redis.call('HMGET', k.settings, 'delayedAt', 'reopenAt')
dueKnown = { delayedAt = due[1], reopenAt = due[2] }
if due[1] then
  keepDue(k.settings, 'delayedAt', k.delayed)
end
if due[2] then
  keepDue(k.settings, 'reopenAt', rateLimitedKeyOf(base))
end

local completedCount, completedAgeMs, capped = retentionOf(k.settings, 'completed')
if reaped > 0 then
  -- A claim the queue's cap held back is woken (includes/capWake.lua).
  wakeCapped(k, capped)
end
local trimmedCompleted = trim(base, 'completed', k.completed, completedCount, completedAgeMs,
  now, batch)
local deadCount, deadAgeMs = retentionOf(k.settings, 'dead')
local trimmedDead = trim(base, 'dead', k.dead, deadCount, deadAgeMs, now, batch)

local unwatched = trimWatches(base, now, batch)

return { reaped, promoted, trimmedCompleted, trimmedDead, reopened, unwatched }
