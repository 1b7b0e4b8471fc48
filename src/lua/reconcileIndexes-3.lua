--[[
  reconcileIndexes — Queue.audit / Queue.repair of I4's paired indexes (DESIGN.md §3, §4.5): a
  job in `delayed` is in its group's delayed index at the same score, and the other way round;
  `dead` and `completed` likewise. One bounded step per call (a batch of members read by rank
  from where the last call stopped), so an index of any size never blocks Redis for long; the
  caller (src/lanes/queue/reconcile.ts) walks each index in steps.

  op 'queue' walks a queue-wide index. Each member needs a job hash naming its group (else:
  finding; repair drops the member), and must be in that group's index at the same score (else:
  finding; repair adds it there). The step tallies, per group, the members that are (after a
  repair: now) properly in the group's index.
  op 'cards' answers the size of each given group's three indexes. A group whose index holds
  more members than the 'queue' walk tallied for it holds a stray: only such groups are walked.
  op 'group' walks one group's index. Each member must be in the queue-wide index, its hash
  naming this group. One missing from the queue-wide index whose hash says it is of this group
  and in this state is put back there (repair; at the group index's score); any other member is
  a stray entry and repair drops it from the group's index (the job, if any, is elsewhere).

  Input:
    KEYS[1] delayed    zset   delayed job id -> run-at time (ms)
    KEYS[2] dead       zset   dead job id -> time it died (ms)
    KEYS[3] completed  zset   retained completed job id -> time it completed (ms)

    ARGV[1] base    'P:{Q}:' — job keys and group indexes are built from it (includes/keys.lua)
    ARGV[2] mode    'audit' (change nothing) or 'repair'
    ARGV[3] op      'queue', 'group' or 'cards'
    op 'queue':  ARGV[4] kind ('delayed', 'dead' or 'completed'), ARGV[5] start rank,
                 ARGV[6] batch size
    op 'group':  ARGV[4] kind, ARGV[5] group, ARGV[6] start rank, ARGV[7] batch size
    op 'cards':  ARGV[4..] groups
    op 'payloads' ('results'): ARGV[4] HSCAN cursor of P:{Q}:payloads (P:{Q}:results; '0' to
                 start), ARGV[5] COUNT
    ops 'queue', 'group', 'payloads' and 'results', last: actor (who asks), cap (the queue history's cap;
                 0 records nothing) — includes/history.lua

  Output:
    op 'queue' and 'group': { findings, next, tallies, delta }
      findings  flat { job id, 'I4', expected, found, ... }
      next      the rank the next step starts at (members a repair dropped before it taken
                into account), or -1 when the index was read to its end
      tallies   flat { group, members properly in its index, ... } (op 'queue'; else empty)
      delta     members a repair adds to the queue-wide index less those it drops from it
                (done in 'repair' mode, what repair would do in 'audit' mode): the change of
                ZCARD `delayed` the delayed total's recount must expect
    op 'cards': flat { delayed, dead, completed } sizes per group, in the order given
    op 'payloads' ('results'): { findings, cursor ('0' when the hash was read to its end), {},
      0 }: each payload (result) whose job has no hash (a leak, I4; repair deletes it)

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group whose indexes
  it changed (the job's group; '' for a member or payload whose job has no hash), step
  'indexes', 'payloads' or 'results', before/after `{ ["job <id>"] = found / expected }`.

  Events (repair only): zadd/zrem delayed, dead, completed and the group indexes; hset settings
  delayedAt (a job put back in `delayed` before it, includes/nextDue.lua); hdel payloads
  and results;
  xadd history.
]]
--- @include "keys"
--- @include "jobPlaces"
--- @include "repairHistory"
--- @include "nextDue"

local k = { delayed = KEYS[1], dead = KEYS[2], completed = KEYS[3] }
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local op = ARGV[3]

if op == 'cards' then
  local cards = {}
  for i = 4, #ARGV do
    for _, kind in ipairs({ 'delayed', 'dead', 'completed' }) do
      local _, groupIndex = indexesOf(k, base, kind, ARGV[i])
      cards[#cards + 1] = redis.call('ZCARD', groupIndex)
    end
  end
  return cards
end

local h = historyArgs(ARGV[#ARGV - 1], ARGV[#ARGV])
local log = repairLog((op == 'payloads' or op == 'results') and op or 'indexes')
local findings = {}
-- group: whose index the repair changes ('' when the job has no hash to name one).
local function report(id, expected, found, group)
  if repair then
    noteRepair(log, group, 'job ' .. id, found, expected)
  end
  findings[#findings + 1] = id
  findings[#findings + 1] = 'I4'
  findings[#findings + 1] = expected
  findings[#findings + 1] = found
end

if op == 'payloads' or op == 'results' then
  -- A payload (a result) is kept exactly while its job's hash exists (DESIGN.md §2, "Job
  -- layout"): one whose job is gone is a leak (no reader can reach it); repair deletes it.
  -- HSCAN's cursor survives the deletions (a field deleted is not seen again, every other is).
  local hashKey = op == 'payloads' and payloadsKeyOf(base) or resultsKeyOf(base)
  local what = op == 'payloads' and 'payload' or 'result'
  local scan = redis.call('HSCAN', hashKey, ARGV[4], 'COUNT', ARGV[5])
  local fields = scan[2]
  for i = 1, #fields, 2 do
    local id = fields[i]
    if redis.call('EXISTS', jobKeyOf(base, id)) == 0 then
      report(id, 'no ' .. what .. ' (the job has no hash)', 'a ' .. what .. ' in ' .. op, '')
      if repair then
        redis.call('HDEL', hashKey, id)
      end
    end
  end
  recordRepairs(base, h, log)
  return { findings, scan[1], {}, 0 }
end

local kind = ARGV[4]
local walked, group, start, batch
if op == 'queue' then
  walked = indexesOf(k, base, kind, nil)
  start, batch = tonumber(ARGV[5]), tonumber(ARGV[6])
else
  group = ARGV[5]
  local _, groupIndex = indexesOf(k, base, kind, group)
  walked = groupIndex
  start, batch = tonumber(ARGV[6]), tonumber(ARGV[7])
end
-- The name a finding gives an index: 'delayed', or 'delayed of group <group>'.
local function named(g)
  if g then
    return kind .. ' of group ' .. g
  end
  return kind
end

local members = redis.call('ZRANGE', walked, start, start + batch - 1, 'WITHSCORES')
local dropped = 0
local delta = 0
local tally, tallyOrder = {}, {}
for i = 1, #members, 2 do
  local id, score = members[i], members[i + 1]
  local job = redis.call('HMGET', jobKeyOf(base, id), 'group', 'state')
  local owner, state = job[1], job[2]
  if op == 'queue' then
    if not owner then
      report(id, 'a job hash naming its group', 'in ' .. named(nil) .. ' with no job hash', '')
      delta = delta - 1
      if repair then
        redis.call('ZREM', walked, id)
        dropped = dropped + 1
      end
    else
      local _, groupIndex = indexesOf(k, base, kind, owner)
      local paired = redis.call('ZSCORE', groupIndex, id)
      if not paired or tonumber(paired) ~= tonumber(score) then
        report(id, 'in ' .. named(owner) .. ' at ' .. score,
          paired and ('in ' .. named(owner) .. ' at ' .. paired) or ('only in ' .. kind), owner)
        if repair then
          redis.call('ZADD', groupIndex, score, id)
          paired = score
        end
      end
      if paired and tonumber(paired) == tonumber(score) then
        if tally[owner] == nil then
          tally[owner] = 0
          tallyOrder[#tallyOrder + 1] = owner
        end
        tally[owner] = tally[owner] + 1
      end
    end
  else
    local queueIndex = indexesOf(k, base, kind, nil)
    local inQueue = redis.call('ZSCORE', queueIndex, id)
    if not (inQueue and owner == group) then
      if not inQueue and owner == group and state == kind then
        report(id, 'in ' .. kind .. ' at ' .. score, 'only in ' .. named(group), group)
        delta = delta + 1
        if repair then
          redis.call('ZADD', queueIndex, score, id)
          if kind == 'delayed' then
            -- A job put back in `delayed` lowers the queue's "next due at" (includes/nextDue.lua).
            lowerDue(settingsKeyOf(base), 'delayedAt', score)
          end
        end
      else
        local why
        if not owner then
          why = 'no job hash'
        elseif owner ~= group then
          why = 'the job is of group ' .. owner
        else
          why = 'the job is ' .. tostring(state) .. ', not in ' .. kind
        end
        report(id, 'not in ' .. named(group) .. ' (' .. why .. ')', 'in ' .. named(group), group)
        if repair then
          redis.call('ZREM', walked, id)
          dropped = dropped + 1
        end
      end
    end
  end
end

local tallies = {}
for _, owner in ipairs(tallyOrder) do
  tallies[#tallies + 1] = owner
  tallies[#tallies + 1] = tally[owner]
end
recordRepairs(base, h, log)
local nextStart = -1
if #members == 2 * batch then
  nextStart = start + batch - dropped
end
return { findings, nextStart, tallies, delta }
