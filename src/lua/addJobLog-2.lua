--[[
  addJobLog — append a line to an active job's log, for the caller holding its token (DESIGN.md
  §3, "Progress and logs"). The log is the list P:{Q}:job:<id>:logs, oldest first, each entry
  `<seq>:<at>:<line>`: seq the entry's place in the job's log (the last entry's plus one, 1 for
  the first; a cursor's position, so a page goes on where it was after older lines are dropped),
  at its time (ms, Redis clock). Only the newest `kept` lines stay (the oldest dropped); the log
  is deleted with the job (includes/retention.lua forget and trim, includes/finishCompleted.lua).

  Input:
    KEYS[1] active  zset  active job id -> lease deadline (ms)
    KEYS[2] job     hash  the job

    ARGV[1] id
    ARGV[2] token
    ARGV[3] line    the line's text, at most `Limits.logLineBytes` (validated by the engine)
    ARGV[4] kept    lines kept per job (`Defaults.logsKept`)
    ARGV[5] base    'P:{Q}:' — the log and settings (the refusal's retention: includes/
                    checkLease.lua) are built from it (includes/keys.lua)

  Output: { seq, at, count } (decimal text, ms, the lines now kept), or -1 (JOB_NOT_FOUND),
  -2 (LEASE_LOST)

  Events: rpush (and ltrim past `kept`) job:<id>:logs.
]]
--- @include "checkLease"
--- @include "keys"

local id = ARGV[1]
local kept = tonumber(ARGV[4])
local base = ARGV[5]

local denied = checkLease(KEYS[1], KEYS[2], id, ARGV[2], settingsKeyOf(base))
if denied then
  return denied
end
local logsKey = logsKeyOf(base, id)
local seq = 1
local last = redis.call('LINDEX', logsKey, -1)
if last then
  -- An entry that is not ours (no seq) restarts the count.
  seq = (tonumber(string.match(last, '^(%d+):')) or 0) + 1
end
local at = string.format('%d', nowMs())
seq = string.format('%d', seq)
local count = redis.call('RPUSH', logsKey, seq .. ':' .. at .. ':' .. ARGV[3])
if count > kept then
  redis.call('LTRIM', logsKey, -kept, -1)
  count = kept
end
return { seq, at, count }
