--[[
  The Lua half of the key producer, src/lanes/keys.ts (DESIGN.md §2): the keys a script builds
  itself, because what names them is only known inside it (the group a claim picks, the id an
  enqueue mints, the job ids of a batch or of `active`). Every other key comes in KEYS.
  keys.ts builds the same names (`lane()`, `job()`) and holds the same WAKE_LENGTH;
  test/lua/includes.test.ts checks that the two agree, and that no script builds a key elsewhere.

  base is the queue's 'P:{Q}:' (`QueueKeys.base`), passed in ARGV: a key built from it shares the
  queue's Redis Cluster slot.
    laneKeyOf(base, group)  'P:{Q}:g:<group>:pending'  the group's lane (keys.ts `lane`)
    jobKeyOf(base, id)      'P:{Q}:job:<id>'           the job's hash (keys.ts `job`)
    groupDelayedKeyOf(base, group)    'P:{Q}:g:<group>:delayed'    (keys.ts `groupDelayed`)
    groupDeadKeyOf(base, group)       'P:{Q}:g:<group>:dead'       (keys.ts `groupDead`)
    groupCompletedKeyOf(base, group)  'P:{Q}:g:<group>:completed'  (keys.ts `groupCompleted`)
    errorsKeyOf(base, id)   'P:{Q}:job:<id>:errors'    the job's failed attempts (keys.ts `errors`)
    WAKE_LENGTH             wake tokens kept in 'P:{Q}:wake' (keys.ts `WAKE_LENGTH`)
  `P:{Q}:idem:<key>` (keys.ts `idem`) has no Lua builder: enqueue is passed it in KEYS.
]]
local WAKE_LENGTH = 64

local function laneKeyOf(base, group)
  return base .. 'g:' .. group .. ':pending'
end

local function jobKeyOf(base, id)
  return base .. 'job:' .. id
end

local function groupDelayedKeyOf(base, group)
  return base .. 'g:' .. group .. ':delayed'
end

local function groupDeadKeyOf(base, group)
  return base .. 'g:' .. group .. ':dead'
end

local function groupCompletedKeyOf(base, group)
  return base .. 'g:' .. group .. ':completed'
end

local function errorsKeyOf(base, id)
  return base .. 'job:' .. id .. ':errors'
end
