--[[
  reconcileOverrides — Queue.audit / Queue.repair of the timed-override keys (DESIGN.md §4.5,
  §4.8). A pending override is two halves written and dropped together by one script
  (includes/overrides.lua setOverride / dropOverride, applyOverrides): the deadline, member
  '<kind>:<group>' of `overrides` at its `until`, and the data, the same field of `goverride`,
  JSON { until, revertTo, setAt, actor }. Reads show the data (includes/groupReply.lua); only the
  deadline makes applyOverrides revert it. So, for every member (the invariant, I6):
    - it names a kind and a group: '<limit|pause>:<group id>', the group not empty, or is the
      queue's cap, 'queueLimit:' (no group);
    - its data is an override by the rule the reads and applyOverrides share
      (includes/overrideData.lua, overrideOf): a JSON object with `until` and `setAt`
      integers (ms); its `revertTo` as written is what the revert applies (a limit: a
      non-negative integer, or null for none; a pause: true or false);
    - it has both halves, and the deadline's score is the data's `until`.
  One bounded step per call (an HSCAN or ZSCAN step from the caller's cursor: src/lanes/
  reconcile.ts walks each key to its end), so any number of overrides never blocks Redis long.

  op 'data' walks `goverride`. A field that names no kind or group, or whose data is not an
  override, is a finding; repair drops both halves (reads already show no override for it, and
  applyOverrides would drop it at its deadline without reverting). An override whose stored
  revertTo is not of its kind (a limit's 'ten', a pause's null or none) is shown and reverted as
  overrideOf reads it (a limit: null, no limit; a pause: false, resume): a finding, and repair
  rewrites the data with that revertTo (HSET), kept, so the revert does what the reads show and
  what it did before the repair. An override (after that) without
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

  Events (repair only): zadd/zrem overrides, hset/hdel goverride, xadd history.
]]
--- @include "keys"
--- @include "repairHistory"
--- @include "overrideData"

local overridesKey = KEYS[1]
local dataKey = KEYS[2]
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local op = ARGV[3]
local h = historyArgs(ARGV[6], ARGV[7])
local log = repairLog('overrides')
local findings = {}

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
  if kind == 'queueLimit' and group == '' then
    -- The queue's cap (DESIGN.md §4.8): the one member of no group.
    return kind, group
  end
  if (kind ~= 'limit' and kind ~= 'pause') or group == nil or group == '' then
    return nil
  end
  return kind, group
end

local scan
if op == 'data' then
  scan = redis.call('HSCAN', dataKey, ARGV[4], 'COUNT', ARGV[5])
  local fields = scan[2]
  for i = 1, #fields, 2 do
    local member, raw = fields[i], fields[i + 1]
    local kind, group = parseMember(member)
    local o, normalised
    if kind then
      o, normalised = overrideOf(kind, raw)
    end
    if not o then
      report(member, group or '', 'no override (not a valid timed override: dropped)',
        'override data ' .. findingText(raw))
      if repair then
        redis.call('ZREM', overridesKey, member)
        redis.call('HDEL', dataKey, member)
      end
    else
      if normalised then
        local json = overrideJson(o)
        report(member, group, 'override data ' .. findingText(json) .. ' (revertTo as its revert applies it)',
          'override data ' .. findingText(raw))
        if repair then
          redis.call('HSET', dataKey, member, json)
        end
      end
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
