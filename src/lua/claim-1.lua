--[[
  claim — the rota: lease the first job of the group at the head of the
  ring to the caller. See includes/claimJobs.lua for the rules (shared with completeAndClaim).
  First the delayed jobs that are due are promoted to their lanes (up to promoteBatch, earliest
  first; includes/promote.lua), and a paused queue (settings.paused = '1') claims nothing: the
  ring and the groups' states are left as they are, so resumeQueue finds them unchanged. Under
  the queue's cap (settings.limit) it claims nothing while cap − in flight ≤ 0, and serves a
  group owed its reserve first (includes/queueCap.lua, DESIGN.md §3 "The queue's cap and
  reserves").

  Input:
    KEYS[1] settings  hash  declared beside the slot guard so that no call runs while the
                            queue's slot moves (the guard stops only a call of several keys,
                            DESIGN.md §3); read as k.settings, the same name.
                            Read: paused; the cap (limit, reserved, capped: includes/queueCap.lua);
                            delayedAt, reopenAt (includes/nextDue.lua).
    The claim's other keys (glimit, gactive, ring, paused, wake, active, leases, stats,
    delayed, completed; DESIGN.md §2 says what each holds) are built from base (claimKeysOf,
    includes/keys.lua; a library keeps them per queue), not passed: each argument of a call
    costs ~1,370 instructions (docs/PERFORMANCE.md, "What every call pays").

    ARGV[1] base                'P:{Q}:' — the served group's lane P:{Q}:g:<group>:pending and
                                the job key P:{Q}:job:<id> are built from it (the group is
                                picked here; includes/keys.lua), as are the keys of promoted
                                jobs and their groups' delayed indexes and the throughput hash
                                P:{Q}:throughput; all share the queue's slot
    ARGV[2] leaseMs             lease length, ms
    ARGV[3] token               the lease token (random, from the caller)
    ARGV[4] defaultMaxAttempts  for a job with no hash (written by another implementation)
    ARGV[5] promoteBatch        the most delayed jobs promoted by this call (Defaults.promoteBatch)
    ARGV[6] worker              the claiming worker's id, written as the job's `worker` field
                                ('' for none: an earlier one is removed; DESIGN.md §4.9)

  Output: { claimedAt, leaseUntil, claimed, nextRunAt } — claimed holds the job (positional,
          see includes/claimJobs.lua), or nothing when no group is serviceable or the queue is
          paused; nextRunAt, when nothing was claimed on a running queue, the earliest runAt
          in `delayed` or reopening in `ratelimited` (ms; by their bounds, which may be
          earlier), else false

  Events: promotion's (zrem delayed and g:<group>:delayed, zadd lane + heads + zincrby gpending, hset/hdel job, hincrby
  stats, rpush ring + lpush/ltrim wake); lpop (+ rpush) ring; zpopmin lane; hset job; zadd
  active; hset leases; hset gactive; zadd gactiverank; zincrby or zmscore + zadd + zrem gpending;
  hincrby stats; hset throughput (a claim made, includes/throughput.lua); zrem heads (lanes
  emptied); hset settings capped (held back by the cap); hset settings delayedAt / reopenAt (a
  bound refreshed or lowered); lrem + lpush ring (an owed reserve served first).
]]
--- @include "claimJobs"

local k = claimKeysOf(ARGV[1])
local batch = newClaimBatch(tonumber(ARGV[2]), ARGV[6])
-- Which optional reads the claim makes (includes/quietQueue.lua), asked first: only a queue with
-- a delayed job or a rate reads its "next due at" (includes/nextDue.lua), in the one read of
-- the queue's gate and cap (includes/queueCap.lua).
batch.readsDelayed, batch.readsRates, batch.readsWeights = probeQuiet(ARGV[1], k.delayed)
local gate
if batch.readsDelayed or batch.readsRates then
  gate = redis.call('HMGET', k.settings, 'paused', 'limit', 'reserved', 'capped', 'delayedAt',
    'reopenAt')
else
  gate = redis.call('HMGET', k.settings, 'paused', 'limit', 'reserved', 'capped')
end
local claimed, nextAt = claimDue(k, ARGV[1], batch, { ARGV[3] }, ARGV[4], ARGV[5],
  gate[1] == '1', capOf(gate[2], gate[3], gate[4]), gate[5], gate[6])
flushClaims(k, ARGV[1], batch, claimed)
return { claimReply(batch, claimed, nextAt) }
