--[[
  An enqueue's per-job part (DESIGN.md §3, enqueue), written once for enqueue-12.lua (one job)
  and enqueueMany-9.lua (up to 1,000 in one call). Each script judges every job before its
  first write, so a refused call writes nothing, then writes; enqueueMany batches what its jobs
  share (the registry, the stats, each group's lane and delayed index, the ring, the wake).

  The helpers take and return plain values, no tables: Redis runs a script's whole text on
  every call, and every table (and closure) a call makes is garbage Lua's collector then works
  through — measured under callgrind, a one-job call that carried a batch's bookkeeping cost
  ~18% more instructions than enqueue before (docs/PERFORMANCE.md, "Enqueueing in bulk").

  Judging (no write):
    keyRecord(idemKey)  the key's { id, fingerprint, enqueuedAt } (HMGET), or nil when unused
    keyedReply(base, id, enqueuedAt, group, payload, maxAttempts)
                        the reply { id, fields, EXISTING } for a job its key made: its hash and
                        payload as they are now, or, once it is gone to every read, the
                        request's fields and the key's enqueuedAt: finished and past its
                        retention age (includes/retentionAge.lua), in the state its hash says
                        ('completed' or 'dead'); its hash deleted (trimmed or removed), state
                        'completed', which there stands for finished (completed or dead) or
                        removed: the key does not keep which (it would cost a write per
                        finished job)
    runAtOf(runAt, delayMs, now)
                        the job's run-at time (ms, Redis clock) or nil for none, and true when a
                        given runAt is more than MAX_DELAY_MS from now (then refused)
    firstId(seqKey, n, floor)
                        the first of n new ids, and the value to SET `seq` to before the
                        call's INCR(BY), or nil: the engine's id floor (the highest id it has
                        seen handed out, '' for none) when `seq` stands at or below it, so ids
                        are never minted twice after Redis lost `seq` (DESIGN.md §3, "A Redis
                        that lost a queue's state"); refuses (DATA_OUT_OF_RANGE) a `seq` that is
                        not an integer from 0 to MAX_JOB_ID − n (10^15 − 1, includes/priority.lua:
                        a higher id would overlap the lane scores of the next priority), or a
                        floor above that
    judgeLane(k, group, laneKey)
                        limit, active, serviceable, saturated of a group a job goes to the lane
                        of, before (includes/groupState.lua: refuses an active count it cannot
                        hold exactly), and its lane head's score (nil for an empty lane), whose
                        level says which rota a serviceable group is on (includes/levels.lua)
  debounce() — the debounce helpers (DESIGN.md §3, "Debounce"), a table built on first use:
    debounce().find(base, record, name)
                        the live job a debounce key made (DESIGN.md §3, "Debounce"): its id,
                        group and state when its record (P:{Q}:debounce:<name>, given: enqueue
                        is passed it in KEYS, enqueueMany builds it) names a job whose hash is
                        pending or delayed and carries that `debounceKey`, else nil (a stale
                        record: a new job is made and overwrites it)
  Writing:
    debounce().replace(k, base, record, j, payload, windowMs, now)
                        a debounced enqueue's write to the key's live job j = { id, group,
                        state, delayedKey, groupDelayedKey, and for a pending job laneKey and
                        limit, active, serviceable, saturated as judgeLane judged them before
                        the first write }: its payload replaced (none when ''), its runAt now +
                        windowMs, delayed (a pending job leaves its lane, its group settled by
                        applyStanding as removeJobs settles it; the queue's `delayedAt` lowered
                        to it, includes/nextDue.lua), its record's expiry pushed on.
                        It names only helpers the enqueue path reaches anyway, but
                        applyStanding, so an enqueue without debounce makes few closures more
    debounce().remember(base, record, name, id, windowMs)
                        a new debounced job: `debounceKey` in its hash, the key's record set
    markLayout(base, first, raised)  the queue's layout mark when `first` is its first id, or
                        the call raised `seq` to the engine's floor (a queue whose state Redis
                        lost: its first id since)
    writeJob(base, seq, id, group, maxAttempts, now, runAt, delayed, backoff,
             backoffDelayMs, backoffMaxDelayMs, backoffJitter, priority, cost)
                        the job hash in one HSET (state pending, or delayed with its runAt);
                        returns its lane score: `seq` (its id as a number) for priority '', the
                        default (nothing written for it), else, for 1–9, laneScoreOf(seq,
                        priority) computed in place (includes/priority.lua says why), which the
                        hash holds with the priority (DESIGN.md §3, "Priorities"); `cost`
                        (tokens its claim takes, DESIGN.md §3 "Rate limits") is written only
                        when not '' (the default 1 is never stored)
    rememberKey(idemKey, id, fingerprint, now, keyTtlMs)   HSET + PEXPIRE of the key
    settleLane(k, group, laneKey, limit, active, wasServiceable, wasSaturated, pending)
                        after jobs went to the lane of a group: true when it is to be re-ringed
                        (it was not serviceable and is now); the saturated count kept (it cannot
                        change: limit and active are as judged — settleGroup.lua's rule)
  (re-ringing is settleGroup.lua's: reRing for one group, reRingAll for a batch)
    createdReply(base, id, payload)   the reply { id, fields, CREATED }: HGETALL of the new
                        hash, its payload appended
  k: the script's key table — glimit, gactive, ring, paused, wake, stats (groupState.lua), base.
  base: 'P:{Q}:'; job hashes, payloads, settings, heads and gturns are built from it
  (includes/keys.lua).
]]
--- @include "keys"
--- @include "bounds"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "groupState"
--- @include "settleGroup"
--- @include "priority"
--- @include "levels"
--- @include "payloads"
--- @include "retentionAge"
--- @include "nextDue"

local CREATED, EXISTING, CONFLICT, RUN_AT_OUT_OF_RANGE, GROUP_FULL = 0, 1, 2, 3, 4
-- A debounce key whose live job is of another group (nothing written), and a debounced
-- enqueue answered with the key's live job, its payload and run time replaced.
local DEBOUNCE_OTHER_GROUP, DEBOUNCED = 5, 6
-- A cost above the burst of the group's rate limit (nothing written).
local COST_OVER_BURST = 7

local debounceApi

-- The debounce helpers, built on a debounced call's first use: every function a script names
-- is a closure made on every call (docs/PERFORMANCE.md, "Priorities within a lane"), so an
-- enqueue without debounce makes this one, not the four inside.
local function debounce()
  if debounceApi then
    return debounceApi
  end
  local D = {}

  -- How long a record outlives its last enqueue past its window: a backstop for a job that
  -- leaves by a path that does not clear it (a claim clears it).
  local function ttlOf(windowMs)
    return tonumber(windowMs) + MAX_DELAY_MS
  end

  function D.find(base, record, name)
    local id = redis.call('GET', record)
    if not id then
      return nil
    end
    local job = redis.call('HMGET', jobKeyOf(base, id), 'group', 'state', 'debounceKey')
    -- The record is trusted only while its job says it is the key's and has not started.
    if job[3] ~= name or (job[2] ~= 'pending' and job[2] ~= 'delayed') then
      return nil
    end
    return id, job[1], job[2]
  end

  function D.replace(k, base, record, j, payload, windowMs, now)
    local id, group = j.id, j.group
    local runAt = now + tonumber(windowMs)
    if j.state == 'pending' then
      local laneKey = j.laneKey
      if redis.call('ZREM', laneKey, id) == 1 then
        redis.call('HINCRBY', k.stats, 'pending', -1)
        -- Out of its lane: one job fewer in the group rankings' `gpending` (includes/groupRanks.lua).
        takePending(base, group, 1)
      end
      redis.call('HINCRBY', k.stats, 'delayed', 1)
      local left = redis.call('ZCARD', laneKey)
      -- Its standing from the counts judged before the first write (settleGroup's rule).
      local serviceable, saturated = isServiceable(k, group, laneKey, j.limit, j.active, nil, left)
      applyStanding(k, group, j.serviceable, j.saturated, serviceable, saturated)
      -- `heads` holds a group exactly while its lane holds a job (removeJobs-10.lua's rule).
      if left == 0 then
        redis.call('ZREM', headsKeyOf(base), group)
      end
    end
    redis.call('HSET', jobKeyOf(base, id), 'state', 'delayed', 'runAt',
      string.format('%d', runAt))
    redis.call('ZADD', j.delayedKey, runAt, id)
    redis.call('ZADD', j.groupDelayedKey, runAt, id)
    lowerDue(settingsKeyOf(base), 'delayedAt', runAt)
    if payload ~= '' then
      redis.call('HSET', payloadsKeyOf(base), id, payload)
    else
      redis.call('HDEL', payloadsKeyOf(base), id)
    end
    redis.call('PEXPIRE', record, ttlOf(windowMs))
  end

  function D.remember(base, record, name, id, windowMs)
    redis.call('HSET', jobKeyOf(base, id), 'debounceKey', name)
    redis.call('SET', record, id, 'PX', ttlOf(windowMs))
  end

  debounceApi = D
  return D
end

local function keyRecord(idemKey)
  local seen = redis.call('HMGET', idemKey, 'id', 'fingerprint', 'enqueuedAt')
  if seen[1] then
    return seen
  end
  return nil
end

local function keyedReply(base, id, enqueuedAt, group, payload, maxAttempts)
  local fields = jobFields(base, id)
  -- A finished job past its retention age is gone, as every read says (DESIGN.md §2
  -- Retention): answered from the request and the key, in the state its hash still says.
  local goneAs = nil
  if #fields == 0 then
    goneAs = 'completed'
  elseif pastRetention(settingsKeyOf(base), fields, nowMs()) then
    for i = 1, #fields, 2 do
      if fields[i] == 'state' then
        goneAs = fields[i + 1]
      end
    end
  end
  if goneAs then
    fields = { 'group', group, 'maxAttempts', maxAttempts, 'enqueuedAt', enqueuedAt,
      'state', goneAs }
    if payload ~= '' then
      fields[#fields + 1] = 'payload'
      fields[#fields + 1] = payload
    end
  end
  return { id, fields, EXISTING }
end

local function runAtOf(givenRunAt, delayMs, now)
  if givenRunAt ~= '' then
    local runAt = tonumber(givenRunAt)
    return runAt, math.abs(runAt - now) > MAX_DELAY_MS
  elseif delayMs ~= '' then
    return now + tonumber(delayMs), false
  end
  return nil, false
end

local function firstId(seqKey, n, floor)
  local last = redis.call('GET', seqKey)
  -- The last id these n INCRs mint is at most MAX_JOB_ID (includes/priority.lua).
  local top = MAX_JOB_ID - n
  if last and not (isSafeInteger(last) and tonumber(last) >= 0 and tonumber(last) <= top) then
    refuse(seqKey, nil, last, 'a job id counter from 0 to ' .. string.format('%d', top)
      .. ' (ids stop at 10^15−1, below the lane scores of the next priority; this call mints '
      .. n .. ')',
      'Send new jobs to a new queue; lower the counter only if no job id above its new value is in use.')
  end
  local from = last and tonumber(last) or 0
  -- One comparison when `seq` is ahead, as it is unless Redis lost it.
  if floor ~= nil and floor ~= '' and tonumber(floor) > from then
    if tonumber(floor) > top then
      refuse(seqKey, nil, floor, 'an id floor from 0 to ' .. string.format('%d', top),
        'Send new jobs to a new queue.')
    end
    return tonumber(floor) + 1, floor
  end
  return from + 1, nil
end

local function judgeLane(k, group, laneKey)
  local limit = limitOf(k.glimit, group)
  local active = limit and activeOf(k.gactive, group)
  -- The lane's head rather than its count: whether it holds a job, and its level (levels.lua).
  local head = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
  local serviceable, saturated = isServiceable(k, group, laneKey, limit, active, nil,
    head[1] and 1 or 0)
  return limit, active, serviceable, saturated, head[2]
end

local function markLayout(base, first, raised)
  if first == 1 or raised then
    -- The queue's first job: mark its layout, so a reader knows it is not the previous one's
    -- (DESIGN.md §2, "Job layout"; a queue with jobs and no mark is refused by the engine).
    redis.call('HSET', settingsKeyOf(base), 'layout', JOB_LAYOUT)
  end
end

local function writeJob(base, seq, id, group, maxAttempts, now, runAt, delayed, backoff,
    backoffDelayMs, backoffMaxDelayMs, backoffJitter, priority, cost)
  local jobKey = jobKeyOf(base, id)
  -- No `score` for the default priority: its score is its id (retry, promotion and requeue
  -- fall back to it).
  if backoff == '' and not delayed and priority == '' and cost == '' then
    redis.call('HSET', jobKey, 'group', group, 'state', 'pending', 'attempts', 0,
      'maxAttempts', maxAttempts, 'enqueuedAt', now)
    return seq
  end
  local fields = { 'group', group, 'state', delayed and 'delayed' or 'pending', 'attempts', 0,
    'maxAttempts', maxAttempts, 'enqueuedAt', now }
  if backoff ~= '' then
    fields[#fields + 1] = 'backoff'
    fields[#fields + 1] = backoff
    fields[#fields + 1] = 'backoffDelayMs'
    fields[#fields + 1] = backoffDelayMs
    if backoffMaxDelayMs ~= '' then
      fields[#fields + 1] = 'backoffMaxDelayMs'
      fields[#fields + 1] = backoffMaxDelayMs
    end
    if backoffJitter ~= '' and backoffJitter ~= '0' then
      fields[#fields + 1] = 'backoffJitter'
      fields[#fields + 1] = backoffJitter
    end
  end
  if delayed then
    fields[#fields + 1] = 'runAt'
    fields[#fields + 1] = string.format('%d', runAt)
  end
  local score = seq
  if priority ~= '' then
    -- laneScoreOf(seq, priority) in place, its DEFAULT_PRIORITY and PRIORITY_STEP as literals
    -- (includes/priority.lua): a closure, or an upvalue, more costs every enqueue (measured).
    score = seq + (tonumber(priority) - 5) * 1e15
    fields[#fields + 1] = 'priority'
    fields[#fields + 1] = priority
    fields[#fields + 1] = 'score'
    fields[#fields + 1] = string.format('%d', score)
  end
  if cost ~= '' then
    fields[#fields + 1] = 'cost'
    fields[#fields + 1] = cost
  end
  redis.call('HSET', jobKey, unpack(fields))
  return score
end

local function rememberKey(idemKey, id, fingerprint, now, keyTtlMs)
  redis.call('HSET', idemKey, 'id', id, 'fingerprint', fingerprint, 'enqueuedAt', now)
  redis.call('PEXPIRE', idemKey, keyTtlMs)
end

local function settleLane(k, group, laneKey, limit, active, wasServiceable, wasSaturated, pending)
  if wasServiceable then
    return false
  end
  local serviceable, saturated = isServiceable(k, group, laneKey, limit, active, nil, pending)
  if saturated ~= wasSaturated then
    redis.call('HINCRBY', k.stats, 'saturated', saturated and 1 or -1)
  end
  return serviceable
end

-- A new job, its hash written, to the tail of its group's lane (enqueue-12.lua's job with no
-- delay, and a schedule's tick): the lane, its head, the rankings' pending count and the total,
-- then the group's standing from what judgeLane read before the first write — re-ringed at its
-- new head's level when its lane was empty, moved to the tail of a more urgent level when the
-- job is its new head (DESIGN.md §3, "Levels").
local function joinLane(k, base, group, laneKey, id, seq, score, priority, limit, active,
    wasServiceable, wasSaturated, headScore)
  redis.call('ZADD', laneKey, score, id)
  noteLaneHead(base, group, seq)
  addPending(base, group, 1)
  redis.call('HINCRBY', k.stats, 'pending', 1)
  if settleLane(k, group, laneKey, limit, active, wasServiceable, wasSaturated, 1) then
    reRing(k, group, priority)
  elseif wasServiceable and score < tonumber(headScore) and levelOf(score) ~= levelOf(headScore) then
    levels().moveLevel(k, base, group, levelOf(headScore), levelOf(score))
  end
end

local function createdReply(base, id, payload)
  local fields = redis.call('HGETALL', jobKeyOf(base, id))
  if payload ~= '' then
    fields[#fields + 1] = 'payload'
    fields[#fields + 1] = payload
  end
  return { id, fields, CREATED }
end
