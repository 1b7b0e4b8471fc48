--[[
  pause — the seed's @gpause: mark the group paused and drop it from the ring. Its backlog and
  its active jobs are untouched: pause stops new turns, it cancels and drains nothing.
  The LREM runs whether or not I1 says the group was on the ring, as the seed's does, so a
  ring left stale by another writer is healed too; pause is the one O(ring) step by design.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] lane     zset   the group's pending jobs
    KEYS[6] groups   zset   group registry
    KEYS[7] stats    hash   counters (unchanged; named for the reply's key table)

    ARGV[1] group

  Output: groupReply (includes/groupReply.lua)

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: sadd paused; lrem ring (when it was there); zadd groups.
]]
--- @include "allowAtMaxmemory"
--- @include "groupReply"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], stats = KEYS[7],
}
local laneKey = KEYS[5]
local groupsKey = KEYS[6]
local group = ARGV[1]

allowAtMaxmemory(k.paused)
redis.call('SADD', k.paused, group)
redis.call('LREM', k.ring, 0, group)
redis.call('ZADD', groupsKey, 0, group)
return groupReply(k, group, laneKey)
