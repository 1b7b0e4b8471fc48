--[[
  The oldest-pending index `P:{Q}:heads` (DESIGN.md §2; §3, "Oldest pending"): a zset of group
  → a lower bound of the score of its lane's head (the lane's lowest score: its next job, FIFO,
  score = id). It lets the metrics script (readMetrics-7.lua) find the queue's oldest pending
  job without looking at every lane.

  The invariant every script keeps: a group is in `heads` exactly while its lane is not empty,
  at a score ≤ the lane's lowest score. So every write that adds a job to a lane calls
  noteLaneHead with the job's lane score — enqueue, includes/requeueJob.lua (retry, reap),
  includes/promote.lua (claim, completeAndClaim, reap, promoteJob) and requeueDead. `ZADD LT`
  adds a missing group and only ever lowers a present one: one command, O(log groups).
  A script that empties a lane drops its entry (claims, includes/claimJobs.lua; removeJobs);
  a job leaving a lane that keeps others only raises the lane's head, so the bound still holds,
  and the metrics script raises the entries it finds stale. Completions never touch it.

  base: 'P:{Q}:' (headsKeyOf, includes/keys.lua).

    noteLaneHead(base, group, score)   a job went to group's lane at `score`
]]
--- @include "keys"

local function noteLaneHead(base, group, score)
  redis.call('ZADD', headsKeyOf(base), 'LT', score, group)
end
