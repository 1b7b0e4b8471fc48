--[[
  completeAndClaim — a worker's steady state in one round trip: complete the jobs its slots just
  finished, then claim jobs for its free slots. Exactly complete for each (id, token) in order,
  then claim once per claim token until the ring is empty, in one atomic script; the claims
  happen whatever the completions' answers (the slots are free either way).

  Batching is the point: N completions and M claims cost one round trip, one lease check per
  job, and one write each to `active`, `leases`, `gactive` and `stats` for the whole batch
  (includes/releasePermits.lua, includes/claimJobs.lua) instead of one per job.

  The claims are claim's (includes/claimJobs.lua, claimDue: due delayed jobs promoted first,
  nothing claimed while the queue is paused). The completions follow complete's rules
  (includes/completeJob.lua) and share its pieces: the lease check's refusals (checkLease), a
  job's group (its hash's, read with the token, else its lease's), the permits' release
  (readPermits, releasePermits: I1 and the re-ring), what becomes of the job by the completed
  retention (finishCompleted, with the policy read once per call and a trim of at most
  TRIM_PER_ADD per job kept, for the whole batch); but not completeJob itself, which reads and
  writes per job what this reads and writes once per batch. Completing through completeJob once
  per job instead, measured (npm run bench -- --only=throughput, and redis-server under callgrind
  over 3,000 jobs, same machine, back to back): the Worker at concurrency 64 went from 5.7 to 18.5
  Redis commands per job and from ~246,000 to ~330,000 Redis instructions per job (+34%; 16,100 ->
  12,500 jobs/s in that run), at concurrency 8 from 10.2 to 21.4 commands per job; one call per
  job from 26.0 to 31.1 commands and +7% instructions.

  Input:
    KEYS[1] settings  hash  declared beside the slot guard so that no call runs while the
                            queue's slot moves (the guard stops only a call of several keys,
                            DESIGN.md §3); read as k.settings, the same name.
                            Read: paused; the completed retention; the cap (limit, reserved,
                            capped: includes/queueCap.lua, includes/capWake.lua); delayedAt,
                            reopenAt (includes/nextDue.lua).
    The claim's other keys (glimit, gactive, ring, paused, wake, active, leases, stats,
    delayed, completed; DESIGN.md §2 says what each holds) are built from base (claimKeysOf,
    includes/keys.lua; a library keeps them per queue), not passed: each argument of a call
    costs ~1,370 instructions (docs/PERFORMANCE.md, "What every call pays").

    ARGV[1] base                'P:{Q}:' — the job keys P:{Q}:job:<id> of the completions and
                                claims, the lanes and completed indexes of their groups, the
                                error lists, the keys of promoted and trimmed jobs and the
                                throughput hash P:{Q}:throughput are built from it
                                (includes/keys.lua); all share the queue's slot
    ARGV[2] leaseMs             lease length of the claimed jobs, ms
    ARGV[3] defaultMaxAttempts  for a claimed job with no hash (written by another implementation)
    ARGV[4] promoteBatch        the most delayed jobs promoted by this call (Defaults.promoteBatch)
    ARGV[5] n                   number of completions (0..1,000, checked by the engine)
    ARGV[6] worker              the claiming worker's id, written as each claimed job's
                                `worker` field ('' for none; DESIGN.md §4.9)
    ARGV[7 .. 6 + 3n]           id, token, result of each job to complete (result: its JSON
                                text, '' for none; kept as complete-11.lua keeps it)
    ARGV[7 + 3n ..]             one lease token per job to claim (0..1,000)

  Output: { finishedAt, statuses, claimedAt, leaseUntil, claimed, nextRunAt }
    finishedAt  ms (Redis clock) when the completions were recorded
    statuses    one per completion, in order: 1 completed, -1 JOB_NOT_FOUND, -2 LEASE_LOST,
                -3 DATA_OUT_OF_RANGE (its group's active count is not an integer within
                ±(2^53−1): nothing of that job is written, includes/releasePermits.lua)
                (the same id twice: the second is answered as a second complete would be:
                LEASE_LOST when the first was kept by the retention, else JOB_NOT_FOUND)
    claimedAt, leaseUntil
                of every claimed job (false when none was claimed)
    claimed     the claimed jobs, the i-th under the i-th claim token (positional, see
                includes/claimJobs.lua), in rota order; fewer than asked when the ring ran out,
                none while the queue is paused
    nextRunAt   when fewer were claimed than asked on a running queue, the earliest runAt in
                `delayed` or reopening in `ratelimited` (ms; by their bounds, which may be
                earlier), else false: a worker parks no longer than until then

  Events: zrem active; hdel leases; hset/hdel gactive + zadd/zrem gactiverank; hincrby stats; one
  hset throughput for the call's completions and claims (includes/throughput.lua); rpush ring +
  lpush/ltrim wake (re-ring); del job and errors (retention count 0) or hset/hdel job, hset
  results (with a result), zadd completed and g:<group>:completed and the trim's zrem/del; then those of claim (and, for a
  batch of 16 claims or more whose keys are still listpacks, the zadd + zrem or hset + hdel of
  one long member that converts `active`, `leases`, `gactive`, `glimit`:
  includes/indexedEncoding.lua); hset settings capped (a claim held back by the queue's cap);
  hset settings delayedAt / reopenAt (a bound refreshed or lowered, includes/nextDue.lua);
  hdel settings capped + lpush/ltrim wake (a claim held back earlier, woken by the completions
  when the call's claims left a permit free).
]]
--- @include "keys"
--- @include "nowMs"
--- @include "checkLease"
--- @include "releasePermits"
--- @include "finishCompleted"
--- @include "claimJobs"
--- @include "capWake"

local base = ARGV[1]
local k = claimKeysOf(base)
local n = tonumber(ARGV[5])
-- Completions and claims share one batch of writes (includes/claimJobs.lua, flushClaims).
local batch = newClaimBatch(tonumber(ARGV[2]), ARGV[6])
-- A call that claims asks first whether the queue has any delayed job, rate, weight or watched
-- job (includes/quietQueue.lua): one EXISTS that, when it counts none, spares the claims'
-- optional reads and the completions' watch check (else a second says which to read).
if #ARGV > 6 + 3 * n then
  batch.readsDelayed, batch.readsRates, batch.readsWeights = probeQuiet(base, k.delayed)
end
-- The queue's gate, completed retention and cap (includes/queueCap.lua), and, when the claims
-- may promote, its "next due at" (includes/nextDue.lua): one read for the call.
local settings
if batch.readsDelayed or batch.readsRates then
  settings = redis.call('HMGET', k.settings, 'paused', 'completedCount', 'completedAgeMs',
    'limit', 'reserved', 'capped', 'delayedAt', 'reopenAt')
else
  settings = redis.call('HMGET', k.settings, 'paused', 'completedCount', 'completedAgeMs',
    'limit', 'reserved', 'capped')
end
local gate = capOf(settings[4], settings[5], settings[6])
local keepCount, keepAgeMs = retentionFrom('completed', settings[2], settings[3])

-- The completions: nothing of them is made for a call that has none.
local statuses = {}
if n > 0 then
  -- The lease check (invariant I5, as includes/checkLease.lua does for one job): each job's
  -- token and group from its hash, one HMGET per job, then one ZMSCORE for every job whose token
  -- matched. The job keys from a prefix built once (jobKeyOf's name, includes/keys.lua): a Lua
  -- call per job costs about what a redis.call does (docs/PERFORMANCE.md "Fewer Lua calls per
  -- job"). A job's read is kept by id (a batch may name one twice), its third field the lease:
  -- nil (no token matched), false (not active), true (active), DONE (completed by this call).
  local DONE = 'done'
  local jobPrefix = jobPrefixOf(base)
  local reads, holders = {}, {}
  for i = 1, n do
    local id = ARGV[4 + 3 * i]
    local job = reads[id]
    if job == nil then
      job = redis.call('HMGET', jobPrefix .. id, 'token', 'group')
      reads[id] = job
    end
    if job[1] == ARGV[5 + 3 * i] and job[3] == nil then
      holders[#holders + 1] = id
      job[3] = false
    end
  end
  if #holders > 0 then
    local scores = redis.call('ZMSCORE', k.active, unpack(holders))
    for i = 1, #holders do
      reads[holders[i]][3] = scores[i] ~= false
    end
  end

  local DATA_OUT_OF_RANGE = -3
  local done, doneAt = {}, {}
  for i = 1, n do
    local id, token = ARGV[4 + 3 * i], ARGV[5 + 3 * i]
    local job = reads[id]
    if job[3] == DONE then
      -- As a second complete would find it: kept (not active), or gone.
      statuses[i] = keepCount > 0 and LEASE_LOST or JOB_NOT_FOUND
    elseif job[3] == true and job[1] == token then
      statuses[i] = 1
      job[3] = DONE
      done[#done + 1] = id
      doneAt[#doneAt + 1] = i
    else
      statuses[i] = checkLease(k.active, jobPrefix .. id, id, token, k.settings) or LEASE_LOST
    end
  end

  if #done > 0 then
    -- The group of each job: its hash's, read with its token (the group its claim leased it
    -- under: DESIGN.md §2 `leases`), else its lease's (a hash written by another writer).
    -- groups lists each once, at its place in `at`; taken[place] counts its jobs.
    local groupOf, groups, at, taken = {}, {}, {}, {}
    -- Numeric loops over the jobs: ipairs calls its iterator per step.
    for j = 1, #done do
      local group = reads[done[j]][2] or redis.call('HGET', k.leases, done[j]) or nil
      groupOf[j] = group
      if group then
        local place = at[group]
        if place == nil then
          place = #groups + 1
          groups[place] = group
          at[group] = place
          taken[place] = 1
        else
          taken[place] = taken[place] + 1
        end
      end
    end
    -- Every limit and count is read before the first write, so a completion whose group's count
    -- cannot be counted exactly is refused alone, with nothing of it written.
    local limits, actives = readPermits(k, groups)
    local released = #done
    for j = 1, #done do
      local group = groupOf[j]
      if group and actives[at[group]] == nil then
        statuses[doneAt[j]] = DATA_OUT_OF_RANGE
        released = released - 1
      end
    end
    if released < #done then
      -- Rare: the refused jobs leave the batch (releasePermits passes over their groups: nil).
      local left, leftGroups, leftAt = {}, {}, {}
      for j = 1, #done do
        local group = groupOf[j]
        if not (group and actives[at[group]] == nil) then
          left[#left + 1] = done[j]
          leftGroups[#left] = group
          leftAt[#left] = doneAt[j]
        end
      end
      done, groupOf, doneAt = left, leftGroups, leftAt
    end
    if released > 0 then
      -- The results, only when one is given (finishCompleted reads none for a nil table).
      local results
      for j = 1, released do
        local result = ARGV[6 + 3 * doneAt[j]]
        if result ~= '' then
          results = results or {}
          results[j] = result
        end
      end
      redis.call('ZREM', k.active, unpack(done))
      redis.call('HDEL', k.leases, unpack(done))
      batch.completed = released
      releasePermits(k, base, groups, taken, limits, actives, groupOf, released)
      finishCompleted(k, base, done, groupOf, nowMs(), keepCount, keepAgeMs, results)
    end
  end
end

local tokens = { unpack(ARGV, 7 + 3 * n) }
local claimed, nextAt = claimDue(k, base, batch, tokens, ARGV[3], ARGV[4],
  settings[1] == '1', gate, settings[7], settings[8])
flushClaims(k, base, batch, claimed)

-- ── hook: the queue's cap (includes/capWake.lua) ──
-- Leases ended here wake a claim the cap held back, unless this call's own claims took every
-- permit left (a worker woken then would find none: the flag stays for the next lease to end).
if batch.completed > 0 then
  if gate == nil then
    wakeCapped(k, settings[6])
  elseif gate.capped and gate.limit > redis.call('ZCARD', k.active) then
    wakeCapped(k, '1')
  end
end

return { nowMs(), statuses, claimReply(batch, claimed, nextAt) }
