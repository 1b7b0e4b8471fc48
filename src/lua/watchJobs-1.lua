--[[
  watchJobs — a live feed registers the jobs it watches (`jobChanged`, DESIGN.md §4.4), so the
  scripts that move them append their events (includes/jobEvents.lua): each id's registration
  in P:{Q}:watched runs until now + ttlMs (Redis clock). Only ever out (ZADD GT): another
  server may watch the same job for longer, and a registration is never removed by a feed, only
  by the reaper once it has passed (reap-12.lua), so one feed letting go never blinds another.
  A feed calls it when a job watch starts and again every ttlMs / 3 while it lives.

  Input:
    KEYS[1] watched  zset  job id -> until (ms, Redis clock)

    ARGV[1] ttlMs    how long the registrations last (ms, 1..86,400,000; the feed's own)
    ARGV[2 ..]       the job ids (1..1,000 per call, the feed's batches)

  Output: until (ms, Redis clock)

  Events: zadd watched.
]]
--- @include "nowMs"

local untilMs = string.format('%d', nowMs() + tonumber(ARGV[1]))
local members = {}
for i = 2, #ARGV do
  members[#members + 1] = untilMs
  members[#members + 1] = ARGV[i]
end
redis.call('ZADD', KEYS[1], 'GT', unpack(members))
return tonumber(untilMs)
