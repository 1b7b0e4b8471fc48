--[[
  The claim's optional reads, skipped for a queue that has none of what they look for
  (docs/PERFORMANCE.md, "Redis CPU per job"). Each claim call used to ask, whatever the queue held:
  the due delayed jobs (ZRANGEBYSCORE `delayed`), the reopened rate windows (ZRANGEBYSCORE
  `ratelimited`), each popped head's rate (HMGET `grate`) and rate-limited flag (ZMSCORE
  `ratelimited`), its weight (HMGET `gweight`), whether any job is watched (EXISTS `watched`,
  includes/jobEvents.lua), and, when the ring ran out, the next run-at and reopening (ZRANGE of
  each).

  Redis deletes a zset or hash when its last member goes, so one EXISTS of those five keys
  answers all of them when it counts 0: nothing delayed, no group rate-limited or with a rate,
  no weight, no watched job. Then every answer is the empty one and none is read. When it
  counts more, everything is read as before (one EXISTS more for the call). Nothing a claim or
  a completion writes creates one of these keys unless another of them exists: `ratelimited`
  is written only for a group with a rate (`grate`), the others only by other scripts (enqueue,
  retry, setRateLimit, setWeight, watchJobs), which never run inside this one.

  The same EXISTS asks the ring log's question too (`ringwatched`, includes/ringLog.lua), which
  every claim call asked on its own at its first change of the ring: 0 answers both. Counting
  exactly 1, one EXISTS of `ringwatched` tells whether the one is the watch (a quiet queue whose
  ring a feed watches) or a feature (not quiet); that EXISTS is the ring log's own question, so
  the call asks no more than before. Counting 2 or more, the queue is not quiet and the ring
  log asks its question when the ring first changes, as before.

    probeQuiet(base, delayedKey)   true when the queue has none of the five keys; then no job
                                   is watched for the rest of the call (includes/jobEvents.lua
                                   is told, so it does not ask again), and whether the ring is
                                   watched is known (includes/ringLog.lua is told)
]]
--- @include "keys"
--- @include "jobEvents"
--- @include "ringLog"

local function probeQuiet(base, delayedKey)
  local watchedRing = ringWatchedKeyOf(base)
  local present = redis.call('EXISTS', delayedKey, rateLimitedKeyOf(base), rateKeyOf(base),
    weightKeyOf(base), watchedKeyOf(base), watchedRing)
  if present == 1 then
    local ringWatched = redis.call('EXISTS', watchedRing) == 1
    knownRingWatched(ringWatched)
    present = ringWatched and 0 or 1
  elseif present == 0 then
    knownRingWatched(false)
  end
  if present == 0 then
    noneWatched()
    return true
  end
  return false
end
