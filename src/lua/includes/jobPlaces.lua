--[[
  The places of I4 besides a lane and `active` (DESIGN.md §2, §3): a DELAYED, DEAD or retained
  COMPLETED job is in a queue-wide zset (`delayed`, `dead`, `completed`) and in its group's
  (g:<group>:delayed, :dead, :completed), both scored alike (run-at time, time it died, time it
  completed; ms). Shared by the operator actions and the audit of those pairs.

  k: k.delayed, k.dead, k.completed (the queue-wide zsets). base: 'P:{Q}:' (group indexes are
  built from it, includes/keys.lua).
    PAIRED                       the kinds with a queue-wide and a per-group index
    indexesOf(k, base, kind, group)
                                 the queue-wide and the group's index of kind 'delayed', 'dead'
                                 or 'completed' (group nil: the group's is nil)
    storedLaneScore(raw, id)     a job's FIFO place in its lane: its hash's `score` when that is
                                 a finite number, else its id, else 0 (as includes/requeueJob.lua
                                 and includes/promote.lua place a job)
]]
--- @include "keys"

local PAIRED = { delayed = true, dead = true, completed = true }

local function indexesOf(k, base, kind, group)
  local groupIndex = nil
  if kind == 'delayed' then
    if group then
      groupIndex = groupDelayedKeyOf(base, group)
    end
    return k.delayed, groupIndex
  elseif kind == 'dead' then
    if group then
      groupIndex = groupDeadKeyOf(base, group)
    end
    return k.dead, groupIndex
  end
  if group then
    groupIndex = groupCompletedKeyOf(base, group)
  end
  return k.completed, groupIndex
end

local function finiteOrNil(text)
  local n = tonumber(text)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then
    return nil
  end
  return n
end

local function storedLaneScore(raw, id)
  return finiteOrNil(raw) or finiteOrNil(id) or 0
end
