--[[
  What becomes of jobs just completed (complete, completeAndClaim), by the queue's completed
  retention (includes/retention.lua), which the caller reads once per call (DESIGN.md §2,
  "Retention"):
  - count 0: forgotten, the fastest path: each job's hash, error list and log are deleted, in one
    DEL for the whole batch, and its payload in one HDEL of P:{Q}:payloads. Jobs retained under an earlier policy are left to the reaper's
    trim (it trims completed by count and age every pass), so this path reads nothing more.
  - else: kept. Each hash says state 'completed' and finishedAt (its token and leaseUntil
    removed: the lease is over); the job joins `completed` and its group's completed index
    (score finishedAt); then at most TRIM_PER_ADD of the oldest jobs past the policy are
    trimmed per job kept, so the sets converge on the policy whatever it was before, at a
    cost bounded per job.

    finishCompleted(k, base, ids, groups, now, count, ageMs, results)
      ids           the completed jobs (their hashes P:{Q}:job:<id>, includes/keys.lua);
                    groups[i] the group of ids[i], or nil when none is known (then it joins
                    `completed` only)
      results       results[i] the JSON text of ids[i]'s result, '' or nil (or results nil)
                    for none; kept only with the job (one HSET of P:{Q}:results for the batch,
                    and hasResult in the job's hash: includes/payloads.lua), never written
                    with count 0
      now           ms (Redis clock): the finishedAt stamped, and the age trim's reference
      count, ageMs  the policy (retentionOf / retentionFrom; ageMs nil: no age bound)

  k: k.completed (zset id -> finishedAt). base: 'P:{Q}:' (error lists and group indexes are
  built from it, includes/keys.lua).
  Events: del job + errors + logs, hdel payloads (count 0); else hset/hdel job, hset results (with a
  result), zadd completed and
  g:<group>:completed, and trim's zrem/del. A watched job's event (includes/jobEvents.lua):
  COMPLETED, with count 0 too (noteJobForgotten: it completed, though its hash is deleted).
]]
--- @include "keys"
--- @include "retention"
--- @include "jobEvents"
--- @include "payloads"

local function finishCompleted(k, base, ids, groups, now, count, ageMs, results)
  local n = #ids
  if n == 0 then
    return
  end
  -- Per job, no Lua call but a watched job's note: a call costs about what a redis.call does
  -- (docs/PERFORMANCE.md "Redis: fewer Lua calls per job"), so the watch is asked once
  -- (anyWatched), the keys are built from a prefix (jobKeyOf's and errorsKeyOf's names,
  -- includes/keys.lua), the group-by is made once for all (groupBy, includes/retention.lua),
  -- and the loops are numeric (ipairs calls its iterator per step). One job (a Worker at
  -- concurrency 1) builds no table: each costs about a command's dispatch.
  local watching = anyWatched(base)
  local at = string.format('%d', now)
  local jobPrefix = jobPrefixOf(base)
  if count == 0 then
    if n == 1 then
      local jobKey = jobPrefix .. ids[1]
      if watching then
        noteJobForgotten(base, ids[1], at)
      end
      redis.call('DEL', jobKey, jobKey .. ERRORS_SUFFIX, jobKey .. LOGS_SUFFIX)
      redis.call('HDEL', payloadsKeyOf(base), ids[1])
      return
    end
    local doomed = {}
    for i = 1, n do
      local id = ids[i]
      local jobKey = jobPrefix .. id
      doomed[#doomed + 1] = jobKey
      doomed[#doomed + 1] = jobKey .. ERRORS_SUFFIX
      doomed[#doomed + 1] = jobKey .. LOGS_SUFFIX
      if watching then
        noteJobForgotten(base, id, at)
      end
    end
    redis.call('DEL', unpack(doomed))
    dropPayloads(base, ids)
    return
  end
  local kept
  for i = 1, n do
    local id = ids[i]
    local jobKey = jobPrefix .. id
    local result = results and results[i]
    if result and result ~= '' then
      redis.call('HSET', jobKey, 'state', 'completed', 'finishedAt', at, 'hasResult', '1')
      kept = kept or {}
      kept[#kept + 1] = id
      kept[#kept + 1] = result
    else
      redis.call('HSET', jobKey, 'state', 'completed', 'finishedAt', at)
    end
    redis.call('HDEL', jobKey, 'token', 'leaseUntil')
    if watching then
      noteJobEvent(base, id)
    end
  end
  if kept then
    storeResults(base, kept)
  end
  if n == 1 then
    redis.call('ZADD', k.completed, at, ids[1])
    if groups[1] then
      redis.call('ZADD', groupCompletedKeyOf(base, groups[1]), at, ids[1])
    end
  else
    local members = {}
    for i = 1, n do
      members[#members + 1] = at
      members[#members + 1] = ids[i]
    end
    redis.call('ZADD', k.completed, unpack(members))
    local byGroup, order = groupBy(ids, groups, at)
    for _, group in ipairs(order) do
      redis.call('ZADD', groupCompletedKeyOf(base, group), unpack(byGroup[group]))
    end
  end
  trim(base, 'completed', k.completed, count, ageMs, now, TRIM_PER_ADD * n)
end
