--[[
  The group rankings `P:{Q}:gpending` and `P:{Q}:gactiverank` (DESIGN.md §2; §3, "Group
  rankings"): zsets of group → −(its lane's size) and group → −(its active count), so that
  ZRANGE 0 n−1 lists the n largest first and, at equal counts, in group order (bytes, as Redis
  orders equal scores). Queue.topGroups reads them (readTopGroups-3.lua).

  The invariant every script keeps: a group is in `gpending` exactly while its lane is not empty,
  at minus its size; in `gactiverank` exactly while it has a `gactive` field, at minus that count.
  So every write that changes a lane's size calls the pending helpers, and every write of
  `gactive` is mirrored here, in the same script: one command per call for the groups it touches
  (a claim's batch writes all its served groups together, not a command per job).

  base: 'P:{Q}:' (pendingRankKeyOf, activeRankKeyOf, includes/keys.lua).

    addPending(base, group, n)        n jobs joined the group's lane (n ≥ 1): ZINCRBY −n; when
                                      that adds the group, `gpending` is kept indexed once it
                                      ranks INDEXED_FROM groups (includes/indexedEncoding.lua,
                                      indexRanking)
    takePending(base, group, n)       n jobs left a lane that may still hold some: ZINCRBY n,
                                      the entry removed when it reaches 0 (or passed it, an index
                                      another writer bypassed; audit reports it, repair mends it)
    dropPending(base, groups)         the lanes of `groups` are empty: ZREM (none when empty)
    takeServed(base, served, states, emptied, one, count)
                                      a claim's served groups: `states[group].claimed` jobs
                                      popped from each (the claim batch's groups,
                                      includes/claimJobs.lua), `emptied[group]` true for a lane
                                      now empty (`emptied` nil: none is). One ZINCRBY (or ZREM)
                                      for one group, given as `one` with its jobs popped as
                                      `count` (text, or a number; `served` then unread, nil);
                                      else one ZMSCORE, one ZADD and one ZREM for them all. A
                                      served group with no entry (a lane another writer filled)
                                      stays without one, as with takePending: audit reports it,
                                      repair ranks it
    setActiveRanks(base, counts, one, count)
                                      counts: group, count text, … (gactive's HSET arguments):
                                      one ZADD; or, counts nil, group `one` at `count` (text)
    dropActiveRanks(base, groups)     gactive fields removed: one ZREM

  The one-group answers (a call that claims one job: a Worker at concurrency 1) are given the
  group and its count, not lists, and build no table: in Redis' Lua a table costs a good part of
  what a command does (docs/PERFORMANCE.md, "Redis: group rankings", "Redis: the claim's own
  cost").
]]
--- @include "keys"
--- @include "indexedEncoding"

local function addPending(base, group, n)
  local key = pendingRankKeyOf(base)
  if tonumber(redis.call('ZINCRBY', key, string.format('%d', -n), group)) == -n then
    indexRanking(key)
  end
end

local function takePending(base, group, n)
  local key = pendingRankKeyOf(base)
  if tonumber(redis.call('ZINCRBY', key, string.format('%d', n), group)) >= 0 then
    redis.call('ZREM', key, group)
  end
end

local function dropPending(base, groups)
  if #groups > 0 then
    redis.call('ZREM', pendingRankKeyOf(base), unpack(groups))
  end
end

local function takeServed(base, served, states, emptied, one, count)
  local key = pendingRankKeyOf(base)
  if one ~= nil then
    -- takePending's writes, in place.
    if (emptied and emptied[one])
      or tonumber(redis.call('ZINCRBY', key, count, one)) >= 0 then
      redis.call('ZREM', key, one)
    end
    return
  end
  local scores = redis.call('ZMSCORE', key, unpack(served))
  local ranked, gone = {}, {}
  for i = 1, #served do
    local group = served[i]
    local left
    if emptied and emptied[group] then
      left = 0
    elseif scores[i] then
      left = -tonumber(scores[i]) - states[group].claimed
    else
      -- No entry (a lane another writer filled): left unranked, as takePending leaves it.
      left = 0
    end
    if left > 0 then
      ranked[#ranked + 1] = string.format('%d', -left)
      ranked[#ranked + 1] = group
    else
      gone[#gone + 1] = group
    end
  end
  if #ranked > 0 then
    redis.call('ZADD', key, unpack(ranked))
  end
  dropPending(base, gone)
end

local function setActiveRanks(base, counts, one, count)
  if counts == nil then
    redis.call('ZADD', activeRankKeyOf(base), '-' .. count, one)
    return
  end
  if #counts == 2 then
    redis.call('ZADD', activeRankKeyOf(base), '-' .. counts[2], counts[1])
    return
  end
  local args = {}
  for i = 1, #counts, 2 do
    args[i] = '-' .. counts[i + 1]
    args[i + 1] = counts[i]
  end
  redis.call('ZADD', activeRankKeyOf(base), unpack(args))
end

local function dropActiveRanks(base, groups)
  if #groups > 0 then
    redis.call('ZREM', activeRankKeyOf(base), unpack(groups))
  end
end
