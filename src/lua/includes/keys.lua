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
    jobEventsKeyOf(base, id)  'P:{Q}:job:<id>:events'  the watched job's state changes (keys.ts
                            `jobEvents`, includes/jobEvents.lua)
    watchedKeyOf(base)      'P:{Q}:watched'            zset: watched job id -> until (ms; keys.ts
                            `watched`): built, not declared, because every script that moves a
                            job asks it, and the job it asks about is built
    payloadsKeyOf(base)     'P:{Q}:payloads'           job id -> payload (keys.ts `payloads`): built,
                            not declared, because it goes wherever a job hash goes, and the
                            job hash is built (includes/payloads.lua)
    settingsKeyOf(base)     'P:{Q}:settings'           for the layout mark enqueue writes when it
                            mints the queue's first id (keys.ts `settings`)
    WAKE_LENGTH             wake tokens kept in 'P:{Q}:wake' (keys.ts `WAKE_LENGTH`)
    JOB_LAYOUT              the job layout these scripts write, `layout` in settings (keys.ts
                            `JOB_LAYOUT`, DESIGN.md §2 "Job layout")
  The loops that build a key per job (claimJobs, completeAndClaim, finishCompleted) take its
  fixed parts once per call instead, because a Lua function call per job costs about what a
  redis.call does (docs/PERFORMANCE.md "Redis: fewer Lua calls per job"); the same names:
    jobPrefixOf(base) .. id                        = jobKeyOf(base, id)
    groupPrefixOf(base) .. group .. LANE_SUFFIX    = laneKeyOf(base, group)
    jobPrefixOf(base) .. id .. ERRORS_SUFFIX       = errorsKeyOf(base, id)
    idemKeyOf(base, key)    'P:{Q}:idem:<key>'         an enqueue's idempotency key (keys.ts `idem`):
                            enqueue-12.lua is passed its one in KEYS, enqueueMany-9.lua builds
                            one per job

  The operations keys (DESIGN.md §2, "Operations"): every steering script and every group read
  touches some of them, so they are built from base rather than declared in KEYS, as BullMQ's
  scripts build theirs from the queue's prefix. The slot guard every queue script declares keeps
  such a key from being touched on a node the slot is leaving (DESIGN.md §3, "Scripts on a Redis
  Cluster"). A script that is passed no base finds it from a key it is passed: baseOf(key, name).
    historyKeyOf(base)             'P:{Q}:history'              stream (keys.ts `history`)
    overridesKeyOf(base)           'P:{Q}:overrides'            zset   (keys.ts `overrides`)
    overrideDataKeyOf(base)        'P:{Q}:goverride'            hash   (keys.ts `overrideData`)
    rateKeyOf(base)                'P:{Q}:grate'                hash   (keys.ts `rate`)
    rateWindowKeyOf(base)          'P:{Q}:gwindow'              hash   (keys.ts `rateWindow`)
    rateLimitedKeyOf(base)         'P:{Q}:ratelimited'          zset   (keys.ts `rateLimited`)
    weightKeyOf(base)              'P:{Q}:gweight'              hash   (keys.ts `weight`)
    turnsKeyOf(base)               'P:{Q}:gturns'               hash   (keys.ts `turns`)
    headsKeyOf(base)               'P:{Q}:heads'                zset   (keys.ts `heads`)
    ringWatchedKeyOf(base)         'P:{Q}:ringwatched'          string (keys.ts `ringWatched`)
    ringLogKeyOf(base)             'P:{Q}:ringlog'              list   (keys.ts `ringLog`)
    seenKeyOf(base)                'P:{Q}:gseen'                zset   (keys.ts `seen`)
]]
local WAKE_LENGTH = 64
local JOB_LAYOUT = '2'

local LANE_SUFFIX = ':pending'
local ERRORS_SUFFIX = ':errors'

local function jobPrefixOf(base)
  return base .. 'job:'
end

local function groupPrefixOf(base)
  return base .. 'g:'
end

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

local function jobEventsKeyOf(base, id)
  return base .. 'job:' .. id .. ':events'
end

local function watchedKeyOf(base)
  return base .. 'watched'
end

local function payloadsKeyOf(base)
  return base .. 'payloads'
end

local function settingsKeyOf(base)
  return base .. 'settings'
end

local function idemKeyOf(base, key)
  return base .. 'idem:' .. key
end

local function baseOf(key, name)
  return string.sub(key, 1, #key - #name)
end

local function historyKeyOf(base)
  return base .. 'history'
end

local function overridesKeyOf(base)
  return base .. 'overrides'
end

local function overrideDataKeyOf(base)
  return base .. 'goverride'
end

local function rateKeyOf(base)
  return base .. 'grate'
end

local function rateWindowKeyOf(base)
  return base .. 'gwindow'
end

local function rateLimitedKeyOf(base)
  return base .. 'ratelimited'
end

local function weightKeyOf(base)
  return base .. 'gweight'
end

local function turnsKeyOf(base)
  return base .. 'gturns'
end

local function headsKeyOf(base)
  return base .. 'heads'
end

local function ringWatchedKeyOf(base)
  return base .. 'ringwatched'
end

local function ringLogKeyOf(base)
  return base .. 'ringlog'
end

local function seenKeyOf(base)
  return base .. 'gseen'
end
