--[[
  applyOverrides — revert the timed overrides whose deadline has come (DESIGN.md §4.8): up to
  `batch` members of `overrides` due at the script's now (Redis clock), earliest first, each
  applied exactly as the plain call it stands for would be:
    limit, revertTo a number   setLimit(group, revertTo): HSET glimit; re-ring with a wake if
                               that makes it serviceable; de-ring if it saturates it (LREM, as
                               setLimit's, also when I1 says it was not on the ring)
    limit, revertTo null       clearLimit(group): HDEL glimit; re-ring with a wake if serviceable
    pause, revertTo false      resume(group): SREM paused; re-ring with a wake if serviceable
    pause, revertTo true       pause(group): SADD paused; LREM ring
    queueLimit (member 'queueLimit:', no group)
                               setQueueLimit(revertTo), or its clear for null: HSET/HDEL
                               settings limit; a raised or cleared cap wakes a claim it held
                               back (HDEL settings capped, LPUSH/LTRIM wake); history
                               before/after { limit }
  through includes/settleGroup.lua, so the ring, the wake and the saturated counter follow I1.
  Each revert drops its override (ZREM overrides, HDEL goverride) and records one history entry:
  action 'revert', actor ARGV[2] (the engine's 'timer'), before/after { limit, paused, active,
  pending }, detail { kind, until, revertTo, setAt, setBy }.
  A group whose active count cannot be counted exactly (includes/groupState.lua) cannot be
  judged: its value is reverted all the same but the group is not settled (a paused group still
  leaves the ring) — the claim skips such a group and Queue.repair rewrites the count and
  re-rings it — so such an override never holds the head of `overrides` against the others.
  A member that does not name a kind, or whose data is missing or is not an override
  (includes/overrideData.lua: the rule the reads and the audit share), is dropped unreverted.
  revertTo is applied as overrideOf reads it: a limit's non-negative integer, anything else no
  limit (clearLimit); a pause's true, anything else resume.

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] ring     list   serviceable groups
    KEYS[4] paused   set    paused groups
    KEYS[5] wake     list   wake tokens
    KEYS[6] stats    hash   counters (saturated)
    Built from base (KEYS[1] less 'glimit', includes/keys.lua): overrides, goverride, each
    group's lane, history, settings (the queue's cap).

    ARGV[1] batch    the most overrides applied by this call (count, validated by the engine)
    ARGV[2] actor    recorded as the revert's actor ('timer')
    ARGV[3] cap      the queue history's cap (count)

  Output: { applied (count), next deadline (ms, Redis clock) or false when none is pending }

  Memory: runs at maxmemory (noeviction): a revert is a steering call (an operator's pause must
  end on time during a memory incident); see includes/allowAtMaxmemory.lua.

  Events: per revert, as the plain call (hset/hdel glimit or sadd/srem paused; rpush ring +
  lpush/ltrim wake, or lrem ring; hincrby stats), zrem overrides, hdel goverride, xadd history.
  Cost: O(log n + batch × (log n + O(1))), plus the LREM of a revert that de-rings (O(ring), as
  the plain call). Never a scan of the groups.
]]
--- @include "allowAtMaxmemory"
--- @include "settleGroup"
--- @include "groupReply"
--- @include "history"
--- @include "nowMs"
--- @include "overrides"
--- @include "ringLog"
--- @include "capWake"

local k = {
  base = baseOf(KEYS[1], 'glimit'),
  glimit = KEYS[1], gactive = KEYS[2], ring = KEYS[3], paused = KEYS[4], wake = KEYS[5],
  stats = KEYS[6],
}
local batch = tonumber(ARGV[1])
local h = historyArgs(ARGV[2], ARGV[3])
local overridesKey = overridesKeyOf(k.base)
local now = nowMs()

-- Apply the new value of one field; judged when the group's active count can be read exactly.
local function revertField(group, laneKey, before, field, value)
  local judged
  if parseActive(before.active) ~= nil then
    judged = judgeFields(k, group, before, field, value)
  end
  if field == 'limit' then
    if value then
      redis.call('HSET', k.glimit, group, value)
    else
      redis.call('HDEL', k.glimit, group)
    end
  elseif value == 1 then
    redis.call('SADD', k.paused, group)
  else
    redis.call('SREM', k.paused, group)
  end
  if judged then
    settleJudged(k, group, judged)
  end
  if field == 'paused' and value == 1 then
    levels().leaveRota(k, group)
  elseif judged and judged.saturated and not judged.wasServiceable then
    levels().leaveRota(k, group)
  end
end

-- The queue's cap back to revertTo (a number, or cjson.null: none), as setQueueLimit-3.lua
-- would set it: a raised or cleared cap wakes a claim it held back (includes/capWake.lua).
local function revertQueueLimit(o)
  local c = { settings = settingsKeyOf(k.base), wake = k.wake }
  local stored = redis.call('HMGET', c.settings, 'limit', 'capped')
  local before = parseLimit(stored[1])
  local after = o.revertTo ~= cjson.null and o.revertTo or nil
  if after ~= nil then
    redis.call('HSET', c.settings, 'limit', string.format('%d', after))
  else
    redis.call('HDEL', c.settings, 'limit')
  end
  if after == nil or (before ~= nil and after > before) then
    wakeCapped(c, stored[2])
  end
  recordHistory(k.base, h, 'revert', '', { limit = before == nil and cjson.null or before },
    { limit = o.revertTo }, {
      kind = 'queueLimit', ['until'] = o['until'], revertTo = o.revertTo,
      setAt = o.setAt, setBy = o.actor,
    })
end

local function revert(member)
  local o = readOverride(k.base, member)
  redis.call('ZREM', overridesKey, member)
  redis.call('HDEL', overrideDataKeyOf(k.base), member)
  local kind, group = string.match(member, '^(%a+):(.*)$')
  -- ── hook: the queue's cap (DESIGN.md §4.8, kind queueLimit, member 'queueLimit:') ──
  if o ~= nil and kind == 'queueLimit' and group == '' then
    revertQueueLimit(o)
    return
  end
  if o == nil or (kind ~= 'limit' and kind ~= 'pause') or group == nil or group == '' then
    return
  end
  local laneKey = laneKeyOf(k.base, group)
  local before = readGroup(k, group, laneKey)
  local revertTo = o.revertTo
  if kind == 'limit' then
    revertField(group, laneKey, before, 'limit',
      revertTo ~= cjson.null and string.format('%d', revertTo) or false)
  else
    revertField(group, laneKey, before, 'paused', revertTo and 1 or 0)
  end
  local after = readGroup(k, group, laneKey)
  recordHistory(k.base, h, 'revert', group, groupBrief(before), groupBrief(after), {
    kind = kind, ['until'] = o['until'], revertTo = revertTo,
    setAt = o.setAt, setBy = o.actor,
  })
end

local due = redis.call('ZRANGEBYSCORE', overridesKey, '-inf', now, 'LIMIT', 0, batch)
if #due > 0 then
  allowAtMaxmemory(k.glimit)
end
for _, member in ipairs(due) do
  revert(member)
end
local nextOne = redis.call('ZRANGE', overridesKey, 0, 0, 'WITHSCORES')
return { #due, nextOne[2] and tonumber(nextOne[2]) or false }
