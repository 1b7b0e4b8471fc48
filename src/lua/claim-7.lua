--[[
  claim — the rota (the seed's @gclaim): lease the first job of the group at the head of the
  ring to the caller. See includes/claimJobs.lua for the rules (shared with completeAndClaim).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] active   zset   active job id -> lease deadline (ms)
    KEYS[6] leases   hash   active job id -> group
    KEYS[7] stats    hash   counters

    ARGV[1] base                'P:{Q}:' — the served group's lane P:{Q}:g:<group>:pending and
                                the job key P:{Q}:job:<id> are built from it (the group is
                                picked here; includes/keys.lua); both share the queue's slot
    ARGV[2] leaseMs             lease length, ms
    ARGV[3] token               the lease token (random, from the caller)
    ARGV[4] defaultMaxAttempts  for a job with no hash (written by another implementation)

  Output: { claimedAt, leaseUntil, claimed } — claimed holds the job (positional, see
          includes/claimJobs.lua), or nothing when no group is serviceable

  Events: lpop (+ rpush) ring; hmget glimit, gactive; smismember paused; zpopmin lane; hset job; zadd active; hset leases; hset gactive;
  hincrby stats.
]]
--- @include "claimJobs"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  active = KEYS[5], leases = KEYS[6], stats = KEYS[7],
}
local batch = newClaimBatch(tonumber(ARGV[2]))
local claimed = claimJobs(k, ARGV[1], batch, { ARGV[3] }, ARGV[4])
flushClaims(k, batch)
return claimReply(batch, claimed)
