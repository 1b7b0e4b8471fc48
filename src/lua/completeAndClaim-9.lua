--[[
  completeAndClaim — a worker's steady state in one round trip: complete the job it just
  finished, then claim the next job of the rota for the same slot. Exactly complete followed by
  claim (includes/completeJob.lua, includes/claimNext.lua), in one atomic script; the claim
  happens even when the completion is refused (the slot is free either way).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] leases   hash   active job id -> group
    KEYS[8] stats    hash   counters
    KEYS[9] job      hash   the job being completed

    ARGV[1] base                'P:{Q}:' — lanes and the claimed job's key are built from it
    ARGV[2] id                  the job to complete
    ARGV[3] token               its lease token
    ARGV[4] leaseMs             lease length of the next job, ms
    ARGV[5] nextToken           the next job's lease token
    ARGV[6] defaultMaxAttempts  for a job with no hash (written by another implementation)

  Output: { completed, next }
    completed  { id, job fields } as complete returns it, or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)
    next       { id, job fields } as claim returns it, or nil when no group is serviceable

  Events: those of complete, then those of claim.
]]
--- @include "completeJob"
--- @include "claimNext"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], stats = KEYS[8],
}
local base = ARGV[1]
local completed = completeJob(k, KEYS[9], base, ARGV[2], ARGV[3])
local next = claimNext(k, base, tonumber(ARGV[4]), ARGV[5], ARGV[6])
return { completed, next }
