--[[
  recordRepair — the steering history's entry of one Queue.repair call (DESIGN.md §4.6). A
  repair is driven from TypeScript over many bounded scripts (reconcile*.lua, src/lanes/
  reconcile.ts), so no one of them knows what the whole call fixed; the engine sends this once,
  after the last of them, with the summary. Flat cost: one XADD (the stream trimmed to its cap).

  Input:
    KEYS[1] history  stream  P:{Q}:history (its base 'P:{Q}:' is found from it, includes/keys.lua)

    ARGV[1] before   JSON object text: { findings } — what the repair found (count)
    ARGV[2] after    JSON object text: { findings } — what it left (unsettled totals; count)
    ARGV[3] detail   JSON object text: { groupsChecked, byKind, first } (bounded by the engine:
                     the first few findings only)
    ARGV[4] actor    who asks (history, includes/history.lua)
    ARGV[5] cap      the queue history's cap (count; 0 records nothing)

  Output: 1 when an entry was written, 0 when cap is 0.

  History: one entry, action repair, group ''.
  Events: xadd P:{Q}:history.
]]
--- @include "keys"
--- @include "history"

local historyKey = KEYS[1]
local h = historyArgs(ARGV[4], ARGV[5])
recordHistory(baseOf(historyKey, 'history'), h, 'repair', '', cjson.decode(ARGV[1]),
  cjson.decode(ARGV[2]), cjson.decode(ARGV[3]))
if h.cap <= 0 then
  return 0
end
return 1
