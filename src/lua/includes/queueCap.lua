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
  first (fewest in flight for its reserve, then by id). They are served one job each per round,
  before any level, however urgent, each where it stands on its rota (claimJobs' `inPlace`: not
  popped nor moved, so O(1) while it stays serviceable; one that leaves the rota is taken off it,
  an LREM, O(ring), when it stands on the ring), until none is owed or the permits run out; then
  the rota as it stands gets the rest. A reserve of a group with nothing pending is owed to no
  one, so its permit goes to the ring (lent out) and comes back to the group at the next claim
  after it has work again.
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
-- below its reserve first: fewest in flight for its reserve (held at its limit), then by id.
-- Once per script: the reserves (HGETALL) and their groups' counts (HMGET), as text, and their
-- limits (HMGET) only when more than one is wanted; a group this script has read since
-- (readStates: every group served) is judged from the batch, which keeps the counts the claims
-- change. The pass over them makes no table per group and no call per value known (this runs on
-- every scarce claim). A candidate taken gets its standing in the batch (readStates given the
-- fields read: its limit when not read, its pause and rate; the claim reuses it) and must be
-- serviceable (I1, isServiceable) but for its lane, which the claim's pop answers (a group found
-- empty is dry). One owed group (a claim of one job, or a round's last permit) is found in one
-- pass, judged as if the groups not read had no limit: a limit only lowers a reserve, so none
-- ranks higher than it would; the one taken is judged again when its limit holds its reserve
-- lower. More are sorted, every limit read.
local function owedGroups(k, base, batch, most)
  local o = batch.owed
  if o == nil then
    -- reserves: the HGETALL reply (group, reserve, …); known: text → its value, for the
    -- canonical text of a small non-negative integer (as safeInteger's common answer), so each
    -- distinct text is judged once.
    o = { reserves = redis.call('HGETALL', reserveKeyOf(base)), groups = {}, known = {} }
    for i = 1, #o.reserves, 2 do
      o.groups[(i + 1) / 2] = o.reserves[i]
    end
    if #o.groups > 0 then
      o.actives = redis.call('HMGET', k.gactive, unpack(o.groups))
    end
    batch.owed = o
  end
  if most > 1 and o.limits == nil and #o.groups > 0 then
    o.limits = redis.call('HMGET', k.glimit, unpack(o.groups))
  end
  local known = o.known
  -- A count or limit as read, as parseActive / parseLimit judge it (a missing count is 0, a
  -- missing limit none); called only for a text not yet known.
  local function count(raw, active)
    local n = tonumber(raw)
    if n and n >= 0 and n < 1e15 and string.format('%d', n) == raw then
      known[raw] = n
      return n
    end
    if active then
      return parseActive(raw)
    end
    return parseLimit(raw)
  end
  while true do
    -- at: a candidate's index in o.groups, for its fields as read; one owed group wanted needs
    -- only the best (bestAt), not the lists.
    local groups, shares, at, best, bestShare, bestAt, bestReserve, bestKnown
    if most > 1 then
      groups, shares, at = {}, {}, {}
    end
    for i = 1, #o.groups do
      local group = o.groups[i]
      local g = batch.groups[group]
      -- limited: its limit is known (read, or in the batch); else it is judged as if it had
      -- none, a share no higher than its own, and checked once taken (below).
      local active, limit, limited
      if g == nil then
        local raw = o.actives[i]
        active = (not raw and 0) or known[raw] or count(raw, true)
        if o.limits then
          limited = true
          raw = o.limits[i]
          if raw then
            limit = known[raw] or count(raw, false)
          end
        end
      elseif not g.dry and not g.paused and not g.limited then
        active, limit, limited = g.active, g.limit, true
      end
      if active ~= nil then
        local raw = o.reserves[2 * i]
        local reserve = known[raw] or count(raw, false) or 0
        local held = reserve
        if limit ~= nil and limit < reserve then
          held = limit
        end
        if active < held then
          local share = active / held
          if best == nil or share < bestShare or (share == bestShare and group < best) then
            best, bestShare, bestAt, bestReserve, bestKnown = group, share, i, reserve, limited
          end
          if groups then
            groups[#groups + 1] = group
            shares[group] = share
            at[group] = i
          end
        end
      end
    end
    if best == nil then
      return {}
    end
    if groups == nil or #groups == 1 then
      -- One: its standing from the fields read, with no list of candidates.
      local one = { best }
      if batch.groups[best] == nil then
        readStates(k, batch, one, o.limits and { o.limits[bestAt] } or nil,
          { o.actives[bestAt] })
      end
      local g = batch.groups[best]
      -- Judged without its limit, which holds its reserve lower: judged again from the batch.
      if bestKnown or g.limit == nil or g.limit >= bestReserve then
        -- Its lane given as holding a job, so not read (no lane key): the claim's pop answers.
        if g.active ~= nil and isServiceable(k, best, nil, g.limit, g.active, g.paused, 1,
            g.limited) then
          return one
        end
        g.dry = true
      end
    else
      table.sort(groups, function(a, b)
        if shares[a] ~= shares[b] then
          return shares[a] < shares[b]
        end
        return a < b
      end)
      -- The first `most`, those this script has not read given their standing from the fields
      -- read above (only their pause, and rate, are read), each judged as the one above.
      local unseen, limits, actives, owed = {}, {}, {}, {}
      for c = 1, math.min(most, #groups) do
        local group = groups[c]
        if batch.groups[group] == nil then
          local i = at[group]
          unseen[#unseen + 1] = group
          limits[#unseen] = o.limits[i]
          actives[#unseen] = o.actives[i]
        end
      end
      if #unseen > 0 then
        readStates(k, batch, unseen, limits, actives)
      end
      for c = 1, math.min(most, #groups) do
        local group = groups[c]
        local g = batch.groups[group]
        if g.active ~= nil and isServiceable(k, group, nil, g.limit, g.active, g.paused, 1,
            g.limited) then
          owed[#owed + 1] = group
        else
          g.dry = true
        end
      end
      if #owed > 0 then
        return owed
      end
    end
  end
end

-- Serve the owed groups first, one job each per round, at most `take` claims in all: each where
-- it stands on its rota (claimJobs' inPlace), so no move and no LREM unless it leaves the rota.
local function claimOwed(k, base, batch, tokens, take, defaultMaxAttempts)
  local claimed = {}
  while #claimed < take do
    local owed = owedGroups(k, base, batch, take - #claimed)
    if #owed == 0 then
      break
    end
    -- A group found with no job is marked dry (claimJobs) and owed nothing more: each round
    -- claims or marks one at least, so the rounds end.
    -- The caller's tokens as they are when they fit (a claim of one job): no copy.
    local mine = tokens
    if #claimed > 0 or #owed < #tokens then
      mine = { unpack(tokens, #claimed + 1, #claimed + #owed) }
    end
    local got = claimJobs(k, base, batch, mine, defaultMaxAttempts, owed)
    if #claimed == 0 then
      claimed = got
    else
      for j = 1, #got do
        claimed[#claimed + 1] = got[j]
      end
    end
  end
  return claimed
end

local function claimUnderCap(k, base, batch, tokens, defaultMaxAttempts, gate)
  local free = gate.limit - redis.call('ZCARD', k.active)
  local take = math.min(#tokens, math.max(free, 0))
  if take == 0 then
    -- At or over the cap: held back only when there is work waiting, on the ring or at another
    -- level (`levels`, asked only of a queue with levels: the claim's probe knows, leveledQueue).
    if redis.call('LLEN', k.ring) > 0
      or (leveledQueue and redis.call('ZCARD', levelsKeyOf(base)) > 0) then
      heldBack(k, gate)
    end
    return {}
  end
  local claimed
  if gate.reserved > 0 and free - take < gate.reserved then
    claimed = claimOwed(k, base, batch, tokens, take, defaultMaxAttempts)
  else
    claimed = {}
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
