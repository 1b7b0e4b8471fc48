--[[
  What the reads show of finished jobs past their retention age (DESIGN.md §2, "Retention"):
  gone, as if the reaper had trimmed them already. The trim is incremental (each completion
  trims at most TRIM_PER_ADD, the reaper a batch per pass), so a job past its age can stay in
  Redis for a pass or more; a read that showed it would say COMPLETED (or DEAD) for a job the
  policy says is gone, and then null once the trim caught up. Reading the policy costs one
  HMGET of `settings` and TIME, flat however many jobs are kept.

  The bound is the trim's own (includes/retention.lua, trim): a job is kept while its finish
  time (finishedAt, and its score in `completed` / `dead` and the group's index) is at or
  after now − ageMs, on the Redis clock.

    keptSince(settingsKey, kind, now)   the oldest finish time (ms) the `kind` ('completed' or
                                        'dead') policy keeps at `now`, or nil: no age bound
    keptCount(indexKey, settingsKey, kind, now)
                                        how many of a finished-jobs index (`completed`,
                                        `dead`: scored by finish time) the `kind` policy keeps
                                        at `now`: ZCOUNT from keptSince, or ZCARD with no age
                                        bound — and for any other `kind` (a lane, `delayed`:
                                        nothing there is finished); O(log n)
    keptRange(indexKey, settingsKey, kind, now, limit)
                                        the first `limit` members, oldest first, of an index
                                        scored by finish time that the `kind` policy keeps at
                                        `now`: ZRANGEBYSCORE from keptSince … LIMIT 0 limit, or
                                        ZRANGE 0 limit−1 with no age bound — and for any other
                                        `kind` (a lane, `delayed`: nothing there is finished);
                                        what requeueDead and removeJobs read an index from
    pastRetention(settingsKey, fields, now)
                                        true when a job hash (flat HGETALL `fields`) is
                                        completed or dead and finished before its policy's
                                        keptSince; false for every other job, and for one
                                        without a decimal finishedAt (another writer's)
    finishedPast(settingsKey, state, finishedAt, now)
                                        the same from a hash's `state` and `finishedAt` as
                                        read (HMGET; false/nil when absent): what the writers
                                        (requeueDead, removeJobs, promoteJob, the lease check)
                                        ask, so a job the reads call gone is gone to them too

  keptSince reads `settings` once per kind per script (memoised: `now` is one instant per
  script, includes/nowMs.lua), so a writer judging a batch of jobs pays one HMGET.
]]
--- @include "retention"

-- Made at a script's first question (most calls ask none: a table costs about a command's
-- dispatch).
local keptSinceMemo
local function keptSince(settingsKey, kind, now)
  local memoKey = settingsKey .. '\0' .. kind .. '\0' .. now
  keptSinceMemo = keptSinceMemo or {}
  local memo = keptSinceMemo[memoKey]
  if memo == nil then
    local _, ageMs = retentionOf(settingsKey, kind)
    memo = false
    if ageMs ~= nil then
      memo = now - ageMs
    end
    keptSinceMemo[memoKey] = memo
  end
  return memo or nil
end

local function keptCount(indexKey, settingsKey, kind, now)
  local since = nil
  if kind == 'completed' or kind == 'dead' then
    since = keptSince(settingsKey, kind, now)
  end
  if since == nil then
    return redis.call('ZCARD', indexKey)
  end
  return redis.call('ZCOUNT', indexKey, since, '+inf')
end

local function keptRange(indexKey, settingsKey, kind, now, limit)
  local since = nil
  if kind == 'completed' or kind == 'dead' then
    since = keptSince(settingsKey, kind, now)
  end
  if since == nil then
    return redis.call('ZRANGE', indexKey, 0, limit - 1)
  end
  return redis.call('ZRANGEBYSCORE', indexKey, since, '+inf', 'LIMIT', 0, limit)
end

local function finishedPast(settingsKey, state, finishedAt, now)
  if state ~= 'completed' and state ~= 'dead' then
    return false
  end
  local at = safeInteger(finishedAt)
  if at == nil then
    return false
  end
  local since = keptSince(settingsKey, state, now)
  return since ~= nil and at < since
end

local function pastRetention(settingsKey, fields, now)
  local state, finishedAt
  for i = 1, #fields, 2 do
    if fields[i] == 'state' then
      state = fields[i + 1]
    elseif fields[i] == 'finishedAt' then
      finishedAt = fields[i + 1]
    end
  end
  return finishedPast(settingsKey, state, finishedAt, now)
end
