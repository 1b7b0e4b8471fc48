--[[
  The ring's change log (DESIGN.md §4.4, "The ring log"): while a live feed watches a queue's
  ring (P:{Q}:ringwatched exists, a marker the feed sets and renews), every script that changes
  P:{Q}:ring appends what it did to P:{Q}:ringlog, so the feed applies the change to its copy of
  the ring instead of reading the whole ring again. Nobody watching costs one EXISTS per script
  call that changes the ring, never per job or per change (a claim call asks it in its quiet-queue
  probe's EXISTS, includes/quietQueue.lua).

    logRingPush(ringKey, groups, n)   RPUSH of groups[1..n] (the tail)
    logRingUnshift(ringKey, groups)   LPUSH: groups as they now stand at the head, head first
    logRingPop(ringKey, n)            LPOP of n groups (the head)
    logRingRemove(ringKey, group, n)  LREM 0 group that removed n (n 0: nothing logged)
    logLevelsChanged(ringKey)         `levels` changed (includes/levels.lua): one entry 'levels'
                                      per call, which tells the feed to read the rota whole
    knownRingWatched(watched)         the caller asked the marker already (includes/quietQueue.lua
                                      folds it into its probe): no EXISTS asked again this call

  An entry is compact JSON: seq (decimal text, see below), o (the op: 'push', 'unshift', 'pop',
  'rem', 'levels'), g (the groups: push, unshift; the group: rem) or n (how many: pop). seq is the last
  entry's plus one, so a reader sees entries trimmed before it read them as a jump; a log that
  is empty (new, or expired) starts at now × 1000 (ms, Redis clock), past every seq it had
  before, as includes/jobEvents.lua's event lists do. Text, because cjson writes numbers with
  14 significant digits and a seq has 16.

  Bounded: the log keeps the newest RING_LOG_KEPT entries (LTRIM) and expires RING_LOG_TTL_MS
  after it was made unless the feed renews it with the marker.

  Events: rpush/ltrim (and pexpire when made) on ringlog, only while the ring is watched.
]]
--- @include "keys"
--- @include "nowMs"

local RING_LOG_KEPT = 1024
local RING_LOG_TTL_MS = 60000

-- For this script call: nil before the first question, false when the ring is not watched,
-- else the seq of the last entry written (0 before the first).
local ringLogSeq

-- For this script call: whether a 'levels' entry was appended (one is enough, see above).
local levelsLogged

local function ringLogged(ringKey)
  if ringLogSeq == nil then
    ringLogSeq = redis.call('EXISTS', ringWatchedKeyOf(baseOf(ringKey, 'ring'))) == 1 and 0
  end
  return ringLogSeq ~= false
end

local function knownRingWatched(watched)
  if ringLogSeq == nil then
    ringLogSeq = watched and 0
  end
end

local function appendRingLog(ringKey, entry)
  local key = ringLogKeyOf(baseOf(ringKey, 'ring'))
  if ringLogSeq == 0 then
    local last = redis.call('LINDEX', key, -1)
    local ok, decoded = pcall(cjson.decode, last or '')
    ringLogSeq = ok and type(decoded) == 'table' and tonumber(decoded.seq) or nowMs() * 1000
  end
  ringLogSeq = ringLogSeq + 1
  entry.seq = string.format('%d', ringLogSeq)
  if redis.call('RPUSH', key, cjson.encode(entry)) == 1 then
    redis.call('PEXPIRE', key, RING_LOG_TTL_MS)
  end
  redis.call('LTRIM', key, -RING_LOG_KEPT, -1)
end

local function logRingPush(ringKey, groups, n)
  if ringLogged(ringKey) then
    appendRingLog(ringKey, { o = 'push', g = { unpack(groups, 1, n) } })
  end
end

local function logRingUnshift(ringKey, groups)
  if ringLogged(ringKey) then
    appendRingLog(ringKey, { o = 'unshift', g = groups })
  end
end

local function logRingPop(ringKey, n)
  if ringLogged(ringKey) then
    appendRingLog(ringKey, { o = 'pop', n = n })
  end
end

local function logRingRemove(ringKey, group, n)
  if n > 0 and ringLogged(ringKey) then
    appendRingLog(ringKey, { o = 'rem', g = group })
  end
end

local function logLevelsChanged(ringKey)
  if not levelsLogged and ringLogged(ringKey) then
    levelsLogged = true
    appendRingLog(ringKey, { o = 'levels' })
  end
end
