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

    finishCompleted(k, base, ids, jobKeys, groups, now, count, ageMs, results)
      ids, jobKeys  the completed jobs and their hashes (same order); groups[i] the group of
                    ids[i], or nil when none is known (then it joins `completed` only)
      results       results[i] the JSON text of ids[i]'s result, '' (or nil) for none; kept
                    only with the job (one HSET of P:{Q}:results for the batch, and hasResult
                    in the job's hash: includes/payloads.lua), never written with count 0
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

local function finishCompleted(k, base, ids, jobKeys, groups, now, count, ageMs, results)
  if #ids == 0 then
    return
  end
  -- Per job, no Lua call but a watched job's note: a call costs about what a redis.call does
  -- (docs/PERFORMANCE.md "Redis: fewer Lua calls per job"), so the watch is asked once
  -- (anyWatched), the error list's key is built from a prefix (errorsKeyOf's name,
  -- includes/keys.lua), the group-by is made once for all (groupBy, includes/retention.lua),
  -- and the loops are numeric (ipairs calls its iterator per step).
  local watching = anyWatched(base)
  if count == 0 then
    local doomed = {}
    local at = string.format('%d', now)
    local jobPrefix = jobPrefixOf(base)
    for i = 1, #ids do
      local id = ids[i]
      doomed[#doomed + 1] = jobKeys[i]
      doomed[#doomed + 1] = jobPrefix .. id .. ERRORS_SUFFIX
      doomed[#doomed + 1] = jobPrefix .. id .. LOGS_SUFFIX
      if watching then
        noteJobForgotten(base, id, at)
      end
    end
    redis.call('DEL', unpack(doomed))
    dropPayloads(base, ids)
    return
  end
  local at = string.format('%d', now)
  local members, kept = {}, {}
  for i = 1, #ids do
    local id = ids[i]
    local result = results and results[i]
    if result and result ~= '' then
      redis.call('HSET', jobKeys[i], 'state', 'completed', 'finishedAt', at, 'hasResult', '1')
      kept[#kept + 1] = id
      kept[#kept + 1] = result
    else
      redis.call('HSET', jobKeys[i], 'state', 'completed', 'finishedAt', at)
    end
    redis.call('HDEL', jobKeys[i], 'token', 'leaseUntil')
    if watching then
      noteJobEvent(base, id)
    end
    members[#members + 1] = at
    members[#members + 1] = id
  end
  storeResults(base, kept)
  redis.call('ZADD', k.completed, unpack(members))
  local byGroup, order = groupBy(ids, groups, at)
  for _, group in ipairs(order) do
    redis.call('ZADD', groupCompletedKeyOf(base, group), unpack(byGroup[group]))
  end
  trim(base, 'completed', k.completed, count, ageMs, now, TRIM_PER_ADD * #ids)
end
