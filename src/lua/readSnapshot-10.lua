--[[
  readSnapshot — one moment of a queue, for Queue.snapshot (the admin console's view): the ring, the totals, the
  event counters, a page of groups and a few groups asked for by id, all read in one script so
  no claim or steering call can run between two of the reads. An admin console that draws its
  panels from one such read never shows two answers to one question (a group "at limit" in the
  table and at the head of the ring). Read-only; O(ring + page + picked), O(ringFirst + page +
  picked) with a ringFirst (DESIGN.md §4.2, `snapshot`).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] paused   set    paused groups
    KEYS[4] ring     list   serviceable groups, head first
    KEYS[5] groups   zset   group registry (score 0: lexicographic paging)
    KEYS[6] stats    hash   counters and totals
    KEYS[7] active   zset   active job ids
    KEYS[8] dead     zset   dead job ids
    KEYS[9] completed zset  retained completed job ids
    KEYS[10] settings hash  queue settings: paused

    ARGV[1] base     'P:{Q}:' — each group's lane P:{Q}:g:<group>:pending is built from it
                     (includes/keys.lua); it shares the queue's slot
    ARGV[2] first    page size (the script reads first + 1 ids to tell whether a page follows)
    ARGV[3] min      ZRANGEBYLEX lower bound ('-', '[prefix' or '(cursor'), built by the caller
    ARGV[4] prefix   '' for every group, else the id prefix: the upper bound is '[' prefix 0xff
                     (no UTF-8 text holds byte 0xff) and the total counts the matches only
    ARGV[5] ringFirst  the ring's first n groups only (n ≥ 0), or -1 for the whole ring
    ARGV[6 ..]       ids of groups to read besides the page (the console's chosen group)

  Output: { at, ring, total, pageIds, pageFields, pickedFields, cards, stats, queuePaused,
            ringSize, ringLevels }
    at            ms, the Redis clock (TIME), the moment of every read below
    ring          the rota in claim order, head first (its first ringFirst groups with one):
                  `levels`' groups of levels 1–4, the ring, those of levels 6–9 (DESIGN.md §3,
                  "Levels"; built key P:{Q}:levels, includes/levels.lua)
    total         registered groups (with a prefix: those matching)
    pageIds       up to first + 1 ids after `min`, in id order
    pageFields    the group fields (includes/groupReply.lua) of each of the first `first` page ids, flat
    pickedFields  the same, for each id of ARGV[6 ..]
    cards         { groups, paused, active, dead, completed } cardinalities; dead and completed
                  leave out jobs past their retention age no trim has reached yet
                  (includes/retentionAge.lua keptCount), as the job reads do
    stats         HGETALL stats, flat (the delayed total among them)
    queuePaused   1 while the queue is paused (pauseQueue), else 0
    ringSize      the rota's length (LLEN of the ring + ZCARD of `levels`)
    ringLevels    the level of each group of `ring` (1–9; 5 for the ring's)

  Events: none.
]]
--- @include "keys"
--- @include "groupReply"
--- @include "nowMs"
--- @include "retentionAge"
--- @include "levels"

local k = { base = ARGV[1], glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3] }
local ringKey = KEYS[4]
local groupsKey = KEYS[5]
local statsKey = KEYS[6]
local activeKey = KEYS[7]
local deadKey = KEYS[8]
local completedKey = KEYS[9]
local settingsKey = KEYS[10]
local base = ARGV[1]
local first = tonumber(ARGV[2])
local min = ARGV[3]
local prefix = ARGV[4]
local ringFirst = tonumber(ARGV[5])

local max = '+'
local total
if prefix == '' then
  total = redis.call('ZCARD', groupsKey)
else
  max = '[' .. prefix .. '\255'
  total = redis.call('ZLEXCOUNT', groupsKey, '[' .. prefix, max)
end
local pageIds = redis.call('ZRANGEBYLEX', groupsKey, min, max, 'LIMIT', 0, first + 1)

local function fieldsOf(ids, from, to)
  local flat = {}
  for i = from, to do
    local group = ids[i]
    local g = readGroup(k, group, laneKeyOf(base, group))
    appendFields(flat, g)
  end
  return flat
end

local at = nowMs()
local ring, ringLevels = {}, {}
if ringFirst ~= 0 then
  -- The rota in claim order (includes/levels.lua): levels 1–4, the ring, levels 6–9.
  ring, ringLevels = readRota(ringKey, base, ringFirst)
end
return {
  at,
  ring,
  total,
  pageIds,
  fieldsOf(pageIds, 1, math.min(first, #pageIds)),
  fieldsOf(ARGV, 6, #ARGV),
  {
    redis.call('ZCARD', groupsKey),
    redis.call('SCARD', k.paused),
    redis.call('ZCARD', activeKey),
    keptCount(deadKey, settingsKey, 'dead', at),
    keptCount(completedKey, settingsKey, 'completed', at),
  },
  redis.call('HGETALL', statsKey),
  redis.call('HGET', settingsKey, 'paused') == '1' and 1 or 0,
  rotaLength(ringKey, base),
  ringLevels,
}
