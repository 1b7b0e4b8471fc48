--[[
  reconcileBuckets — Queue.audit / Queue.repair of the rate limits' token buckets (DESIGN.md §3
  "Rate limits", §4.5). A bucket (`gwindow`, group -> '<tokens>:<atMs>', includes/rateLimit.lua)
  belongs to a group with a rate (`grate`), holds at most its burst tokens, and its atMs is not
  after now; an old fixed window '<startMs>:<claims>' (first > second) is still read (the
  upgrade) and is no finding. A claim reads a malformed bucket as empty at now, so it is never
  over the rate; the finding says so, and repair writes it as that: '0:<now>'. A bucket of a
  group with no rate counts for nothing: repair deletes it.
  One bounded step per call (an HSCAN step of `gwindow` from the caller's cursor: src/lanes/
  queue/reconcile.ts walks it to its end), so any number of buckets never blocks Redis long.

  Input:
    KEYS[1] gwindow  hash  group -> '<tokens>:<atMs>'
    KEYS[2] grate    hash  group -> '<max>:<windowMs>:<burst>'

    ARGV[1] base    'P:{Q}:' — the history key is built from it (includes/keys.lua)
    ARGV[2] mode    'audit' (change nothing) or 'repair'
    ARGV[3] cursor  the HSCAN cursor ('0' to start)
    ARGV[4] count   the HSCAN COUNT (a step's size)
    ARGV[5] actor   who asks (includes/history.lua)
    ARGV[6] cap     the queue history's cap (0 records nothing)

  Output: { findings, cursor }
    findings  flat { group, 'RATE', expected, found, ... }
    cursor    the next step's cursor, '0' when `gwindow` was read to its end

  History (repair only, includes/repairHistory.lua): one entry 'repair' per group whose bucket it
  changed, step 'buckets', before/after `{ bucket = found / expected }`.

  Events (repair only): hset/hdel gwindow, xadd history.
]]
--- @include "keys"
--- @include "nowMs"
--- @include "safeInteger"
--- @include "repairHistory"
--- @include "rateLimit"

local bucketKey = KEYS[1]
local rateKey = KEYS[2]
local base = ARGV[1]
local repair = ARGV[2] == 'repair'
local h = historyArgs(ARGV[5], ARGV[6])
local log = repairLog('buckets')
local findings = {}
local now = nowMs()

local scan = redis.call('HSCAN', bucketKey, ARGV[3], 'COUNT', ARGV[4])
local items = scan[2]
for i = 1, #items, 2 do
  local group, raw = items[i], items[i + 1]
  local max, _, burst = parseRate(redis.call('HGET', rateKey, group))
  local expected, found
  if max == nil then
    expected, found = 'no bucket (no rate limit)', raw
    if repair then
      redis.call('HDEL', bucketKey, group)
    end
  else
    local a, b = string.match(raw, '^(%-?%d+):(%d+)$')
    a, b = safeInteger(a), safeInteger(b)
    -- An old fixed window (a > b) is read as the upgrade says: no finding.
    if a == nil or b == nil or (a <= b and (a > burst or b > now)) then
      expected = string.format('a bucket of at most %d tokens, its time not after now (%d)', burst,
        now)
      found = raw
      if repair then
        redis.call('HSET', bucketKey, group, string.format('0:%d', now))
      end
    end
  end
  if expected then
    if repair then
      noteRepair(log, group, 'bucket', found, expected)
    end
    findings[#findings + 1] = group
    findings[#findings + 1] = 'RATE'
    findings[#findings + 1] = expected
    findings[#findings + 1] = found
  end
end
recordRepairs(base, h, log)
return { findings, scan[1] }
