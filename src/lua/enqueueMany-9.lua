--[[
  enqueueMany — enqueue up to 1,000 jobs in one atomic call, each exactly as enqueue-12.lua
  would, in input order (DESIGN.md §3, enqueueMany): a job to the tail of its group's lane, or
  delayed; its group re-ringed with a wake when the call makes it serviceable. Every job is
  judged before the first write (includes/enqueueJob.lua): its idempotency key, its run-at time,
  the id counter for the call's new jobs, and the active count of every group a job goes to the
  lane of. So a call that refuses one job writes nothing at all.

  Idempotency keys: a key used before the call answers its job (EXISTING), as enqueue does; a
  key two jobs of the call carry with the same request makes one job, the second answering the
  first's (as two enqueues in a row would); any key used for another request (before the call,
  or by an earlier job of it) refuses the call.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] groups   zset   group registry
    KEYS[7] stats    hash   counters
    KEYS[8] seq      string job id counter
    KEYS[9] delayed  zset   every delayed job of the queue: id -> runAt (ms)
  Built from base (includes/keys.lua; each shares the queue's slot): every group's lane
  (laneKeyOf) and delayed index (groupDelayedKeyOf), every job hash (jobKeyOf), every
  idempotency key (idemKeyOf), payloads, heads, settings (the layout mark), gturns, ratelimited.

    ARGV[1] base   'P:{Q}:'
    ARGV[2] n      the number of jobs, 1..1,000 (bounded by the engine)
    then 12 per job, the i-th job's from ARGV[3 + 12 × (i − 1)]:
      group, payload ('' none), maxAttempts, key ('' none: the idempotency key's name, 1–256
      bytes), keyTtlMs ('' without a key), fingerprint ('' without a key), delayMs ('' none),
      runAt ('' none; never with delayMs), backoff ('FIXED' | 'EXPONENTIAL' | '' none),
      backoffDelayMs, backoffMaxDelayMs ('' no cap), backoffJitter ('' or '0' none) —
      enqueue-12.lua's ARGV[2..12], the key's name in place of its declared idem key,
      validated by the engine.

  Output:
    { 0, { { id, fields, outcome }, ... } }  every job's reply, in input order, as enqueue-12.lua
        answers it: outcome 0 (new) or 1 (its key's job: nothing written for it)
    { 2, i, id | false, first | false }  job i's key was used for another request: for job `id`
        before the call, or (id false) by job `first` of this call; nothing written
    { 3, i, now }  job i's runAt is more than 30 days from now (ms, Redis clock); nothing written
  Refuses (DATA_OUT_OF_RANGE, nothing written) when `seq` cannot mint the call's new ids within
  2^53−1, or a group a job goes to the lane of has a limit and an active count that is not an
  integer within ±(2^53−1) (includes/groupState.lua).

  Events: enqueue-12.lua's, batched as includes/enqueueJob.lua says (one incrby seq, one hset
  payloads, one zadd groups, one hincrby per stats field, per group one zadd of its lane and of
  heads or of its delayed index, one zadd delayed; one rpush ring, hdel gturns and lpush/ltrim
  wake for all the groups re-ringed); per job one hset of its hash and, with a key, hset +
  pexpire of its idem key. None when refused or every job answers EXISTING.
]]
--- @include "enqueueJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], groups = KEYS[6], stats = KEYS[7], delayed = KEYS[9], base = ARGV[1],
}
local seqKey = KEYS[8]
local base = ARGV[1]
local n = tonumber(ARGV[2])
local STRIDE = 12

local call = newEnqueueCall(k, base)
local jobs = {}
for i = 1, n do
  local a = 2 + STRIDE * (i - 1)
  local key = ARGV[a + 4]
  local job = {
    group = ARGV[a + 1], payload = ARGV[a + 2], maxAttempts = ARGV[a + 3],
    idemKey = key ~= '' and idemKeyOf(base, key) or nil, keyTtlMs = ARGV[a + 5],
    fingerprint = ARGV[a + 6], delayMs = ARGV[a + 7], runAt = ARGV[a + 8],
    backoff = ARGV[a + 9], backoffDelayMs = ARGV[a + 10], backoffMaxDelayMs = ARGV[a + 11],
    backoffJitter = ARGV[a + 12],
    -- Set by includes/enqueueJob.lua (index below); named here so the table is sized once.
    outcome = false, delayed = false, at = false, seq = false, id = false, index = i,
  }
  jobs[i] = job
  local refused, detail, first = judgeJob(call, job)
  if refused == CONFLICT then
    return { CONFLICT, i, detail, first and first.index or false }
  elseif refused == RUN_AT_OUT_OF_RANGE then
    return { RUN_AT_OUT_OF_RANGE, i, detail }
  end
end
mintIds(call, seqKey)
judgeGroups(call)
writeJobs(call, seqKey)
local replies = {}
for i = 1, n do
  replies[i] = enqueueReply(call, jobs[i])
end
return { CREATED, replies }
