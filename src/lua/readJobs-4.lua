--[[
  readJobs — one page of jobs from one zset index, for Queue.jobs (DESIGN.md §4.1): a group's
  lane (PENDING, run order), `delayed` or a group's (DELAYED, by run-at time), `active` (ACTIVE,
  by lease deadline), `dead` or `completed` or a group's (newest first). Read-only.

  Paging is by cursor, never by offset, so a page costs O(log n + page) however deep it is: the
  cursor holds the last job's score and id. When that member is still in the index at that
  score, the page starts right after its rank (ZRANK / ZREVRANK). When it is gone (claimed,
  promoted, removed) or has moved (its lease extended), the page starts at the first member after
  the cursor in the index's order — every member with a later score, and the members with the
  cursor's very score that sort after its id (Redis orders equal scores by member bytes) — found
  by ZCOUNT and a binary search over the ranks holding that score (O(log n · log ties)). So no
  job is skipped and none is shown twice across pages while the index changes, except a job
  whose score moved across the cursor.

  A page of `completed` or `dead` (or a group's) shows only the jobs their retention keeps
  (includes/retentionAge.lua): one past its age that no trim has reached yet is gone to every
  read. These indexes are scored by finish time, so those jobs are the index's oldest, one
  range at its end: the page stops before the first of them, and the total is the ZCOUNT of
  the scores the policy keeps (O(log n), exact).

  With a group filter (ACTIVE of one group: `active` holds every group's jobs), the members are
  walked from the cursor in chunks and kept when `leases` names the group: O(active jobs) at
  worst, bounded by the work in flight (the workers' concurrency), not by any backlog.

  Input:
    KEYS[1] index    zset   job id -> score (the index read)
    KEYS[2] leases   hash   active job id -> group (read only with a group filter)
    KEYS[3] gactive  hash   group -> active count (read only with a group filter: the total)
    KEYS[4] settings hash   the queue's retention policies (read only with a kind)

    ARGV[1] base        'P:{Q}:' — each job's hash P:{Q}:job:<id> is built from it
                        (includes/keys.lua; same slot)
    ARGV[2] order       'asc' (lowest score first) or 'desc' (highest first)
    ARGV[3] first       page size, 1..500 (the script looks one further to tell whether more
                        follow)
    ARGV[4] afterScore  the cursor's score as Redis wrote it, '' for the first page
    ARGV[5] afterId     the cursor's member
    ARGV[6] group       '' for every member, else only active jobs leased to this group
    ARGV[7] kind        'completed' or 'dead' for an index of finished jobs scored by finish
                        time, read 'desc': only the jobs that kind's retention keeps now; ''
                        for any other (and ignored with 'asc', where the oldest come first)

  Output: { total, more, ids, scores, fields }
    total   ZCARD of the index; with a kind and an age bound, the members finished at or
            after now − ageMs (ZCOUNT); with a group filter, the group's active count (0 when
            its field is missing or not an integer within ±(2^53−1))
    more    1 when at least one more member follows the page, else 0
    ids     the page's members, in order (at most `first`)
    scores  their scores, as Redis writes them
    fields  each one's job hash, flat { field, value, ... }, its payload appended
            (includes/payloads.lua, jobFields; empty when the hash is gone)

  Events: none.
]]
--- @include "keys"
--- @include "safeInteger"
--- @include "payloads"
--- @include "nowMs"
--- @include "retentionAge"

local indexKey = KEYS[1]
local leasesKey = KEYS[2]
local gactiveKey = KEYS[3]
local base = ARGV[1]
local desc = ARGV[2] == 'desc'
local first = tonumber(ARGV[3])
local afterScore = ARGV[4]
local afterId = ARGV[5]
local group = ARGV[6]
local kind = ARGV[7]

-- The oldest score the retention keeps, or nil: no bound. Only newest first, where the jobs
-- past it are the page's tail, so the page can stop at the first of them.
local since = nil
if kind ~= '' and desc then
  since = keptSince(KEYS[4], kind, nowMs())
end

-- Members a filtered page looks at per step.
local CHUNK = 200

-- a < b by bytes, the order Redis keeps equal scores in (Lua's own < follows the C locale's
-- collation, which Redis may have set to something else).
local function bytesLess(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then
      return x < y
    end
  end
  return #a < #b
end

local function rangeOf(from, to)
  if desc then
    return redis.call('ZREVRANGE', indexKey, from, to, 'WITHSCORES')
  end
  return redis.call('ZRANGE', indexKey, from, to, 'WITHSCORES')
end

-- The rank (in the page's order, 0-based) of the first member after the cursor.
local function startRank()
  if afterScore == '' then
    return 0
  end
  local at = redis.call('ZSCORE', indexKey, afterId)
  if at and tonumber(at) == tonumber(afterScore) then
    local rank
    if desc then
      rank = redis.call('ZREVRANK', indexKey, afterId)
    else
      rank = redis.call('ZRANK', indexKey, afterId)
    end
    return rank + 1
  end
  local before
  if desc then
    before = redis.call('ZCOUNT', indexKey, '(' .. afterScore, '+inf')
  else
    before = redis.call('ZCOUNT', indexKey, '-inf', '(' .. afterScore)
  end
  local ties = redis.call('ZCOUNT', indexKey, afterScore, afterScore)
  -- Ranks before .. before + ties − 1 hold the cursor's score, members in the page's order:
  -- find the first that comes after the cursor's id.
  local lo, hi = before, before + ties
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = rangeOf(mid, mid)[1]
    local after
    if desc then
      after = bytesLess(member, afterId)
    else
      after = bytesLess(afterId, member)
    end
    if after then
      hi = mid
    else
      lo = mid + 1
    end
  end
  return lo
end

local ids, scores = {}, {}
local more = 0
local from = startRank()
if group == '' then
  local page = rangeOf(from, from + first)
  for i = 1, #page, 2 do
    if since ~= nil and tonumber(page[i + 1]) < since then
      -- Past its retention age, and so is every member after it (older still).
      break
    end
    if #ids == first then
      more = 1
      break
    end
    ids[#ids + 1] = page[i]
    scores[#scores + 1] = page[i + 1]
  end
else
  while more == 0 do
    local chunk = rangeOf(from, from + CHUNK - 1)
    if #chunk == 0 then
      break
    end
    local members = {}
    for i = 1, #chunk, 2 do
      members[#members + 1] = chunk[i]
    end
    local owners = redis.call('HMGET', leasesKey, unpack(members))
    for i, member in ipairs(members) do
      if owners[i] == group then
        if #ids == first then
          more = 1
          break
        end
        ids[#ids + 1] = member
        scores[#scores + 1] = chunk[2 * i]
      end
    end
    if #members < CHUNK then
      break
    end
    from = from + CHUNK
  end
end

local total
if since ~= nil then
  total = redis.call('ZCOUNT', indexKey, string.format('%d', since), '+inf')
elseif group == '' then
  total = redis.call('ZCARD', indexKey)
else
  total = safeInteger(redis.call('HGET', gactiveKey, group)) or 0
  if total < 0 then
    total = 0
  end
end

local fields = {}
for i, id in ipairs(ids) do
  fields[i] = jobFields(base, id)
end

return { total, more, ids, scores, fields }
