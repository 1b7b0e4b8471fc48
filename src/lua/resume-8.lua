--[[
  resume — clear the paused flag; re-ring the group with a wake only if it is serviceable
  (a group at its limit stays off until a permit frees; an empty one until work arrives).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] lane     zset   the group's pending jobs
    KEYS[7] groups   zset   group registry
    KEYS[8] stats    hash   counters

    ARGV[1] group

  Output: groupReply (includes/groupReply.lua)
  Refuses (DATA_OUT_OF_RANGE, nothing written) when the group has a limit and its active count
  is not an integer within ±(2^53−1) (includes/groupState.lua).

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: srem paused; zadd groups; rpush ring + lpush/ltrim wake (re-ring).
]]
--- @include "allowAtMaxmemory"
--- @include "settleGroup"
--- @include "groupReply"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4],
  wake = KEYS[5], stats = KEYS[8],
}
local laneKey = KEYS[6]
local groupsKey = KEYS[7]
local group = ARGV[1]

allowAtMaxmemory(k.paused)
local judged = judgeFields(k, group, readGroup(k, group, laneKey), 'paused', 0)
redis.call('SREM', k.paused, group)
redis.call('ZADD', groupsKey, 0, group)
settleJudged(k, group, judged)
return fieldsReply(judged.after)
