--[[
  The rota's claim (the seed's @gclaim), shared by claim and completeAndClaim: take the group at
  the head of the ring, pop the first job of its lane, lease it under `token` for `leaseMs`, and
  increment the group's active count. The served group goes to the tail of the ring while it
  stays serviceable, and stays off it when it reached its limit (the seed's de-ring at the claim
  point) or its lane is now empty: either way it was just popped from the head, so no LREM is
  needed and the cost is O(1). A stale head (paused, saturated or empty, left by another writer)
  is dropped and the next one tried.

  k: glimit, gactive, ring, paused, active, leases, stats. base: 'P:{Q}:' (lane and job keys
  are built from it). Returns false when no group is serviceable, else { id, job hash fields }.
]]
--- @include "nowMs"
--- @include "groupState"

local function claimNext(k, base, leaseMs, token, defaultMaxAttempts)
  while true do
    local group = redis.call('LPOP', k.ring)
    if not group then
      return false
    end
    local laneKey = base .. 'g:' .. group .. ':pending'
    local serviceable, wasSaturated, limit = groupState(k, group, laneKey)
    if serviceable then
      local head = redis.call('ZPOPMIN', laneKey)
      local id, score = head[1], head[2]
      local jobKey = base .. 'job:' .. id
      local now = nowMs()
      local leaseUntil = now + leaseMs

      local active = redis.call('HINCRBY', k.gactive, group, 1)
      redis.call('ZADD', k.active, leaseUntil, id)
      redis.call('HSET', k.leases, id, group)
      if redis.call('EXISTS', jobKey) == 0 then
        redis.call('HSET', jobKey, 'maxAttempts', defaultMaxAttempts, 'score', score)
      end
      redis.call('HINCRBY', jobKey, 'attempts', 1)
      redis.call('HSET', jobKey, 'group', group, 'state', 'active', 'token', token,
        'claimedAt', now, 'leaseUntil', leaseUntil)
      redis.call('HINCRBY', k.stats, 'claimed', 1)
      redis.call('HINCRBY', k.stats, 'pending', -1)
      redis.call('HINCRBY', k.stats, 'active', 1)

      local stillServiceable, saturated = stateAfterClaim(limit, active, laneKey)
      if stillServiceable then
        redis.call('RPUSH', k.ring, group)
      end
      if saturated ~= wasSaturated then
        redis.call('HINCRBY', k.stats, 'saturated', 1)
      end
      return { id, redis.call('HGETALL', jobKey) }
    end
    -- A stale head: not serviceable, so by I1 it must not be on the ring. Dropped; next.
  end
end
