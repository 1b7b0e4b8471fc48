--[[
  readTopGroups — the first `first` groups of a ranking, for Queue.topGroups and the per-group
  series of `GET /metrics` (DESIGN.md §3, "Group rankings"; §4.2; §4.7). O(log groups + first):
  one ZRANGE of the ranking, then each group's fields and oldest pending job.

  Rankings (includes/groupRanks.lua, includes/heads.lua):
    PENDING         `gpending`, most pending jobs first (ZRANGE 0 first−1: scores are minus the
                    counts), equal counts in group order (bytes)
    ACTIVE          `gactiverank`, most active jobs first, equal counts in group order
    OLDEST_PENDING  `heads`, the group whose oldest pending job has the lowest id (was enqueued
                    first) first. `heads` holds lower bounds, so the r-th entry is checked against
                    its lane's oldest job (laneOldest) as readMetrics-7.lua checks the first: an
                    empty lane's entry is dropped, a stale one raised (or lowered) to the lane's
                    oldest, and position r read again. An entry that matches is the r-th: every
                    entry after it is ≤ its own lane's oldest and ≥ this one. At most maxSteps
                    entries are mended per call; past that the groups settled so far are
                    answered and `settled` is 0.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] paused   set    paused groups

    ARGV[1] base     'P:{Q}:' — the rankings, `heads`, the lanes, job hashes and the operations
                     keys of the group fields are built from it (includes/keys.lua)
    ARGV[2] by       'PENDING' | 'OLDEST_PENDING' | 'ACTIVE' (the engine checks it)
    ARGV[3] first    how many groups, 1..100 (the engine checks it)
    ARGV[4] maxSteps stale `heads` entries mended at most (OLDEST_PENDING only)

  Output: { at, settled, ids, fields, oldest }
    at        ms, the Redis clock
    settled   1, or 0 when OLDEST_PENDING ran out of maxSteps (ids then holds fewer groups)
    ids       the groups, in rank order
    fields    each group's fields in turn, flat (includes/groupReply.lua)
    oldest    per group, flat: its oldest pending job's id and enqueuedAt (false for none)

  Writes only `heads` (ZREM, ZADD XX), only when an entry read is stale; the first such write is a
  PERSIST (includes/allowAtMaxmemory.lua), so the read works at maxmemory.
  Events: zrem/zadd heads when an entry was stale; none otherwise.
]]
--- @include "keys"
--- @include "heads"
--- @include "groupReply"
--- @include "nowMs"
--- @include "allowAtMaxmemory"

local k = { base = ARGV[1], glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3] }
local base, by, first, maxSteps = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])

local ids, oldest = {}, {}
local settled = 1
if by == 'OLDEST_PENDING' then
  local headsKey = headsKeyOf(base)
  local steps = 0
  while #ids < first do
    local at = redis.call('ZRANGE', headsKey, #ids, #ids, 'WITHSCORES')
    if #at == 0 then
      break
    end
    local group, bound = at[1], tonumber(at[2])
    local id, _, order = laneOldest(laneKeyOf(base, group))
    if order ~= nil and order == bound then
      ids[#ids + 1] = group
      oldest[#oldest + 1] = id
    else
      if steps >= maxSteps then
        settled = 0
        break
      end
      if steps == 0 then
        allowAtMaxmemory(KEYS[2])
      end
      steps = steps + 1
      if order == nil then
        redis.call('ZREM', headsKey, group)
      else
        redis.call('ZADD', headsKey, 'XX', order, group)
      end
    end
  end
else
  local key = by == 'ACTIVE' and activeRankKeyOf(base) or pendingRankKeyOf(base)
  ids = redis.call('ZRANGE', key, 0, first - 1)
  for i = 1, #ids do
    oldest[i] = laneOldest(laneKeyOf(base, ids[i])) or false
  end
end

local fields, oldestFlat = {}, {}
for i = 1, #ids do
  local group = ids[i]
  appendFields(fields, readGroup(k, group, laneKeyOf(base, group)))
  local id = oldest[i]
  oldestFlat[#oldestFlat + 1] = id
  oldestFlat[#oldestFlat + 1] = id and redis.call('HGET', jobKeyOf(base, id), 'enqueuedAt') or false
end
return { nowMs(), settled, ids, fields, oldestFlat }
