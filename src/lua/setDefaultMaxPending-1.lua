--[[
  setDefaultMaxPending — the queue's default backlog bound: the bound of every group that has
  none of its own (DESIGN.md §3, "Backlog bounds"; includes/maxPending.lua). '' clears it. Kept
  in gmaxpending's empty field (no group id is empty), so an enqueue reads a group's bound and
  the default in one HMGET. Records the change in the steering history (action
  setDefaultMaxPending, group '', before/after { maxPending }, null for none) when it changed.

  Input:
    KEYS[1] gmaxpending  hash   group -> bound; '' -> the default (its name gives the base)
    Built from the base (includes/keys.lua): history.

    ARGV[1] maxPending  a non-negative integer (validated by the engine), or '' to clear it
    ARGV[2] actor    who asks (history)
    ARGV[3] cap      the queue history's cap (count)

  Output: the default as it stands after (its text), or false for none.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset or hdel gmaxpending; xadd history (the default changed).
  Cost: O(1).
]]
--- @include "allowAtMaxmemory"
--- @include "groupState"
--- @include "history"

local maxPendingKey = KEYS[1]
local base = baseOf(maxPendingKey, 'gmaxpending')
local bound = ARGV[1]
local h = historyArgs(ARGV[2], ARGV[3])

local before = parseLimit(redis.call('HGET', maxPendingKey, ''))
allowAtMaxmemory(maxPendingKey)
if bound == '' then
  redis.call('HDEL', maxPendingKey, '')
else
  redis.call('HSET', maxPendingKey, '', bound)
end
local after = bound ~= '' and tonumber(bound) or nil
if before ~= after then
  recordHistory(base, h, 'setDefaultMaxPending', '', { maxPending = before or cjson.null },
    { maxPending = after or cjson.null }, nil)
end
return bound ~= '' and bound or false
