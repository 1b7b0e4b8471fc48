--[[
  Retention of completed and dead jobs (DESIGN.md §2, "Retention"): a queue keeps a finished job
  while it is among the newest `count` of its kind and, with an age bound, finished less than
  `ageMs` ago. The policies live in the queue's settings hash (`P:{Q}:settings`, fields
  completedCount, completedAgeMs, deadCount, deadAgeMs; set by setRetention); a field that is
  absent means the default below, which src/lanes/defaults.ts (`Defaults.completedRetention`,
  `Defaults.deadRetention`) holds too (test/lua/includes.test.ts checks they agree). An age
  field 'none' means no age bound; a count is always a bound, so nothing is kept forever
  unbounded.

  Trimming is incremental and flat-cost: each job retained trims at most TRIM_PER_ADD of the
  oldest that fell out of the policy (so the set converges on its bound however the policy
  changed), and the reaper trims by age in bounded batches when no job finishes. Each trimmed
  job's hash, error list and log are deleted and it leaves its group's index too: one DEL, one HDEL
  of payloads (and one of results, when a victim has one) and one ZREM per group index for all
  the victims of a call, not per victim.

    retentionOf(settingsKey, kind)          count, ageMs (nil for no age bound) of 'completed'
                                            or 'dead', and the queue's `capped` flag as read
                                            (includes/capWake.lua)
    retentionFrom(kind, rawCount, rawAgeMs) the same from the two fields already read (a script
                                            that reads other settings in the same HMGET)
    retain(index, groupIndex, id, at)       add a finished job to the queue's and its group's
                                            index (score `at`, ms)
    trim(base, kind, index, count, ageMs, now, max)
                                            delete up to `max` jobs past the policy, oldest
                                            first; returns how many
    forget(base, id)                        delete a job's hash, error list, log and payload
    groupBy(ids, groups, score)             ids[i] by its group groups[i] (nil: none), for one
                                            write per group: byGroup (group -> its ids, each
                                            after `score` when given: ZADD's pairs) and order
                                            (the groups as first seen). One call per batch,
                                            not per job (a Lua call costs about a redis.call)

  kind 'completed' uses groupCompletedKeyOf, 'dead' groupDeadKeyOf (includes/keys.lua).
  Events: zadd/zrem index and group index (zpopmin index for a lone job past the count); del
  job, del errors.
]]
--- @include "keys"
--- @include "safeInteger"
--- @include "payloads"
--- @include "smallCounts"

local TRIM_PER_ADD = 2
local RETENTION_DEFAULTS = {
  completed = { count = 1000, ageMs = 3600000 },
  dead = { count = 10000, ageMs = 604800000 },
}

local function retentionFrom(kind, rawCount, rawAgeMs)
  local default = RETENTION_DEFAULTS[kind]
  local count = safeInteger(rawCount)
  if count == nil or count < 0 then
    count = default.count
  end
  local ageMs
  if rawAgeMs == 'none' then
    ageMs = nil
  else
    ageMs = safeInteger(rawAgeMs)
    if ageMs == nil or ageMs <= 0 then
      ageMs = default.ageMs
    end
  end
  return count, ageMs
end

-- count, ageMs of `kind`, and the queue's `capped` flag as read (false for none), which the
-- scripts ending a lease need in the same read (includes/capWake.lua).
local function retentionOf(settingsKey, kind)
  local raw = redis.call('HMGET', settingsKey, kind .. 'Count', kind .. 'AgeMs', 'capped')
  local count, ageMs = retentionFrom(kind, raw[1], raw[2])
  return count, ageMs, raw[3]
end

local function forget(base, id)
  redis.call('DEL', jobKeyOf(base, id), errorsKeyOf(base, id), logsKeyOf(base, id))
  dropPayloads(base, { id })
end

local function retain(index, groupIndex, id, at)
  redis.call('ZADD', index, at, id)
  redis.call('ZADD', groupIndex, at, id)
end

local function groupIndexOf(base, kind, group)
  if kind == 'dead' then
    return groupDeadKeyOf(base, group)
  end
  return groupCompletedKeyOf(base, group)
end

local function groupBy(ids, groups, score)
  local byGroup, order = {}, {}
  for i = 1, #ids do
    local group = groups[i]
    if group then
      local mine = byGroup[group]
      if mine == nil then
        mine = {}
        byGroup[group] = mine
        order[#order + 1] = group
      end
      if score ~= nil then
        mine[#mine + 1] = score
      end
      mine[#mine + 1] = ids[i]
    end
  end
  return byGroup, order
end

local function trim(base, kind, index, count, ageMs, now, max)
  -- Past the count: the oldest. One alone (a one-job call at the bound, the steady state) is
  -- popped, read and taken out of `index` in one ZPOPMIN, which also answers its score; more are
  -- read by ZRANGE and removed by the ZREM below (ZPOPMIN's scores would cost a number's text
  -- each).
  local popped, victims
  local over = redis.call('ZCARD', index) - count
  if over > 0 then
    local n = math.min(over, max)
    if n == 1 then
      popped = redis.call('ZPOPMIN', index)
    else
      victims = redis.call('ZRANGE', index, '0', COUNT_TEXT[n - 1] or n - 1)
    end
  end
  local taken = popped and 1 or (victims and #victims or 0)
  -- Past the age: what is left is no older than the one popped, so when that one is within
  -- the age, nothing left is past it and the range is not read.
  local aged
  if ageMs and taken < max then
    local cut = now - ageMs
    if popped == nil or (tonumber(popped[2]) or -math.huge) < cut then
      local skip = popped and 0 or taken
      local left = max - taken
      aged = redis.call('ZRANGEBYSCORE', index, '-inf', string.format('(%d', cut), 'LIMIT',
        COUNT_TEXT[skip] or skip, COUNT_TEXT[left] or left)
    end
  end
  local agedCount = aged and #aged or 0
  if taken + agedCount == 0 then
    return 0
  end
  if taken + agedCount == 1 then
    -- One victim: the writes below, with no table.
    local id = popped and popped[1] or (victims and victims[1]) or aged[1]
    local jobKey = jobPrefixOf(base) .. id
    local read = redis.call('HMGET', jobKey, 'group', 'hasResult')
    if read[1] then
      redis.call('ZREM', groupIndexOf(base, kind, read[1]), id)
    end
    redis.call('DEL', jobKey, jobKey .. ERRORS_SUFFIX, jobKey .. LOGS_SUFFIX)
    redis.call('HDEL', payloadsKeyOf(base), id)
    if read[2] then
      redis.call('HDEL', resultsKeyOf(base), id)
    end
    if popped == nil then
      redis.call('ZREM', index, id)
    end
    return 1
  end
  if popped then
    victims = { popped[1] }
  elseif victims == nil then
    victims = {}
  end
  -- What is still in `index` (all but the one popped), for the ZREM at the end.
  local indexed = popped and 2 or 1
  for a = 1, agedCount do
    victims[#victims + 1] = aged[a]
  end
  -- Each victim's group is read before anything is deleted; then the writes are made once for
  -- all (one ZREM per group index, one DEL, one HDEL of payloads, one of results when a victim
  -- has one: its hash says hasResult), not once per victim.
  -- Per victim, no Lua call (a call costs about what a redis.call does: see
  -- docs/PERFORMANCE.md "Redis: fewer Lua calls per job"): the keys from a prefix (jobKeyOf's and
  -- errorsKeyOf's names, includes/keys.lua), a numeric loop (ipairs calls its iterator per
  -- step); the group-by once for all (groupBy).
  local doomed, victimGroups, resulted = {}, {}, {}
  local jobPrefix = jobPrefixOf(base)
  for v = 1, #victims do
    local jobKey = jobPrefix .. victims[v]
    local read = redis.call('HMGET', jobKey, 'group', 'hasResult')
    victimGroups[v] = read[1]
    if read[2] then
      resulted[#resulted + 1] = victims[v]
    end
    doomed[#doomed + 1] = jobKey
    doomed[#doomed + 1] = jobKey .. ERRORS_SUFFIX
    doomed[#doomed + 1] = jobKey .. LOGS_SUFFIX
  end
  local byGroup, order = groupBy(victims, victimGroups, nil)
  for _, group in ipairs(order) do
    redis.call('ZREM', groupIndexOf(base, kind, group), unpack(byGroup[group]))
  end
  redis.call('DEL', unpack(doomed))
  dropPayloads(base, victims)
  dropResults(base, resulted)
  if indexed <= #victims then
    redis.call('ZREM', index, unpack(victims, indexed))
  end
  return #victims
end
