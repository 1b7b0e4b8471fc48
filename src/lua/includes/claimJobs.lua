--[[
  The rota's claim, shared by claim and completeAndClaim: take the group at
  the head of the ring, pop the first job of its lane, lease it under a caller's token, and
  count it active. The served group goes to the tail of the ring while it stays serviceable
  (I1, isServiceable in includes/groupState.lua, asked before the claim; after it, the same
  clauses with the lanes of one pop's served groups read together, settleServed), and stays
  off it when it reached its limit (the original design's de-ring at the claim point) or its lane is
  now empty: either way it was just popped from the head, so no LREM is needed and the cost is O(1).
  A stale head (paused, saturated or empty, left by another writer) is dropped and the next one
  tried; so is a group whose active count is not an integer within ±(2^53−1)
  (includes/safeInteger.lua): a claim could not count it exactly, and a claim cannot refuse once
  it has popped the ring, so it serves the others and writes nothing of that group. Every call
  that would change the group refuses with DATA_OUT_OF_RANGE, Queue.audit reports it (I3, I1),
  and Queue.repair rewrites the count and re-rings the group.
  Weights (includes/weights.lua): a group of weight w > 1 goes back to the head instead, for w
  turns in a row, then to the tail; its round ends when it leaves the ring.
  Levels (includes/levels.lua; DESIGN.md §3, "Levels"): in a queue with levels the heads are
  popped from the most urgent level's rota (`levels`, or the ring for level 5), and a served
  group goes to the tail of its new head's level; a weighted one keeps the head only while its
  new head stays at the level popped. A queue without levels runs exactly the ring's code.
  A job's attempts is counted up exactly whatever its size (as decimal text past 2^53−1); one
  that is not an integer counts as 0, as before.

  Claims made by one script share a batch (newClaimBatch). Nothing else runs while a script
  does, so a group's limit, paused flag and active count are read once per script and then
  kept in the batch; and the writes every claim makes to the same keys (active, leases,
  gactive, stats) are made once, with every member, by flushClaims, from the jobs the script
  claimed (claimDue's answer). A script that claims must call flushClaims before it returns.
  The batch holds no list per claim: what a claim of one job writes is written with no table
  built (docs/PERFORMANCE.md, "Redis: the claim's own cost").

  k: glimit, gactive, ring, paused, active, leases, stats. base: 'P:{Q}:' (lane and job keys
  are built from it, includes/keys.lua). claimJobs returns the jobs claimed (none when no group
  is serviceable), the i-th under the i-th token, each positional (a missing field is false):
    { id, group, attempts, maxAttempts, enqueuedAt, payload, lastError, progress }
  the payloads read in one HMGET of P:{Q}:payloads for the whole call (includes/payloads.lua).
  A claimed job with a `debounceKey` clears its key's record P:{Q}:debounce:<key> (built from
  base) when the record names it: one field more in the job's HMGET, a GET and DEL only for such
  a job (DESIGN.md §3, "Debounce").
  With `inPlace` (a list of groups, one token each: the owed groups of includes/queueCap.lua)
  it serves those groups where they stand instead of popping the rota: no pop and no push back;
  a served group leaves its rota only when no longer serviceable (DESIGN.md §3, "The queue's cap
  and reserves"); one found with no job is marked `dry` in the batch.
  What every claim of the batch shares is not repeated per job: the token is the caller's, and
  claimedAt and leaseUntil are batch.now and batch.leaseUntil (claimReply returns them).

  The claim scripts call claimDue, not claimJobs: the queue's gate and delayed jobs first
  (DESIGN.md §3, claim), and the queue's cap (includes/queueCap.lua: at most cap − in flight
  claims, the reserves' owed permits first; `gate` nil for a queue with no cap). It promotes up to `promoteBatch` delayed jobs that are due
  (includes/promote.lua: each back to its lane at its FIFO place, its group re-ringed with a
  wake when that makes it serviceable), whether or not the queue is paused; then, unless the
  queue is paused (settings.paused, read by the caller), claims. When the claims ran out
  (fewer than asked) on a running queue it answers the earliest run-at time left in `delayed`
  (ms, or false for none), so a worker parks no longer than until then; false otherwise. A call
  that asks for no claims promotes nothing (the next claim or the reaper does). Flat cost: one
  ZRANGEBYSCORE … LIMIT and one ZRANGE 0 0 on `delayed`, O(log n) however many jobs wait, and
  only when the queue's "next due at" (includes/nextDue.lua; `delayedAt` and `reopenAt` as the
  caller's HMGET of `settings` read them) has come or is unknown:
  otherwise nothing of `delayed` is read, and the next run-at time answered is that bound (a
  bound below the earliest only wakes a worker early, whose claim then refreshes it).
  Rate limits (includes/rateLimit.lua, a token bucket per group): beside the delayed promotion,
  up to `promoteBatch` groups whose token came leave `ratelimited` and are re-ringed with a wake
  (promoteReopened), and nextRunAt is the earlier of the first run-at time and the first
  reopening in `ratelimited` (both by their bounds, as above), so a parked worker wakes when the token comes; a group with a rate
  is served only while its bucket holds its head job's cost (rateAllows: else it leaves the ring
  as a stale head, into `ratelimited`), each claim takes that cost, and the claim that leaves the
  bucket short of the next head's cost leaves the group off the ring (countRateClaim). Flat too:
  O(log n + batch) in rate-limited groups.
  k also needs wake (re-ring), delayed and stats (promotion's totals), and settings (the bounds).
]]
--- @include "keys"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "smallCounts"
--- @include "groupState"
--- @include "promote"
--- @include "rateLimit"
--- @include "weights"
--- @include "ringLog"
--- @include "payloads"
--- @include "jobEvents"
--- @include "indexedEncoding"
--- @include "quietQueue"
--- @include "nextDue"
--- @include "levels"
--- @include "throughput"
--- @include "groupRanks"

-- worker: the claiming worker's id, written as each claimed job's `worker` ('' or nil: none).
-- batch.emptied: nil, or group -> true for each served group whose lane the claims emptied
-- (claimJobs makes it at the first).
local function newClaimBatch(leaseMs, worker)
  return {
    leaseMs = leaseMs, saturated = 0, completed = 0, groups = {},
    worker = (worker ~= nil and worker ~= '') and worker or nil,
  }
end

-- claimedAt, leaseUntil, claimed, nextRunAt: the reply of a script that claims (false, false,
-- {} when it claimed nothing; nextRunAt as claimDue answers it), as four values, so the script
-- makes them its reply's last four in the table it returns.
local function claimReply(batch, claimed, nextAt)
  return batch.now or false, batch.leaseUntil or false, claimed, nextAt or false
end

-- The standing of the groups in `heads` not yet seen by this script: three reads for all.
-- limits, actives: their glimit and gactive fields as this script already read them (HMGET
-- replies in the order of heads, every head unseen: includes/queueCap.lua), each nil to read it.
-- Each group's record is made with every field the claim gives it (a field added later grows
-- the table): `limited` false when the queue has no rate key (includes/quietQueue.lua; else
-- readRateStates reads it), and weight 1, turns 0 when it has no weight (what readWeights,
-- includes/weights.lua, gives a group of none, so the claim does not call it). Each limit and
-- count as parseLimit / parseActive judge it (includes/groupState.lua): a missing limit is
-- none, a missing count 0, without a call.
local function readStates(k, batch, heads, limits, actives)
  local groups = batch.groups
  local limited, weight, turns
  if not batch.readsRates then
    limited = false
  end
  if not batch.readsWeights then
    weight, turns = 1, 0
  end
  if #heads == 1 and limits == nil and actives == nil then
    -- One head (a claim of one job): each field by itself, no table of groups or of replies.
    local group = heads[1]
    if groups[group] ~= nil then
      return
    end
    local limit = redis.call('HGET', k.glimit, group)
    local active = redis.call('HGET', k.gactive, group)
    groups[group] = {
      limit = limit and parseLimit(limit) or nil,
      -- nil when it cannot be counted exactly: the group is not served (see above).
      active = not active and 0 or parseActive(active),
      paused = redis.call('SISMEMBER', k.paused, group) == 1,
      claimed = 0, limited = limited, weight = weight, turns = turns,
    }
    if batch.readsRates then
      readRateStates(k, heads, groups)
    end
    return
  end
  -- Numeric loops over the heads (about one per claim): ipairs calls its iterator per step.
  local unseen, listed = {}, {}
  for h = 1, #heads do
    local group = heads[h]
    if batch.groups[group] == nil and not listed[group] then
      unseen[#unseen + 1] = group
      listed[group] = true
    end
  end
  if #unseen == 0 then
    return
  end
  if limits == nil then
    limits = redis.call('HMGET', k.glimit, unpack(unseen))
  end
  if actives == nil then
    actives = redis.call('HMGET', k.gactive, unpack(unseen))
  end
  local paused = redis.call('SMISMEMBER', k.paused, unpack(unseen))
  for i = 1, #unseen do
    local limit, active = limits[i], actives[i]
    groups[unseen[i]] = {
      limit = limit and parseLimit(limit) or nil,
      active = not active and 0 or parseActive(active),
      paused = paused[i] == 1,
      claimed = 0, limited = limited, weight = weight, turns = turns,
    }
  end
  if batch.readsRates then
    readRateStates(k, unseen, groups)
  end
end

--[[
  The groups one pop served, in order, as the ring's tail gets them: back[j] is a group, and
  lanes[j] false when it was already judged to stay, else its lane: a group of weight 1 below
  its limit and not rate-limited, which stays exactly when its lane still holds a job (I1's last
  clause). Those lanes are asked together: one EXISTS of them all counts the ones that exist (an
  empty zset does not), so when all or none do — a busy queue, or a queue of one job per group —
  it is one call for the pop instead of a ZCARD per claim; otherwise each lane is asked alone
  (one call more than the ZCARDs). Nothing else writes the lanes between the claims and this.
  Two lists rather than a table per group: no allocation per claim. The groups that stay are
  returned in `back` itself, those that leave taken out of it (no list more); one lane alone (a
  claim of one job) is asked with no list of keys.
  spent: the groups the pop served that leave the ring at their limit or rate, and their lanes
  (group, lane, group, lane, …), asked in the same EXISTS. Every served group whose lane is now
  empty is added to `emptied`: its `heads` entry goes (DESIGN.md §3, "Oldest pending": an entry
  exactly while the lane holds a job).
]]
local function settleServed(batch, back, lanes, spent, emptied)
  if #back == 1 and #spent == 0 then
    local group, lane = back[1], lanes[1]
    if lane and redis.call('EXISTS', lane) == 0 then
      -- placeServed(g, false): it leaves the ring, its round ends.
      batch.groups[group].turns = 0
      emptied[#emptied + 1] = group
      back[1] = nil
    end
    return back
  end
  local asked = {}
  for j = 1, #back do
    if lanes[j] then
      asked[#asked + 1] = lanes[j]
    end
  end
  for j = 2, #spent, 2 do
    asked[#asked + 1] = spent[j]
  end
  if #asked == 0 then
    return back
  end
  local present = redis.call('EXISTS', unpack(asked))
  -- kept: how many of back stay, each moved down to its place among them (kept <= j).
  local served, kept = #back, 0
  for j = 1, served do
    local group, lane = back[j], lanes[j]
    if not lane or present == #asked or (present > 0 and redis.call('EXISTS', lane) == 1) then
      -- Judged already, or placeServed(g, true) of a group of weight 1 (includes/weights.lua):
      -- the tail.
      kept = kept + 1
      back[kept] = group
    else
      -- placeServed(g, false): it leaves the ring, its round ends.
      batch.groups[group].turns = 0
      emptied[#emptied + 1] = group
    end
  end
  for j = served, kept + 1, -1 do
    back[j] = nil
  end
  for j = 1, #spent, 2 do
    if present == 0 or (present < #asked and redis.call('EXISTS', spent[j + 1]) == 0) then
      emptied[#emptied + 1] = spent[j]
    end
  end
  return back
end

--[[
  Claim one job per token, in rota order, until the ring runs out. The heads are popped as
  many at a time as there are claims left (LPOP with a count): while that many groups are on
  the ring, none of those pushed back to its tail can come round again before the next pop, so
  this serves exactly the groups, in the order, that one claim after another would.

  The loop runs once per claim, and in Redis' Lua a function call costs about what a
  redis.call does (~2,500–4,000 instructions: docs/PERFORMANCE.md "Fewer Lua calls
  per job"), so the lease of a head is written out here rather than in helpers, and the
  helpers' common answers are taken in place, each naming the helper that holds the rule: the
  lane and job keys from prefixes built once (includes/keys.lua), the next attempt of a plain
  small count (the exact path, else), the watch asked once (anyWatched, includes/jobEvents.lua) and
  not at all when the probe found none, the ring log called only while the ring may be watched
  (includes/ringLog.lua), the rate judged only for a group with one (rateAllows,
  countRateClaim), a count passed to Redis as its text (includes/smallCounts.lua).
]]
local function claimJobs(k, base, batch, tokens, defaultMaxAttempts, inPlace)
  local claimed, emptied = {}, {}
  local jobPrefix, groupPrefix = jobPrefixOf(base), groupPrefixOf(base)
  local watching
  -- Levels (includes/levels.lua): a queue that may hold heads off the default level pops the
  -- most urgent level's rota; `from` is the level popped, `scores` its `levels` places.
  -- Asked by the caller's probe before (includes/quietQueue.lua), read in place (levels.lua).
  local leveled = leveledQueue
  while #claimed < #tokens do
    local heads, from, scores
    if inPlace then
      -- The groups a reserve is owed (includes/queueCap.lua, claimOwed), one token each: served
      -- where they stand on their rota, not popped (settled after the loop below).
      heads = inPlace
    elseif leveled then
      heads, from, scores = levels().popLevelHeads(k, base, #tokens - #claimed)
    else
      local wanted = #tokens - #claimed
      heads = redis.call('LPOP', k.ring, COUNT_TEXT[wanted] or wanted)
      -- The ring log's answer in place when the probe found the ring unwatched (ringLogSeq
      -- false, includes/ringLog.lua): no call to be told so.
      if heads and ringLogSeq ~= false then
        logRingPop(k.ring, #heads)
      end
    end
    if not heads then
      break
    end
    readStates(k, batch, heads)
    if batch.readsWeights then
      readWeights(base, batch, heads)
    end
    local back, lanes, spent, i = {}, {}, {}, 1
    -- A weighted group keeps the head for its turns (includes/weights.lua), so the claims may
    -- run out before every head popped is served: those go back to the head (keepHeads).
    while i <= #heads and #claimed < #tokens do
      local group = heads[i]
      i = i + 1
      local g = batch.groups[group]
      local laneKey = groupPrefix .. group .. LANE_SUFFIX
      -- I1 before the pop, whose answer is its lane's clause (an empty lane yields no job): so
      -- the lane is not read, it is given as holding one. active nil: uncountable, not served.
      local head
      if g.active ~= nil
        and isServiceable(k, group, laneKey, g.limit, g.active, g.paused, 1, g.limited)
        -- A rate: the bucket must hold the head job's cost (includes/rateLimit.lua), else the
        -- group leaves the ring until it does, as a stale head.
        and (g.rateMax == nil or rateAllows(base, group, g, laneKey, nowMs())) then
        head = redis.call('ZPOPMIN', laneKey)
      end
      local id = head and head[1]
      if id then
        -- Lease the head under the next token.
        local score = head[2]
        local jobKey = jobPrefix .. id
        if batch.now == nil then
          -- Formatted once: Redis turns a Lua number argument into text far more slowly.
          local now = nowMs()
          batch.now = string.format('%d', now)
          batch.leaseUntil = string.format('%d', now + batch.leaseMs)
        end
        -- The fields in the places of the claimed job's entry (positional, as ClaimedJob in
        -- src/lanes/queue/jobs.ts reads it: id, group, attempts, maxAttempts, enqueuedAt,
        -- payload, lastError, progress; false for a missing field), so the reply's table
        -- becomes the entry, with no table more per job: the 1st and 6th read what only the
        -- claim needs (debounceKey, worker), then take the id and the payload (fillPayloads,
        -- for the whole batch); the 3rd takes the attempt counted up, the 2nd the group served
        -- and the 4th the default when the hash has none.
        local job = redis.call('HMGET', jobKey, 'debounceKey', 'group', 'attempts',
          'maxAttempts', 'enqueuedAt', 'worker', 'lastError', 'progress')
        local debounceKey, worker = job[1], job[6]
        job[1] = id
        if debounceKey then
          -- A debounced job has started: its key's next enqueue makes a new job (DESIGN.md §3,
          -- "Debounce"), unless the record already names a newer one.
          local record = debounceKeyOf(base, debounceKey)
          if redis.call('GET', record) == id then
            redis.call('DEL', record)
          end
        end
        -- attempts + 1 as text, exactly: a missing or non-integer attempts counts as 0. A
        -- plain count below 10^15 (what enqueue writes and claims count up) is its number's
        -- text; anything else takes the exact path (safeInteger, else the digits counted up).
        -- '0', a job's first claim, is the commonest by far: no call at all. (In place, not a
        -- helper: completeAndClaim's main function is near Lua's 200 locals.)
        local raw = job[3]
        local attempts = '1'
        if raw ~= '0' then
          local n = tonumber(raw)
          if n and n >= 0 and n < 1e15 and string.format('%d', n) == raw then
            attempts = string.format('%d', n + 1)
          else
            n = safeInteger(raw)
            if n then
              attempts = string.format('%d', n + 1)
            elseif isInteger(raw) and string.sub(raw, 1, 1) ~= '-' then
              attempts = incrementDigits(raw)
            end
          end
        end
        job[3] = attempts
        -- The claiming worker's id in the same HSET (DESIGN.md §4.9 "Workers"); a claim that
        -- names none drops an earlier attempt's (rare: one HDEL).
        if batch.worker then
          redis.call('HSET', jobKey, 'attempts', attempts, 'state', 'active', 'token',
            tokens[#claimed + 1], 'claimedAt', batch.now, 'leaseUntil', batch.leaseUntil,
            'worker', batch.worker)
        else
          redis.call('HSET', jobKey, 'attempts', attempts, 'state', 'active', 'token',
            tokens[#claimed + 1], 'claimedAt', batch.now, 'leaseUntil', batch.leaseUntil)
          if worker then
            redis.call('HDEL', jobKey, 'worker')
          end
        end
        if job[2] ~= group then
          redis.call('HSET', jobKey, 'group', group)
          job[2] = group
        end
        if not job[4] then
          -- A lane entry with no hash (written by another implementation of the seed).
          job[4] = defaultMaxAttempts
          redis.call('HSET', jobKey, 'maxAttempts', defaultMaxAttempts)
        end
        if score ~= id then
          -- A lane score that is not the id (another writer's): kept, so a retry goes back to
          -- the same place (includes/requeueJob.lua reads `score`, else the id). ZPOPMIN
          -- answers an integer score as its digits, so a job of ours never writes it.
          redis.call('HSET', jobKey, 'score', score)
        end
        if watching == nil then
          -- Asked at the first lease, as noteJobEvent would: a call that leases none asks not.
          -- No call when the probe found nothing watched (watchedJobs false, jobEvents.lua).
          watching = watchedJobs ~= false and anyWatched(base)
        end
        if watching then
          noteJobEvent(base, id)
        end

        g.active = g.active + 1
        g.claimed = g.claimed + 1
        claimed[#claimed + 1] = job
        if g.rateMax ~= nil then
          countRateClaim(base, group, g, laneKey, nowMs())
        end
        -- I1 after the claim (not paused: it was just served). Saturated or rate-limited, it
        -- leaves the ring with no read; else it stays exactly when its lane still holds a job.
        -- A weighted group's lane is read now (its next turn may be the next claim); the
        -- others' are read together once this pop is served (settleServed).
        local saturated = isSaturated(g.limit, g.active)
        if saturated then
          batch.saturated = batch.saturated + 1
        end
        if saturated or g.limited then
          -- placeServed(g, false) (includes/weights.lua): off the ring, its round ends.
          g.turns = 0
          spent[#spent + 1] = group
          spent[#spent + 1] = laneKey
        elseif inPlace then
          -- A reserve's permit is no turn of the rota: its weight's turns are not counted, and
          -- it keeps its place while its lane (read below) holds a job.
          back[#back + 1] = group
          lanes[#back] = laneKey
        elseif g.weight > 1 then
          -- Weights: the head again while its round goes on, else the tail (weights.lua).
          -- With levels, the head again only while its new head stays at the level popped.
          local stays, moved
          if leveled then
            local level = levels().headLevel(laneKey)
            stays = level ~= nil
            moved = stays and level ~= from
          else
            stays = redis.call('ZCARD', laneKey) > 0
          end
          if not stays then
            emptied[#emptied + 1] = group
          end
          local place = placeServed(g, stays)
          if moved then
            g.turns = 0
            place = 'tail'
          end
          if place == 'head' then
            i = i - 1
          elseif place == 'tail' then
            back[#back + 1] = group
            lanes[#back] = false
          end
        else
          back[#back + 1] = group
          lanes[#back] = laneKey
        end
      end
      -- No job: a stale head (paused, saturated or empty, left by another writer) or an
      -- uncountable one. By I1 the former must not be on the ring: dropped, and the next pop
      -- takes one more group.
      if inPlace and not id then
        -- An owed group with no job: its lane is empty (then it is on no rota, I1), or its
        -- bucket is short (rateAllows just rate-limited it: it leaves its rota, below). Owed
        -- nothing more in this script (owedGroups).
        g.dry = true
        if g.limited then
          spent[#spent + 1] = group
          spent[#spent + 1] = laneKey
        end
      end
    end
    if inPlace then
      -- Served where they stand (includes/queueCap.lua): none was popped, so none goes back. A
      -- group leaves its rota when it is no longer serviceable (I1): at its limit or rate
      -- (spent), or its lane empty; on the ring that is an LREM, O(ring), the one case the
      -- claim cannot serve in place at O(1). With levels, one whose new head stands at another
      -- level moves to that level's tail (includes/levels.lua, moveLevel).
      -- The spent ones' lanes asked (emptied), then spent takes the groups found empty too:
      -- every group in it leaves.
      if #spent > 0 then
        settleServed(batch, {}, {}, spent, emptied)
      end
      for j = 1, #back do
        local group, lane = back[j], lanes[j]
        local stays, moved
        if leveled then
          stays, moved = levels().relevel(k, group, lane)
        else
          stays = redis.call('EXISTS', lane) == 1
        end
        if not stays then
          batch.groups[group].turns = 0
          emptied[#emptied + 1] = group
          spent[#spent + 1] = group
          spent[#spent + 1] = lane
        elseif moved then
          -- A new place in a new rota: a fresh round (moveLevel deleted its count).
          batch.groups[group].turns = 0
        end
      end
      for j = 1, #spent, 2 do
        -- Whichever rota holds it (levels.lua: a ZREM from `levels`, else the ring's LREM).
        levels().leaveRota(k, spent[j])
      end
      break
    end
    if leveled then
      -- Each served group's new head says its level (includes/levels.lua); the heads not served
      -- go back to `levels` first, so a tail found there is behind them.
      settleServed(batch, {}, {}, spent, emptied)
      if scores then
        levels().keepLevelHeads(k, base, heads, scores, i)
      end
      back = levels().placeLeveled(k, base, batch, back, emptied)
    else
      back = settleServed(batch, back, lanes, spent, emptied)
    end
    if #back > 0 then
      redis.call('RPUSH', k.ring, unpack(back))
      if ringLogSeq ~= false then
        logRingPush(k.ring, back, #back)
      end
    end
    if not scores and i <= #heads then
      keepHeads(k.ring, heads, i)
    end
  end
  -- Only a queue with weights has turns to write (includes/weights.lua, readWeights).
  if batch.weighted then
    flushTurns(base, batch)
  end
  if #emptied > 0 then
    redis.call('ZREM', headsKeyOf(base), unpack(emptied))
    -- The rankings' pending counts are written once for the batch (flushClaims).
    local set = batch.emptied or {}
    for e = 1, #emptied do
      set[emptied[e]] = true
    end
    batch.emptied = set
  end
  fillPayloads(base, claimed, 6)
  return claimed
end

-- The writes the batch's claims share: leases, active counts and counters, once each, from
-- `claimed`, every job the script claimed (claimDue's answer), in the order claimed. The
-- completions of the same script (batch.completed) share the `active` total's update. A batch
-- of INDEXED_FROM claims or more keeps `active`, `leases` (and `gactive`, by groups served) in
-- Redis' indexed encodings (includes/indexedEncoding.lua). Every count goes to Redis as text,
-- a small one's from includes/smallCounts.lua.
local function flushClaims(k, base, batch, claimed)
  local count, completed = #claimed, batch.completed
  -- The call's claims and completions in the minute's throughput (includes/throughput.lua).
  countThroughput(base, 0, count, completed, 0)
  local net = count - completed
  if net ~= 0 then
    redis.call('HINCRBY', k.stats, 'active', COUNT_TEXT[net] or string.format('%d', net))
  end
  if completed > 0 then
    redis.call('HINCRBY', k.stats, 'completed',
      COUNT_TEXT[completed] or string.format('%d', completed))
  end
  if count == 0 then
    return
  end
  local groups, leaseUntil = batch.groups, batch.leaseUntil
  if count == 1 then
    -- One job (a Worker at concurrency 1): each write with its arguments, no list built.
    local job = claimed[1]
    local id, group = job[1], job[2]
    local active = groups[group].active
    active = COUNT_TEXT[active] or string.format('%d', active)
    redis.call('ZADD', k.active, leaseUntil, id)
    redis.call('HSET', k.leases, id, group)
    redis.call('HSET', k.gactive, group, active)
    setActiveRanks(base, nil, group, active)
    takeServed(base, nil, groups, batch.emptied, group, '1')
  else
    -- served: each group claimed from, in the order of its first claim (listed: group -> true).
    local scores, leases, counts, served, listed = {}, {}, {}, {}, {}
    for j = 1, count do
      local job = claimed[j]
      local id, group = job[1], job[2]
      scores[2 * j - 1] = leaseUntil
      scores[2 * j] = id
      leases[2 * j - 1] = id
      leases[2 * j] = group
      if not listed[group] then
        listed[group] = true
        served[#served + 1] = group
        local active = groups[group].active
        counts[#counts + 1] = group
        counts[#counts + 1] = COUNT_TEXT[active] or string.format('%d', active)
      end
    end
    redis.call('ZADD', k.active, unpack(scores))
    redis.call('HSET', k.leases, unpack(leases))
    redis.call('HSET', k.gactive, unpack(counts))
    -- A big batch: the hot keys in their indexed encodings (includes/indexedEncoding.lua).
    if count >= INDEXED_FROM then
      keepIndexed(k, count, #served, base)
    end
    -- The rankings (includes/groupRanks.lua): the served groups' active counts as gactive has
    -- them, and their lanes' sizes, each in one write for the batch.
    setActiveRanks(base, counts)
    if #served == 1 then
      takeServed(base, nil, groups, batch.emptied, served[1], COUNT_TEXT[count] or count)
    else
      takeServed(base, served, groups, batch.emptied)
    end
  end
  local text = COUNT_TEXT[count] or string.format('%d', count)
  redis.call('HINCRBY', k.stats, 'claimed', text)
  redis.call('HINCRBY', k.stats, 'pending', '-' .. text)
  if batch.saturated ~= 0 then
    redis.call('HINCRBY', k.stats, 'saturated',
      COUNT_TEXT[batch.saturated] or string.format('%d', batch.saturated))
  end
end

-- ── hook: the queue's cap and reserves (includes/queueCap.lua; uses claimJobs, readStates) ──
--- @include "queueCap"

-- Promote what is due, then claim unless the queue is paused (see the header): returns the
-- jobs claimed and nextRunAt (ms or false). promoteBatch is ARGV text, passed on as is. gate:
-- the queue's cap (queueCap.lua capOf), nil for none. delayedAt, reopenAt: the queue's "next
-- due at" as the caller read it from `settings` (includes/nextDue.lua; false when absent).
local function claimDue(k, base, batch, tokens, defaultMaxAttempts, promoteBatch, queuePaused,
  gate, delayedAt, reopenAt)
  if #tokens == 0 then
    return {}, false
  end
  -- The caller asked the probe (includes/quietQueue.lua) before its read of `settings`, whose
  -- bounds it reads only when the probe found a delayed job or a rate.
  local delayed, rates = batch.readsDelayed, batch.readsRates
  if delayed or rates then
    -- The zsets are read only when their "next due at" has come or is unknown
    -- (includes/nextDue.lua), then the bound is refreshed from them.
    local at = nowMs()
    -- Unknown (nil) or come: read.
    local bound = dueOf(delayedAt)
    local promotes = delayed and not (bound and bound > at)
    bound = dueOf(reopenAt)
    local reopens = rates and not (bound and bound > at)
    if promotes or rates then
      -- The bounds kept from here (keepDue): a promotion rewrites one, a claim that rate-limits
      -- a group may lower `reopenAt`.
      dueKnown = { delayedAt = delayedAt, reopenAt = reopenAt }
    end
    if promotes or reopens then
      -- As text: Redis formats a Lua number argument far more slowly (see claimJobs).
      local now = string.format('%d', at)
      if promotes then
        promoteDue(k, base, now, promoteBatch)
        keepDue(k.settings, 'delayedAt', k.delayed)
      end
      if reopens then
        promoteReopened(k, base, now, promoteBatch)
        keepDue(k.settings, 'reopenAt', rateLimitedKeyOf(base))
      end
    end
  end
  if queuePaused then
    return {}, false
  end
  local claimed
  -- ── hook: the queue's cap (includes/queueCap.lua) ──
  if gate then
    claimed = claimUnderCap(k, base, batch, tokens, defaultMaxAttempts, gate)
  else
    claimed = claimJobs(k, base, batch, tokens, defaultMaxAttempts)
  end
  if #claimed < #tokens and (delayed or rates) then
    -- The earlier of the bounds as this call left them: exact when refreshed, else at worst
    -- early; false for none ('none' reads as math.huge).
    if dueKnown then
      delayedAt, reopenAt = dueKnown.delayedAt, dueKnown.reopenAt
    end
    local runAt = delayed and dueOf(delayedAt) or math.huge
    local reopen = rates and dueOf(reopenAt) or math.huge
    runAt = math.min(runAt, reopen)
    return claimed, runAt ~= math.huge and runAt
  end
  return claimed, false
end
