--[[
  readCounts — a queue's totals for Queue.counts (DESIGN.md §4 `QueueCounts`), read in one
  script so they are of one instant: the registry, the ring, the paused set, the pending,
  delayed and saturated totals, the active jobs, and the dead and completed jobs the retention
  policies keep. Read-only; O(log n) (the two ZCOUNTs), O(1) in groups.

  onRing counts the rota at every level (DESIGN.md §3, "Levels"): the ring's length plus
  `levels`' size (includes/levels.lua rotaLength; P:{Q}:levels is built from the ring's key,
  includes/keys.lua baseOf), so a queue with priorities counts every serviceable group.

  Dead and completed leave out jobs past their retention age that no trim has reached yet
  (includes/retentionAge.lua keptCount), so the counts agree with Queue.jobs' totalCount and
  with Queue.job, which read such a job as gone. A script that writes nothing runs at maxmemory
  (includes/allowAtMaxmemory.lua: Redis refuses only a script's first write).

  Input:
    KEYS[1] groups     zset  group registry
    KEYS[2] ring       list  serviceable groups at the default level (5)
    KEYS[3] paused     set   paused groups
    KEYS[4] stats      hash  counters and totals (saturated, pending, delayed)
    KEYS[5] active     zset  active job ids
    KEYS[6] dead       zset  dead job ids, scored by finish time
    KEYS[7] completed  zset  retained completed job ids, scored by finish time
    KEYS[8] settings   hash  the queue's retention policies (includes/retention.lua)

  Output: { groups, onRing, paused, saturated, pending, delayed, active, dead, completed }
    saturated, pending, delayed   the stats fields as stored (false when missing)
    every other entry             an integer

  Events: none.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "retentionAge"
--- @include "levels"

local now = nowMs()
local totals = redis.call('HMGET', KEYS[4], 'saturated', 'pending', 'delayed')
return {
  redis.call('ZCARD', KEYS[1]),
  rotaLength(KEYS[2], baseOf(KEYS[2], 'ring')),
  redis.call('SCARD', KEYS[3]),
  totals[1],
  totals[2],
  totals[3],
  redis.call('ZCARD', KEYS[5]),
  keptCount(KEYS[6], KEYS[8], 'dead', now),
  keptCount(KEYS[7], KEYS[8], 'completed', now),
}
