--[[
  checkLayout — is the queue's job layout the one these scripts write (DESIGN.md §2, "Job
  layout")? The engine asks once per queue and connection, before its first enqueue or claim
  (src/lanes/redis/connection.ts, `laidOut`). Layout 2 keeps each payload in
  P:{Q}:payloads; the layout before it (1, no mark) kept it in the job's hash, where a claim
  of these scripts would not look, so such jobs would run with no payload. No silent mix: a
  queue with no mark and no job is taken as this layout and marked; one with jobs is refused
  (the engine's message says what to do), and so is one marked with another layout.
  O(1): the mark, the id counter, the totals in `stats`, the sizes of `completed` and `dead`, and, since the
  totals can drift or be missing (a hand edit, another writer of the original layout's keys), the
  job places that O(1) reads can see: the rota (the ring and `levels`), `active`, `delayed`, `gactive`, on a queue whose
  ids a Ringmaster minted (`seq`); a queue without `seq` holds no job a Ringmaster wrote (the
  original layout's keys written by another program have no job hash, so no payload to lose) and
  passes.

  Input:
    KEYS[1] settings   hash   `layout`: the mark (enqueue also writes it with a queue's first id)
    KEYS[2] stats      hash   totals pending, delayed, active
    KEYS[3] completed  zset   retained completed jobs
    KEYS[4] dead       zset   dead jobs
    KEYS[5] seq        string job id counter: a queue that never minted an id is left unmarked
                              (its first enqueue marks it), so asking writes nothing there
    KEYS[6] ring       list   serviceable groups at the default level (a group on it has
                              pending jobs); those of the other levels are in P:{Q}:levels,
                              built from it (includes/keys.lua baseOf)
    KEYS[7] active     zset   active jobs
    KEYS[8] delayed    zset   delayed jobs
    KEYS[9] gactive    hash   group -> active count

    ARGV[1] layout     the engine's layout ('2', keys.ts JOB_LAYOUT)

  Output: { status, found, pending, delayed, active, completed, dead }
    status 0  the queue is of this layout (marked now if it had no mark, no job and an id
              counter; a queue with no counter is new: passed, not written)
           1  marked with another layout (`found`): refused
           2  no mark, and jobs of the layout before (the counts that follow): refused
           3  no mark, totals that say none, yet jobs are evident (what follows: the rota's
              length at every level, LLEN ring + ZCARD `levels`; active, delayed, gactive's
              length): refused
    found: the mark as stored (false for none); counts: the totals and sizes read (status 2),
    or the evidence (status 3).

  Memory: runs at maxmemory (noeviction): the mark is a few bytes (includes/allowAtMaxmemory.lua).

  Events: hset settings (when it marks an empty queue that had jobs once).
]]
--- @include "allowAtMaxmemory"
--- @include "safeInteger"
--- @include "keys"
--- @include "levels"

local settingsKey = KEYS[1]
local statsKey = KEYS[2]
local layout = ARGV[1]

local found = redis.call('HGET', settingsKey, 'layout')
if found == layout then
  return { 0, found }
end
if found then
  return { 1, found }
end
-- No id ever minted: no Ringmaster wrote jobs here (another writer of the original layout's keys
-- may have: those jobs have no hash and no payload to lose). Passed, not written, asked again.
if redis.call('EXISTS', KEYS[5]) == 0 then
  return { 0, false }
end
local totals = redis.call('HMGET', statsKey, 'pending', 'delayed', 'active')
local counts = {}
local any = false
for i = 1, 3 do
  -- A total that is not an exact integer counts as jobs held: refused rather than guessed.
  local n = safeInteger(totals[i])
  if totals[i] and n == nil then
    n = 1
  end
  counts[i] = n or 0
end
counts[4] = redis.call('ZCARD', KEYS[3])
counts[5] = redis.call('ZCARD', KEYS[4])
for i = 1, 5 do
  if counts[i] ~= 0 then
    any = true
  end
end
if any then
  return { 2, false, counts[1], counts[2], counts[3], counts[4], counts[5] }
end
local evidence = {
  rotaLength(KEYS[6], baseOf(KEYS[6], 'ring')),
  redis.call('ZCARD', KEYS[7]),
  redis.call('ZCARD', KEYS[8]),
  redis.call('HLEN', KEYS[9]),
}
for i = 1, 4 do
  if evidence[i] ~= 0 then
    return { 3, false, evidence[1], evidence[2], evidence[3], evidence[4] }
  end
end
allowAtMaxmemory(settingsKey)
redis.call('HSET', settingsKey, 'layout', layout)
return { 0, layout }
