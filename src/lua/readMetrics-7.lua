--[[
  readMetrics — one queue's numbers for `GET /metrics` (DESIGN.md §4.7), read in one script so
  they agree: cardinalities, the `stats` hash (counters and totals) and the oldest pending job.
  O(1) in groups and O(log n) in jobs: ZCARD, ZCOUNT, SCARD, LLEN, one HGETALL of a hash of a
  dozen fields, and at most maxSteps steps over the oldest-pending index (below).

  The oldest pending job (includes/heads.lua): `P:{Q}:heads` holds every group with pending
  work at a value ≤ the id of its lane's oldest job. Its first entry is checked against that
  group's real oldest job (laneOldest: two reads for a lane of one priority, one more per
  further priority it holds, ten at most): an empty lane is dropped (ZREM), an oldest job of a
  higher id raises the entry to it (ZADD XX); then the first entry is read again. An entry
  that matches its lane's oldest is the queue-wide minimum (every other entry is ≤ its own
  lane's, and ≥ this one), so its job is the oldest pending job (the lowest id, whatever its
  priority). Each step removes or raises one stale entry, and an entry
  goes stale only when a claim or a removal takes the oldest job of a lane it leaves non-empty
  (an emptied lane's entry goes in that script), so the steps are amortised O(1) per claim; a
  backlog of stale entries (many backlogs claimed from between two scrapes) is worked off
  maxSteps per call, with `settled` 0 until it is.

  Input:
    KEYS[1] ring       list  serviceable groups at the default level (5)
    KEYS[2] stats      hash  counters and totals
    KEYS[3] paused     set   paused groups
    KEYS[4] groups     zset  group registry
    KEYS[5] active     zset  active job ids
    KEYS[6] dead       zset  dead job ids (retained)
    KEYS[7] completed  zset  retained completed job ids

    ARGV[1] base       'P:{Q}:' — `heads`, `levels`, `ratelimited`, `settings`, `workers`, `schedules`, the lanes and the job
                       hash of the oldest pending job are built from it (includes/keys.lua)
    ARGV[2] maxSteps   stale entries of `heads` mended at most per call (1..10,000)

  Output: { at, ring, groups, paused, rateLimited, active, dead, completed, stats, oldest,
            settled, steps, cap, workers, schedules }
    at           ms, the Redis clock (TIME)
    ring         the groups on the rota at every level: LLEN ring + ZCARD `levels`
                 (includes/levels.lua rotaLength; DESIGN.md §3, "Levels")
    groups, paused, rateLimited, active, dead, completed   ZCARD / SCARD / ZCOUNT; dead
                 and completed leave out jobs past their retention age that no trim has
                 reached yet (includes/retentionAge.lua keptCount: ZCOUNT), as the job reads do;
                 rateLimited counts the groups whose reopening is after now (ZCOUNT
                 `ratelimited` (now +inf): a window reopened and not yet promoted by a claim is
                 no longer rate-limited, as the group reads say, includes/groupReply.lua)
    stats        HGETALL stats, flat
    oldest       { id, score, enqueuedAt } of the oldest pending job (score: its lane score;
                 enqueuedAt false when its hash has none: a bare id of another writer), or
                 false for none known
    settled      1 when `oldest` is the queue's oldest pending job (or there is none), 0 when
                 maxSteps ran out first (`oldest` is then false)
    steps        stale entries mended by this call
    cap          { limit, reserved } of `settings` as stored (false for none): the queue's cap
                 and the sum of the reserves (DESIGN.md §3, "The queue's cap and reserves")
    workers      live workers: `workers` members whose heartbeat lapses after now (ZCOUNT,
                 DESIGN.md §4.9 "Workers")
    schedules    ZCARD `schedules`: the queue's schedules (DESIGN.md §3, "Schedules")

  Writes only `heads` (ZREM, ZADD XX), only when it is stale; the first such write is a PERSIST
  (includes/allowAtMaxmemory.lua), so a scrape works at maxmemory.
  Events: zrem/zadd heads when an entry was stale; none otherwise.
]]
--- @include "keys"
--- @include "heads"
--- @include "nowMs"
--- @include "retentionAge"
--- @include "allowAtMaxmemory"
--- @include "levels"

local base = ARGV[1]
local maxSteps = tonumber(ARGV[2])
local headsKey = headsKeyOf(base)

local oldest = false
local settled = 0
local steps = 0
while true do
  local first = redis.call('ZRANGE', headsKey, 0, 0, 'WITHSCORES')
  if #first == 0 then
    settled = 1
    break
  end
  local group, bound = first[1], tonumber(first[2])
  local id, score, order = laneOldest(laneKeyOf(base, group))
  if order ~= nil and order == bound then
    oldest = { id, score, redis.call('HGET', jobKeyOf(base, id), 'enqueuedAt') }
    settled = 1
    break
  end
  if steps >= maxSteps then
    break
  end
  if steps == 0 then
    allowAtMaxmemory(KEYS[2])
  end
  steps = steps + 1
  if order == nil then
    redis.call('ZREM', headsKey, group)
  else
    -- Higher (a claimed or removed oldest job), or lower (a lane written by a writer that keeps
    -- no `heads`): either way the entry now holds the lane's oldest, and is read again first.
    redis.call('ZADD', headsKey, 'XX', order, group)
  end
end

local now = nowMs()
local cap = redis.call('HMGET', settingsKeyOf(base), 'limit', 'reserved')
return {
  now,
  rotaLength(KEYS[1], base),
  redis.call('ZCARD', KEYS[4]),
  redis.call('SCARD', KEYS[3]),
  redis.call('ZCOUNT', rateLimitedKeyOf(base), '(' .. now, '+inf'),
  redis.call('ZCARD', KEYS[5]),
  keptCount(KEYS[6], settingsKeyOf(base), 'dead', now),
  keptCount(KEYS[7], settingsKeyOf(base), 'completed', now),
  redis.call('HGETALL', KEYS[2]),
  oldest,
  settled,
  steps,
  cap,
  redis.call('ZCOUNT', workersKeyOf(base), '(' .. now, '+inf'),
  redis.call('ZCARD', schedulesKeyOf(base)),
}
