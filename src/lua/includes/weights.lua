--[[
  Weights (DESIGN.md §3, "Weights"): a group of weight w gets w turns in a row each time the rota
  comes round to it — w claims per round of the ring — where a group of weight 1 (the default,
  no field in `gweight`) gets one.

  The claim keeps a weighted group at the head of the ring while it takes its turns: served and
  still serviceable, it counts the turn; while its turns are below its weight it stays at the
  head (the next claim serves it again), at its weight its round is over: it goes to the tail
  and its count is reset. A group that leaves the ring (saturated, empty, paused, …) has its
  round ended too: the claim resets the count of a served group that leaves, and every re-ring
  (reRing, includes/settleGroup.lua) resets it, so a group that joins the ring starts a fresh
  round. So at most one group on the ring has turns counted — the head — and a count stored for
  a group off the ring is a leftover a re-ring clears (harmless; Queue.audit does not flag it).

  Keys (built from base, includes/keys.lua): gweight (hash group → weight, none = 1), gturns
  (hash group → turns taken in the current round, only while a round of a weighted group spans
  scripts).

  Cost: O(1) per claim. The batch's weights are read with one HMGET per pop of heads
  (readWeights), the turns of the weighted ones among them with one more; the counts are kept
  in the batch and written once per script (flushTurns: one HSET, one HDEL), only for groups
  whose count changed.

    parseWeight(raw)                  a stored weight: a safe integer ≥ 1, else 1
    readWeights(base, batch, heads)   g.weight and g.turns of the heads the batch has not weighed
    placeServed(g, stays)             where a group a claim served goes: 'head' when it stays
                                      serviceable and its round goes on (turns < weight: the next
                                      claim serves it again), 'tail' when its round is over (count
                                      reset; always for weight 1), nil when it left the ring
                                      (stays false: its round ends, count reset)
    keepHeads(ringKey, heads, from)   heads[from..] popped but not served (the claims ran out):
                                      back to the head of the ring, in their order (one LPUSH)
    flushTurns(base, batch)           write the counts that changed (one HSET, one HDEL)
    resetTurns(ringKey, group)        a group (re-)joins the ring: its count is deleted
]]
--- @include "keys"
--- @include "ringLog"
--- @include "safeInteger"

local function parseWeight(raw)
  local n = safeInteger(raw)
  if n and n >= 1 then
    return n
  end
  return 1
end

local function readWeights(base, batch, heads)
  -- A numeric loop over the heads (about one per claim): ipairs calls its iterator per step.
  local unseen = {}
  for h = 1, #heads do
    local group = heads[h]
    local g = batch.groups[group]
    if g.weight == nil then
      g.weight = 1
      g.turns = 0
      unseen[#unseen + 1] = group
    end
  end
  -- A queue whose probe found no `gweight` (includes/quietQueue.lua): every weight is 1.
  if #unseen == 0 or not batch.readsWeights then
    return
  end
  local weights = redis.call('HMGET', weightKeyOf(base), unpack(unseen))
  local weighted = {}
  for i, group in ipairs(unseen) do
    local w = parseWeight(weights[i])
    if w > 1 then
      batch.groups[group].weight = w
      weighted[#weighted + 1] = group
    end
  end
  if #weighted == 0 then
    return
  end
  local turns = redis.call('HMGET', turnsKeyOf(base), unpack(weighted))
  batch.weighted = batch.weighted or {}
  for i, group in ipairs(weighted) do
    local g = batch.groups[group]
    local n = safeInteger(turns[i])
    g.turns = (n and n > 0) and n or 0
    -- What the hash holds (false: no field), so flushTurns writes only a change.
    g.storedTurns = turns[i]
    batch.weighted[#batch.weighted + 1] = group
  end
end

local function placeServed(g, stays)
  if not stays then
    g.turns = 0
    return nil
  end
  if g.weight <= 1 then
    return 'tail'
  end
  g.turns = g.turns + 1
  if g.turns < g.weight then
    return 'head'
  end
  g.turns = 0
  return 'tail'
end

local function keepHeads(ringKey, heads, from)
  local rest = {}
  for i = #heads, from, -1 do
    rest[#rest + 1] = heads[i]
  end
  if #rest > 0 then
    redis.call('LPUSH', ringKey, unpack(rest))
    logRingUnshift(ringKey, { unpack(heads, from) })
  end
end

local function flushTurns(base, batch)
  if batch.weighted == nil then
    return
  end
  local set, del = {}, {}
  for _, group in ipairs(batch.weighted) do
    local g = batch.groups[group]
    if g.turns > 0 then
      local text = string.format('%d', g.turns)
      if g.storedTurns ~= text then
        set[#set + 1] = group
        set[#set + 1] = text
      end
    elseif g.storedTurns then
      del[#del + 1] = group
    end
    g.storedTurns = g.turns > 0 and string.format('%d', g.turns) or false
  end
  if #set > 0 then
    redis.call('HSET', turnsKeyOf(base), unpack(set))
  end
  if #del > 0 then
    redis.call('HDEL', turnsKeyOf(base), unpack(del))
  end
end

local function resetTurns(ringKey, group)
  redis.call('HDEL', turnsKeyOf(baseOf(ringKey, 'ring')), group)
end
