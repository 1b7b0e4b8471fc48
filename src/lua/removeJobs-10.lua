--[[
  removeJobs — an operator deletes jobs that are not running (DESIGN.md §3, "Operator
  actions"): PENDING (a lane), DELAYED, DEAD or retained COMPLETED. Each job leaves every index
  it is in (its lane; or `delayed` and its group's delayed index; or `dead` and its group's; or
  `completed` and its group's) and its hash and error list are deleted (includes/retention.lua
  `forget`), and a completed job's result with them (one HDEL of P:{Q}:results for the call).
  A group whose lane this empties leaves the ring (I1, settleGroup). ACTIVE jobs are
  never touched. purgeGroup is this script on a group's PENDING. At most `limit` jobs per call;
  the caller loops on `remaining`.

  Which jobs: the ids given (optionally only those in one state), or the first `limit` of a
  group's index of a state (a lane in run order, the others oldest first), or of the queue-wide
  index of a state (DELAYED, DEAD, COMPLETED). By ids, a job's place is its hash's `state`; one
  that is ACTIVE, missing, or in another state than asked for is skipped, untouched. From an
  index, every member is removed (a lane member with no hash too: a bare id, as another writer of
  the original design leaves jobs) except an ACTIVE one, skipped, and one whose hash says another
  state: that entry is stale, dropped from the index read (not the job), and skipped.
  A completed or dead job past its retention age (DESIGN.md §2, Retention:
  includes/retentionAge.lua, on the Redis clock) is gone, as every read says, though no trim
  has reached it yet: named by id it is skipped, untouched (the trim deletes it), and a
  `completed` or `dead` index is read from the retention's cut (ZRANGEBYSCORE from now −
  ageMs), so it is never a candidate.

  Input:
    KEYS[1]  glimit     hash   group -> limit
    KEYS[2]  gactive    hash   group -> active count
    KEYS[3]  ring       list   serviceable groups
    KEYS[4]  paused     set    paused groups
    KEYS[5]  wake       list   wake tokens (unused: a removal never re-rings)
    KEYS[6]  active     zset   active job id -> lease deadline (ms)
    KEYS[7]  delayed    zset   delayed job id -> run-at time (ms)
    KEYS[8]  dead       zset   dead job id -> time it died (ms)
    KEYS[9]  completed  zset   retained completed job id -> time it completed (ms)
    KEYS[10] stats      hash   counters and totals

    ARGV[1] base    'P:{Q}:' — job keys P:{Q}:job:<id> and their error lists, lanes, group
                    indexes and the retention's P:{Q}:settings (read only) are built from it
                    (includes/keys.lua; same slot)
    ARGV[2] mode    'ids', 'group' or 'all'
    ARGV[3] state   'pending', 'delayed', 'dead' or 'completed'; '' with ids: any of them
                    (mode 'all': not 'pending', which has no queue-wide index)
    ARGV[4] limit   jobs per call, 1..1,000 (group and all; the engine bounds ids)
    ARGV[5..n-2]    the ids (mode 'ids'), or the group (mode 'group')
    ARGV[n-1] actor who asks (history, includes/history.lua; n = #ARGV)
    ARGV[n]   cap   the queue history's cap (count; 0 records nothing)

  Output: { count, remaining, skipped }
    count      jobs removed
    remaining  members still in the index read (of `completed` and `dead`, those the
               retention keeps); 0 for ids
    skipped    candidates left alone (or dropped as stale index entries)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when a group losing pending jobs has a limit and
  an active count that is not an integer within ±(2^53−1) (includes/groupState.lua).

  History: when it wrote anything (a job removed, a stale entry dropped), one entry: action
  purgeGroup for a group's 'pending' (Queue.purgeGroup), else
  removeJobs; group: the group (mode 'group') or ''; before and after: the size of the index read
  { <state> = n } (mode 'ids': the queue's { pending, delayed, dead, completed }), dead and
  completed as the retention keeps them; detail { mode,
  state, count, remaining, skipped, limit (group, all), ids (the first few, mode 'ids'),
  idCount }.

  Totals: stats.pending −1 per lane member removed, stats.delayed −1 per `delayed` member
  removed; counter stats.removed +count.
  Events: zrem lane / delayed / dead / completed and the group's index; del job, del errors;
  hdel payloads and results;
  hincrby stats; lrem ring (de-ring); zrem heads (a lane emptied); zincrby/zrem gpending; xadd P:{Q}:history; a
  watched job's gone (includes/jobEvents.lua).
]]
--- @include "keys"
--- @include "jobEvents"
--- @include "history"
--- @include "safeInteger"
--- @include "settleGroup"
--- @include "retention"
--- @include "jobPlaces"
--- @include "nowMs"
--- @include "retentionAge"
--- @include "groupRanks"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], delayed = KEYS[7], dead = KEYS[8], completed = KEYS[9], stats = KEYS[10],
}
local base = ARGV[1]
local mode = ARGV[2]
local wanted = ARGV[3]
local limit = tonumber(ARGV[4])
local lastArg = #ARGV - 2
local h = historyArgs(ARGV[#ARGV - 1], ARGV[#ARGV])
local settingsKey = settingsKeyOf(base)
local now = nowMs()

-- The index a group or the whole queue is read from.
local sourceIndex, sourceGroup
if mode == 'group' then
  sourceGroup = ARGV[5]
  if wanted == 'pending' then
    sourceIndex = laneKeyOf(base, sourceGroup)
  else
    local _, groupIndex = indexesOf(k, base, wanted, sourceGroup)
    sourceIndex = groupIndex
  end
elseif mode == 'all' then
  sourceIndex = indexesOf(k, base, wanted, nil)
end

local skipped = 0
local candidates
if sourceIndex then
  -- A dead or completed index from the retention's cut: a job past its age is gone to it.
  candidates = keptRange(sourceIndex, settingsKey, wanted, now, limit)
else
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
end

-- First every read and judgement, so a refusal comes before the first write.
local remove, stale = {}, {}
local groups, order = {}, {}
for _, id in ipairs(candidates) do
  local job = redis.call('HMGET', jobKeyOf(base, id), 'group', 'state', 'finishedAt')
  local group, state = job[1], job[2]
  local place = nil
  if redis.call('ZSCORE', k.active, id) then
    place = nil
  elseif not sourceIndex and finishedPast(settingsKey, state, job[3], now) then
    -- Gone to every read: left for the trim, as a job already trimmed would be. (An index is
    -- read from the cut, by its finish-time score, as the trim judges.)
    place = nil
  elseif sourceIndex then
    if not group or state == wanted then
      place = wanted
      -- A lane is its group's, whatever a hash says; a bare id of `all` has no group.
      if wanted == 'pending' or not group then
        group = sourceGroup
      end
    else
      stale[#stale + 1] = id
    end
  elseif group and (state == 'pending' or PAIRED[state]) and (wanted == '' or state == wanted) then
    place = state
  end
  if place then
    if place == 'pending' and groups[group] == nil then
      local laneKey = laneKeyOf(base, group)
      local serviceable, saturated = groupState(k, group, laneKey)
      groups[group] = { laneKey = laneKey, serviceable = serviceable, saturated = saturated }
      order[#order + 1] = group
    end
    remove[#remove + 1] = { id = id, group = group, place = place }
  else
    skipped = skipped + 1
  end
end

-- What the history records as before and after: the index read, or the queue's totals.
local function sizes()
  if sourceIndex then
    return { [wanted] = keptCount(sourceIndex, settingsKey, wanted, now) }
  end
  return {
    pending = safeInteger(redis.call('HGET', k.stats, 'pending')) or 0,
    delayed = redis.call('ZCARD', k.delayed),
    dead = keptCount(k.dead, settingsKey, 'dead', now),
    completed = keptCount(k.completed, settingsKey, 'completed', now),
  }
end
local before = sizes()

for _, id in ipairs(stale) do
  redis.call('ZREM', sourceIndex, id)
end

local pending, delayed, resulted = 0, 0, {}
for _, job in ipairs(remove) do
  if job.place == 'pending' then
    local n = redis.call('ZREM', groups[job.group].laneKey, job.id)
    pending = pending + n
    groups[job.group].taken = (groups[job.group].taken or 0) + n
  else
    local queueIndex, groupIndex = indexesOf(k, base, job.place, job.group)
    local n = redis.call('ZREM', queueIndex, job.id)
    if job.place == 'delayed' then
      delayed = delayed + n
    end
    if groupIndex then
      redis.call('ZREM', groupIndex, job.id)
    end
    if sourceIndex then
      redis.call('ZREM', sourceIndex, job.id)
    end
  end
  forget(base, job.id)
  if job.place == 'completed' then
    resulted[#resulted + 1] = job.id
  end
  noteJobGone(base, job.id)
end
dropResults(base, resulted)
if pending > 0 then
  redis.call('HINCRBY', k.stats, 'pending', -pending)
end
if delayed > 0 then
  redis.call('HINCRBY', k.stats, 'delayed', -delayed)
end
if #remove > 0 then
  redis.call('HINCRBY', k.stats, 'removed', #remove)
end
for _, group in ipairs(order) do
  local g = groups[group]
  settleGroup(k, group, g.laneKey, g.serviceable, g.saturated)
  -- `heads` holds a group exactly while its lane holds a job (DESIGN.md §3, "Oldest pending").
  -- So does `gpending`, at minus its lane's size (includes/groupRanks.lua).
  if redis.call('EXISTS', g.laneKey) == 0 then
    redis.call('ZREM', headsKeyOf(base), group)
    dropPending(base, { group })
  elseif g.taken and g.taken > 0 then
    takePending(base, group, g.taken)
  end
end

local remaining = 0
if sourceIndex then
  remaining = keptCount(sourceIndex, settingsKey, wanted, now)
end
local action = 'removeJobs'
if mode == 'group' and wanted == 'pending' then
  action = 'purgeGroup'
end
local detail = { mode = mode, state = wanted, count = #remove, remaining = remaining,
  skipped = skipped }
if mode == 'ids' then
  detail.ids = historyIds(ARGV, 5, lastArg)
  detail.idCount = lastArg - 4
else
  detail.limit = limit
end
if #remove > 0 or #stale > 0 then
  recordHistory(base, h, action, sourceGroup or '', before, sizes(), detail)
end
return { #remove, remaining, skipped }
