--[[
  setQueueLimit — set or clear the queue's cap: the most jobs of the whole queue in flight at
  once (DESIGN.md §3, "The queue's cap and reserves"). Nothing in flight is taken back: a cap
  lowered below the work in flight holds every claim back until enough leases end. A cap raised
  or cleared wakes a claim the cap held back (includes/capWake.lua). The ring and the groups are
  not touched: the cap is a gate in front of the rota, as the queue's pause is (I1 unchanged).

  Input:
    KEYS[1] settings hash   queue settings: limit (the cap), reserved (the sum of the
                            reserves), capped
    KEYS[2] wake     list   wake tokens, trimmed to WAKE_LENGTH (includes/keys.lua)
    KEYS[3] active   zset   active job id -> lease deadline (ms): its ZCARD is the work in flight

    ARGV[1] limit    the cap, a non-negative integer (validated by the engine), or '' to clear it
    ARGV[2] forMs    '' for a plain call; else ms (1..2,592,000,000, validated by the engine): a
                     timed override of kind queueLimit (member 'queueLimit:', DESIGN.md §4.8)
                     reverting at Redis now + forMs to the cap before the first pending one
                     (includes/overrides.lua steerOverride); a plain call drops a pending one
    ARGV[3] actor    who asks (history, includes/history.lua)
    ARGV[4] cap      the queue history's cap (count)

  Output: { status, limit (text, or false for none), inFlight, reserved, override (the pending
          timed cap's JSON, or false) }, the cap as it stands after the call; status 1, or -1
          when the cap asked for is below the sum of the reserves (refused, nothing written:
          BAD_USER_INPUT `limit`; no override in the reply).

  History: action setQueueLimit (clearQueueLimit when ARGV[1] is ''), group '', before/after
  { limit } (null: none), detail { forMs, until } (timed) or { cancelled } (a pending revert
  dropped); none when nothing changed.

  Memory: runs at maxmemory (noeviction), since it adds a few bytes at most; see
  includes/allowAtMaxmemory.lua.

  Events: hset/hdel settings; zadd/zrem overrides, hset/hdel goverride; hdel settings capped +
  lpush/ltrim wake (raised or cleared, a claim held back); xadd history.
]]
--- @include "allowAtMaxmemory"
--- @include "keys"
--- @include "history"
--- @include "overrides"
--- @include "capWake"

local k = { settings = KEYS[1], wake = KEYS[2] }
local activeKey = KEYS[3]
local base = baseOf(k.settings, 'settings')
local raw = ARGV[1]
local forMs = tonumber(ARGV[2])
local h = historyArgs(ARGV[3], ARGV[4])

local stored = redis.call('HMGET', k.settings, 'limit', 'reserved', 'capped')
local before = parseLimit(stored[1])
local reserved = parseLimit(stored[2]) or 0
local limit = raw ~= '' and tonumber(raw) or nil
if limit ~= nil and limit < reserved then
  return { -1, stored[1] or false, redis.call('ZCARD', activeKey), reserved }
end

allowAtMaxmemory(k.settings)
if limit ~= nil then
  redis.call('HSET', k.settings, 'limit', raw)
else
  redis.call('HDEL', k.settings, 'limit')
end
local override, detail = steerOverride(base, overrideMember('queueLimit', ''), forMs,
  before == nil and cjson.null or before, limit == nil and cjson.null or limit, h.actor)
if limit == nil or (before ~= nil and limit > before) then
  wakeCapped(k, stored[3])
end
if before ~= limit or detail ~= nil then
  recordHistory(base, h, limit == nil and 'clearQueueLimit' or 'setQueueLimit', '',
    { limit = before == nil and cjson.null or before },
    { limit = limit == nil and cjson.null or limit }, detail)
end
return { 1, limit ~= nil and raw or false, redis.call('ZCARD', activeKey), reserved, override }
