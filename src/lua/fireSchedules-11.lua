--[[
  fireSchedules — fire the due ticks of schedules the engine read (dueSchedules-2.lua) and
  computed the next tick of (DESIGN.md §3, "Schedules"): a compare-and-set per schedule, so
  however many reapers and workers tick at once, each tick enqueues exactly one job. A schedule
  fires only when its `schedules` score is still the `expected` the engine read and its
  definition is still the one it read (its SHA-1 in `schedule`): then one job is enqueued into
  its group as enqueue-12.lua enqueues a job with no key and no delay (includes/enqueueJob.lua's
  steps: judgeLane, firstId, writeJob, joinLane), its score moves to `next` and
  `schedruns` records the tick. Any other caller that read the same score finds it moved and
  fires nothing for that schedule; an upsert or removal in between makes the same call skip it.
  The jobs of one call go in input order, each judged after the one before it was written.

  Input:
    KEYS[1] glimit     hash   group -> limit
    KEYS[2] gactive    hash   group -> active count
    KEYS[3] ring       list   serviceable groups
    KEYS[4] paused     set    paused groups
    KEYS[5] wake       list   wake tokens
    KEYS[6] groups     zset   group registry
    KEYS[7] stats      hash   counters
    KEYS[8] seq        string job id counter
    KEYS[9] schedules  zset   schedule id -> next tick due (ms, Redis clock)
    KEYS[10] schedule  hash   schedule id -> definition (JSON)
    KEYS[11] schedruns hash   schedule id -> '<lastRunAt>:<lastJobId>'
    Built from the base (includes/keys.lua): each group's lane, the job hashes, payloads,
    settings (the layout mark), heads, gseen, gturns, prioritized and levels.

    ARGV[1] base      'P:{Q}:'
    ARGV[2] idFloor   the highest job id the engine has seen handed out in the queue, or ''
                      (as enqueue-12.lua's ARGV[13])
    ARGV[3] n         how many schedules follow, 1..100 (the engine's read bounds it)
    then 13 per schedule, from a = 3 + 13 × (i − 1):
      ARGV[a+1] id           the schedule's id
      ARGV[a+2] expected     its `schedules` score as the engine read it (ms)
      ARGV[a+3] next         its next tick, after now (ms, computed by the engine)
      ARGV[a+4] sha          the SHA-1 (hex) of its definition's JSON text as read
      ARGV[a+5] firedAt      the tick fired (ms): the latest due, so missed ticks fire once
      ARGV[a+6] group        the definition's group, payload ('' for none), maxAttempts,
      ARGV[a+7] payload      backoff type ('' for none), delayMs, maxDelayMs, jitter and
      ARGV[a+8] maxAttempts  priority ('' for the default), as enqueue-12.lua takes them
      ARGV[a+9..a+12] backoff, backoffDelayMs, backoffMaxDelayMs, backoffJitter
      ARGV[a+13] priority

  Output: flat { id, jobId | false, … } per schedule in input order: the new job's id, or false
  when the schedule had moved on (another tick fired it, or it was upserted or removed) or its
  group is at its backlog bound (DESIGN.md §3, "Backlog bounds"): that tick is spent, moving
  the schedule on with its last run unchanged.
  Refuses (DATA_OUT_OF_RANGE) as enqueue-12.lua does on a `seq` or active count it cannot hold;
  the schedules fired before the refusal keep their jobs (each fire is whole).

  Events: per fired schedule, enqueue-12.lua's for a job to its lane (zincrby gpending
  included); zadd schedules; hset schedruns; one hset throughput for the call. None for a schedule that had moved on.

  Cost: per schedule O(log n) (ZSCORE, HGET + SHA-1 of its definition), plus an enqueue's per
  fired one.
]]
--- @include "nowMs"
--- @include "heads"
--- @include "groupRanks"
--- @include "enqueueJob"
--- @include "registry"
--- @include "throughput"
--- @include "maxPending"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[7], base = ARGV[1],
}
local groupsKey = KEYS[6]
local seqKey = KEYS[8]
local schedulesKey = KEYS[9]
local scheduleKey = KEYS[10]
local runsKey = KEYS[11]
local base = ARGV[1]
local idFloor = ARGV[2]
local n = tonumber(ARGV[3])
local STRIDE = 13

-- One job to the tail of its group's lane: enqueue-12.lua's steps for a job with no key and
-- no delay, through the same helpers.
local function enqueueDue(group, payload, maxAttempts, now, backoff, backoffDelayMs,
    backoffMaxDelayMs, backoffJitter, priorityArg)
  local laneKey = laneKeyOf(base, group)
  local priority = priorityArg ~= '' and tonumber(priorityArg) or DEFAULT_PRIORITY
  local limit, active, wasServiceable, wasSaturated, headScore = judgeLane(k, group, laneKey)
  local seq, raiseTo = firstId(seqKey, 1, idFloor)
  if raiseTo then
    redis.call('SET', seqKey, raiseTo)
  end
  redis.call('INCR', seqKey)
  local id = string.format('%d', seq)
  markLayout(base, seq, raiseTo)
  local score = writeJob(base, seq, id, group, maxAttempts, now, nil, false, backoff,
    backoffDelayMs, backoffMaxDelayMs, backoffJitter, priorityArg, '')
  if priority ~= DEFAULT_PRIORITY then
    markPrioritized(base)
  end
  storePayload(base, id, payload)
  registerGroup(groupsKey, base, group, now)
  redis.call('HINCRBY', k.stats, 'enqueued', 1)
  joinLane(k, base, group, laneKey, id, seq, score, priority, limit, active, wasServiceable,
    wasSaturated, headScore)
  return id
end

local now = nowMs()
local reply = {}
local fired = 0
for i = 1, n do
  local a = 3 + STRIDE * (i - 1)
  local id = ARGV[a + 1]
  local score = redis.call('ZSCORE', schedulesKey, id)
  local definition = score and tonumber(score) == tonumber(ARGV[a + 2])
    and redis.call('HGET', scheduleKey, id)
  local jobId = false
  if definition and redis.sha1hex(definition) == ARGV[a + 4] then
    local group = ARGV[a + 6]
    -- A group at its backlog bound takes no tick's job: the tick is spent, the last run kept.
    if not fullBy(base, group, laneKeyOf(base, group), 1) then
      jobId = enqueueDue(group, ARGV[a + 7], ARGV[a + 8], now, ARGV[a + 9], ARGV[a + 10],
        ARGV[a + 11], ARGV[a + 12], ARGV[a + 13])
      redis.call('HSET', runsKey, id, ARGV[a + 5] .. ':' .. jobId)
      fired = fired + 1
    end
    redis.call('ZADD', schedulesKey, ARGV[a + 3], id)
  end
  reply[#reply + 1] = id
  reply[#reply + 1] = jobId
end
countThroughput(base, fired, 0, 0, 0)
return reply
