--[[
  Levels on the rota (DESIGN.md §3, "Levels"): a serviceable group stands at the level of its
  lane's head (includes/priority.lua, levelOf), and a claim serves the most urgent level that
  has a group, each level in its own fair rota. The ring `P:{Q}:ring` is the rota of level 5,
  the default, exactly as before; the groups of the other levels wait in one zset,
  `P:{Q}:levels`, group → level × LEVEL_SPAN + turn, so its first member is the most urgent
  level's next group, a level's rota is a score range, and the tail of level L is one past its
  last turn. Invariant I1 with levels: a serviceable group is on exactly one of `ring` (its head
  at level 5) and `levels` (any other level, at that level).

  Whether a queue needs any of this is one marker, `P:{Q}:prioritized`, written by an enqueue
  of a priority other than 5 and never cleared: without it every head is at level 5, so no
  level is read and the ring alone is the rota, at no cost. Its EXISTS is asked once per
  script call (a claim asks it inside includes/quietQueue.lua's probe: knownLeveled).

  Cost: a claim with levels reads the first member of `levels` per pop of heads and each
  served group's new head (ZRANGE 0 0) instead of the batched EXISTS of its lane: O(log groups)
  per claim, never O(groups); a level's tail is one ZREVRANGEBYSCORE … LIMIT 0 1, once per
  level per call. A group moved off the ring between levels pays the de-ring's LREM, O(ring).
  Redis makes a closure of every top-level function each time a script runs, which a claim
  call of a queue without levels would pay for functions it never calls (~2,500 instructions
  each, measured): so only `levels()` is top-level, and it builds the table of the others on
  its first call, which such a queue never makes. `leveledQueue` is read in place for the same
  reason: nil before the first question this call, else whether the marker exists (the
  claim's probe sets it, includes/quietQueue.lua).

    LEVEL_SPAN                       10^13: a level's turns stay below it
    leveledQueue                     nil, or whether the marker exists (this call)
    levels()                         the table of what follows, made on the first call:
    isLeveled(base)                  whether the queue may hold heads off level 5 (the marker)
    headLevel(laneKey)               the level of the lane's head, nil for an empty lane
    enterRota(k, base, group, level) the group to the tail of its level's rota
    leaveRota(k, group)              the group off the rota, whichever it is on
    moveLevel(k, base, group, from, to)   a group on the rota at level `from` to the tail of
                                     level `to`, with a fresh round of its weight
    headToTail(k, base, group)       a group at the head of its level in `levels` to that
                                     level's tail (setWeight ending its round)
    relevel(k, group, laneKey)       a group on the rota whose lane's head may have changed:
                                     moved to the tail of its head's level when that changed;
                                     answers that level (nil: the lane is empty, or the queue
                                     has no levels) and whether it moved
    popLevelHeads(k, base, n)        up to n heads of the most urgent level, taken off their
                                     rota: heads, their level, their `levels` scores (nil for
                                     the ring); nil when no group is on a rota
    keepLevelHeads(k, base, heads, scores, from)   heads[from..] popped from `levels` and not
                                     served: back at their places
    placeLeveled(k, base, batch, back, emptied)   the groups a pop served that stay serviceable
                                     but for their lanes: each to the tail of its new head's
                                     level; answers those of level 5 (the ring's tail, for the
                                     caller's RPUSH); one whose lane is empty leaves the rota,
                                     its round ended, and is added to `emptied`
  and, top-level (only the scripts that call them carry them):
    markPrioritized(base)            an enqueue of a priority other than 5: write the marker
    readRota(ringKey, base, n)       the rota's first n groups in claim order (n < 0: all;
                                     n > 0), levels 1–4, the ring, levels 6–9, for the readers,
                                     and the level of each (two lists)
    rotaLength(ringKey, base)        the groups on the rota, every level: LLEN ring + ZCARD
                                     `levels` (O(1); the readers' "on the ring" count)
  Every change of `levels` is told to the ring's feed while it watches (includes/ringLog.lua,
  logLevelsChanged: one entry per call, after which the feed reads the rota whole).
  k: k.ring (and what includes/ringLog.lua needs). base: 'P:{Q}:'.
]]
--- @include "keys"
--- @include "priority"
--- @include "ringLog"

local LEVEL_SPAN = 1e13
local leveledQueue
local levelsApi

local function levels()
  if levelsApi ~= nil then
    return levelsApi
  end
  local L = {}
  -- level → the next tail turn found this call, kept as this call writes `levels`.
  local tails = {}

  function L.isLeveled(base)
    if leveledQueue == nil then
      leveledQueue = redis.call('EXISTS', prioritizedKeyOf(base)) == 1
    end
    return leveledQueue
  end

  function L.headLevel(laneKey)
    local head = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
    if head[2] == nil then
      return nil
    end
    return levelOf(head[2])
  end

  -- The score of the tail of `level` in `levels`: one past its last turn.
  function L.levelTail(levelsKey, level)
    local tail = tails[level]
    if tail == nil then
      local last = redis.call('ZREVRANGEBYSCORE', levelsKey,
        '(' .. string.format('%d', (level + 1) * LEVEL_SPAN),
        string.format('%d', level * LEVEL_SPAN), 'WITHSCORES', 'LIMIT', 0, 1)
      tail = last[2] and tonumber(last[2]) + 1 or level * LEVEL_SPAN
    end
    tails[level] = tail + 1
    return string.format('%d', tail)
  end

  function L.enterRota(k, base, group, level)
    if level == DEFAULT_PRIORITY then
      redis.call('RPUSH', k.ring, group)
      logRingPush(k.ring, { group }, 1)
    else
      local levelsKey = levelsKeyOf(base)
      redis.call('ZADD', levelsKey, L.levelTail(levelsKey, level), group)
      logLevelsChanged(k.ring)
    end
  end

  function L.leaveRota(k, group)
    local base = baseOf(k.ring, 'ring')
    if L.isLeveled(base) and redis.call('ZREM', levelsKeyOf(base), group) == 1 then
      logLevelsChanged(k.ring)
      return
    end
    logRingRemove(k.ring, group, redis.call('LREM', k.ring, 0, group))
  end

  function L.moveLevel(k, base, group, from, to)
    if from == DEFAULT_PRIORITY then
      logRingRemove(k.ring, group, redis.call('LREM', k.ring, 0, group))
    else
      redis.call('ZREM', levelsKeyOf(base), group)
      logLevelsChanged(k.ring)
    end
    L.enterRota(k, base, group, to)
    -- A new place in a new rota: a fresh round of its weight (includes/weights.lua).
    redis.call('HDEL', turnsKeyOf(base), group)
  end

  function L.headToTail(k, base, group)
    local levelsKey = levelsKeyOf(base)
    local at = redis.call('ZSCORE', levelsKey, group)
    if not at then
      return
    end
    local level = math.floor(tonumber(at) / LEVEL_SPAN)
    local first = redis.call('ZRANGEBYSCORE', levelsKey, string.format('%d', level * LEVEL_SPAN),
      '(' .. string.format('%d', (level + 1) * LEVEL_SPAN), 'LIMIT', 0, 1)
    if first[1] == group then
      redis.call('ZADD', levelsKey, L.levelTail(levelsKey, level), group)
      logLevelsChanged(k.ring)
    end
  end

  function L.relevel(k, group, laneKey)
    local base = baseOf(k.ring, 'ring')
    if not L.isLeveled(base) then
      return
    end
    local level = L.headLevel(laneKey)
    if level == nil then
      return
    end
    local at = redis.call('ZSCORE', levelsKeyOf(base), group)
    local current = at and math.floor(tonumber(at) / LEVEL_SPAN) or DEFAULT_PRIORITY
    if level ~= current then
      L.moveLevel(k, base, group, current, level)
      return level, true
    end
    return level, false
  end

  function L.popLevelHeads(k, base, n)
    local levelsKey = levelsKeyOf(base)
    local first = redis.call('ZRANGE', levelsKey, 0, 0, 'WITHSCORES')
    local level = first[2] and math.floor(tonumber(first[2]) / LEVEL_SPAN)
    if level == nil or level > DEFAULT_PRIORITY then
      local heads = redis.call('LPOP', k.ring, n)
      if heads then
        logRingPop(k.ring, #heads)
        return heads, DEFAULT_PRIORITY, nil
      end
      if level == nil then
        return nil
      end
    end
    local found = redis.call('ZRANGEBYSCORE', levelsKey, string.format('%d', level * LEVEL_SPAN),
      '(' .. string.format('%d', (level + 1) * LEVEL_SPAN), 'WITHSCORES', 'LIMIT', 0, n)
    local heads, scores = {}, {}
    for i = 1, #found, 2 do
      heads[#heads + 1] = found[i]
      scores[#scores + 1] = found[i + 1]
    end
    redis.call('ZREM', levelsKey, unpack(heads))
    logLevelsChanged(k.ring)
    return heads, level, scores
  end

  function L.keepLevelHeads(k, base, heads, scores, from)
    local back = {}
    for i = from, #heads do
      back[#back + 1] = scores[i]
      back[#back + 1] = heads[i]
    end
    if #back > 0 then
      redis.call('ZADD', levelsKeyOf(base), unpack(back))
      logLevelsChanged(k.ring)
    end
  end

  function L.placeLeveled(k, base, batch, back, emptied)
    local ring = {}
    local levelsKey = levelsKeyOf(base)
    for j = 1, #back do
      local group = back[j]
      local level = L.headLevel(laneKeyOf(base, group))
      if level == nil then
        batch.groups[group].turns = 0
        emptied[#emptied + 1] = group
      elseif level == DEFAULT_PRIORITY then
        ring[#ring + 1] = group
      else
        redis.call('ZADD', levelsKey, L.levelTail(levelsKey, level), group)
        logLevelsChanged(k.ring)
      end
    end
    return ring
  end

  levelsApi = L
  return L
end

-- Top-level, unlike the rest: only the scripts that call them carry them (the enqueues and
-- repair; the snapshot and the other readers).
local function markPrioritized(base)
  if not levels().isLeveled(base) then
    redis.call('SET', prioritizedKeyOf(base), '1')
    leveledQueue = true
  end
end

-- Append a ZRANGE … WITHSCORES reply's groups to `groups` and their levels to `levels`.
local function appendScored(groups, found, scored)
  for i = 1, #scored, 2 do
    groups[#groups + 1] = scored[i]
    found[#found + 1] = math.floor(tonumber(scored[i + 1]) / LEVEL_SPAN)
  end
end

local function readRota(ringKey, base, n)
  local levelsKey = levelsKeyOf(base)
  local mid = string.format('%d', DEFAULT_PRIORITY * LEVEL_SPAN)
  local groups, found = {}, {}
  appendScored(groups, found,
    redis.call('ZRANGEBYSCORE', levelsKey, '-inf', '(' .. mid, 'WITHSCORES', 'LIMIT', 0, n))
  local left = n < 0 and -1 or n - #groups
  if left ~= 0 then
    local ring = redis.call('LRANGE', ringKey, 0, left < 0 and -1 or left - 1)
    for i = 1, #ring do
      groups[#groups + 1] = ring[i]
      found[#found + 1] = DEFAULT_PRIORITY
    end
    left = n < 0 and -1 or n - #groups
  end
  if left ~= 0 then
    appendScored(groups, found,
      redis.call('ZRANGEBYSCORE', levelsKey, mid, '+inf', 'WITHSCORES', 'LIMIT', 0, left))
  end
  return groups, found
end

-- Every level's groups, not the ring's alone: a count of the ring by LLEN misses the groups of a
-- queue with priorities (I1: each serviceable group is on exactly one of the two).
local function rotaLength(ringKey, base)
  return redis.call('LLEN', ringKey) + redis.call('ZCARD', levelsKeyOf(base))
end
