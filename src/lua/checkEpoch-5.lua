--[[
  checkEpoch — a queue's identity in Redis, for the engine's check that Redis has not lost the
  queue's state (DESIGN.md §3, "A Redis that lost a queue's state"). The epoch is a random text
  in `settings`, written by the first check that finds none and never changed after, so an epoch
  that differs from the one the engine remembered (or is missing, and written anew here) means
  the queue's keys went back to nothing since: Redis restarted without its data, was flushed,
  or failed over to a replica that did not have them.

  When it did (the engine remembered an epoch and it is not the one found), `seq` is raised to
  the engine's id floor, so no new job gets an id the engine has seen handed out before, and a
  queue without a layout mark is marked (its jobs, if any, were written since, by this
  version; DESIGN.md §2, "Job layout": a raised `seq` with no mark would read as jobs of the
  layout before).

  Input:
    KEYS[1] settings  hash    the queue's settings; field `epoch`
    KEYS[2] seq       string  job id counter
    KEYS[3] stats     hash    totals (pending, delayed, active), for what a loss took
    KEYS[4] glimit    hash    group -> limit (counted)
    KEYS[5] paused    set     paused groups (counted)

    ARGV[1] known     the epoch the engine remembered, '' for none (its first check)
    ARGV[2] fresh     the epoch to write when none is found (random, from the engine)
    ARGV[3] idFloor   the highest job id the engine has seen handed out, '' for none

  Output: { epoch, lost, seq, pending, delayed, active, limits, paused }
    epoch    the queue's epoch now (the one found, or `fresh` written)
    lost     1 when `known` is given and differs from it (then `seq` was raised to the floor
             if it stood below it), else 0
    seq      `seq` after the call (false when missing); pending, delayed, active as stored in
             stats (false when missing); limits (HLEN glimit), paused (SCARD paused)

  Refuses (DATA_OUT_OF_RANGE, nothing written) a `seq` that is not an integer from 0 to
  2^53−1 when it would raise it.

  Memory: runs at maxmemory (noeviction) when it writes: an epoch and a counter, a few bytes
  (includes/allowAtMaxmemory.lua). A check that finds its epoch writes nothing.

  Events: hset settings (an epoch written, a layout marked); set seq (raised). None otherwise.
]]
--- @include "allowAtMaxmemory"
--- @include "keys"
--- @include "safeInteger"

local settingsKey = KEYS[1]
local seqKey = KEYS[2]
local statsKey = KEYS[3]
local glimitKey = KEYS[4]
local pausedKey = KEYS[5]
local known = ARGV[1]
local fresh = ARGV[2]
local idFloor = ARGV[3]

local epoch = redis.call('HGET', settingsKey, 'epoch')
local lost = 0
if known ~= '' and epoch ~= known then
  lost = 1
  if idFloor ~= '' then
    local seq = redis.call('GET', seqKey)
    if seq and not (isSafeInteger(seq) and tonumber(seq) >= 0) then
      refuse(seqKey, nil, seq, 'a job id counter from 0 to 2^53−1',
        'Send new jobs to a new queue.')
    end
    if not seq or tonumber(seq) < tonumber(idFloor) then
      allowAtMaxmemory(settingsKey)
      redis.call('SET', seqKey, idFloor)
    end
  end
  if not redis.call('HGET', settingsKey, 'layout') then
    allowAtMaxmemory(settingsKey)
    redis.call('HSET', settingsKey, 'layout', JOB_LAYOUT)
  end
end
if not epoch then
  allowAtMaxmemory(settingsKey)
  redis.call('HSET', settingsKey, 'epoch', fresh)
  epoch = fresh
end
local totals = redis.call('HMGET', statsKey, 'pending', 'delayed', 'active')
return {
  epoch,
  lost,
  redis.call('GET', seqKey),
  totals[1],
  totals[2],
  totals[3],
  redis.call('HLEN', glimitKey),
  redis.call('SCARD', pausedKey),
}
