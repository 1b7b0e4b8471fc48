--[[
  readSchedules — a page of a queue's schedules, by id in byte order (DESIGN.md §3, "Schedules";
  §4.2 `Queue.schedules`). Reads only.

  Input:
    KEYS[1] schedules  zset   schedule id -> next tick due (ms)
    KEYS[2] schedule   hash   schedule id -> definition (JSON)
    KEYS[3] schedruns  hash   schedule id -> '<lastRunAt>:<lastJobId>'
    ARGV[1] after      the page starts after this id; '' from the first
    ARGV[2] first      the page's size, 1..500 (validated by the engine)

  Output: { total, more, entries }: the schedules in all, 1 when more follow the page, and per
  schedule { id, definition, nextRunAt (as Redis writes it), runs or false }.

  Cost: O(n log n) in the queue's schedules (HKEYS sorted; a queue holds at most
  Limits.maxSchedules), plus O(first log n) for the page.
]]

local schedulesKey = KEYS[1]
local scheduleKey = KEYS[2]
local runsKey = KEYS[3]
local after = ARGV[1]
local first = tonumber(ARGV[2])

local ids = redis.call('HKEYS', scheduleKey)
table.sort(ids)
local entries = {}
local more = 0
for i = 1, #ids do
  local id = ids[i]
  if after == '' or id > after then
    if #entries == first then
      more = 1
      break
    end
    entries[#entries + 1] = { id, redis.call('HGET', scheduleKey, id),
      redis.call('ZSCORE', schedulesKey, id) or false, redis.call('HGET', runsKey, id) }
  end
end
return { #ids, more, entries }
