--[[
  The group registry (DESIGN.md §2 `groups` and `gseen`; §3 "Forgetting groups"). Every call
  that registers a group — enqueue, enqueueMany and the steering scripts — also notes when, in
  `gseen` (group → ms, Redis clock), so the reaper's forgetGroups can find, oldest first, the
  groups no call has named for its grace, and forget those left idle and unset.

    registerGroup(groupsKey, base, group, now)   one group; now: ms (nowMs)
    registerGroups(groupsKey, base, groups, n, now)   groups[1..n] in one ZADD of each key
                                                      (enqueueMany's batch)
]]
--- @include "keys"

local function registerGroup(groupsKey, base, group, now)
  redis.call('ZADD', groupsKey, 0, group)
  redis.call('ZADD', seenKeyOf(base), now, group)
end

local function registerGroups(groupsKey, base, groups, n, now)
  local registry, seen = {}, {}
  for i = 1, n do
    registry[2 * i - 1] = 0
    registry[2 * i] = groups[i]
    seen[2 * i - 1] = now
    seen[2 * i] = groups[i]
  end
  redis.call('ZADD', groupsKey, unpack(registry))
  redis.call('ZADD', seenKeyOf(base), unpack(seen))
end
