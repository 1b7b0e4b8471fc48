--[[
  Timed overrides (DESIGN.md §4.8): a setLimit or pause given `forMs` sets its value now and
  schedules a revert at Redis now + forMs. Two operations keys, built from base
  (includes/keys.lua), hold a pending revert under the member '<kind>:<group>' (kind 'limit' or
  'pause'):
    P:{Q}:overrides   zset  member -> until (ms, Redis clock): due ones are read by range
    P:{Q}:goverride   hash  member -> JSON { until, revertTo, setAt, actor } (groupReply reads it)
  revertTo is the value before the FIRST pending override of its kind: a limit (a number, or
  JSON null for no limit) or whether the group was paused (a boolean). A second timed call of the
  same kind replaces the deadline and the value and keeps that revertTo; a plain call of the same
  kind (setLimit/clearLimit, pause/resume) drops the pending revert: the operator's latest
  explicit word stands. A timed call whose revertTo equals the value it sets would change
  nothing at its deadline: it is the plain call (steerOverride), so no revert is scheduled,
  shown or recorded that would do nothing. Every function here is O(1) (O(log n) on the zset).

    overrideMember(kind, group)       '<kind>:<group>'
    readOverride(base, member, stored)
                                      the pending override as a table, or nil (none, or a field
                                      that is not an override by includes/overrideData.lua's
                                      rule: counts as none), revertTo as its revert applies it
                                      (overrideOf). `stored`, here and
                                      below: the goverride field as the script already read it
                                      (readGroup's limitOverride / pauseOverride: JSON or false),
                                      which saves its HGET (and, when false, dropOverride's
                                      HDEL); nil reads it
    setOverride(base, member, untilMs, revertTo, now, actor)
                                      ZADD + HSET; returns the JSON text stored
    dropOverride(base, member, stored)
                                      ZREM (always: a deadline written without data goes too)
                                      + HDEL; returns the override dropped, or nil
    timedRevertTo(base, member, current, stored)
                                      revertTo for a new timed call: the pending one's, if any,
                                      else `current` (the value before this call)
    steerOverride(base, member, forMs, current, value, actor, stored)
                                      the override half of setLimit, pause and resume, the one
                                      place of the rule: a timed call (forMs a number) whose
                                      revertTo is not `value` sets the override and returns
                                      (its JSON, timedDetail); otherwise — a plain call (forMs
                                      nil), or a timed one that would revert to the value it
                                      sets — drops any pending override of the kind and returns
                                      (false, cancelledDetail). current and value: a limit (a
                                      number, cjson.null for none) or a pause (a boolean)
    groupBrief(g)                     the history's before/after of a group read by readGroup:
                                      { limit (number or JSON null), paused, active, pending }
    timedDetail(forMs, untilMs)       the history's detail of a timed call { forMs, until }
    cancelledDetail(o)                the history's detail of a plain call that dropped a
                                      pending revert { cancelled = o }, or nil when none
    recordSteering(base, h, action, group, before, after, detail)
                                      the group steering scripts' history entry: recorded when
                                      the call changed the limit or the pause, or set or dropped
                                      an override (detail given); a call that changes nothing
                                      records nothing (as every steering script, history.lua)
]]
--- @include "keys"
--- @include "groupState"
--- @include "history"
--- @include "nowMs"
--- @include "overrideData"

local function overrideMember(kind, group)
  return kind .. ':' .. group
end

local function readOverride(base, member, stored)
  if stored == nil then
    stored = redis.call('HGET', overrideDataKeyOf(base), member)
  end
  return (overrideOf(string.match(member, '^(%a+):'), stored))
end

local function setOverride(base, member, untilMs, revertTo, now, actor)
  local json = cjson.encode({ ['until'] = untilMs, revertTo = revertTo, setAt = now, actor = actor })
  redis.call('ZADD', overridesKeyOf(base), untilMs, member)
  redis.call('HSET', overrideDataKeyOf(base), member, json)
  return json
end

local function dropOverride(base, member, stored)
  local o = readOverride(base, member, stored)
  local removed = redis.call('ZREM', overridesKeyOf(base), member)
  if stored ~= false then
    redis.call('HDEL', overrideDataKeyOf(base), member)
  end
  if o == nil and removed == 1 then
    -- A deadline without data (written by hand): dropped all the same, reported bare.
    o = {}
  end
  return o
end

local function timedRevertTo(base, member, current, stored)
  local pending = readOverride(base, member, stored)
  if pending ~= nil and pending.revertTo ~= nil then
    return pending.revertTo
  end
  return current
end

local function timedDetail(forMs, untilMs)
  return { forMs = forMs, ['until'] = untilMs }
end

local function cancelledDetail(o)
  if o == nil then
    return nil
  end
  return { cancelled = o }
end

local function steerOverride(base, member, forMs, current, value, actor, stored)
  if forMs then
    local revertTo = timedRevertTo(base, member, current, stored)
    -- A revert to the value being set is no revert: "resume for 5 min" of a running group, or
    -- "limit 5 for 1 h" of a group whose limit (before the first pending override) is 5, would
    -- show and record a deadline that changes nothing. It is the plain call instead (§4.8).
    if revertTo ~= value then
      local now = nowMs()
      local json = setOverride(base, member, now + forMs, revertTo, now, actor)
      return json, timedDetail(forMs, now + forMs)
    end
  end
  return false, cancelledDetail(dropOverride(base, member, stored))
end

local function groupBrief(g)
  local limit = parseLimit(g.limit)
  return {
    limit = limit == nil and cjson.null or limit,
    paused = g.paused == 1,
    active = parseActive(g.active) or cjson.null,
    pending = g.pending,
  }
end

local function recordSteering(base, h, action, group, before, after, detail)
  local changed = parseLimit(before.limit) ~= parseLimit(after.limit)
    or (before.paused == 1) ~= (after.paused == 1)
  if changed or detail ~= nil then
    recordHistory(base, h, action, group, groupBrief(before), groupBrief(after), detail)
  end
end
