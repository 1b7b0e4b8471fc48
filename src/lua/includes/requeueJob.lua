--[[
  After a released lease (retry, reap): put the job back at the front of its own lane with
  its original FIFO score, or bury it in `dead` once its attempts reach maxAttempts.
  A job whose hash is gone (deleted by hand) goes back to its lane as a bare id, as a job
  written by another implementation of the seed would be.

  k: k.dead (zset), k.stats (hash). laneKey is the group's pending zset.
  Returns 'pending' or 'dead'.
]]
local function requeueJob(k, jobKey, id, laneKey, now, err)
  local job = redis.call('HMGET', jobKey, 'attempts', 'maxAttempts', 'score')
  local attempts = tonumber(job[1]) or 0
  local maxAttempts = tonumber(job[2])
  local score = tonumber(job[3]) or tonumber(id) or 0
  local exists = redis.call('EXISTS', jobKey) == 1
  if exists then
    redis.call('HDEL', jobKey, 'token', 'leaseUntil')
    if err and err ~= '' then
      redis.call('HSET', jobKey, 'lastError', err)
    end
  end
  if exists and maxAttempts and attempts >= maxAttempts then
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
