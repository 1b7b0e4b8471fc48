--[[
  Promotion: a delayed job whose run-at time has come goes back to its own group's lane, at its
  original FIFO place (its hash's `score`, as a retry's), and the group is re-ringed with a wake
  when that makes it serviceable (I1: a group whose only work is delayed is not serviceable, so
  the transition happens here). Shared by the claim scripts (a few per call, before they claim),
  reap (a batch per call) and promoteJob (one job, now).

  Flat cost: the due jobs are read with one ZRANGEBYSCORE … LIMIT from the queue's `delayed`
  (O(log n + promoted)), never by scanning the delayed set; each promotion is O(log n).

  k: glimit, gactive, ring, paused, wake, stats, delayed (zset id -> runAt ms).
  base: 'P:{Q}:' (job, lane and group-delayed keys are built from it, includes/keys.lua).

    promoteJob(k, base, id, unjudged)
                                    move one delayed job now; returns true if it was moved,
                                    false when it is not in `delayed` (nothing written). When
                                    its group's active count cannot be counted exactly, the
                                    group's standing cannot be judged: without `unjudged` the
                                    job is left delayed (false; promoteJob-8.lua refuses first);
                                    with it (promoteDue) the job moves to its lane and the group
                                    is not settled — the claim skips such a group anyway and
                                    Queue.repair rewrites the count and re-rings it — so a
                                    batch of such jobs at the head of `delayed` never holds
                                    back the promotion of every other group's
    promoteDue(k, base, now, max)   promote up to `max` jobs due at `now` (ms), earliest first;
                                    returns how many were moved; the caller refreshes the
                                    queue's `delayedAt` after it (includes/nextDue.lua)

  A `delayed` entry whose hash is gone (deleted by hand) is dropped from `delayed` and counted
  out of the `delayed` total. Totals: stats.delayed -1 and stats.pending +1 per job moved.
  Events: zrem delayed, zrem g:<group>:delayed, zadd lane + heads + zincrby gpending, hset/hdel
  job, hincrby stats; rpush ring + lpush/ltrim wake (re-ring); a watched job's PENDING (includes/jobEvents.lua).
]]
--- @include "keys"
--- @include "safeInteger"
--- @include "settleGroup"
--- @include "heads"
--- @include "groupRanks"
--- @include "jobEvents"

local function promoteJob(k, base, id, unjudged)
  local at = redis.call('ZSCORE', k.delayed, id)
  if not at then
    return false
  end
  local jobKey = jobKeyOf(base, id)
  local job = redis.call('HMGET', jobKey, 'group', 'score')
  local group = job[1]
  if not group then
    redis.call('ZREM', k.delayed, id)
    redis.call('HINCRBY', k.stats, 'delayed', -1)
    return false
  end
  local laneKey = laneKeyOf(base, group)
  local limit = limitOf(k.glimit, group)
  local active = parseActive(redis.call('HGET', k.gactive, group))
  if active == nil and not unjudged then
    return false
  end
  local wasServiceable, wasSaturated
  if active ~= nil then
    wasServiceable, wasSaturated = isServiceable(k, group, laneKey, limit, active)
  end
  -- The job's place: its score as stored (its priority's), else its id (exact, as seq mints);
  -- never NaN or an infinity, which ZADD would refuse after the ZREMs above were written.
  local score = finiteScore(job[2]) or finiteScore(id) or 0
  redis.call('ZREM', k.delayed, id)
  redis.call('ZREM', groupDelayedKeyOf(base, group), id)
  if redis.call('ZADD', laneKey, score, id) == 1 then
    addPending(base, group, 1)
  end
  -- Its id as a number: the score itself when it is the id (includes/heads.lua).
  noteLaneHead(base, group, job[2] and finiteScore(id) or score)
  redis.call('HSET', jobKey, 'state', 'pending')
  redis.call('HDEL', jobKey, 'runAt')
  noteJobEvent(base, id)
  redis.call('HINCRBY', k.stats, 'delayed', -1)
  redis.call('HINCRBY', k.stats, 'pending', 1)
  if active ~= nil then
    settleAfterGain(k, group, laneKey, wasServiceable, wasSaturated, true)
  end
  return true
end

local function promoteDue(k, base, now, max)
  local due = redis.call('ZRANGEBYSCORE', k.delayed, '-inf', now, 'LIMIT', 0, max)
  local moved = 0
  for _, id in ipairs(due) do
    if promoteJob(k, base, id, true) then
      moved = moved + 1
    end
  end
  return moved
end
