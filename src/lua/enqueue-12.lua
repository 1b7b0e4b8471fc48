--[[
  enqueue — add a job to the tail of its group's lane; re-ring the group with a wake if the job
  makes it serviceable (its lane was empty and it is neither paused nor at its limit). A job
  with a run-at time in the future (a delay) goes to `delayed` and its group's delayed index
  instead, state 'delayed': not pending, no re-ring (I1: a group whose only work is delayed is
  not serviceable), its group registered all the same; promotion (includes/promote.lua) moves
  it to its lane, at its place (its priority's score, includes/priority.lua), once due. A job
  goes into its lane by priority, then FIFO: its lane score is its id shifted by its priority
  (DESIGN.md §3, "Priorities"); a job of the default priority is scored by its id.

  With an idempotency key (a retried enqueue makes no second job) the key is looked up before anything is written:
  a key already used within its window answers the job it made and writes nothing (a producer
  that retries after a lost reply, or ioredis resending the call after a reconnect, cannot add
  a second job); a key used for a different request (group, payload, maxAttempts, delay,
  backoff: compared by the fingerprint the engine computes) is refused. A new job records the
  key for keyTtlMs.

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
                            is empty, so that name is never read or written); with a debounce
                            key (never sent with an idempotency key), its record instead,
                            P:{Q}:debounce:<key>, a string: the id of its waiting job
    KEYS[11] delayed        zset  every delayed job of the queue: id -> runAt (ms)
    KEYS[12] groupDelayed   zset  the group's delayed jobs: id -> runAt (ms)

    ARGV[1] base         'P:{Q}:' — the job key P:{Q}:job:<id> of the new job, or of the job
                         an idempotency key made, is built from it (the id is only known
                         here; includes/keys.lua), and shares the queue's slot; so is the
                         throughput hash P:{Q}:throughput (includes/throughput.lua), and
                         gmaxpending, the backlog bounds (includes/maxPending.lua)
    ARGV[2] group
    ARGV[3] payload      JSON text, or '' for none
    ARGV[4] maxAttempts  1..100 (validated by the engine)
    ARGV[5] keyTtlMs     how long the key is remembered, ms; '' for a call with no key
    ARGV[6] fingerprint  of the request (hex of a hash of group, maxAttempts, payload, delay
                         and backoff)
    ARGV[7] delayMs      0..2,592,000,000: runAt = now + delayMs; '' for none
    ARGV[8] runAt        ms since the epoch (Redis clock); '' for none (the engine never sends
                         both)
    ARGV[9] backoff      'FIXED' or 'EXPONENTIAL', or '' for no policy; then
    ARGV[10] backoffDelayMs, ARGV[11] backoffMaxDelayMs ('' for no cap), ARGV[12] backoffJitter
                         ('' or '0' for none): stored on the job as they are (validated by the
                         engine; includes/requeueJob.lua applies them)
    ARGV[13] idFloor     the highest job id the engine has seen handed out in this queue, or
                         '' for none: a new id is above it even when `seq` was lost (DESIGN.md
                         §3, "A Redis that lost a queue's state"; includes/enqueueJob.lua,
                         firstId)
    ARGV[14] priority    1..9 (validated by the engine), absent for the default 5 (one ARGV
                         less for the common job): its place in its lane (DESIGN.md §3,
                         "Priorities"; includes/priority.lua), and the level its group stands at
                         while the job is its lane's head (DESIGN.md §3, "Levels"); '' for the
                         default when ARGV[15] follows
    ARGV[15] debounceKey the debounce key's name (1–256 bytes, validated by the engine), absent
                         for none, '' for none when ARGV[17] follows (DESIGN.md §3, "Debounce"):
                         its record P:{Q}:debounce:<name> comes as KEYS[10]. The engine sends it
                         with delayMs = windowMs and never with an idempotency key or runAt
    ARGV[16] windowMs    with ARGV[15]: 1..2,592,000,000; '' without one when ARGV[17] follows
    ARGV[17] cost        1..1,000,000 (validated by the engine), absent for the default 1: the
                         tokens its claim takes from its group's bucket (DESIGN.md §3, "Rate
                         limits"); stored on the job only when given. A debounced call
                         (outcome 6) checks it against the burst but leaves the live job's cost

  Output: { id, { field1, value1, ... }, outcome }; the fields are the job's hash and its
  payload (`payload`, from P:{Q}:payloads: includes/payloads.lua, jobFields)
    outcome 0  a new job: its hash (state 'pending', or 'delayed' with its runAt)
            1  the key's job, nothing written: its hash as it is now, or, once it is gone
               to every read, { group, payload, maxAttempts, enqueuedAt, state } from the
               request and the key: finished and past its retention age
               (includes/retentionAge.lua), state as its hash says ('completed' or 'dead');
               its hash deleted (finished: completed or dead, which is not kept), state
               'completed' (includes/enqueueJob.lua, keyedReply)
            2  the key was used for another request: the id of its job and no fields;
               nothing written
            3  runAt is more than 30 days (MAX_DELAY_MS) from now, by the Redis clock: no id,
               { 'now', now }; nothing written (the engine answers BAD_USER_INPUT `runAt`)
            4  the group is at its backlog bound (its own, else the queue's default; DESIGN.md
               §3, "Backlog bounds"; includes/maxPending.lua): no id, { bound, held } (held:
               its pending + delayed jobs); nothing written (the engine answers GROUP_FULL)
            5  the debounce key's live job is of another group: its id, { 'group', its group };
               nothing written (the engine answers BAD_USER_INPUT `debounce.key`)
            6  the debounce key's live job (pending or delayed), its payload replaced by this
               call's and its runAt moved to now + windowMs, delayed: its hash and payload
            7  the cost is above the burst of the group's rate limit: no id, { 'burst', burst };
               nothing written (the engine answers BAD_USER_INPUT `cost`)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when `seq` is not an integer from 0 to
  10^15−2: the new id would overlap the lane scores of the next priority (includes/priority.lua
  MAX_JOB_ID). Also, for a job that goes to its lane, when the group has a limit and
  its active count is not an integer within ±(2^53−1) (includes/groupState.lua).

  Events: incr seq (after a set seq to the floor, when `seq` is below it); hset job; hset payloads (with a payload); hset settings (the queue's first
  id: its layout mark); hset + pexpire idem (with a key); zadd lane + heads + zincrby gpending
  (+ the zadd/zrem of one long member that indexes it, includes/indexedEncoding.lua, when its
  group makes it rank 16 groups while a listpack), or zadd
  delayed + g:<group>:delayed (+ hset settings delayedAt when earlier, includes/nextDue.lua);
  zadd groups + gseen; hincrby stats; hset throughput
  (includes/throughput.lua); rpush ring + hdel gturns + lpush/ltrim wake
  (re-ring); with a debounce key, hset of the job's debounceKey and set of its record. None
  for outcomes 1, 2, 3, 4, 5 and 7. Outcome 6: hset job; zadd delayed + g:<group>:delayed (+ hset
  settings delayedAt when earlier); hset or
  hdel payloads; pexpire the record; for a job that was pending, zrem lane, zincrby gpending,
  hincrby stats, the group's de-ring (includes/settleGroup.lua) and zrem heads when its lane empties.

  The per-job steps (the key, the run-at time, the id, the group's standing, the job hash, the
  reply) are includes/enqueueJob.lua's, which enqueueMany-9.lua takes each of its jobs through.
]]
--- @include "nowMs"
--- @include "heads"
--- @include "groupRanks"
--- @include "enqueueJob"
--- @include "registry"
--- @include "throughput"
--- @include "rateLimit"
--- @include "maxPending"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8], base = ARGV[1],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local seqKey = KEYS[9]
local idemKey = KEYS[10]
local delayedKey = KEYS[11]
local groupDelayedKey = KEYS[12]
local base = ARGV[1]
local group = ARGV[2]
local payload = ARGV[3]
local maxAttempts = ARGV[4]
local keyTtlMs = ARGV[5]
local fingerprint = ARGV[6]
-- nil for a call without a debounce key: one comparison, nothing more ('' when a cost follows).
local debounceName = ARGV[15]
if debounceName == '' then
  debounceName = nil
end
local cost = ARGV[17] or ''

if debounceName then
  if cost ~= '' then
    local burst = costOverBurst(base, group, cost)
    if burst then
      return { false, { 'burst', burst }, COST_OVER_BURST }
    end
  end
  local liveId, liveGroup, liveState = debounce().find(base, idemKey, debounceName)
  if liveId then
    if liveGroup ~= group then
      return { liveId, { 'group', liveGroup }, DEBOUNCE_OTHER_GROUP }
    end
    local live = { id = liveId, group = group, state = liveState, delayedKey = delayedKey,
      groupDelayedKey = groupDelayedKey, laneKey = laneKey }
    if liveState == 'pending' then
      -- Judged before the first write: it may refuse an active count (includes/groupState.lua).
      live.limit, live.active, live.serviceable, live.saturated = judgeLane(k, group, laneKey)
    end
    debounce().replace(k, base, idemKey, live, payload, ARGV[16], nowMs())
    return { liveId, jobFields(base, liveId), DEBOUNCED }
  end
end

if keyTtlMs ~= '' then
  local seen = keyRecord(idemKey)
  if seen then
    if seen[2] ~= fingerprint then
      return { seen[1], {}, CONFLICT }
    end
    return keyedReply(base, seen[1], seen[3], group, payload, maxAttempts)
  end
end

local now = nowMs()
local runAt, outOfRange = runAtOf(ARGV[8], ARGV[7], now)
if outOfRange then
  return { false, { 'now', now }, RUN_AT_OUT_OF_RANGE }
end
if cost ~= '' and not debounceName then
  local burst = costOverBurst(base, group, cost)
  if burst then
    return { false, { 'burst', burst }, COST_OVER_BURST }
  end
end
local delayed = runAt ~= nil and runAt > now
-- Delayed jobs count toward the bound as pending ones do (one HMGET when no bound is set).
local bound, held = fullBy(base, group, laneKey, 1)
if bound then
  return { false, { bound, held }, GROUP_FULL }
end
local seq, raiseTo = firstId(seqKey, 1, ARGV[13])
-- A delayed job leaves the lane, and so the group's standing, as it is: nothing to judge.
local priority = ARGV[14] ~= '' and tonumber(ARGV[14]) or DEFAULT_PRIORITY
local limit, active, wasServiceable, wasSaturated, headScore
if not delayed then
  limit, active, wasServiceable, wasSaturated, headScore = judgeLane(k, group, laneKey)
end
if raiseTo then
  redis.call('SET', seqKey, raiseTo)
end
redis.call('INCR', seqKey)
local id = string.format('%d', seq)
markLayout(base, seq, raiseTo)
local score = writeJob(base, seq, id, group, maxAttempts, now, runAt, delayed, ARGV[9], ARGV[10],
  ARGV[11], ARGV[12], ARGV[14] or '', cost)
if priority ~= DEFAULT_PRIORITY then
  markPrioritized(base)
end
storePayload(base, id, payload)
if keyTtlMs ~= '' then
  rememberKey(idemKey, id, fingerprint, now, keyTtlMs)
end
if debounceName then
  debounce().remember(base, idemKey, debounceName, id, ARGV[16])
end
registerGroup(groupsKey, base, group, now)
redis.call('HINCRBY', k.stats, 'enqueued', 1)
countThroughput(base, 1, 0, 0, 0)
if delayed then
  redis.call('ZADD', delayedKey, runAt, id)
  redis.call('ZADD', groupDelayedKey, runAt, id)
  redis.call('HINCRBY', k.stats, 'delayed', 1)
  lowerDue(settingsKeyOf(base), 'delayedAt', runAt)
else
  joinLane(k, base, group, laneKey, id, seq, score, priority, limit, active, wasServiceable,
    wasSaturated, headScore)
end
return createdReply(base, id, payload)
