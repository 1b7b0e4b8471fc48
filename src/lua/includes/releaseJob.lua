--[[
  End a job's lease and give its group's permit back: the one place a permit is released
  (complete, retry, reap), so no path can release it twice. The group comes from `leases`,
  never only from the job hash, so a permit is released even if the hash is gone.

  k: k.active (zset), k.leases (hash), k.gactive (hash), k.stats (hash).
  knownGroup: the group, when the caller already read it the same way (saves a read).
  Returns the group, or nil when the job held no lease (nothing released).
  The active count never goes below 0, and its field is removed at 0 (invariant I3).
]]
local function releaseJob(k, id, jobKey, knownGroup)
  local group = knownGroup or redis.call('HGET', k.leases, id) or redis.call('HGET', jobKey, 'group')
  if redis.call('ZREM', k.active, id) == 0 then
    return nil
  end
  redis.call('HDEL', k.leases, id)
  redis.call('HINCRBY', k.stats, 'active', -1)
  if group then
    if redis.call('HINCRBY', k.gactive, group, -1) <= 0 then
      redis.call('HDEL', k.gactive, group)
    end
  end
  return group
end
