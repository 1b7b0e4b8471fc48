--[[
  The steering history (DESIGN.md §2 `history`, §4.6): a steering script records what it did in
  the same script that does it, so an entry exists exactly when its change does, and a call
  refused before its first write records nothing.

  recordHistory(base, h, action, group, before, after, detail)
    base     'P:{Q}:' (the streams are built from it, includes/keys.lua)
    h        { actor, cap } from the script's ARGV (the engine's `historyArgs`): actor is who
             asked (a token's name, its role, or the engine's `actor` option), cap the most
             entries the queue's stream keeps (a count; 0 records nothing)
    action   the steering action's name: setLimit, clearLimit, pause, resume, pauseQueue, … and
             'revert' for a timed override applied at its deadline (DESIGN.md §4.6 lists them)
    group    the group acted on, or '' for an action on the whole queue
    before, after, detail   Lua tables written as JSON text, or nil (field left out)
  One entry goes to the queue's stream (capped at cap; exact MAXLEN, so a cap is a cap), and
  only there: a group's history is the queue's entries whose `group` is it (the engine filters
  them, DESIGN.md §4.6), as a stream per group would cost ~4.7 KB per group. The entry's
  stream id is `<Redis time ms>-<n>`: when it happened. Fields: action, group, actor, and
  before / after / detail when given.

  historyIds(ids, from, to)   the first HISTORY_IDS_KEPT of ids[from..to] (a detail names a
                              few of a call's ids, never all of a 1,000-id call); nil when
                              there are none (cjson would write an empty list as {})
  scheduleForHistory(definition)
                              a schedule's decoded definition as an entry holds it: its payload
                              (JSON text, up to 512 KiB) as payloadBytes and payloadSha1, so no
                              entry grows with a payload (DESIGN.md §4.6); null: neither
  storedSchedule(text)        a stored schedule definition decoded, or nil when it is not a
                              JSON object (broken by hand or by another writer: Queue.schedules
                              lists it as unreadable); decoded before the caller's first write,
                              so such a definition never stops a script part way
  A caller records only after its last refusal (every check before the first write), so a
  refused call records nothing.
]]
--- @include "keys"

local HISTORY_IDS_KEPT = 10

local function historyIds(ids, from, to)
  local kept = {}
  for i = from, math.min(to, from + HISTORY_IDS_KEPT - 1) do
    kept[#kept + 1] = ids[i]
  end
  if #kept == 0 then
    return nil
  end
  return kept
end

local function scheduleForHistory(definition)
  local payload = definition.payload
  definition.payload = nil
  if type(payload) == 'string' then
    definition.payloadBytes = #payload
    definition.payloadSha1 = redis.sha1hex(payload)
  end
  return definition
end

local function storedSchedule(text)
  local ok, definition = pcall(cjson.decode, text)
  if ok and type(definition) == 'table' then
    return definition
  end
  return nil
end

local function historyArgs(actor, cap)
  return { actor = actor, cap = tonumber(cap) or 0 }
end

local function recordHistory(base, h, action, group, before, after, detail)
  if h.cap <= 0 then
    return
  end
  local fields = { 'action', action, 'group', group, 'actor', h.actor }
  if before ~= nil then
    fields[#fields + 1] = 'before'
    fields[#fields + 1] = cjson.encode(before)
  end
  if after ~= nil then
    fields[#fields + 1] = 'after'
    fields[#fields + 1] = cjson.encode(after)
  end
  if detail ~= nil then
    fields[#fields + 1] = 'detail'
    fields[#fields + 1] = cjson.encode(detail)
  end
  redis.call('XADD', historyKeyOf(base), 'MAXLEN', h.cap, '*', unpack(fields))
end
