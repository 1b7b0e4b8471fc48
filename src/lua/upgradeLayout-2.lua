--[[
  upgradeLayout — one bounded step of converting a queue of the job layout before (1: each
  payload in its job's hash) to this one in place (DESIGN.md §2, "Job layout", "Upgrading in
  place"). A step visits the job ids from the queue's cursor on, at most `batch` of them, and
  moves each payload it finds from the job's hash to `payloads`; the step that reaches the last
  id minted marks the queue with this layout. Until then `layout` holds UPGRADING and
  `layoutNext` the id the next step starts at, so a stopped upgrade resumes where it stopped and
  every engine of this version refuses to enqueue or claim there (checkLayout-9.lua answers
  "another mark"). A job's other fields, its lane, its lease and its token are not touched: a
  job in flight is completed as before. Ids are visited rather than indexes walked because
  every job hash a Ringmaster wrote is `job:<id>` for an id at or below `seq`, whatever its
  state (pending in any lane, delayed, active, completed, dead), and one minted by a writer of
  the layout before while the upgrade runs is above the cursor, so it is met too.

  Input:
    KEYS[1] settings  hash    `layout` (the mark), `layoutNext` (the cursor of an upgrade)
    KEYS[2] seq       string  job id counter: the last id minted

    ARGV[1] base      the queue's 'P:{Q}:' (job hashes and `payloads` are built from it)
    ARGV[2] layout    the engine's layout ('2', keys.ts JOB_LAYOUT)
    ARGV[3] batch     job ids visited at most by this step (1..10,000, checked by the engine)

  Output: { status, mark, moved, visitedTo, lastId }
    status 0  done: the queue is of this layout now (or was; or never minted an id, and is
              left unmarked: nothing to convert, its first enqueue marks it)
           1  marked with another layout (`mark`): nothing written
           2  this step moved what it found; more ids to visit (`visitedTo` + 1 onwards)
           3  `seq` is not a non-negative integer (`mark` holds its text): nothing written
    mark: `layout` after the step (false for none); moved: payloads moved by this step;
    visitedTo: the last id this step visited (0 for none); lastId: the queue's `seq`.

  Memory: runs at maxmemory (allow-oom): a moved payload leaves its hash as it joins `payloads`.

  Events: hset/hdel settings, hset payloads, hdel on each job hash that held a payload.
]]
--- @include "keys"
--- @include "safeInteger"

local UPGRADING = 'upgrading'

local settingsKey = KEYS[1]
local base = ARGV[1]
local layout = ARGV[2]
local batch = tonumber(ARGV[3])

local state = redis.call('HMGET', settingsKey, 'layout', 'layoutNext')
local mark = state[1]
if mark == layout then
  return { 0, mark, 0, 0, 0 }
end
if mark and mark ~= UPGRADING then
  return { 1, mark, 0, 0, 0 }
end
local seqText = redis.call('GET', KEYS[2])
if not seqText then
  return { 0, false, 0, 0, 0 }
end
local lastId = safeInteger(seqText)
if lastId == nil or lastId < 0 then
  return { 3, seqText, 0, 0, 0 }
end
local from = (mark and safeInteger(state[2])) or 1
local to = math.min(from + batch - 1, lastId)
local payloads = payloadsKeyOf(base)
local moved = 0
for n = from, to do
  local id = string.format('%d', n)
  local key = jobKeyOf(base, id)
  local payload = redis.call('HGET', key, 'payload')
  if payload then
    redis.call('HSET', payloads, id, payload)
    redis.call('HDEL', key, 'payload')
    moved = moved + 1
  end
end
if to >= lastId then
  redis.call('HSET', settingsKey, 'layout', layout)
  redis.call('HDEL', settingsKey, 'layoutNext')
  return { 0, layout, moved, to, lastId }
end
redis.call('HSET', settingsKey, 'layout', UPGRADING, 'layoutNext', string.format('%d', to + 1))
return { 2, UPGRADING, moved, to, lastId }
