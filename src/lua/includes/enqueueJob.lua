--[[
  An enqueue's per-job part (DESIGN.md §3, enqueue), written once for enqueue-12.lua (one job)
  and enqueueMany-9.lua (up to 1,000 in one call): a call judges every job before it writes
  anything, so a refused call writes nothing, then writes each job and settles what the jobs
  share once (the stats, the registry, each group's lane and delayed index, the ring, the wake).

  A call, in this order:
    local call = newEnqueueCall(k, base)
    for each job: local outcome, detail, other = judgeJob(call, job)
                              -- no write; nil, or a refusal of the call:
                              --   CONFLICT, the id of the key's job (false for a job of this
                              --     call), the job (of this call) that used the key first
                              --   RUN_AT_OUT_OF_RANGE, now (ms, Redis clock)
    mintIds(call, seqKey)     -- no write; refuses (DATA_OUT_OF_RANGE) when `seq` cannot mint
                              -- the call's ids exactly; numbers the new jobs
    judgeGroups(call)         -- no write; each group a job goes to the lane of, judged before
                              -- (groupState.lua: refuses an active count it cannot hold exactly)
    writeJobs(call, seqKey)   -- every write
    enqueueReply(call, job)   -- the job's { id, fields, outcome }, as enqueue-12.lua answers it

  k: the script's key table — glimit, gactive, ring, paused, wake, stats (includes/groupState.lua,
  includes/settleGroup.lua), groups (the registry), delayed (the queue's delayed zset), base.
  base: 'P:{Q}:'; the lane, the group's delayed index, the job hash and the payloads hash are
  built from it (includes/keys.lua).
  job: a table { group, payload ('' none), maxAttempts, idemKey (P:{Q}:idem:<key>, nil for no key),
  keyTtlMs, fingerprint, delayMs ('' none), runAt ('' none), backoff ('' none), backoffDelayMs,
  backoffMaxDelayMs ('' no cap), backoffJitter ('' or '0' none) } as the engine sends them
  (validated by it); judgeJob adds its outcome, run-at time and place, mintIds its id.

  Outcomes of a job: CREATED (0) a new job; EXISTING (1) its key's job, nothing written for it —
  a key used before the call (as it is now; once its hash is gone, COMPLETED from the request
  and the key), or a key an earlier job of the same call used with the same request (that job,
  as two enqueues in a row answer); and, refusing the whole call, CONFLICT (2, the key was used
  for another request: before the call, or by an earlier job of it) and RUN_AT_OUT_OF_RANGE (3,
  runAt more than 30 days from now).

  What a call of n jobs writes, against n enqueues one by one: the same keys, fields, members and
  scores, one id after the other in input order, each job stamped with the call's one `now`.
  Batched: one INCRBY of seq, one HSET of payloads, one ZADD of groups, one HINCRBY per stats
  field, per group one ZADD of its lane and of heads (LT, its first score) or one of its delayed
  index, one ZADD of delayed, and for the groups the call makes serviceable one RPUSH of the ring
  (in the order their first lane job came, as one by one re-rings them), one HDEL of their turns
  and one LPUSH (+ LTRIM) of the wake with a token each (at most WAKE_LENGTH). Per job: the job
  hash (one HSET) and, with a key, its idem hash (HSET + PEXPIRE).
  Events: incrby seq; hset job; hset payloads (with a payload); hset settings (the queue's first
  id: its layout mark); hset + pexpire idem (with a key); zadd lane + heads, or zadd delayed +
  g:<group>:delayed; zadd groups; hincrby stats; rpush ring + hdel gturns + lpush/ltrim wake
  (re-ring). None when the call is refused or every job is EXISTING.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "groupState"
--- @include "payloads"

-- The last id `seq` may hold: INCR then mints 2^53−1, the last id a double holds exactly.
local LAST_SEQ = 9007199254740990
-- The furthest a run-at time may be from now (ms): 30 days, as the engine's delayMs bound.
local MAX_DELAY_MS = 2592000000

local CREATED, EXISTING, CONFLICT, RUN_AT_OUT_OF_RANGE = 0, 1, 2, 3

local function newEnqueueCall(k, base)
  -- keys: idem key -> { fingerprint, id (a key used before the call) | job (one of this call) },
  -- made with the first key; groups: group -> { laneKey, lane = jobs to its lane, delayed = jobs
  -- delayed (false for none) }; order: the groups in the order of their first new job.
  -- Tables are made only when needed, here and in writeJobs: every table a call makes is
  -- garbage Lua's collector then works through, which a one-job call (enqueue-12.lua) pays for
  -- in full (each table ~2–5% of an enqueue's instructions, measured under callgrind).
  return { k = k, base = base, keys = false, groups = {}, order = {}, created = {} }
end

local function judgeJob(call, job)
  local idemKey = job.idemKey
  if idemKey then
    if not call.keys then
      call.keys = {}
    end
    local used = call.keys[idemKey]
    if used == nil then
      local seen = redis.call('HMGET', idemKey, 'id', 'fingerprint', 'enqueuedAt')
      if seen[1] then
        used = { fingerprint = seen[2], id = seen[1], enqueuedAt = seen[3] }
        call.keys[idemKey] = used
      end
    end
    if used then
      if used.fingerprint ~= job.fingerprint then
        return CONFLICT, used.id or false, used.job
      end
      job.outcome = EXISTING
      job.used = used
      return nil
    end
  end
  local now = nowMs()
  local runAt = nil
  if job.runAt ~= '' then
    runAt = tonumber(job.runAt)
    if math.abs(runAt - now) > MAX_DELAY_MS then
      return RUN_AT_OUT_OF_RANGE, now
    end
  elseif job.delayMs ~= '' then
    runAt = now + tonumber(job.delayMs)
  end
  job.outcome = CREATED
  job.delayed = runAt ~= nil and runAt > now
  job.at = runAt
  if idemKey then
    call.keys[idemKey] = { fingerprint = job.fingerprint, job = job }
  end
  local created = call.created
  created[#created + 1] = job
  local g = call.groups[job.group]
  if g == nil then
    g = { laneKey = laneKeyOf(call.base, job.group), lane = {}, delayed = false }
    call.groups[job.group] = g
    call.order[#call.order + 1] = job.group
  end
  if job.delayed then
    g.delayed = g.delayed or {}
    g.delayed[#g.delayed + 1] = job
  else
    g.lane[#g.lane + 1] = job
  end
  return nil
end

local function mintIds(call, seqKey)
  local n = #call.created
  if n == 0 then
    return
  end
  local last = redis.call('GET', seqKey)
  local top = LAST_SEQ + 1 - n
  if last and not (isSafeInteger(last) and tonumber(last) >= 0 and tonumber(last) <= top) then
    refuse(seqKey, nil, last, 'a job id counter from 0 to ' .. string.format('%d', top)
      .. ' (this call mints ' .. n .. ' ids; ids past 2^53−1 are not exact in Lua nor as lane'
      .. ' scores)',
      'Send new jobs to a new queue; lower the counter only if no job id above its new value is in use.')
  end
  local first = (last and tonumber(last) or 0) + 1
  for i = 1, n do
    local job = call.created[i]
    job.seq = first + i - 1
    job.id = string.format('%d', job.seq)
  end
end

-- A delayed job leaves the lane, and so the group's standing, as it is: only a group a job goes
-- to the lane of is judged.
local function judgeGroups(call)
  for i = 1, #call.order do
    local group = call.order[i]
    local g = call.groups[group]
    if #g.lane > 0 then
      -- The limit and active count, kept: the call changes neither, so the judgement after its
      -- writes (writeJobs) reads only what isServiceable still needs.
      g.limit = limitOf(call.k.glimit, group)
      g.active = g.limit and activeOf(call.k.gactive, group)
      g.wasServiceable, g.wasSaturated = isServiceable(call.k, group, g.laneKey, g.limit, g.active)
    end
  end
end

local function writeJobs(call, seqKey)
  local created = call.created
  local n = #created
  if n == 0 then
    return
  end
  local k, base = call.k, call.base
  local now = nowMs()
  redis.call('INCRBY', seqKey, n)
  if created[1].seq == 1 then
    -- The queue's first job: mark its layout, so a reader knows it is not the previous one's
    -- (DESIGN.md §2, "Job layout"; a queue with jobs and no mark is refused by the engine).
    redis.call('HSET', settingsKeyOf(base), 'layout', JOB_LAYOUT)
  end
  local payloads = false
  for i = 1, n do
    local job = created[i]
    local jobKey = jobKeyOf(base, job.id)
    local state = job.delayed and 'delayed' or 'pending'
    -- No `score`: a job's FIFO score is its id (retry, promotion and requeue fall back to it).
    if job.backoff == '' and not job.delayed then
      redis.call('HSET', jobKey, 'group', job.group, 'state', state, 'attempts', 0,
        'maxAttempts', job.maxAttempts, 'enqueuedAt', now)
    else
      local fields = { 'group', job.group, 'state', state, 'attempts', 0,
        'maxAttempts', job.maxAttempts, 'enqueuedAt', now }
      if job.backoff ~= '' then
        fields[#fields + 1] = 'backoff'
        fields[#fields + 1] = job.backoff
        fields[#fields + 1] = 'backoffDelayMs'
        fields[#fields + 1] = job.backoffDelayMs
        if job.backoffMaxDelayMs ~= '' then
          fields[#fields + 1] = 'backoffMaxDelayMs'
          fields[#fields + 1] = job.backoffMaxDelayMs
        end
        if job.backoffJitter ~= '' and job.backoffJitter ~= '0' then
          fields[#fields + 1] = 'backoffJitter'
          fields[#fields + 1] = job.backoffJitter
        end
      end
      if job.delayed then
        fields[#fields + 1] = 'runAt'
        fields[#fields + 1] = string.format('%d', job.at)
      end
      redis.call('HSET', jobKey, unpack(fields))
    end
    if job.payload ~= '' then
      if n == 1 then
        redis.call('HSET', payloadsKeyOf(base), job.id, job.payload)
      else
        payloads = payloads or {}
        payloads[#payloads + 1] = job.id
        payloads[#payloads + 1] = job.payload
      end
    end
    if job.idemKey then
      redis.call('HSET', job.idemKey, 'id', job.id, 'fingerprint', job.fingerprint, 'enqueuedAt', now)
      redis.call('PEXPIRE', job.idemKey, job.keyTtlMs)
    end
  end
  if payloads then
    redis.call('HSET', payloadsKeyOf(base), unpack(payloads))
  end
  local order = call.order
  local delayedAll, reRinged = false, false
  local pending, delayed = 0, 0
  for i = 1, #order do
    local group = order[i]
    local g = call.groups[group]
    if g.delayed then
      local members = {}
      for j = 1, #g.delayed do
        local job = g.delayed[j]
        members[#members + 1] = job.at
        members[#members + 1] = job.id
      end
      redis.call('ZADD', groupDelayedKeyOf(base, group), unpack(members))
      if #order == 1 then
        delayedAll = members
      else
        delayedAll = delayedAll or {}
        for j = 1, #members do
          delayedAll[#delayedAll + 1] = members[j]
        end
      end
      delayed = delayed + #g.delayed
    end
    local lane = g.lane
    if #lane > 0 then
      if #lane == 1 then
        redis.call('ZADD', g.laneKey, lane[1].seq, lane[1].id)
      else
        local members = {}
        for j = 1, #lane do
          members[#members + 1] = lane[j].seq
          members[#members + 1] = lane[j].id
        end
        redis.call('ZADD', g.laneKey, unpack(members))
      end
      -- The lane's new head bound (includes/heads.lua, noteLaneHead): its first job's score.
      redis.call('ZADD', headsKeyOf(base), 'LT', lane[1].seq, group)
      pending = pending + #lane
      -- A job added can only help its group (settleGroup.lua, settleAfterGain): a group that
      -- was serviceable still is; one that was not is judged again now its lane holds work
      -- (its limit and active count as judgeGroups read them: the call wrote neither).
      if not g.wasServiceable then
        local serviceable, saturated = isServiceable(k, group, g.laneKey, g.limit, g.active, nil,
          #lane)
        if serviceable then
          reRinged = reRinged or {}
          reRinged[#reRinged + 1] = group
        end
        if saturated ~= g.wasSaturated then
          redis.call('HINCRBY', k.stats, 'saturated', saturated and 1 or -1)
        end
      end
    end
  end
  if #order == 1 then
    redis.call('ZADD', k.groups, 0, order[1])
  else
    local registry = {}
    for i = 1, #order do
      registry[#registry + 1] = 0
      registry[#registry + 1] = order[i]
    end
    redis.call('ZADD', k.groups, unpack(registry))
  end
  redis.call('HINCRBY', k.stats, 'enqueued', n)
  if delayed > 0 then
    redis.call('ZADD', k.delayed, unpack(delayedAll))
    redis.call('HINCRBY', k.stats, 'delayed', delayed)
  end
  if pending > 0 then
    redis.call('HINCRBY', k.stats, 'pending', pending)
  end
  if reRinged then
    -- settleGroup.lua's reRing for each, batched: the tail of the ring in order, a fresh round
    -- of each one's weight (includes/weights.lua), a wake token each.
    redis.call('RPUSH', k.ring, unpack(reRinged))
    redis.call('HDEL', turnsKeyOf(base), unpack(reRinged))
    if #reRinged == 1 then
      redis.call('LPUSH', k.wake, '1')
    else
      local tokens = {}
      for i = 1, math.min(#reRinged, WAKE_LENGTH) do
        tokens[i] = '1'
      end
      redis.call('LPUSH', k.wake, unpack(tokens))
    end
    redis.call('LTRIM', k.wake, 0, WAKE_LENGTH - 1)
  end
end

-- The job's reply { id, fields, outcome }: the hash and payload as HGETALL and payloads hold them
-- (includes/payloads.lua, jobFields), or for a key's job whose hash is gone the request's fields
-- with state 'completed'.
local function enqueueReply(call, job)
  local base = call.base
  if job.outcome == CREATED then
    local fields = redis.call('HGETALL', jobKeyOf(base, job.id))
    if job.payload ~= '' then
      fields[#fields + 1] = 'payload'
      fields[#fields + 1] = job.payload
    end
    return { job.id, fields, CREATED }
  end
  local used = job.used
  local id = used.id or used.job.id
  local fields = jobFields(base, id)
  if #fields == 0 then
    fields = { 'group', job.group, 'maxAttempts', job.maxAttempts, 'enqueuedAt', used.enqueuedAt,
      'state', 'completed' }
    if job.payload ~= '' then
      fields[#fields + 1] = 'payload'
      fields[#fields + 1] = job.payload
    end
  end
  return { id, fields, EXISTING }
end
