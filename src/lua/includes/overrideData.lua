--[[
  What a timed override's data is (DESIGN.md §4.8, I6): the one rule the reads, the revert and
  the audit share. Its TypeScript twin is parseOverride in src/lanes/queue/state.ts (the reads);
  test/lua/includes.test.ts checks the two agree on any stored text.

    overrideOf(kind, raw)   the `goverride` field `raw` (JSON text, or false/nil for none) of a
                            `kind` ('limit', 'pause', or 'queueLimit': the queue's cap, read
                            as a limit) override, as a table { until, revertTo,
                            setAt, actor }, or nil when it is none: it does not decode to a JSON
                            object whose `until` and `setAt` are integers (ms) within
                            ±(2^53−1). revertTo is read as the revert applies it: for a limit a
                            non-negative integer within 2^53−1, anything else cjson.null (no
                            limit: clearLimit); for a pause true, anything else false (resume).
                            actor: a string, anything else ''. Second result: true when the
                            stored revertTo is not what the first result says (normalised; a
                            limit's absent revertTo is null as written)
    overrideJson(o)         the data as setOverride writes it, integers exact (cjson.encode
                            writes 14 significant digits)
]]
--- @include "bounds"

local function isOverrideMs(v)
  return type(v) == 'number' and v >= -MAX_SAFE_INTEGER and v <= MAX_SAFE_INTEGER
    and math.floor(v) == v
end

local function overrideOf(kind, raw)
  if not raw then
    return nil
  end
  local ok, o = pcall(cjson.decode, raw)
  if not ok or type(o) ~= 'table' or not isOverrideMs(o['until']) or not isOverrideMs(o.setAt) then
    return nil
  end
  local r = o.revertTo
  local revertTo
  if kind == 'limit' or kind == 'queueLimit' then
    revertTo = cjson.null
    if type(r) == 'number' and r >= 0 and r <= MAX_SAFE_INTEGER and math.floor(r) == r then
      revertTo = r
    end
  else
    revertTo = r == true
  end
  local normalised = revertTo ~= r and not (r == nil and revertTo == cjson.null)
  return {
    ['until'] = o['until'], revertTo = revertTo, setAt = o.setAt,
    actor = type(o.actor) == 'string' and o.actor or '',
  }, normalised
end

local function overrideJson(o)
  local r = o.revertTo
  local revertTo = type(r) == 'number' and string.format('%d', r) or cjson.encode(r)
  return string.format('{"until":%d,"revertTo":%s,"setAt":%d,"actor":%s}', o['until'], revertTo,
    o.setAt, cjson.encode(o.actor))
end
