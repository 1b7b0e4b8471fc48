--[[
  Backlog bounds (DESIGN.md §3, "Backlog bounds"): a group's bound on its pending + delayed
  jobs, its own field of `gmaxpending` or else the queue's default (the empty field: no group
  id is empty), read in one HMGET, so an enqueue pays one command for it, and no more when no
  bound is set anywhere.
    boundOf(base, group)   the group's effective bound, or nil for none. A field that is not a
                           non-negative integer within 2^53−1 (written by hand) counts as unset.
    fullBy(base, group, laneKey, adding)
                           nil when `adding` more jobs keep the group within its bound; else
                           its bound and the jobs it holds (ZCARD lane + ZCARD g:<group>:delayed)
  Called before any write, so a refused enqueue writes nothing.
]]
--- @include "keys"
--- @include "safeInteger"

local function boundOf(base, group)
  local raw = redis.call('HMGET', maxPendingKeyOf(base), group, '')
  local own = safeInteger(raw[1])
  if own and own >= 0 then
    return own
  end
  local default = safeInteger(raw[2])
  if default and default >= 0 then
    return default
  end
  return nil
end

local function fullBy(base, group, laneKey, adding)
  local bound = boundOf(base, group)
  if bound == nil then
    return nil
  end
  local held = redis.call('ZCARD', laneKey) + redis.call('ZCARD', groupDelayedKeyOf(base, group))
  if held + adding > bound then
    return bound, held
  end
  return nil
end
