--[[
  The oldest-pending index `P:{Q}:heads` (DESIGN.md §2; §3, "Oldest pending"): a zset of group
  → a lower bound of the lowest job id in its lane (its oldest job: ids are minted in enqueue
  order). With priorities a lane's head (its lowest score) is its most urgent job, not its
  oldest, so the index holds ids, not scores; for a lane of default-priority jobs the two are
  one (score = id). It lets the metrics script (readMetrics-7.lua) find the queue's oldest pending
  job without looking at every lane.

  The invariant every script keeps: a group is in `heads` exactly while its lane is not empty,
  at a value ≤ the lowest id among its lane's jobs. So every write that adds a job to a lane
  (or moves one within it) calls noteLaneHead — enqueue, includes/requeueJob.lua (retry, reap),
  includes/promote.lua (claim, completeAndClaim, reap, promoteJob), requeueDead and
  changeJobPriority: the one place a lane's head is noted. `ZADD LT` adds a missing group and
  only ever lowers a present one: one command, O(log groups).
  A script that empties a lane drops its entry (claims, includes/claimJobs.lua; removeJobs);
  a job leaving a lane that keeps others only raises the lane's lowest id, so the bound
  still holds, and the metrics script raises the entries it finds stale. Completions never
  touch it.

  base: 'P:{Q}:' (headsKeyOf, includes/keys.lua).

    noteLaneHead(base, group, id)
                        job `id` went to group's lane (or moved in it); for a batch, the lowest
                        id it added. `id` is a finite number, which the caller has: a job put
                        back at its id (no `score` in its hash, the default priority) passes
                        its lane score itself, one with a `score` finiteScore(id), else
                        (another writer's member that is no number) its score — so a default
                        job costs no conversion. A job moved to a later priority
                        (changeJobPriority) may have raised the lane's head: whatever needs the
                        head itself reads it (ZRANGE 0 0)
    laneOldest(laneKey) the lane's oldest job: member, score (as Redis writes it) and id (a
                        number; a member that is not a decimal id, another writer's, stands at
                        its score's order, includes/priority.lua orderOf), or nil for an empty
                        lane. The lowest id is the first job of one of the lane's priorities
                        (within one, score order is id order): one ZRANGE for the head, then
                        one ZRANGEBYSCORE … LIMIT 0 1 per priority above it that holds a job,
                        plus one that finds none — two reads for a lane of one priority, ten at
                        most
]]
--- @include "keys"
--- @include "priority"

local function noteLaneHead(base, group, id)
  redis.call('ZADD', headsKeyOf(base), 'LT', id, group)
end

local function idOrderOf(member, score)
  local n = tonumber(member)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then
    return orderOf(score)
  end
  return n
end

local function laneOldest(laneKey)
  local head = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
  if #head == 0 then
    return nil
  end
  local member, score, order = head[1], head[2], idOrderOf(head[1], head[2])
  local level = levelOf(head[2])
  while level < 9 do
    local next = redis.call('ZRANGEBYSCORE', laneKey, levelStartOf(level + 1), '+inf',
      'WITHSCORES', 'LIMIT', 0, 1)
    if #next == 0 then
      break
    end
    local nextOrder = idOrderOf(next[1], next[2])
    if nextOrder < order then
      member, score, order = next[1], next[2], nextOrder
    end
    level = levelOf(next[2])
  end
  return member, score, order
end
