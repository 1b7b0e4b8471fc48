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
  no weight, no watched job. Then every answer is the empty one and none is read. Nothing a
  claim or a completion writes creates one of these keys that the probe found absent:
  `ratelimited` is written only for a group with a rate (`grate`), the others only by other
  scripts (enqueue, retry, setRateLimit, setWeight, watchJobs), which never run inside this one;
  so the probe's answers hold for the whole call.

  The same EXISTS asks the ring log's question too (`ringwatched`, includes/ringLog.lua), which
  every claim call asked on its own at its first change of the ring: 0 answers both; and the
  levels' (`prioritized`, includes/levels.lua): 0 means every lane head is at the default level.

  Counting more, a second EXISTS says which of them are there, each to be read only when it is:
  EXISTS counts a key once per time it is named, so `grate` and `ratelimited` named once each,
  `ringwatched` three times, `delayed` six and `prioritized` twelve answer rates + 3 × ring +
  6 × delayed + 12 × leveled (rates 0–2 below 3, rates + 3 × ring below 6, and those + 6 ×
  delayed below 12: each part is read back exactly). Then a queue without
  delayed jobs reads none of `delayed` (no promotion, no next run-at), one without rates none of
  the rate keys, and when the first count holds nothing else, no weight and no watched job is
  asked for either. So a queue with, say, one job delayed for later asks two EXISTS and the
  due jobs' ZRANGEBYSCORE per claim call, and none of the rates', weights' and watches' reads.

    probeQuiet(base, delayedKey)   which of the optional reads the call makes: delayed, rates,
                                   weights (three booleans; weights covers `watched` too), all
                                   false for a quiet queue; when no job can be watched,
                                   includes/jobEvents.lua is told (it does not ask again), and
                                   whether the ring is watched is known (includes/ringLog.lua is
                                   told), and whether the queue has levels (includes/levels.lua,
                                   leveledQueue, set in place)
]]
--- @include "keys"
--- @include "jobEvents"
--- @include "ringLog"
--- @include "levels"

local function probeQuiet(base, delayedKey)
  local watchedRing = ringWatchedKeyOf(base)
  local prioritized = prioritizedKeyOf(base)
  local present = redis.call('EXISTS', delayedKey, rateLimitedKeyOf(base), rateKeyOf(base),
    weightKeyOf(base), watchedKeyOf(base), watchedRing, prioritized)
  if present == 0 then
    knownRingWatched(false)
    leveledQueue = false
    noneWatched()
    return false, false, false
  end
  local rate, limited, p = rateKeyOf(base), rateLimitedKeyOf(base), prioritized
  local sum = redis.call('EXISTS', rate, limited, watchedRing, watchedRing, watchedRing,
    delayedKey, delayedKey, delayedKey, delayedKey, delayedKey, delayedKey,
    p, p, p, p, p, p, p, p, p, p, p, p)
  local leveled = math.floor(sum / 12)
  sum = sum % 12
  local delayed = math.floor(sum / 6)
  local ring = math.floor((sum % 6) / 3)
  local rates = sum % 3
  knownRingWatched(ring == 1)
  leveledQueue = leveled == 1
  local rest = present - delayed - rates - ring - leveled
  if rest == 0 then
    noneWatched()
  end
  return delayed == 1, rates > 0, rest > 0
end
