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
--- @include "smallCounts"

-- A slot's text: its minute and four counts, each as digits.
local THROUGHPUT_SLOT = '^(%d+):(%d+):(%d+):(%d+):(%d+)$'

-- The counts a slot's text holds for `minute`: four zeros when the slot is empty or holds
-- another minute.
local function throughputCounts(held, minute)
  if held then
    local m, e, c, d, f = string.match(held, THROUGHPUT_SLOT)
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
  local held = redis.call('HGET', key, slot)
  local m, e, c, d, f
  if held then
    m, e, c, d, f = string.match(held, THROUGHPUT_SLOT)
  end
  -- Only the counts this call adds to are parsed and formatted again (the digits read as a
  -- number by the addition); the others are copied as text.
  if m and tonumber(m) == minute then
    if enqueued ~= 0 then
      e = string.format('%d', e + enqueued)
    end
    if claimed ~= 0 then
      c = string.format('%d', c + claimed)
    end
    if completed ~= 0 then
      d = string.format('%d', d + completed)
    end
    if failed ~= 0 then
      f = string.format('%d', f + failed)
    end
  else
    m = string.format('%d', minute)
    e = COUNT_TEXT[enqueued] or string.format('%d', enqueued)
    c = COUNT_TEXT[claimed] or string.format('%d', claimed)
    d = COUNT_TEXT[completed] or string.format('%d', completed)
    f = COUNT_TEXT[failed] or string.format('%d', failed)
  end
  redis.call('HSET', key, slot, m .. ':' .. e .. ':' .. c .. ':' .. d .. ':' .. f)
end
