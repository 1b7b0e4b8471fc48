--[[
  watchJobs — a live feed registers the jobs it watches (`jobChanged`, DESIGN.md §4.4), so the
  scripts that move them append their events (includes/jobEvents.lua): each id's registration
  in P:{Q}:watched runs until now + ttlMs (Redis clock). Only ever out (ZADD GT): another
  server may watch the same job for longer, and a registration is never removed by a feed, only
  by the reaper once it has passed (reap-12.lua), so one feed letting go never blinds another.
  A feed calls it when a job watch starts and again every ttlMs / 3 while it lives.

  The key expires with its latest registration: its TTL is raised to ttlMs when it is shorter
  or absent (PTTL, then PEXPIRE: Redis 6.2 has no PEXPIRE GT), never lowered, so a key no feed
  renews is gone ttlMs after the last call, in any queue (the reaper walks registered queues
  only, and a read-only client may watch an id in a queue that holds nothing). A key without a
  TTL (written before it had one) keeps at least its latest registration's time.

  Input:
    KEYS[1] watched  zset  job id -> until (ms, Redis clock)

    ARGV[1] ttlMs    how long the registrations last (ms, 1..86,400,000; the feed's own)
    ARGV[2 ..]       the job ids (1..1,000 per call, the feed's batches)

  Output: until (ms, Redis clock)

  Events: zadd + pexpire watched.
]]
--- @include "nowMs"

local now = nowMs()
local ttlMs = tonumber(ARGV[1])
local untilMs = string.format('%d', now + ttlMs)
local members = {}
for i = 2, #ARGV do
  members[#members + 1] = untilMs
  members[#members + 1] = ARGV[i]
end
redis.call('ZADD', KEYS[1], 'GT', unpack(members))
local left = redis.call('PTTL', KEYS[1])
if left < ttlMs then
  local keep = ttlMs
  if left == -1 then
    -- No TTL yet: cover the latest registration already there (another server's may be longer).
    local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
    keep = math.max(keep, tonumber(last[2]) - now)
  end
  redis.call('PEXPIRE', KEYS[1], keep)
end
return tonumber(untilMs)
