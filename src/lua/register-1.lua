--[[
  register — add a queue's name to the queue registry, as the SADD an enqueue sends beside its
  script, but for the steering scripts: like them it runs at maxmemory, so registering never
  fails a pause or setLimit during a memory incident (a plain SADD is refused for memory even
  when the name is there already). The registry is in another slot than the queue's keys, so
  this is a call of its own, never part of the steering script.

  Input:
    KEYS[1] queues   set    queue registry (`P:queues`)

    ARGV[1] queue    the queue name (validated by the engine)

  Output: 1 when the name was added, 0 when it was there.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: sadd queues (when added).
]]
--- @include "allowAtMaxmemory"

local queuesKey = KEYS[1]
local queue = ARGV[1]

allowAtMaxmemory(queuesKey)
return redis.call('SADD', queuesKey, queue)
