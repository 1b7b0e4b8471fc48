--[[
  complete — finish an active job whose lease the caller holds: its group's permit is released
  and the group re-ringed with a wake if that made it serviceable; the job is then kept by the
  queue's completed retention (its hash says state completed and finishedAt, and it joins
  `completed` and its group's completed index, the oldest past the policy trimmed), or with
  retention count 0 its hash and error list are deleted. See includes/completeJob.lua.
  (completeAndClaim completes by the same rules, a batch at a time: it shares completeJob's
  pieces but not completeJob itself; its header says why.)

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] leases   hash   active job id -> group
    KEYS[8] stats    hash   counters
    KEYS[9] job      hash   the job
    KEYS[10] settings  hash  queue settings: the completed retention (completedCount,
                             completedAgeMs; includes/retention.lua) and `capped`
                             (includes/capWake.lua)
    KEYS[11] completed zset  retained completed job id -> finishedAt (ms)

    ARGV[1] base   'P:{Q}:' — the lane P:{Q}:g:<group>:pending of the job's group (read from
                   `leases`), its completed index P:{Q}:g:<group>:completed, the job's error
                   list, the hashes of trimmed jobs and the throughput hash P:{Q}:throughput are
                   built from it (includes/keys.lua); all share the queue's slot
    ARGV[2] id
    ARGV[3] token
    ARGV[4] result  its JSON text ('' for none; checked by the engine, DESIGN.md §5), kept in
                    P:{Q}:results with the job only when the retention keeps it (§2, "Job
                    layout"; includes/finishCompleted.lua)

  Output: { id, field1, value1, ... } (the job as it was, state 'completed', finishedAt, and
          'result' when one was kept; else the same whether it is kept or not),
          or -1 (JOB_NOT_FOUND), -2 (LEASE_LOST)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group's active count is not an integer
  within ±(2^53−1) (includes/groupState.lua).

  Events: zrem active; hdel leases; hincrby/hdel gactive + zadd/zrem gactiverank; hincrby stats;
  hset throughput (includes/throughput.lua); rpush ring +
  lpush/ltrim wake (re-ring); kept: hset/hdel job, hset results (with a result), zadd completed and g:<group>:completed, and
  for each trimmed job zrem completed and its group's index, del job and errors; count 0: del
  job and errors; hdel settings capped + lpush/ltrim wake when a claim was held back by the
  queue's cap (includes/capWake.lua).
]]
--- @include "completeJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], stats = KEYS[8], settings = KEYS[10],
  completed = KEYS[11],
}
return completeJob(k, KEYS[9], ARGV[1], ARGV[2], ARGV[3], ARGV[4] or '')
