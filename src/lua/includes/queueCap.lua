--[[
  The queue's cap and the groups' reserves in the claim (DESIGN.md §3, "The queue's cap and
  reserves"). Inlined by includes/claimJobs.lua after its claim functions (it calls claimJobs and
  readStates), at the hook its claimDue marks.

  The cap is `settings.limit`; `settings.reserved` the sum of the reserves (`greserve`);
  `settings.capped` '1' once a claim was held back by the cap (a lease's end then wakes a parked
  worker: includes/capWake.lua). The claim scripts read the three with the `paused` flag, in
  the HMGET of `settings` they already make, so a queue with no cap pays nothing more.

    capOf(rawLimit, rawReserved, rawCapped)
                        { limit, reserved, capped } from the settings fields as read, or nil
                        when the queue has no cap (a limit that is not a non-negative integer
                        within 2^53−1 counts as none, as a group's does)
    claimUnderCap(k, base, batch, tokens, defaultMaxAttempts, gate)
                        claims as claimJobs does, at most cap − ZCARD active of them (in flight
                        is exact: `active` holds every lease); the permits owed to reserves
                        first (claimOwed) when they are scarce. k needs settings.

  Scarce: after this claim fewer permits would be free than the reserves sum to (free − taken <
  reserved). Only then are the owed groups computed: each group of `greserve` below its reserve
  (held at its own limit) and serviceable (I1, isServiceable), the furthest below its reserve
  first (fewest in flight for its reserve, then by id). They are moved to the ring's head
  (LREM + LPUSH: O(ring) per owed group, docs/PERFORMANCE.md; in a queue with levels, off
  whichever rota holds them, includes/levels.lua leaveRota) and served one job each per round,
  before any level, however urgent (claimJobs pops the ring first, `batch.owedFirst`),
  until none is owed or the permits run out; then the ring as it stands gets the rest. A reserve
  of a group with nothing pending is owed to no one, so its permit goes to the ring (lent out)
  and comes back to the group at the next claim after it has work again.
]]
--- @include "keys"
--- @include "groupState"
--- @include "weights"

local function capOf(rawLimit, rawReserved, rawCapped)
  local limit = parseLimit(rawLimit)
  if limit == nil then
    return nil
  end
  return { limit = limit, reserved = parseLimit(rawReserved) or 0, capped = rawCapped == '1' }
end

-- A claim the cap held back: completions owe a wake from now on (once, until one sends it).
local function heldBack(k, gate)
  if not gate.capped then
    redis.call('HSET', k.settings, 'capped', '1')
    gate.capped = true
  end
end

-- The first `most` groups owed a permit now (a claim serves no more in a round), the furthest
-- below its reserve first: fewest in flight for its reserve (held at its limit), then by id. The
-- hash and the groups' standing are read once per script (the batch keeps the counts the claims
-- change); only the candidates taken are asked whether their lane holds a job.
local function owedGroups(k, base, batch, most)
  if batch.reserves == nil then
    batch.reserves = redis.call('HGETALL', reserveKeyOf(base))
    local groups = {}
    for i = 1, #batch.reserves, 2 do
      groups[#groups + 1] = batch.reserves[i]
    end
    if #groups > 0 then
      readStates(k, batch, groups)
    end
  end
  local candidates, r = {}, batch.reserves
  for i = 1, #r, 2 do
    local g = batch.groups[r[i]]
    local reserve = parseLimit(r[i + 1]) or 0
    if g.limit ~= nil and g.limit < reserve then
      reserve = g.limit
    end
    if g.active ~= nil and g.active < reserve then
      candidates[#candidates + 1] = { group = r[i], share = g.active / reserve }
    end
  end
  table.sort(candidates, function(a, b)
    if a.share ~= b.share then
      return a.share < b.share
    end
    return a.group < b.group
  end)
  local owed = {}
  for c = 1, #candidates do
    if #owed == most then
      break
    end
    local group = candidates[c].group
    local g = batch.groups[group]
    if isServiceable(k, group, laneKeyOf(base, group), g.limit, g.active, g.paused, nil,
        g.limited) then
      owed[#owed + 1] = group
    end
  end
  return owed
end

-- Serve the owed groups first, one job each per round, at most `take` claims in all.
local function claimOwed(k, base, batch, tokens, take, defaultMaxAttempts)
  local claimed = {}
  while #claimed < take do
    local owed = owedGroups(k, base, batch, take - #claimed)
    if #owed == 0 then
      break
    end
    local n = #owed
    for j = 1, n do
      if leveledQueue then
        -- Off whichever rota holds it: the ring, or its level in `levels` (includes/levels.lua).
        levels().leaveRota(k, owed[j])
      else
        logRingRemove(k.ring, owed[j], redis.call('LREM', k.ring, 0, owed[j]))
      end
    end
    keepHeads(k.ring, { unpack(owed, 1, n) }, 1)
    -- A reserve comes before the levels: claimJobs' first pop takes the ring's head, where the
    -- owed groups now stand, whatever level is more urgent (DESIGN.md §3).
    batch.owedFirst = true
    local got = claimJobs(k, base, batch, { unpack(tokens, #claimed + 1, #claimed + n) },
      defaultMaxAttempts)
    for j = 1, #got do
      claimed[#claimed + 1] = got[j]
    end
    if #got == 0 then
      break
    end
  end
  return claimed
end

local function claimUnderCap(k, base, batch, tokens, defaultMaxAttempts, gate)
  local free = gate.limit - redis.call('ZCARD', k.active)
  local take = math.min(#tokens, math.max(free, 0))
  if take == 0 then
    -- At or over the cap: held back only when there is work waiting.
    if redis.call('LLEN', k.ring) > 0 then
      heldBack(k, gate)
    end
    return {}
  end
  local claimed = {}
  if gate.reserved > 0 and free - take < gate.reserved then
    claimed = claimOwed(k, base, batch, tokens, take, defaultMaxAttempts)
  end
  if #claimed < take then
    local more = claimJobs(k, base, batch, { unpack(tokens, #claimed + 1, take) },
      defaultMaxAttempts)
    for j = 1, #more do
      claimed[#claimed + 1] = more[j]
    end
  end
  if take < #tokens and #claimed == take then
    heldBack(k, gate)
  end
  return claimed
end
