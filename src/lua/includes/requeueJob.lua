--[[
  After a released lease (retry, reap): put the job back at the front of its own lane with
  its original FIFO score, or bury it in `dead` once its attempts reach maxAttempts.
  A job whose hash is gone (deleted by hand) goes back to its lane as a bare id, as a job
  written by another implementation of the seed would be.

  Exact whatever the fields hold (includes/safeInteger.lua): attempts and maxAttempts are
  compared as decimal text, never as doubles (an attempts that is not an integer counts as 0; a
  maxAttempts that is not one means no limit, as before). The score is the one the hash holds,
  or the id: a finite number, passed to ZADD as the very double Redis would parse from its text
  (a FIFO score is a job id, exact below 2^53, which `seq` never passes); NaN or an infinity
  falls back to the id, then 0, rather than making ZADD fail after the release was written.

  k: k.dead (zset), k.stats (hash). laneKey is the group's pending zset.
  Returns 'pending' or 'dead'.
]]
--- @include "safeInteger"

-- A score ZADD accepts: raw's value when it is a finite number, else nil.
local function finiteScore(raw)
  local n = tonumber(raw)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then
    return nil
  end
  return n
end

local function requeueJob(k, jobKey, id, laneKey, now, err)
  local job = redis.call('HMGET', jobKey, 'attempts', 'maxAttempts', 'score')
  local attempts = isInteger(job[1]) and job[1] or '0'
  local maxAttempts = isInteger(job[2]) and job[2] or nil
  local score = finiteScore(job[3]) or finiteScore(id) or 0
  local exists = redis.call('EXISTS', jobKey) == 1
  if exists then
    redis.call('HDEL', jobKey, 'token', 'leaseUntil')
    if err and err ~= '' then
      redis.call('HSET', jobKey, 'lastError', err)
    end
  end
  if exists and maxAttempts and compareIntegers(attempts, maxAttempts) >= 0 then
    redis.call('ZADD', k.dead, now, id)
    redis.call('HSET', jobKey, 'state', 'dead', 'finishedAt', now)
    redis.call('HINCRBY', k.stats, 'dead', 1)
    return 'dead'
  end
  redis.call('ZADD', laneKey, score, id)
  if exists then
    redis.call('HSET', jobKey, 'state', 'pending')
  end
  redis.call('HINCRBY', k.stats, 'pending', 1)
  return 'pending'
end
