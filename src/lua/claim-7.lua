--[[
  claim — the rota (the seed's @gclaim). Take the group at the head of the ring, pop the first
  job of its lane, lease it to the caller, and increment the group's active count.
  The served group goes to the tail of the ring while it stays serviceable, and stays off it
  when it reached its limit (the seed's de-ring at the claim point) or its lane is now empty:
  either way it was just popped from the head, so no LREM is needed and the cost is O(1).
  A stale head (paused, saturated or empty, left by another writer) is dropped and the next
  one tried.

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
                                picked here); both share the queue's slot
    ARGV[2] leaseMs             lease length, ms
    ARGV[3] token               the lease token (random, from the caller)
    ARGV[4] defaultMaxAttempts  for a job with no hash (written by another implementation)

  Output: false when no group is serviceable, else { id, field1, value1, ... } (the job hash)

  Events: lpop (+ rpush) ring; zpopmin lane; hincrby gactive; zadd active; hset leases;
  hset/hincrby job; hincrby stats.
]]
--- @include "nowMs"
--- @include "groupState"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  active = KEYS[5], leases = KEYS[6], stats = KEYS[7],
}
local base = ARGV[1]
local leaseMs = tonumber(ARGV[2])
local token = ARGV[3]
local defaultMaxAttempts = ARGV[4]

while true do
  local group = redis.call('LPOP', k.ring)
  if not group then
    return false
  end
  local laneKey = base .. 'g:' .. group .. ':pending'
  local serviceable, wasSaturated = groupState(k, group, laneKey)
  if serviceable then
    local head = redis.call('ZPOPMIN', laneKey)
    local id, score = head[1], head[2]
    local jobKey = base .. 'job:' .. id
    local now = nowMs()
    local leaseUntil = now + leaseMs

    redis.call('HINCRBY', k.gactive, group, 1)
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

    local stillServiceable, saturated = groupState(k, group, laneKey)
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
