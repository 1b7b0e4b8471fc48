--[[
  The Lua half of the key producer, src/lanes/keys.ts: the keys a script builds itself, because
  what names them is only known inside it (the group a claim picks, the id an enqueue mints, the
  job ids of a batch or of `active`), and the operations keys. Every other key comes in KEYS.
  Each key's pattern, type and what it holds: the table of DESIGN.md §2. keys.ts builds the same
  names and holds the same WAKE_LENGTH and JOB_LAYOUT; test/lua/includes.test.ts checks that
  the two agree, and that no script builds a key elsewhere.

  base is the queue's 'P:{Q}:' (`QueueKeys.base`), passed in ARGV: a key built from it shares the
  queue's Redis Cluster slot. Each builder names the keys.ts key it builds:
    laneKeyOf(base, group)            `lane`
    jobKeyOf(base, id)                `job`
    groupDelayedKeyOf(base, group)    `groupDelayed`
    groupDeadKeyOf(base, group)       `groupDead`
    groupCompletedKeyOf(base, group)  `groupCompleted`
    errorsKeyOf(base, id)             `errors`
    logsKeyOf(base, id)               `logs`
    jobEventsKeyOf(base, id)          `jobEvents` (includes/jobEvents.lua)
    watchedKeyOf(base)                `watched`: built, not declared, because every script that
                                      moves a job asks it, and the job it asks about is built
    payloadsKeyOf(base)               `payloads`: built, not declared, because it goes wherever a
                                      job hash goes, and the job hash is built (includes/payloads.lua)
    resultsKeyOf(base)                `results`: built, not declared, for the same reason
    settingsKeyOf(base)               `settings`, for the layout mark enqueue writes when it mints
                                      the queue's first id
    idemKeyOf(base, key)              `idem`: enqueue-12.lua is passed its one in KEYS,
                                      enqueueMany-9.lua builds one per job
    debounceKeyOf(base, key)          `debounce`: built by the enqueue scripts (only for a job
                                      with a debounce key) and by a claim of such a job
    WAKE_LENGTH                       wake tokens kept in `wake` (keys.ts `WAKE_LENGTH`)
    JOB_LAYOUT                        the job layout these scripts write, `layout` in settings
                                      (keys.ts `JOB_LAYOUT`, DESIGN.md §2 "Job layout")
  The loops that build a key per job (claimJobs, completeAndClaim, finishCompleted) take its
  fixed parts once per call instead, because a Lua function call per job costs about what a
  redis.call does (docs/PERFORMANCE.md "Redis: fewer Lua calls per job"); the same names:
    jobPrefixOf(base) .. id                        = jobKeyOf(base, id)
    groupPrefixOf(base) .. group .. LANE_SUFFIX    = laneKeyOf(base, group)
    jobPrefixOf(base) .. id .. ERRORS_SUFFIX       = errorsKeyOf(base, id)
    jobPrefixOf(base) .. id .. LOGS_SUFFIX         = logsKeyOf(base, id)

  The operations keys (DESIGN.md §2, "Operations"): every steering script and every group read
  touches some of them, so they are built from base rather than declared in KEYS, as BullMQ's
  scripts build theirs from the queue's prefix. The slot guard every queue script declares keeps
  such a key from being touched on a node the slot is leaving (DESIGN.md §3, "Scripts on a Redis
  Cluster"). A script that is passed no base finds it from a key it is passed: baseOf(key, name).
    historyKeyOf `history`, overridesKeyOf `overrides`, overrideDataKeyOf `overrideData`,
    rateKeyOf `rate`, rateWindowKeyOf `rateWindow`, rateLimitedKeyOf `rateLimited`,
    weightKeyOf `weight`, turnsKeyOf `turns`, headsKeyOf `heads`, pendingRankKeyOf
    `pendingRank`, activeRankKeyOf `activeRank`, ringWatchedKeyOf
    `ringWatched`, ringLogKeyOf `ringLog`, seenKeyOf `seen`, reserveKeyOf `reserve`, maxPendingKeyOf `maxPending`, levelsKeyOf
    `levels`, prioritizedKeyOf `prioritized`, workersKeyOf `workers`, workerInfoKeyOf
    `workerInfo`, schedulesKeyOf `schedules` (each of base alone; `schedules` for the metrics'
    count, readMetrics-7.lua)
  And throughputKeyOf `throughput` (of base alone), built for the same reason as `watched`: every
  script that counts an event writes it, once per call (includes/throughput.lua).
  And the claim's keys, built by the two scripts every worker calls (claim-1.lua,
  completeAndClaim-1.lua) rather than passed in KEYS (a library keeps them per queue: DESIGN.md
  §3, "How scripts run"): claimKeysOf(base), the record `k` of `glimit`, `gactive`, `ring`,
  `paused`, `wake`, `active`, `leases`, `stats`, `delayed`, `settings`, `completed`, each
  queueKeyOf(base, name), the key keys.ts names `name`.
]]
local WAKE_LENGTH = 64
local JOB_LAYOUT = '2'

local LANE_SUFFIX = ':pending'
local ERRORS_SUFFIX = ':errors'
local LOGS_SUFFIX = ':logs'

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

local function logsKeyOf(base, id)
  return base .. 'job:' .. id .. LOGS_SUFFIX
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

local function resultsKeyOf(base)
  return base .. 'results'
end

local function settingsKeyOf(base)
  return base .. 'settings'
end

local function idemKeyOf(base, key)
  return base .. 'idem:' .. key
end

local function debounceKeyOf(base, key)
  return base .. 'debounce:' .. key
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

local function pendingRankKeyOf(base)
  return base .. 'gpending'
end

local function activeRankKeyOf(base)
  return base .. 'gactiverank'
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

local function reserveKeyOf(base)
  return base .. 'greserve'
end

local function maxPendingKeyOf(base)
  return base .. 'gmaxpending'
end

local function levelsKeyOf(base)
  return base .. 'levels'
end

local function prioritizedKeyOf(base)
  return base .. 'prioritized'
end

local function workersKeyOf(base)
  return base .. 'workers'
end

local function workerInfoKeyOf(base)
  return base .. 'workerinfo'
end

local function throughputKeyOf(base)
  return base .. 'throughput'
end

local function schedulesKeyOf(base)
  return base .. 'schedules'
end

-- The key of base named `name` alone, keys.ts's key of that name ('glimit' → `glimit`).
local function queueKeyOf(base, name)
  return base .. name
end

-- The claim's keys (claim-1.lua, completeAndClaim-1.lua; includes/claimJobs.lua's `k`). A
-- library keeps the record per queue and gives every call the same one: a script adds to it
-- only a key of the base (includes/groupState.lua, k.rateLimited).
local function claimKeysOf(base)
  return {
    glimit = queueKeyOf(base, 'glimit'), gactive = queueKeyOf(base, 'gactive'),
    ring = queueKeyOf(base, 'ring'), paused = queueKeyOf(base, 'paused'),
    wake = queueKeyOf(base, 'wake'), active = queueKeyOf(base, 'active'),
    leases = queueKeyOf(base, 'leases'), stats = queueKeyOf(base, 'stats'),
    delayed = queueKeyOf(base, 'delayed'), settings = queueKeyOf(base, 'settings'),
    completed = queueKeyOf(base, 'completed'),
  }
end
