--[[
  reap — take back every job whose lease has passed (Redis clock): release its group's permit
  and retry it (back to its lane, or dead at maxAttempts), exactly as retry does, counting it
  in stats.reaped. The group comes from `leases`, so a permit is released even when the job
  hash was deleted by hand. Works in batches so a large backlog never blocks Redis for long;
  the caller repeats while a full batch came back.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] leases   hash   active job id -> group
    KEYS[8] dead     zset   dead job id -> time it died (ms)
    KEYS[9] stats    hash   counters

    ARGV[1] base   'P:{Q}:' — each reaped job's key P:{Q}:job:<id> and its group's lane
                   P:{Q}:g:<group>:pending are built from it (includes/keys.lua; same slot)
    ARGV[2] batch  the most jobs to reap in this call

  Output: the number of jobs reaped. A job whose group's active count is not an integer within
          ±(2^53−1) is not reaped (nor counted): nothing of it is written (includes/releaseJob.lua).

  Events: as retry, for each job; hincrby stats reaped.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "settleGroup"
--- @include "releaseJob"
--- @include "requeueJob"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], dead = KEYS[8], stats = KEYS[9],
}
local base = ARGV[1]
local batch = tonumber(ARGV[2])

local now = nowMs()
local expired = redis.call('ZRANGEBYSCORE', k.active, '-inf', now, 'LIMIT', 0, batch)
local reaped = 0
for _, id in ipairs(expired) do
  local jobKey = jobKeyOf(base, id)
  local group, raw = leaseGroup(k, id, jobKey)
  local active = group and parseActive(raw)
  -- A group whose active count is not a safe integer cannot be released exactly: its job is
  -- left as it is (still expired, reaped once Queue.repair has rewritten the count), and the
  -- rest of the batch goes on, so one damaged field cannot stop reaping for the whole queue.
  if not group or active ~= nil then
    local laneKey, wasServiceable, wasSaturated
    group, laneKey, wasServiceable, wasSaturated = releaseJob(k, base, id, group, active)
    -- With no group anywhere there is no lane to requeue into (the lease is ended all the same).
    if group then
      requeueJob(k, jobKey, id, laneKey, now, 'lease expired')
      settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated)
    end
    redis.call('HINCRBY', k.stats, 'reaped', 1)
    reaped = reaped + 1
  end
end
return reaped
