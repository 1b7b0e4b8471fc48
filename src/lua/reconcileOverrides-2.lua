--[[
  reconcileOverrides — Queue.audit / Queue.repair of the timed-override keys (DESIGN.md §4.5,
  §4.8). A pending override is two halves written and dropped together by one script
  (includes/overrides.lua setOverride / dropOverride, applyOverrides): the deadline, member
  '<kind>:<group>' of `overrides` at its `until`, and the data, the same field of `goverride`,
  JSON { until, revertTo, setAt, actor }. Reads show the data (includes/groupReply.lua); only the
  deadline makes applyOverrides revert it. So, for every member (the invariant, I6):
    - it names a kind and a group: '<limit|pause>:<group id>', the group not empty;
    - its data decodes: `until` and `setAt` integers (ms), `revertTo` of its kind (a limit: a
      non-negative integer, or null for none; a pause: true or false);
    - it has both halves, and the deadline's score is the data's `until`.
  One bounded step per call (an HSCAN or ZSCAN step from the caller's cursor: src/lanes/
  reconcile.ts walks each key to its end), so any number of overrides never blocks Redis long.

  op 'data' walks `goverride`. A field that names no kind or group, or whose data does not
  decode as above, is a finding; repair drops both halves (reads already show no override for
  it, and applyOverrides would drop it at its deadline without reverting). A valid one without
  a deadline (it would be shown pending and never revert) or with a deadline other than its
  `until` is a finding; repair writes the deadline at `until` (ZADD), so the revert the reads
  show runs when they say (at the next applyOverrides pass if that time has passed).
  op 'deadlines' walks `overrides`. A member without data is a finding (reads show nothing for
  it and applyOverrides would drop it without reverting); repair drops it (ZREM). Members with
  data are judged by op 'data'.
  Each step is atomic and every script writes both halves together, so traffic during the walk
  makes no false finding; SCAN cursors survive the removals (a member removed is not seen again,
  every other one is seen at least once — a deadline moved while a walk is under way may be seen
  twice, and judged the same each time).

  Input:
    KEYS[1] overrides  zset   '<kind>:<group>' -> until (ms, Redis clock)
    KEYS[2] goverride  hash   '<kind>:<group>' -> JSON { until, revertTo, setAt, actor }

    ARGV[1] base    'P:{Q}:' — the history key is built from it (includes/keys.lua)
    ARGV[2] mode    'audit' (change nothing) or 'repair'
    ARGV[3] op      'data' (HSCAN goverride) or 'deadlines' (ZSCAN overrides)
    ARGV[4] cursor  the SCAN cursor ('0' to start)
    ARGV[5] count   the SCAN COUNT (a step's size)
    ARGV[6] actor   who asks (includes/history.lua)
    ARGV[7] cap     the queue history's cap (0 records nothing)

  Output: { findings, cursor }
    findings  flat { member, 'OVERRIDE', expected, found, ... }
    cursor    the next step's cursor, '0' when the key was read to its end

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group whose
  override keys it changed (the member's group; '' for a member that names none), step
  'overrides', before/after `{ ["override <member>"] = found / expected }`.

  Events (repair only): zadd/zrem overrides, hdel goverride, xadd history.
]]
--- @include "keys"
--- @include "repairHistory"

local overridesKey = KEYS[1]
local dataKey = KEYS[2]
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local op = ARGV[3]
local h = historyArgs(ARGV[6], ARGV[7])
local log = repairLog('overrides')
local findings = {}

-- The largest integer a double holds exactly: a deadline beyond it cannot be compared.
local MAX_SAFE = 9007199254740991

local function report(member, group, expected, found)
  if repair then
    noteRepair(log, group, 'override ' .. member, found, expected)
  end
  findings[#findings + 1] = member
  findings[#findings + 1] = 'OVERRIDE'
  findings[#findings + 1] = expected
  findings[#findings + 1] = found
end

-- kind, group of a member, or nil when it names none.
local function parseMember(member)
  local kind, group = string.match(member, '^(%a+):(.*)$')
  if (kind ~= 'limit' and kind ~= 'pause') or group == nil or group == '' then
    return nil
  end
  return kind, group
end

local function isMs(v)
  return type(v) == 'number' and v >= 0 and v <= MAX_SAFE and math.floor(v) == v
end

-- The data of a kind's override as a table, or nil when it is not what setOverride writes.
local function validData(kind, raw)
  local ok, o = pcall(cjson.decode, raw)
  if not ok or type(o) ~= 'table' or not isMs(o['until']) or not isMs(o.setAt) then
    return nil
  end
  local r = o.revertTo
  if kind == 'limit' then
    if r ~= nil and r ~= cjson.null and not isMs(r) then
      return nil
    end
  elseif type(r) ~= 'boolean' then
    return nil
  end
  return o
end

local function cut(text)
  return #text > 100 and (string.sub(text, 1, 100) .. '…') or text
end

local scan
if op == 'data' then
  scan = redis.call('HSCAN', dataKey, ARGV[4], 'COUNT', ARGV[5])
  local fields = scan[2]
  for i = 1, #fields, 2 do
    local member, raw = fields[i], fields[i + 1]
    local kind, group = parseMember(member)
    local o = kind and validData(kind, raw)
    if not o then
      report(member, group or '', 'no override (not a valid timed override: dropped)',
        'override data ' .. cut(raw))
      if repair then
        redis.call('ZREM', overridesKey, member)
        redis.call('HDEL', dataKey, member)
      end
    else
      local untilMs = string.format('%d', o['until'])
      local score = redis.call('ZSCORE', overridesKey, member)
      if score == false or tonumber(score) ~= o['until'] then
        report(member, group, 'a deadline at ' .. untilMs .. ' (its until)',
          score == false and 'no deadline: it would never revert' or ('a deadline at ' .. score))
        if repair then
          redis.call('ZADD', overridesKey, untilMs, member)
        end
      end
    end
  end
else
  scan = redis.call('ZSCAN', overridesKey, ARGV[4], 'COUNT', ARGV[5])
  local items = scan[2]
  for i = 1, #items, 2 do
    local member, score = items[i], items[i + 1]
    if redis.call('HEXISTS', dataKey, member) == 0 then
      local _, group = parseMember(member)
      report(member, group or '', 'no deadline (no override data: nothing to revert)',
        'a deadline at ' .. score .. ' without data')
      if repair then
        redis.call('ZREM', overridesKey, member)
      end
    end
  end
end
recordRepairs(base, h, log)
return { findings, scan[1] }
