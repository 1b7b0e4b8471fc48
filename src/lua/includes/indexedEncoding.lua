--[[
  A busy worker's hot keys held in Redis' indexed encodings ("Redis CPU per job";
  docs/PERFORMANCE.md "Hot spots"). Redis keeps a zset or hash of up to 128 entries
  (zset-/hash-max-listpack-entries) as a listpack: every member added, found or removed is a
  linear scan, and a ZADD into a zset ordered by score walks it to its place. At concurrency
  64, `active` and `leases` hold 64–128 members and every job adds, finds and removes one in
  each, so the scans were a quarter of Redis' instructions per job; and `gactive` and `glimit`
  of a queue with fewer than 128 groups are the same (two lookups of each per job: the claim's
  and the completion's).

  Redis converts a listpack to a skiplist (zset) or hash table (hash) as soon as one member is
  longer than *-max-listpack-value (64 by default), and never converts it back while the key
  lives (Redis 6.2, where the compact encoding is called ziplist, and 7.x). So, once a batch is big enough that the scans cost more than the
  indexes' memory (INDEXED_FROM claims in one call), the claim adds and removes one long
  member (PAD) in each key still a listpack: the key's content is unchanged when the script
  ends (the script is atomic, so no reader ever sees PAD), only its encoding. A key emptied
  (the queue idle: every lease ended) is deleted by Redis and starts again as a listpack, and a
  small queue never pays for the indexes.

  The price: one OBJECT ENCODING per key per big batch (four calls of ~1 µs for ~30 jobs);
  once per key's life a ZADD/ZREM (HSET/HDEL) of PAD, which a keyspace-event listener sees as
  a zadd + zrem (hset + hdel) with no change; a skiplist or hash table of 64–128 members costs a
  few KB more than a listpack, per queue. On a server configured with *-max-listpack-value
  above PAD's length the conversion does not happen and every big batch pays the OBJECT
  ENCODINGs and the PAD writes for nothing (correct, only slower).

    keepIndexed(k, claims, served, base)
                                     after flushClaims' writes of a batch of `claims` claims
                                     over `served` groups: `active` and `leases` indexed when
                                     claims >= INDEXED_FROM, `gactive`, `glimit` and the group
                                     rankings (`gpending`, `gactiverank`, includes/groupRanks.lua;
                                     every served group is written in each) when served >= it
    indexRanking(key)                a group ranking (`gpending`) of INDEXED_FROM groups or
                                     more, still a listpack, indexed: asked when a group joins
                                     it (includes/groupRanks.lua, addPending), so the one-job
                                     calls — enqueue, a Worker at concurrency 1, which never
                                     make a batch of INDEXED_FROM — do not scan up to 128
                                     groups at each write. One OBJECT ENCODING per group joining
                                     (and one ZCARD while a listpack)
  k: active (zset), leases (hash), gactive (hash), glimit (hash); base: 'P:{Q}:'.
]]
--- @include "keys"

local INDEXED_FROM = 16
-- PAD: longer than any *-max-listpack-value a server would run with; never a job id or a group
-- (ids are decimal, and `gactive` fields are groups, which the engine caps at 256 bytes). Made
-- only when a key is converted: string.rep of 4,096 bytes at every script load cost ~6,000
-- instructions per job.
local PAD
local function pad()
  PAD = PAD or string.rep('~', 4096)
  return PAD
end

-- A compact encoding: 'listpack' (Redis 7), 'ziplist' (6.2); false/nil for no key.
local function isCompact(key)
  local encoding = redis.call('OBJECT', 'ENCODING', key)
  return encoding == 'listpack' or encoding == 'ziplist'
end

local function indexZset(key)
  if isCompact(key) then
    redis.call('ZADD', key, 0, pad())
    redis.call('ZREM', key, pad())
  end
end

local function indexHash(key)
  if isCompact(key) then
    redis.call('HSET', key, pad(), '')
    redis.call('HDEL', key, pad())
  end
end

local function keepIndexed(k, claims, served, base)
  if claims >= INDEXED_FROM then
    indexZset(k.active)
    indexHash(k.leases)
  end
  if served >= INDEXED_FROM then
    indexHash(k.gactive)
    indexHash(k.glimit)
    indexZset(pendingRankKeyOf(base))
    indexZset(activeRankKeyOf(base))
  end
end

-- isCompact and indexZset in place: the scripts that add to a ranking (enqueue above all) keep
-- one closure of this file, not three (a closure costs every call of the script).
local function indexRanking(key)
  local encoding = redis.call('OBJECT', 'ENCODING', key)
  if (encoding == 'listpack' or encoding == 'ziplist')
    and redis.call('ZCARD', key) >= INDEXED_FROM then
    PAD = PAD or string.rep('~', 4096)
    redis.call('ZADD', key, 0, PAD)
    redis.call('ZREM', key, PAD)
  end
end
