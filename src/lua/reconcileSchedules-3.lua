--[[
  reconcileSchedules — Queue.audit / Queue.repair of the schedules' keys (DESIGN.md §3
  "Schedules", §4.5; finding kind SCHEDULE, subject the schedule id). A schedule is its three
  fields, written and dropped together (upsertSchedule-3.lua, removeSchedule-3.lua): its next
  tick in `schedules`, its definition in `schedule`, its last run in `schedruns` (none before its
  first tick). One bounded step per call, each atomic; src/lanes/queue/reconcile.ts walks each
  key to its end with the SCAN cursor this answers.

  op 'definitions' (reads only) walks `schedule`: each definition with its next tick and last
  run, and the Redis clock's now. Whether a definition is one (the engine's rule: JSON as
  upsertSchedule writes it, a cron croner reads) and when its next tick is due are computed in
  the engine, as for a tick; what it finds it mends with op 'mend'.
  op 'mend' (repair only) is that write, a compare-and-set per schedule as fireSchedules-11.lua's:
  only if its next tick is still the one read ('' for none) and its definition still hashes to
  the SHA-1 read, action 'next' sets its next tick (a definition without one, or with one later
  than its definition allows) and action 'remove' drops its three fields (a definition that is
  not one; the history keeps its text whole).
  op 'entries' walks `schedules`: an entry without a definition is a finding (a tick reads it due
  and skips it, for ever); repair drops it (ZREM).
  op 'runs' walks `schedruns`: a last run without a definition (an upsert of that id would show
  it) or one that is not '<lastRunAt>:<lastJobId>' (lastRunAt an integer, ms) is a finding;
  repair drops it (HDEL): the schedule shows no last run until its next tick.
  Every other script writes a schedule's fields together, so traffic during a walk makes no
  false finding; SCAN cursors survive the removals.

  Input:
    KEYS[1] schedules  zset   schedule id -> next tick due (ms, Redis clock)
    KEYS[2] schedule   hash   schedule id -> definition (JSON)
    KEYS[3] schedruns  hash   schedule id -> '<lastRunAt>:<lastJobId>'

    ARGV[1] base    'P:{Q}:' — the history key is built from it (includes/keys.lua)
    ARGV[2] mode    'audit' (change nothing) or 'repair'
    ARGV[3] op      'definitions', 'mend', 'entries' or 'runs'
    ARGV[4] actor   who asks (includes/history.lua)
    ARGV[5] cap     the queue history's cap (0 records nothing)
    ops 'definitions', 'entries', 'runs':
      ARGV[6] cursor  the SCAN cursor ('0' to start)
      ARGV[7] count   the SCAN COUNT (a step's size)
    op 'mend':
      ARGV[6] n       the schedules that follow, 1..200
      then 7 per schedule, from a = 6 + 7 × (i − 1):
        ARGV[a+1] id        the schedule's id
        ARGV[a+2] action    'next' or 'remove'
        ARGV[a+3] score     its next tick as op 'definitions' answered it, '' for none
        ARGV[a+4] sha       the SHA-1 (hex) of its definition's text as read
        ARGV[a+5] next      action 'next': the next tick to set (ms, or '+inf': never due)
        ARGV[a+6] found     the finding's found (history)
        ARGV[a+7] expected  the finding's expected (history)

  Output:
    op 'definitions': { now, cursor, entries }: now (ms, Redis clock), the next step's cursor
      ('0' when `schedule` was read to its end), entries flat { id, definition, score | false,
      runs | false, … } (score as Redis writes it)
    op 'mend': { applied }: per schedule in input order, 1 written, 0 moved on (left alone)
    ops 'entries', 'runs': { findings, cursor }: findings flat { id, 'SCHEDULE', expected,
      found, … }, the next step's cursor

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group whose schedule
  it changed (the definition's group; '' for keys of no definition), step 'schedules',
  before/after `{ ["schedule <id>"] = found / expected }` (a removed definition: its whole text).

  Events (repair only): zadd/zrem schedules, hdel schedule, hdel schedruns, xadd history.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "repairHistory"

local schedulesKey = KEYS[1]
local scheduleKey = KEYS[2]
local runsKey = KEYS[3]
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local op = ARGV[3]
local h = historyArgs(ARGV[4], ARGV[5])
local log = repairLog('schedules')

-- The group a definition names, for the history; '' when there is none or it names none.
local function groupOf(definition)
  if not definition then
    return ''
  end
  local ok, d = pcall(cjson.decode, definition)
  if ok and type(d) == 'table' and type(d.group) == 'string' then
    return d.group
  end
  return ''
end

if op == 'definitions' then
  local scan = redis.call('HSCAN', scheduleKey, ARGV[6], 'COUNT', ARGV[7])
  local fields = scan[2]
  local entries = {}
  for i = 1, #fields, 2 do
    local id = fields[i]
    entries[#entries + 1] = id
    entries[#entries + 1] = fields[i + 1]
    entries[#entries + 1] = redis.call('ZSCORE', schedulesKey, id)
    entries[#entries + 1] = redis.call('HGET', runsKey, id)
  end
  return { nowMs(), scan[1], entries }
end

if op == 'mend' then
  local applied = {}
  if not repair then
    return applied
  end
  local STRIDE = 7
  for i = 1, tonumber(ARGV[6]) do
    local a = 6 + STRIDE * (i - 1)
    local id, action, read = ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
    local score = redis.call('ZSCORE', schedulesKey, id)
    local definition = redis.call('HGET', scheduleKey, id)
    local done = 0
    -- Scores compared as Redis writes them: the text op 'definitions' answered.
    if definition and redis.sha1hex(definition) == ARGV[a + 4]
        and (score or '') == read then
      local found = ARGV[a + 6]
      if action == 'next' then
        redis.call('ZADD', schedulesKey, ARGV[a + 5], id)
      else
        redis.call('ZREM', schedulesKey, id)
        redis.call('HDEL', scheduleKey, id)
        redis.call('HDEL', runsKey, id)
        found = 'definition ' .. definition
      end
      noteRepair(log, groupOf(definition), 'schedule ' .. id, found, ARGV[a + 7])
      done = 1
    end
    applied[i] = done
  end
  recordRepairs(base, h, log)
  return applied
end

local findings = {}
local function report(id, group, expected, found)
  if repair then
    noteRepair(log, group, 'schedule ' .. id, found, expected)
  end
  findings[#findings + 1] = id
  findings[#findings + 1] = 'SCHEDULE'
  findings[#findings + 1] = expected
  findings[#findings + 1] = found
end

local scan
if op == 'entries' then
  scan = redis.call('ZSCAN', schedulesKey, ARGV[6], 'COUNT', ARGV[7])
  local items = scan[2]
  for i = 1, #items, 2 do
    local id = items[i]
    if redis.call('HEXISTS', scheduleKey, id) == 0 then
      report(id, '', 'no next tick (no definition: dropped)',
        'a next tick at ' .. items[i + 1] .. ' without a definition')
      if repair then
        redis.call('ZREM', schedulesKey, id)
      end
    end
  end
else
  scan = redis.call('HSCAN', runsKey, ARGV[6], 'COUNT', ARGV[7])
  local items = scan[2]
  for i = 1, #items, 2 do
    local id, raw = items[i], items[i + 1]
    local definition = redis.call('HGET', scheduleKey, id)
    local expected
    if not definition then
      expected = 'no last run (no such schedule: dropped)'
    else
      local at = string.match(raw, '^(%d+):.')
      if safeInteger(at) == nil then
        expected = 'no last run (not <lastRunAt>:<lastJobId>: dropped)'
      end
    end
    if expected then
      report(id, groupOf(definition), expected, 'last run ' .. findingText(raw))
      if repair then
        redis.call('HDEL', runsKey, id)
      end
    end
  end
end
recordRepairs(base, h, log)
return { findings, scan[1] }
