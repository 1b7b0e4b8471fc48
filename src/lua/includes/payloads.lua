--[[
  A job's payload lives in the queue's `P:{Q}:payloads` hash (job id -> JSON text), not in the
  job's own hash (DESIGN.md §2, "Job layout"): a value over `hash-max-listpack-value` (64 bytes)
  turns a whole hash from a listpack into a hash table, which more than doubled a job's memory
  (MEMORY USAGE 512 against 184 bytes for a 100-byte payload). One hash for the queue costs a
  dict entry per job and keeps every job hash a listpack; a claim reads a batch's payloads in
  one HMGET. The payload field goes wherever the job hash goes: written with it (enqueue),
  deleted with it (forget in includes/retention.lua, finishCompleted), read beside it.
    storePayload(base, id, payload)  payload '' (none) writes nothing
    dropPayloads(base, ids)          one HDEL for a batch of ids (a missing field is no error)
    jobFields(base, id)              the job hash as HGETALL gives it, with 'payload' appended
                                     when it has one: the reply every script answers a job with
                                     ({} when the job has no hash)
    fillPayloads(base, claimed, at)  claimed[i][at] = the payload of claimed[i][1] (or false),
                                     one HMGET for all (one HGET for one: no table of ids)

  A completed job's result (DESIGN.md §2, "Job layout") lives beside it the same way, in
  `P:{Q}:results` (job id -> JSON text), written only for a job the completed retention keeps
  (includes/finishCompleted.lua). Its hash then holds `hasResult` '1', so a reader or a trim
  asks `results` only for a job that has one: a job without a result costs no command more.
    storeResults(base, pairs)        one HSET of { id, result, ... } (none when empty)
    dropResults(base, ids)           one HDEL for a batch of ids
    withResult(base, id, fields)     fields (a job hash, flat) with 'result' appended when it
                                     says hasResult
]]
--- @include "keys"

local function storePayload(base, id, payload)
  if payload ~= '' then
    redis.call('HSET', payloadsKeyOf(base), id, payload)
  end
end

local function dropPayloads(base, ids)
  if #ids > 0 then
    redis.call('HDEL', payloadsKeyOf(base), unpack(ids))
  end
end

local function storeResults(base, pairs)
  if #pairs > 0 then
    redis.call('HSET', resultsKeyOf(base), unpack(pairs))
  end
end

local function dropResults(base, ids)
  if #ids > 0 then
    redis.call('HDEL', resultsKeyOf(base), unpack(ids))
  end
end

local function withResult(base, id, fields)
  for i = 1, #fields, 2 do
    if fields[i] == 'hasResult' then
      local result = redis.call('HGET', resultsKeyOf(base), id)
      if result then
        fields[#fields + 1] = 'result'
        fields[#fields + 1] = result
      end
      break
    end
  end
  return fields
end

local function jobFields(base, id)
  local fields = redis.call('HGETALL', jobKeyOf(base, id))
  if #fields > 0 then
    local payload = redis.call('HGET', payloadsKeyOf(base), id)
    if payload then
      fields[#fields + 1] = 'payload'
      fields[#fields + 1] = payload
    end
    withResult(base, id, fields)
  end
  return fields
end

local function fillPayloads(base, claimed, at)
  if #claimed == 0 then
    return
  end
  if #claimed == 1 then
    local job = claimed[1]
    job[at] = redis.call('HGET', payloadsKeyOf(base), job[1])
    return
  end
  -- Numeric loops: ipairs calls its iterator per step, here per claimed job (see
  -- docs/PERFORMANCE.md "Redis: fewer Lua calls per job").
  local ids = {}
  for i = 1, #claimed do
    ids[i] = claimed[i][1]
  end
  local payloads = redis.call('HMGET', payloadsKeyOf(base), unpack(ids))
  for i = 1, #claimed do
    claimed[i][at] = payloads[i]
  end
end
