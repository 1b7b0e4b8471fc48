--[[
  The queue's per-minute throughput (DESIGN.md §2 `throughput`, §3 "Throughput history"): every
  script that counts an event in `stats` counts it here too, once per call, whatever the number
  of jobs.

  countThroughput(base, enqueued, claimed, completed, failed)
    base      'P:{Q}:' (the hash is built from it, includes/keys.lua)
    enqueued, claimed, completed, failed   this call's counts (0 for a kind it does not count)
  Adds them to the current minute (Redis clock) of the hash's ring of THROUGHPUT_MINUTES slots:
  slot minute % THROUGHPUT_MINUTES holds '<minute>:<enqueued>:<claimed>:<completed>:<failed>',
  the minute (since the epoch) it counts and its counts. A slot holding another minute is stale
  (a day or more old): it starts again at zero. One HGET and one HSET per call, none when every
  count is 0 (an idle claim writes nothing); the hash never holds more than THROUGHPUT_MINUTES
  fields.

  throughputCounts(held, minute)   the counts of a slot's text (HGET's reply) if it holds
                                   `minute`, else four zeros (readThroughput-1.lua reads by it)
]]
--- @include "keys"
--- @include "nowMs"
--- @include "bounds"

-- The counts a slot's text holds for `minute`: four zeros when the slot is empty or holds
-- another minute.
local function throughputCounts(held, minute)
  if held then
    local m, e, c, d, f = string.match(held, '^(%d+):(%d+):(%d+):(%d+):(%d+)$')
    if tonumber(m) == minute then
      return tonumber(e), tonumber(c), tonumber(d), tonumber(f)
    end
  end
  return 0, 0, 0, 0
end

local function countThroughput(base, enqueued, claimed, completed, failed)
  if enqueued == 0 and claimed == 0 and completed == 0 and failed == 0 then
    return
  end
  local key = throughputKeyOf(base)
  local minute = math.floor(nowMs() / 60000)
  -- As text, once for both commands: Redis formats a Lua number argument with %.17g each time.
  local slot = string.format('%d', minute % THROUGHPUT_MINUTES)
  local e, c, d, f = throughputCounts(redis.call('HGET', key, slot), minute)
  redis.call('HSET', key, slot, string.format('%d:%d:%d:%d:%d', minute, enqueued + e,
    claimed + c, completed + d, failed + f))
end
