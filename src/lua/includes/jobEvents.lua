--[[
  The events of watched jobs (DESIGN.md §4.4, `jobChanged`): every script that changes a job's
  state calls noteJobEvent at the moment it does, and for a job a live feed watches an entry of
  the job's mutable fields as they are then is appended to its event list. A server's job watch
  reads the list on the job hash's keyspace hint (the list is written in the same script, so it
  is there when the hint arrives) and sends one event per entry, in order: states shorter than
  a read (claim then complete, retry then claim) are not lost.

  The cost for jobs nobody watches is one EXISTS of P:{Q}:watched per script call that moves a
  job, never per job (the claim scripts fold it into their probe, includes/quietQueue.lua): an
  empty `watched` (no job of the queue watched anywhere) answers the rest of the call. Only while some job of the queue is watched does a moved job cost a ZSCORE (once
  per job and call), and only a watched one the writes below. A ZSCORE at the change rather than
  one ZMSCORE for the call: the change is recorded at its moment (a claim may promote a job and
  then claim it, two entries), and which jobs a call moves is known only as it moves them.

    noteJobEvent(base, id)        the job just changed state: its fields as they are now
    noteJobForgotten(base, id, finishedAt)
                                  the job completed and is forgotten at once (completed
                                  retention count 0): the COMPLETED entry it would have had if
                                  kept (finishedAt, decimal ms; no lease), read from its hash
                                  before the caller deletes it
    noteJobGone(base, id)         the job is gone (its hash deleted: removed, trimmed):
                                  {"gone":true}
    trimWatches(base, now, max)   drop up to `max` registrations past their time (the reaper's);
                                  returns how many
    noneWatched()                 the caller knows `watched` does not exist: no EXISTS asked
    anyWatched(base)              whether any job may be watched in this call (the same cached
                                  EXISTS): a loop over a batch asks it once and, when none is,
                                  skips the note* call per job (a Lua call per job costs about
                                  what a redis.call does: docs/PERFORMANCE.md "Fewer
                                  Lua calls per job")

  The entry, compact JSON (cjson): the hash's state, attempts, claimedAt, leaseUntil, runAt,
  finishedAt, lastError and progress (its JSON text) as the hash holds them (a missing field is
  left out), or gone; at, the script's time (ms, Redis clock: the `at` of a failure it records, so
  a reader tells the job's errors of that moment); and seq, decimal text, the entry's place in the
  job's history. seq is the last entry's plus one, so a reader sees a gap (entries trimmed before
  it read them) as a jump; a list that is empty (new, or expired: EVENTS_TTL_MS after its last
  entry) starts at now × 1000 (ms from the Redis clock), past every seq the job had before (short
  of a million entries a second), so a reader never takes a new entry for one it has read. Text,
  because cjson writes numbers with 14 significant digits and a seq has 16.

  Bounded: the list keeps the newest EVENTS_KEPT entries (LTRIM) and expires EVENTS_TTL_MS after
  the last (PEXPIRE). A watch's registration in `watched` is `until` (ms, Redis clock): a member
  past it counts as not watched (the reaper trims those, reap-12.lua).

  base: 'P:{Q}:' (the job, its event list and `watched` are built from it, includes/keys.lua).
  Events: rpush/ltrim/expire job:<id>:events (watched jobs only).
]]
--- @include "keys"
--- @include "nowMs"

local EVENTS_KEPT = 100
local EVENTS_TTL_MS = 600000
local EVENT_FIELDS = { 'state', 'attempts', 'claimedAt', 'leaseUntil', 'runAt', 'finishedAt',
  'lastError', 'progress', 'worker' }

-- For this script call: nil before the first question, false when no job of the queue is
-- watched, else job id -> whether it is watched (asked once per id).
local watchedJobs

local function anyWatched(base)
  if watchedJobs == nil then
    watchedJobs = redis.call('EXISTS', watchedKeyOf(base)) == 1 and {}
  end
  return watchedJobs ~= false
end

local function isWatched(base, id)
  if not anyWatched(base) then
    return false
  end
  local watched = watchedJobs[id]
  if watched == nil then
    local untilMs = redis.call('ZSCORE', watchedKeyOf(base), id)
    watched = untilMs ~= false and tonumber(untilMs) > nowMs()
    watchedJobs[id] = watched
  end
  return watched
end

-- No job of the queue is watched, for the rest of this call: a caller that already knows
-- `watched` does not exist (includes/quietQueue.lua) saves isWatched its EXISTS.
local function noneWatched()
  watchedJobs = false
end

local function appendJobEvent(base, id, entry)
  local key = jobEventsKeyOf(base, id)
  local last = redis.call('LINDEX', key, -1)
  local seq
  if last then
    -- An entry that is not ours (or not JSON) restarts the count from the clock.
    local ok, decoded = pcall(cjson.decode, last)
    local previous = ok and type(decoded) == 'table' and tonumber(decoded.seq)
    if previous then
      seq = previous + 1
    end
  end
  seq = seq or nowMs() * 1000
  entry.seq = string.format('%d', seq)
  entry.at = nowMs()
  redis.call('RPUSH', key, cjson.encode(entry))
  redis.call('LTRIM', key, -EVENTS_KEPT, -1)
  redis.call('PEXPIRE', key, EVENTS_TTL_MS)
end

-- The job's mutable fields as its hash holds them now (a missing field left out).
local function eventFields(base, id)
  local values = redis.call('HMGET', jobKeyOf(base, id), unpack(EVENT_FIELDS))
  local entry = {}
  for i, name in ipairs(EVENT_FIELDS) do
    if values[i] then
      entry[name] = values[i]
    end
  end
  return entry
end

local function noteJobEvent(base, id)
  if isWatched(base, id) then
    appendJobEvent(base, id, eventFields(base, id))
  end
end

local function noteJobForgotten(base, id, finishedAt)
  if not isWatched(base, id) then
    return
  end
  -- The truth is that it completed: a 'gone' entry would read as removed. The fields are
  -- the ones a kept job gets (finishCompleted.lua), without writing them to a hash about to go.
  local entry = eventFields(base, id)
  entry.state = 'completed'
  entry.finishedAt = finishedAt
  entry.leaseUntil = nil
  appendJobEvent(base, id, entry)
end

local function noteJobGone(base, id)
  if isWatched(base, id) then
    appendJobEvent(base, id, { gone = true })
  end
end

local function trimWatches(base, now, max)
  local key = watchedKeyOf(base)
  local past = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, max)
  if #past > 0 then
    redis.call('ZREM', key, unpack(past))
  end
  return #past
end
