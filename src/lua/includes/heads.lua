--[[
  The oldest-pending index `P:{Q}:heads` (DESIGN.md §2; §3, "Oldest pending"): a zset of group
  → a lower bound of the enqueue order of its lane's oldest job (includes/priority.lua orderOf:
  a lane score less its priority's shift, the job's id for a job Ringmaster enqueued). With
  priorities a lane's head (its lowest score) is its most urgent job, not its oldest, so the
  index holds the order, not the score; for a lane of default-priority jobs the two are one
  (score = id). It lets the metrics script (readMetrics-7.lua) find the queue's oldest pending
  job without looking at every lane.

  The invariant every script keeps: a group is in `heads` exactly while its lane is not empty,
  at a value ≤ the lowest order among its lane's jobs. So every write that adds a job to a lane
  (or moves one within it) calls noteLaneHead — enqueue, includes/requeueJob.lua (retry, reap),
  includes/promote.lua (claim, completeAndClaim, reap, promoteJob), requeueDead and
  changeJobPriority: the one place a lane's head is noted. `ZADD LT` adds a missing group and
  only ever lowers a present one: one command, O(log groups).
  A script that empties a lane drops its entry (claims, includes/claimJobs.lua; removeJobs);
  a job leaving a lane that keeps others only raises the lane's lowest order, so the bound
  still holds, and the metrics script raises the entries it finds stale. Completions never
  touch it.

  base: 'P:{Q}:' (headsKeyOf, includes/keys.lua).

    noteLaneHead(base, group, score, order)
                        a job went to group's lane (or moved in it) at lane score `score` (for
                        a batch, the lowest it added); `order` its enqueue order when the caller
                        knows it (enqueue: the id it minted), else orderOf(score). A job moved
                        to a later priority (changeJobPriority) may have raised the lane's head:
                        whatever needs the head itself reads it (ZRANGE 0 0)
    laneOldest(laneKey) the lane's oldest job: member, score (as Redis writes it) and order, or
                        nil for an empty lane. The lowest order is the first job of one of the
                        lane's levels (within a level, score order is enqueue order): one ZRANGE
                        for the head, then one ZRANGEBYSCORE … LIMIT 0 1 per level above it
                        that holds a job, plus one that finds none — two reads for a lane of one
                        priority, ten at most
]]
--- @include "keys"
--- @include "priority"

local function noteLaneHead(base, group, score, order)
  redis.call('ZADD', headsKeyOf(base), 'LT', order or orderOf(score), group)
end

local function laneOldest(laneKey)
  local head = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
  if #head == 0 then
    return nil
  end
  local member, score, order = head[1], head[2], orderOf(head[2])
  local level = levelOf(head[2])
  while level < 9 do
    local next = redis.call('ZRANGEBYSCORE', laneKey, levelStartOf(level + 1), '+inf',
      'WITHSCORES', 'LIMIT', 0, 1)
    if #next == 0 then
      break
    end
    if orderOf(next[2]) < order then
      member, score, order = next[1], next[2], orderOf(next[2])
    end
    level = levelOf(next[2])
  end
  return member, score, order
end
