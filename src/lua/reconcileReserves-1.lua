--[[
  reconcileReserves — Queue.audit / Queue.repair of the stored sum of the reserves (DESIGN.md
  §4.5, I8): `settings.reserved` is the sum of `greserve` (each reserve read as the claim reads
  it, includes/groupState.lua parseLimit: a field that is not a non-negative integer counts 0),
  kept in step by setReserve-9.lua and never written elsewhere; a field written by hand, or a
  Redis that lost one of the two, makes them drift. One atomic step: HGETALL greserve, then the
  comparison, so traffic during it makes no false finding. O(groups with a reserve): under a cap
  at most the cap of them (each reserve is ≥ 1 and their sum ≤ cap).

  Findings (kind RESERVE):
    subject 'reserved'  expected the sum, found the stored value ('0' for none); repair writes
                        the sum (HSET, or HDEL at 0)
    subject 'cap'       the sum is above the queue's cap (`settings.limit`): expected 'at most
                        <cap>', found the sum. Not repaired: which reserve to lower is the
                        operator's call (setReserve); until then the claim serves the reserves
                        first while any are owed, and a raised reserve is refused.

  Input:
    KEYS[1] settings  hash   queue settings: limit (the cap), reserved (the stored sum)
    Built from the base (KEYS[1] less 'settings', includes/keys.lua): greserve, history.

    ARGV[1] mode    'audit' (change nothing) or 'repair'
    ARGV[2] actor   who asks (includes/history.lua)
    ARGV[3] cap     the queue history's cap (0 records nothing)

  Output: { findings } — flat { subject, 'RESERVE', expected, found, ... }

  History (repair only, includes/repairHistory.lua): one entry 'repair', group '', step
  'reserves', before/after { reserved } when it rewrote the sum.

  Events (repair only): hset/hdel settings reserved, xadd history.
]]
--- @include "keys"
--- @include "groupState"
--- @include "repairHistory"

local settingsKey = KEYS[1]
local base = baseOf(settingsKey, 'settings')
local repair = ARGV[1] == 'repair'
local h = historyArgs(ARGV[2], ARGV[3])
local log = repairLog('reserves')
local findings = {}

local all = redis.call('HGETALL', reserveKeyOf(base))
local sum = 0
for i = 2, #all, 2 do
  sum = sum + (parseLimit(all[i]) or 0)
end
local stored = redis.call('HMGET', settingsKey, 'reserved', 'limit')
local expected = string.format('%d', sum)
if stored[1] ~= expected and not (stored[1] == false and sum == 0) then
  local found = stored[1] or '0'
  findings[#findings + 1] = 'reserved'
  findings[#findings + 1] = 'RESERVE'
  findings[#findings + 1] = expected
  findings[#findings + 1] = found
  if repair then
    if sum == 0 then
      redis.call('HDEL', settingsKey, 'reserved')
    else
      redis.call('HSET', settingsKey, 'reserved', expected)
    end
    noteRepair(log, '', 'reserved', found, expected)
  end
end
local cap = parseLimit(stored[2])
if cap ~= nil and sum > cap then
  findings[#findings + 1] = 'cap'
  findings[#findings + 1] = 'RESERVE'
  findings[#findings + 1] = 'at most ' .. stored[2]
  findings[#findings + 1] = expected
end
recordRepairs(base, h, log)
return { findings }
