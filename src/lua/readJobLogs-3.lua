--[[
  readJobLogs — a page of a job's log as Queue.jobLogs reads it (DESIGN.md §3, "Progress and
  logs"): the lines after the one `after` names, oldest first. Read-only, O(page).

  A job gone (no hash, or completed or dead past its retention age: includes/retentionAge.lua,
  as readJob-4.lua judges it) has no log to read: answered as such, so a log never outlives
  its job to a reader. Entries are `<seq>:<at>:<line>` (addJobLog-2.lua); the page starts at
  the first entry whose seq is past `after` (found from the first entry's seq: the seqs of a
  log are consecutive), so a cursor stays good while older lines are dropped.

  Input:
    KEYS[1] job       hash  P:{Q}:job:<id>
    KEYS[2] logs      list  the job's log
    KEYS[3] settings  hash  the queue's retention policies

    ARGV[1] after     a seq: the page starts after it; '' for the first page
    ARGV[2] count     entries to answer at most (the page and one more, to tell a next page)
    ARGV[3] tail      '1': the newest `count` entries instead (`after` is '')

  Output: { exists, total, entries }: exists 1 or 0 (then total 0, entries {}); total the
  lines kept; entries the page's, as stored. A key that is not a list (another writer's) reads
  as an empty log.

  Events: none.
]]
--- @include "nowMs"
--- @include "retentionAge"

local fields = redis.call('HMGET', KEYS[1], 'state', 'finishedAt')
if (not fields[1] and redis.call('EXISTS', KEYS[1]) == 0)
  or finishedPast(KEYS[3], fields[1], fields[2], nowMs()) then
  return { 0, 0, {} }
end
local logsKey = KEYS[2]
if redis.call('TYPE', logsKey).ok ~= 'list' then
  return { 1, 0, {} }
end
local total = redis.call('LLEN', logsKey)
local count = tonumber(ARGV[2])
if ARGV[3] == '1' then
  return { 1, total, redis.call('LRANGE', logsKey, -count, -1) }
end
local start = 0
if ARGV[1] ~= '' then
  local first = tonumber(string.match(redis.call('LINDEX', logsKey, 0) or '', '^(%d+):'))
  if first then
    start = math.max(0, tonumber(ARGV[1]) - first + 1)
  end
end
return { 1, total, redis.call('LRANGE', logsKey, start, start + count - 1) }
