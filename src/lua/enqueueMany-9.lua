--[[
  enqueueMany — enqueue up to 1,000 jobs in one atomic call, each exactly as enqueue-12.lua
  would, in input order (DESIGN.md §3, enqueueMany): a job to the tail of its group's lane, or
  delayed; its group re-ringed with a wake when the call makes it serviceable. Every job is
  judged before the first write (includes/enqueueJob.lua): its idempotency key, its run-at time,
  the id counter for the call's new jobs, every group's backlog bound against the call's new
  jobs for it (DESIGN.md §3, "Backlog bounds"), and the active count of every group a job goes
  to the lane of. So a call that refuses one job writes nothing at all.

  Idempotency keys: a key used before the call answers its job (EXISTING), as enqueue does; a
  key two jobs of the call carry with the same request makes one job, the second answering the
  first's (as two enqueues in a row would); any key used for another request (before the call,
  or by an earlier job of it) refuses the call.

  Debounce keys (DESIGN.md §3, "Debounce"): a key whose job waits (pending or delayed) before
  the call, or that an earlier job of the call made, is replaced, not made again: the latest
  job with the key gives the payload and the window (its runAt the call's now + windowMs). A job
  waiting before the call is written after the new jobs' lanes are settled
  (includes/enqueueJob.lua, debounce().replace), its group's standing judged before the first
  write. A key whose job is of another group refuses the call.

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
  idempotency key (idemKeyOf), payloads, heads, settings (the layout mark), gturns, ratelimited,
  grate (read for a job with a cost), gmaxpending (the backlog bounds, includes/maxPending.lua),
  and, to re-level a group its jobs make more urgent (DESIGN.md §3, "Levels"), prioritized and
  levels (includes/levels.lua).

    ARGV[1] base   'P:{Q}:' (the job keys and the throughput hash P:{Q}:throughput are built
                   from it, includes/keys.lua)
    ARGV[2] n      the number of jobs, 1..1,000 (bounded by the engine)
    then s per job, the i-th job's from ARGV[3 + s × (i − 1)], s = 16 when a job of the call has
    a cost, else 15 when one has a debounce key, else 13 when one has a priority, else 12 (those
    left out: the common call is sent none; the script reads s from #ARGV):
      group, payload ('' none), maxAttempts, key ('' none: the idempotency key's name, 1–256
      bytes), keyTtlMs ('' without a key), fingerprint ('' without a key), delayMs ('' none),
      runAt ('' none; never with delayMs), backoff ('FIXED' | 'EXPONENTIAL' | '' none),
      backoffDelayMs, backoffMaxDelayMs ('' no cap), backoffJitter ('' or '0' none), and with
      s ≥ 13 priority (1..9, '' for the default 5), with s ≥ 15 the debounce key's name ('' none)
      and windowMs ('' none), and with s = 16 cost (1..1,000,000, '' for the default 1) —
      enqueue-12.lua's ARGV[2..12] and ARGV[14..17], the key's name in place of its declared
      idem key, validated by the engine (a debounced job is sent its window as delayMs, and no
      idempotency key or runAt).
    ARGV[3 + s × n] idFloor  the highest job id the engine has seen handed out in this queue,
      or '' for none: enqueue-12.lua's ARGV[13]

  Output:
    { 0, { { id, fields, outcome }, ... } }  every job's reply, in input order, as enqueue-12.lua
        answers it: outcome 0 (new) or 1 (its key's job: nothing written for it)
    { 2, i, id | false, first | false }  job i's key was used for another request: for job `id`
        before the call, or (id false) by job `first` of this call; nothing written
    { 3, i, now }  job i's runAt is more than 30 days from now (ms, Redis clock); nothing written
    { 4, i, group, bound, held, adding }  the call's `adding` new jobs for `group` (pending and
        delayed; job i the first of them) would pass its backlog bound (DESIGN.md §3, "Backlog bounds";
        includes/maxPending.lua): held is what it holds before the call; nothing written
    { 5, i, id | false, group, first | false }  job i's debounce key names a job of another
        group: job `id` waiting before the call, or (id false) job `first` of this call;
        nothing written
    Each job's reply: outcome 0 (new; a new job a later job of the call replaced is answered as
        the call leaves it), 1 (its idempotency key's job) or 6 (its debounce key's job, as the
        call leaves it)
    { 7, i, burst }  job i's cost is above the burst of its group's rate limit (a new or a
        debounced job; one answering its idempotency key's job is not judged); nothing written
  Refuses (DATA_OUT_OF_RANGE, nothing written) when `seq` cannot mint the call's new ids within
  10^15−1 (includes/priority.lua MAX_JOB_ID), or a group a job goes to the lane of has a limit and an active count that is not an
  integer within ±(2^53−1) (includes/groupState.lua).

  Events: enqueue-12.lua's, batched (one incrby seq in place of incr, after a set seq to the
  floor when `seq` is below it, one hset payloads, one zadd groups and one of gseen, one hincrby
  per stats field, one hset throughput, per group one zadd of its lane and of heads or of its delayed index, one zadd
  delayed (+ one hset settings delayedAt when the call's earliest run-at is before it,
  includes/nextDue.lua); one rpush ring, hdel gturns and lpush/ltrim wake for all the groups re-ringed); per
  job one hset of its hash and, with a key, hset + pexpire of its idem key, with a debounce key
  hset of its debounceKey and set of the record; per key whose job waited before the call,
  debounce().replace's (enqueue-12.lua, outcome 5). None when refused or every job answers
  EXISTING.
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
  wake = KEYS[5], stats = KEYS[7], base = ARGV[1],
}
local groupsKey = KEYS[6]
local seqKey = KEYS[8]
local delayedKey = KEYS[9]
local base = ARGV[1]
local n = tonumber(ARGV[2])
-- 16 arguments a job with costs in the call, 15 with debounce keys, 13 with priorities, else
-- 12 (the header's s).
local STRIDE = (#ARGV - 3) / n
local WITH_PRIORITY = STRIDE >= 13
local WITH_DEBOUNCE = STRIDE >= 15
local WITH_COST = STRIDE == 16

-- Judge every job, writing nothing. jobs[i] = { a (its first ARGV index less one), outcome,
-- runAt, delayed, id (a key's job: the id it answers; a new job: its own), seen (a key used
-- before the call: its record), first (a key used earlier in the call: that job) }.
local now = nowMs()
local jobs = {}
local keys = {} -- idem key -> { fingerprint, seen | job } as judged so far in this call
local created = {} -- the new jobs, in input order
-- debounce key -> { live = { id, group, state, serviceable, saturated } (its job waiting before
-- the call) or job = the call's new job it made; last = the ARGV index of the latest job with
-- it, whose payload and window win }
local debounces = {}
local redebounced = {} -- the entries of keys whose job waited before the call, in first order
for i = 1, n do
  local a = 2 + STRIDE * (i - 1)
  local job = { a = a, outcome = CREATED, runAt = false, delayed = false, id = false,
    seen = false, first = false }
  jobs[i] = job
  local debounceName = WITH_DEBOUNCE and ARGV[a + 14] or ''
  if debounceName ~= '' then
    local entry = debounces[debounceName]
    if entry == nil then
      local record = debounceKeyOf(base, debounceName)
      local liveId, liveGroup, liveState = debounce().find(base, record, debounceName)
      if liveId then
        local live = { id = liveId, group = liveGroup, state = liveState,
          delayedKey = delayedKey, groupDelayedKey = groupDelayedKeyOf(base, liveGroup),
          laneKey = laneKeyOf(base, liveGroup) }
        entry = { name = debounceName, record = record, live = live }
        if liveState == 'pending' then
          -- Judged before the first write: it may refuse an active count (groupState.lua).
          live.limit, live.active, live.serviceable, live.saturated =
            judgeLane(k, liveGroup, live.laneKey)
        end
        redebounced[#redebounced + 1] = entry
      else
        entry = false
      end
      debounces[debounceName] = entry
    end
    if entry then
      local owner = entry.live and entry.live.group or ARGV[entry.job.a + 1]
      if owner ~= ARGV[a + 1] then
        return { DEBOUNCE_OTHER_GROUP, i, entry.live and entry.live.id or false, owner,
          entry.job and entry.job.index or false }
      end
      entry.last = a
      job.outcome = DEBOUNCED
      job.debounced = entry
    end
  end
  local keyName = ARGV[a + 4]
  local idemKey = keyName ~= '' and idemKeyOf(base, keyName) or nil
  local used = idemKey and keys[idemKey]
  if idemKey and used == nil then
    local seen = keyRecord(idemKey)
    used = seen and { fingerprint = seen[2], seen = seen } or false
    keys[idemKey] = used
  end
  if WITH_COST and ARGV[a + 16] ~= '' and (job.outcome == DEBOUNCED or not used) then
    local burst = costOverBurst(base, ARGV[a + 1], ARGV[a + 16])
    if burst then
      return { COST_OVER_BURST, i, burst }
    end
  end
  if job.outcome == DEBOUNCED then
    -- Written below, once for its key, with the latest job's payload and window.
  elseif used then
    if used.fingerprint ~= ARGV[a + 6] then
      return { CONFLICT, i, used.seen and used.seen[1] or false, used.job and used.job.index or false }
    end
    job.outcome = EXISTING
    job.seen = used.seen
    job.first = used.job or false
  else
    local runAt, outOfRange = runAtOf(ARGV[a + 8], ARGV[a + 7], now)
    if outOfRange then
      return { RUN_AT_OUT_OF_RANGE, i, now }
    end
    job.runAt = runAt or false
    job.delayed = runAt ~= nil and runAt > now
    job.index = i
    job.idemKey = idemKey or false
    created[#created + 1] = job
    if idemKey then
      keys[idemKey] = { fingerprint = ARGV[a + 6], job = job }
    end
    if debounceName ~= '' then
      debounces[debounceName] = { name = debounceName, record = debounceKeyOf(base, debounceName),
        job = job, last = a }
      job.debounce = debounces[debounceName]
    end
  end
end
-- A new job whose key a later job of the call carries: that job's payload, and its window
-- from the call's now.
for _, entry in pairs(debounces) do
  if entry and entry.job and entry.last ~= entry.job.a then
    entry.job.runAt = now + tonumber(ARGV[entry.last + 15])
  end
end
local first, raiseTo = 0, nil
if #created > 0 then
  first, raiseTo = firstId(seqKey, #created, ARGV[3 + STRIDE * n])
end
-- Each group a new job goes to, in the order of its first: its lane and delayed jobs, and,
-- judged before any write, its standing when a job goes to its lane.
local groups, order = {}, {}
for j = 1, #created do
  local job = created[j]
  job.seq = first + j - 1
  job.id = string.format('%d', job.seq)
  local group = ARGV[job.a + 1]
  local g = groups[group]
  if g == nil then
    g = { lane = {}, delayed = {}, first = job.index }
    groups[group] = g
    order[#order + 1] = group
  end
  if job.delayed then
    g.delayed[#g.delayed + 1] = job
  else
    g.lane[#g.lane + 1] = job
  end
end
for i = 1, #order do
  local group = order[i]
  local g = groups[group]
  g.laneKey = laneKeyOf(base, group)
  -- All or nothing: the group's new jobs of the call, pending and delayed, against its bound.
  local adding = #g.lane + #g.delayed
  local bound, held = fullBy(base, group, g.laneKey, adding)
  if bound then
    return { GROUP_FULL, g.first, group, bound, held, adding }
  end
  if #g.lane > 0 then
    g.limit, g.active, g.wasServiceable, g.wasSaturated = judgeLane(k, group, g.laneKey)
  end
end

-- Write.
if #created > 0 then
  if raiseTo then
    redis.call('SET', seqKey, raiseTo)
  end
  redis.call('INCRBY', seqKey, #created)
  markLayout(base, first, raiseTo)
  local payloads = {}
  -- Whether a job of the call is off the default priority: the queue then has levels.
  local offDefault = false
  for j = 1, #created do
    local job = created[j]
    local a = job.a
    local score = writeJob(base, job.seq, job.id, ARGV[a + 1], ARGV[a + 3], now, job.runAt,
      job.delayed, ARGV[a + 9], ARGV[a + 10], ARGV[a + 11], ARGV[a + 12],
      WITH_PRIORITY and ARGV[a + 13] or '', WITH_COST and ARGV[a + 16] or '')
    -- Kept only when it is not the id: a field more would grow every job's table.
    if WITH_PRIORITY and score ~= job.seq then
      job.score = score
      offDefault = true
    end
    -- A debounced job's payload is the latest of the call's jobs with its key.
    local p = job.debounce and job.debounce.last + 2 or a + 2
    if ARGV[p] ~= '' then
      payloads[#payloads + 1] = job.id
      payloads[#payloads + 1] = ARGV[p]
    end
    if job.idemKey then
      rememberKey(job.idemKey, job.id, ARGV[a + 6], now, ARGV[a + 5])
    end
    if job.debounce then
      debounce().remember(base, job.debounce.record, job.debounce.name, job.id,
        ARGV[job.debounce.last + 15])
    end
  end
  if #payloads > 0 then
    redis.call('HSET', payloadsKeyOf(base), unpack(payloads))
  end
  if offDefault then
    -- Before any group is (re-)ringed: each then goes to its head's level (includes/levels.lua).
    markPrioritized(base)
  end
  local delayedAll, reRinged = {}, {}
  local pending, delayed = 0, 0
  for i = 1, #order do
    local group = order[i]
    local g = groups[group]
    if #g.delayed > 0 then
      local members = {}
      for j = 1, #g.delayed do
        local job = g.delayed[j]
        members[#members + 1] = job.runAt
        members[#members + 1] = job.id
        delayedAll[#delayedAll + 1] = job.runAt
        delayedAll[#delayedAll + 1] = job.id
      end
      redis.call('ZADD', groupDelayedKeyOf(base, group), unpack(members))
      delayed = delayed + #g.delayed
    end
    local lane = g.lane
    if #lane > 0 then
      local members = {}
      for j = 1, #lane do
        local job = lane[j]
        members[#members + 1] = WITH_PRIORITY and job.score or job.seq
        members[#members + 1] = job.id
      end
      -- Added, not updated (ids are new): each counts in the lane's size (groupRanks.lua).
      addPending(base, group, redis.call('ZADD', g.laneKey, unpack(members)))
      -- The lane's oldest new job is its first: the lowest id (includes/heads.lua).
      noteLaneHead(base, group, lane[1].seq)
      pending = pending + #lane
      if settleLane(k, group, g.laneKey, g.limit, g.active, g.wasServiceable, g.wasSaturated,
          #lane) then
        reRinged[#reRinged + 1] = group
      elseif g.wasServiceable then
        -- Its jobs, of the default level, may be more urgent than its head (includes/levels.lua:
        -- read only in a queue with levels, the marker asked once per call).
        levels().relevel(k, group, g.laneKey)
      end
    end
  end
  registerGroups(groupsKey, base, order, #order, now)
  redis.call('HINCRBY', k.stats, 'enqueued', #created)
  countThroughput(base, #created, 0, 0, 0)
  if delayed > 0 then
    redis.call('ZADD', delayedKey, unpack(delayedAll))
    redis.call('HINCRBY', k.stats, 'delayed', delayed)
    -- The queue's "next due at" (includes/nextDue.lua): lowered once, to the call's earliest.
    local earliest = delayedAll[1]
    for j = 3, #delayedAll, 2 do
      earliest = math.min(earliest, delayedAll[j])
    end
    lowerDue(settingsKeyOf(base), 'delayedAt', earliest)
  end
  if pending > 0 then
    redis.call('HINCRBY', k.stats, 'pending', pending)
  end
  if #reRinged > 0 then
    if offDefault then
      -- Each at the level of its new head, read by reRing (includes/settleGroup.lua).
      for i = 1, #reRinged do
        reRing(k, reRinged[i])
      end
    else
      -- Their lanes were empty and every job of the call is of the default level: the ring.
      reRingAll(k, base, reRinged, #reRinged)
    end
  end
end

-- The jobs waiting before the call, replaced: after the new jobs' lanes are settled, so a
-- group that keeps a lane job stays on the ring (includes/enqueueJob.lua, debounce().replace).
for _, entry in ipairs(redebounced) do
  local live = entry.live
  debounce().replace(k, base, entry.record, entry.live, ARGV[entry.last + 2],
    ARGV[entry.last + 15], now)
end

-- Answer every job, in input order.
local replies = {}
for i = 1, n do
  local job = jobs[i]
  local a = job.a
  if job.debounced then
    local id = job.debounced.live and job.debounced.live.id or job.debounced.job.id
    replies[i] = { id, jobFields(base, id), DEBOUNCED }
  elseif job.debounce and job.debounce.last ~= a then
    -- A new job a later job of the call replaced: answered as the call leaves it.
    replies[i] = { job.id, jobFields(base, job.id), CREATED }
  elseif job.outcome == CREATED then
    replies[i] = createdReply(base, job.id, ARGV[a + 2])
  elseif job.seen then
    replies[i] = keyedReply(base, job.seen[1], job.seen[3], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
  else
    replies[i] = keyedReply(base, job.first.id, false, ARGV[a + 1], ARGV[a + 2], ARGV[a + 3])
  end
end
return { CREATED, replies }
