--[[
  reconcileGroups — Queue.audit / Queue.repair for one bounded batch of groups: re-derive each
  group's active count from the live leases (I3) and its rota membership and level from I1
  (I1, I2; `levels`, includes/levels.lua), and
  report (audit) or fix (repair) every difference. Run after reconcileLeases, so `leases` and
  `active` agree. Each call costs O(active jobs + ring + batch), plus an LREM per group that
  must leave the ring; the caller keeps batches small so Redis is never blocked for long.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] active   zset   active job id -> lease deadline (ms)
    KEYS[7] leases   hash   active job id -> group
    KEYS[8] groups   zset   group registry
    KEYS[9] stats    hash   counters

    ARGV[1]   base    'P:{Q}:' — each group's lane P:{Q}:g:<group>:pending, and the key
                      P:{Q}:job:<id> of an active job with no lease (its group is read there),
                      are built from it (includes/keys.lua; same slot)
    ARGV[2]   mode    'audit' (change nothing) or 'repair'
    ARGV[3]   actor   who asks (history, includes/history.lua)
    ARGV[4]   cap     the queue history's cap (count; 0 records nothing)
    ARGV[5..] the groups of this batch

  Output: { findings, pending, saturated }
    findings   flat { group, kind, expected, found, ... }; kinds:
               'I1' rota membership (expected/found: 'on the ring', 'off the ring', or, in a
                    queue with levels, 'on level <L>' for a group in `levels` and 'on the ring
                    and on level <L>' for one on both; DESIGN.md §3, "Levels")
               'I2' duplicates (expected '1', found the count)
               'I3' active count (expected live leases, found the stored field; a field
                    that is not an integer within ±(2^53−1) is always one)
               'LIMIT' a limit that is not a non-negative integer within 2^53−1 (audit only: repair never
                       changes it, since it reads as no limit and setLimit overwrites it)
               'REGISTRY' a group missing from `groups` (seed-written state), or registered
                          and missing from `gseen` (expected 'in gseen'; repair adds it at now)
               'RANK' a group ranking disagreeing with what it ranks (includes/groupRanks.lua;
                      DESIGN.md §3, "Group rankings"): expected/found 'pending <n>' (its lane's
                      size; `gpending`) or 'active <n>' (the live leases; `gactiverank`), n 0
                      for no entry; repair rewrites the entry
    pending    sum of the batch's lane sizes (for the totals recount)
    saturated  how many of the batch's groups are saturated

  Repair also notes each non-empty lane's oldest job in `heads` (ZADD LT, includes/heads.lua:
  laneOldest, noteLaneHead): the oldest-pending index of a lane no Ringmaster write has added to yet. Not a finding: the index
  is a lower bound the metrics script mends, never state a caller reads.

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group it changed,
  step 'groups', before/after `{ registered, active, ringEntries }` (the fields it changed:
  registered false → true; the stored active count → the live leases; how many times the group
  was on a rota, the ring or `levels` → 1 or 0).

  Events (repair only): hset/hdel gactive; zadd/zrem gpending, gactiverank; rpush/lrem ring; zadd/zrem levels; set prioritized;
  lpush/ltrim wake; zadd groups;
  zadd gseen; zadd heads; xadd history.
]]
--- @include "keys"
--- @include "settleGroup"
--- @include "heads"
--- @include "repairHistory"
--- @include "nowMs"
--- @include "registry"
--- @include "ringLog"
--- @include "levels"
--- @include "groupRanks"

local k = {
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  active = KEYS[6], leases = KEYS[7], groups = KEYS[8], stats = KEYS[9],
}
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local h = historyArgs(ARGV[3], ARGV[4])
local log = repairLog('groups')
local FIRST_GROUP = 5

local findings = {}
local function report(group, kind, expected, found)
  findings[#findings + 1] = group
  findings[#findings + 1] = kind
  findings[#findings + 1] = tostring(expected)
  findings[#findings + 1] = tostring(found)
end

local live, onRing = {}, {}
for i = FIRST_GROUP, #ARGV do
  live[ARGV[i]] = 0
  onRing[ARGV[i]] = 0
end
-- Live permits: every active job, attributed as reconcileLeases attributes it (its lease, else
-- its job hash's group), so an audit judges the groups as a repair would leave them.
for _, id in ipairs(redis.call('ZRANGE', k.active, 0, -1)) do
  local group = redis.call('HGET', k.leases, id)
    or redis.call('HGET', jobKeyOf(base, id), 'group')
  if group and live[group] ~= nil then
    live[group] = live[group] + 1
  end
end
for _, group in ipairs(redis.call('LRANGE', k.ring, 0, -1)) do
  if onRing[group] ~= nil then
    onRing[group] = onRing[group] + 1
  end
end

local levelsKey = levelsKeyOf(base)
-- Where a group stands, in words: 'off the ring' (false), 'on the ring' (level 5), 'on level L'.
local function placeWords(level)
  if not level then
    return 'off the ring'
  elseif level == DEFAULT_PRIORITY then
    return 'on the ring'
  end
  return 'on level ' .. level
end

local pending, saturatedCount = 0, 0
for i = FIRST_GROUP, #ARGV do
  local group = ARGV[i]
  local laneKey = laneKeyOf(base, group)

  local rawLimit = redis.call('HGET', k.glimit, group)
  if not repair and rawLimit and limitOf(k.glimit, group) == nil then
    report(group, 'LIMIT', 'a non-negative integer within 2^53-1 (read as no limit)', rawLimit)
  end
  if redis.call('ZSCORE', k.groups, group) == false then
    report(group, 'REGISTRY', 'registered', 'unregistered')
    if repair then
      registerGroup(k.groups, base, group, nowMs())
      noteRepair(log, group, 'registered', false, true)
    end
  elseif redis.call('ZSCORE', seenKeyOf(base), group) == false then
    -- Registered before `gseen` existed, or by another writer: never looked at by the reaper's
    -- forgetGroups until it has an entry (DESIGN.md §3, "Forgetting groups").
    report(group, 'REGISTRY', 'in gseen', 'not in gseen')
    if repair then
      redis.call('ZADD', seenKeyOf(base), nowMs(), group)
    end
  end

  local stored = redis.call('HGET', k.gactive, group)
  -- Judged as the scripts read it (includes/groupState.lua): a count that is not a safe
  -- integer (nil here) is always a finding, and repair rewrites it.
  if (stored and (live[group] == 0 or safeInteger(stored) ~= live[group]))
    or (not stored and live[group] ~= 0) then
    report(group, 'I3', live[group], stored or '0')
    if repair then
      noteRepair(log, group, 'active', tonumber(stored) or stored or 0, live[group])
      if live[group] == 0 then
        redis.call('HDEL', k.gactive, group)
      else
        redis.call('HSET', k.gactive, group, live[group])
      end
    end
  end

  local serviceable, saturated = groupState(k, group, laneKey, live[group])
  local n = onRing[group]
  if n > 1 then
    report(group, 'I2', 1, n)
  end
  -- Which rota, at which level (includes/levels.lua): expected from the lane's head.
  local level = serviceable and (levels().headLevel(laneKey) or DEFAULT_PRIORITY)
  local at = redis.call('ZSCORE', levelsKey, group)
  local atLevel = at and math.floor(tonumber(at) / LEVEL_SPAN)
  local expected = placeWords(level)
  local found = n > 0 and atLevel and ('on the ring and ' .. placeWords(atLevel))
    or placeWords(n > 0 and DEFAULT_PRIORITY or atLevel)
  if expected ~= found then
    report(group, 'I1', expected, found)
  end
  if repair then
    local entries = n + (at and 1 or 0)
    if level and level ~= DEFAULT_PRIORITY then
      -- A head off the default level that no enqueue marked (another writer's lane).
      markPrioritized(base)
    end
    if at and atLevel ~= level then
      redis.call('ZREM', levelsKey, group)
      logLevelsChanged(k.ring)
      at = nil
    end
    if n > 0 and (n > 1 or level ~= DEFAULT_PRIORITY) then
      logRingRemove(k.ring, group, redis.call('LREM', k.ring, 0, group))
      n = 0
    end
    if serviceable and n == 0 and not at then
      settleGroup(k, group, laneKey, false, saturated)
    end
    local after = serviceable and 1 or 0
    if entries ~= after then
      noteRepair(log, group, 'ringEntries', entries, after)
    end
  end

  local size = redis.call('ZCARD', laneKey)
  pending = pending + size
  -- The rankings (includes/groupRanks.lua): minus the lane's size and minus the live leases
  -- (gactive as a repair leaves it), no entry for 0.
  local ranks = {
    { 'pending', pendingRankKeyOf(base), size },
    { 'active', activeRankKeyOf(base), live[group] },
  }
  for _, r in ipairs(ranks) do
    local name, key, want = r[1], r[2], r[3]
    local raw = redis.call('ZSCORE', key, group)
    local have = raw and -tonumber(raw) or 0
    if have ~= want or (raw and want == 0) then
      report(group, 'RANK', name .. ' ' .. want, name .. ' ' .. (raw and tostring(have) or '0'))
      if repair then
        if want == 0 then
          redis.call('ZREM', key, group)
        else
          redis.call('ZADD', key, string.format('%d', -want), group)
        end
      end
    end
  end
  if repair then
    -- The oldest-pending index (includes/heads.lua): a lane another writer filled (or one
    -- written before the index existed) is indexed here; an entry already ≤ its oldest stays.
    local _, _, order = laneOldest(laneKey)
    if order then
      noteLaneHead(base, group, order)
    end
  end
  if saturated then
    saturatedCount = saturatedCount + 1
  end
end

recordRepairs(base, h, log)
return { findings, pending, saturatedCount }
