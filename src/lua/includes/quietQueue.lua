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

    probeQuiet(base, delayedKey)   true when the queue has none of the five keys; then no job
                                   is watched for the rest of the call (includes/jobEvents.lua
                                   is told, so it does not ask again)
]]
--- @include "keys"
--- @include "jobEvents"

local function probeQuiet(base, delayedKey)
  local present = redis.call('EXISTS', delayedKey, rateLimitedKeyOf(base), rateKeyOf(base),
    weightKeyOf(base), watchedKeyOf(base))
  if present == 0 then
    noneWatched()
    return true
  end
  return false
end
