--[[
  readThroughput — the queue's per-minute counts for Queue.throughput (DESIGN.md §3
  "Throughput history", §4.1): the last `minutes` minutes by the Redis clock, oldest first,
  the current minute last. Read-only; one HMGET of `minutes` slots, O(minutes).

  Input:
    KEYS[1] throughput  hash  slot → '<minute>:<enqueued>:<claimed>:<completed>:<failed>'
                              (includes/throughput.lua)

    ARGV[1] minutes   how many minutes, 1..THROUGHPUT_MINUTES (checked by the engine)

  Output: { current, counts } — current: the current minute (minutes since the epoch, Redis
          clock); counts: flat, four integers per minute (enqueued, claimed, completed,
          failed), from minute current − minutes + 1 to current; 0s for a minute no slot holds.

  Events: none.
]]
--- @include "nowMs"
--- @include "bounds"
--- @include "throughput"

local key = KEYS[1]
local minutes = tonumber(ARGV[1])

local current = math.floor(nowMs() / 60000)
local first = current - minutes + 1
local slots = {}
for m = first, current do
  slots[#slots + 1] = m % THROUGHPUT_MINUTES
end
local held = redis.call('HMGET', key, unpack(slots))
local counts = {}
for i = 1, minutes do
  local e, c, d, f = throughputCounts(held[i], first + i - 1)
  counts[#counts + 1] = e
  counts[#counts + 1] = c
  counts[#counts + 1] = d
  counts[#counts + 1] = f
end
return { current, counts }
