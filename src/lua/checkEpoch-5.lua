--[[
  checkEpoch — a queue's identity in Redis, for the engine's check that Redis has not lost the
  queue's state (DESIGN.md §3, "A Redis that lost a queue's state"). The epoch is a random text
  in `settings`, written by the first check that finds none and never changed after, so an epoch
  that differs from the one the engine remembered (or is missing, and written anew here) means
  the queue's keys went back to nothing since: Redis restarted without its data, was flushed,
  or failed over to a replica that did not have them.

  It writes nothing else: after a loss, ids continue above what the engine saw because each
  enqueue raises `seq` to the engine's id floor itself (includes/enqueueJob.lua firstId), and a
  queue whose keys are gone is registered again by its next write, as a new queue is.

  Input:
    KEYS[1] settings  hash    the queue's settings; field `epoch`
    KEYS[2] seq       string  job id counter
    KEYS[3] stats     hash    totals (pending, delayed, active), for what a loss took
    KEYS[4] glimit    hash    group -> limit (counted)
    KEYS[5] paused    set     paused groups (counted)

    ARGV[1] known     the epoch the engine remembered, '' for none (its first check)
    ARGV[2] fresh     the epoch to write when none is found (random, from the engine)

  Output: { epoch, lost, seq, pending, delayed, active, limits, paused }
    epoch    the queue's epoch now (the one found, or `fresh` written)
    lost     1 when `known` is given and differs from it, else 0
    seq      `seq` after the call (false when missing); pending, delayed, active as stored in
             stats (false when missing); limits (HLEN glimit), paused (SCARD paused)

  Memory: runs at maxmemory (noeviction) when it writes: an epoch, a few bytes
  (includes/allowAtMaxmemory.lua). A check that finds its epoch writes nothing.

  Events: hset settings (an epoch written). None otherwise.
]]
--- @include "allowAtMaxmemory"

local settingsKey = KEYS[1]
local seqKey = KEYS[2]
local statsKey = KEYS[3]
local glimitKey = KEYS[4]
local pausedKey = KEYS[5]
local known = ARGV[1]
local fresh = ARGV[2]

local epoch = redis.call('HGET', settingsKey, 'epoch')
local lost = 0
if known ~= '' and epoch ~= known then lost = 1 end
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
