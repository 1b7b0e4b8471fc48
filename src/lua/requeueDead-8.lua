--[[
  requeueDead — an operator puts dead jobs back to work (DESIGN.md §3, "Operator actions"):
  each goes back to its own group's lane at its original place (its hash's `score`, else its
  id: by its priority, then before the jobs enqueued after it), state pending, its attempts reset to 0 unless told to keep
  them, its lastError and error history kept, finishedAt gone. Each group whose lane this makes
  serviceable is re-ringed with a wake (I1, settleAfterGain). At most `limit` jobs per call, so a
  call is short; the caller loops on `remaining`.

  Which jobs: the ids given, or the oldest-dead `limit` of a group's dead index, or of the
  queue's `dead`. A job is requeued when its hash exists, it is not in `active`, and it is in
  `dead` (or in its group's dead index with its hash saying dead: the pair is mended by the
  requeue). Everything else is skipped: an ACTIVE job is never touched; an id that names no dead
  job is left as it is. A dead job past its retention age (DESIGN.md §2, Retention:
  includes/retentionAge.lua, on the Redis clock) is gone, as every read says, though no trim
  has reached it yet: named by id it is skipped, untouched (the trim deletes it), and an index
  is read from the retention's cut (ZRANGEBYSCORE from now − ageMs), so it is never a
  candidate. Taken from an index (group or all), an entry whose hash is gone is dropped
  from `dead` and the group's index, and a group index entry whose job is not dead is dropped from
  that index (both stale: no job to requeue), so looping on `remaining` ends.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] dead     zset   dead job id -> time it died (ms)
    KEYS[8] stats    hash   counters and totals

    ARGV[1] base           'P:{Q}:' — job keys P:{Q}:job:<id>, lanes P:{Q}:g:<group>:pending,
                           group dead indexes P:{Q}:g:<group>:dead and the retention's
                           P:{Q}:settings (read only) are built from it (includes/keys.lua;
                           same slot)
    ARGV[2] resetAttempts  '1' to set attempts to 0, '0' to keep them
    ARGV[3] limit          jobs per call, 1..1,000 (group and all; the engine bounds ids)
    ARGV[4] mode           'ids', 'group' or 'all'
    ARGV[5..n-2]           the ids (mode 'ids'), or the group (mode 'group')
    ARGV[n-1] actor        who asks (history, includes/history.lua; n = #ARGV)
    ARGV[n]   cap          the queue history's cap (count; 0 records nothing)

  Output: { count, remaining, skipped }
    count      jobs requeued
    remaining  dead jobs still in the index read (the group's, or `dead`) that the retention
               keeps (past their age they are gone); 0 for ids
    skipped    candidates left alone (or dropped as stale entries)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when a group of a job to requeue has an active
  count that is not an integer within ±(2^53−1) (includes/groupState.lua): its standing could not
  be judged. Repair the queue first.

  History: when it wrote anything (a job requeued, a stale entry dropped), one entry: action
  requeueDead, group: the group (mode 'group') or ''; before and
  after { dead } — the dead jobs the retention keeps in the index read (the group's, or `dead`;
  `dead` for ids);
  detail { mode, count, remaining, skipped, resetAttempts, limit (group, all), ids (the first
  few, mode 'ids'), idCount }.

  Totals: stats.pending +1 per job added to a lane; counter stats.requeued +count.
  Events: zrem dead, zrem g:<group>:dead, zadd lane + heads + zincrby gpending, hset/hdel job, hincrby stats; rpush ring +
  lpush/ltrim wake (re-ring); xadd P:{Q}:history; a watched job's PENDING
  (includes/jobEvents.lua).
]]
--- @include "keys"
--- @include "jobEvents"
--- @include "history"
--- @include "safeInteger"
--- @include "settleGroup"
--- @include "jobPlaces"
--- @include "heads"
--- @include "groupRanks"
--- @include "nowMs"
--- @include "retentionAge"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], dead = KEYS[7], stats = KEYS[8],
}
local base = ARGV[1]
local resetAttempts = ARGV[2] == '1'
local limit = tonumber(ARGV[3])
local mode = ARGV[4]
local lastArg = #ARGV - 2
local h = historyArgs(ARGV[#ARGV - 1], ARGV[#ARGV])
local settingsKey = settingsKeyOf(base)
local now = nowMs()

local skipped = 0
local candidates, sourceIndex
if mode == 'ids' then
  -- An id named twice is judged once (every judgement is made before the first write).
  candidates = {}
  local seen = {}
  for i = 5, lastArg do
    if seen[ARGV[i]] then
      skipped = skipped + 1
    else
      seen[ARGV[i]] = true
      candidates[#candidates + 1] = ARGV[i]
    end
  end
elseif mode == 'group' then
  sourceIndex = groupDeadKeyOf(base, ARGV[5])
  candidates = keptRange(sourceIndex, settingsKey, 'dead', now, limit)
else
  sourceIndex = k.dead
  candidates = keptRange(k.dead, settingsKey, 'dead', now, limit)
end

-- First every read and judgement, so a refusal comes before the first write.
local requeue, stale = {}, {}
local groups, order = {}, {}
for _, id in ipairs(candidates) do
  local jobKey = jobKeyOf(base, id)
  local job = redis.call('HMGET', jobKey, 'group', 'score', 'state', 'finishedAt')
  local group = job[1]
  local inDead = redis.call('ZSCORE', k.dead, id) ~= false
  if redis.call('ZSCORE', k.active, id) then
    skipped = skipped + 1
  elseif mode == 'ids' and finishedPast(settingsKey, job[3], job[4], now) then
    -- Gone to every read: left for the trim, as a job already trimmed would be. (An index is
    -- read from the cut, by its finish-time score, as the trim judges.)
    skipped = skipped + 1
  elseif not group then
    skipped = skipped + 1
    if sourceIndex then
      stale[#stale + 1] = id
    end
  elseif inDead
    or (job[3] == 'dead' and redis.call('ZSCORE', groupDeadKeyOf(base, group), id)) then
    if groups[group] == nil then
      local laneKey = laneKeyOf(base, group)
      local lim = limitOf(k.glimit, group)
      local active = lim and activeOf(k.gactive, group)
      local serviceable, saturated = isServiceable(k, group, laneKey, lim, active)
      groups[group] = { laneKey = laneKey, serviceable = serviceable, saturated = saturated }
      order[#order + 1] = group
    end
    requeue[#requeue + 1] = { id = id, key = jobKey, group = group, score = job[2] }
  else
    skipped = skipped + 1
    if mode == 'group' then
      stale[#stale + 1] = id
    end
  end
end

local countedIndex = sourceIndex or k.dead
local deadBefore = keptCount(countedIndex, settingsKey, 'dead', now)

-- (A `dead` entry without a hash names no group: its group's entry, if any, is left for
-- Queue.repair, which drops it.)
for _, id in ipairs(stale) do
  redis.call('ZREM', k.dead, id)
  redis.call('ZREM', sourceIndex, id)
end

local added = 0
for _, job in ipairs(requeue) do
  local g = groups[job.group]
  redis.call('ZREM', k.dead, job.id)
  redis.call('ZREM', groupDeadKeyOf(base, job.group), job.id)
  if mode == 'group' then
    redis.call('ZREM', sourceIndex, job.id)
  end
  -- Never NaN or an infinity, which ZADD would refuse after the ZREMs above were written.
  local laneScore = finiteScore(job.score) or finiteScore(job.id) or 0
  local n = redis.call('ZADD', g.laneKey, laneScore, job.id)
  added = added + n
  g.added = (g.added or 0) + n
  -- Its id as a number: the score itself when it is the id (includes/heads.lua).
  noteLaneHead(base, job.group, job.score and finiteScore(job.id) or laneScore)
  redis.call('HSET', job.key, 'state', 'pending')
  redis.call('HDEL', job.key, 'finishedAt', 'token', 'leaseUntil', 'runAt')
  if resetAttempts then
    redis.call('HSET', job.key, 'attempts', 0)
  end
  noteJobEvent(base, job.id)
end
if added > 0 then
  redis.call('HINCRBY', k.stats, 'pending', added)
end
if #requeue > 0 then
  redis.call('HINCRBY', k.stats, 'requeued', #requeue)
end
for _, group in ipairs(order) do
  local g = groups[group]
  settleAfterGain(k, group, g.laneKey, g.serviceable, g.saturated, true)
  -- The PENDING ranking (includes/groupRanks.lua): one write per group.
  if g.added and g.added > 0 then
    addPending(base, group, g.added)
  end
end

local remaining = 0
if sourceIndex then
  remaining = keptCount(sourceIndex, settingsKey, 'dead', now)
end
local detail = {
  mode = mode, count = #requeue, remaining = remaining, skipped = skipped,
  resetAttempts = resetAttempts,
}
local historyGroup = ''
if mode == 'ids' then
  detail.ids = historyIds(ARGV, 5, lastArg)
  detail.idCount = lastArg - 4
else
  detail.limit = limit
end
if mode == 'group' then
  historyGroup = ARGV[5]
end
if #requeue > 0 or #stale > 0 then
  recordHistory(base, h, 'requeueDead', historyGroup, { dead = deadBefore },
    { dead = keptCount(countedIndex, settingsKey, 'dead', now) }, detail)
end
return { #requeue, remaining, skipped }
