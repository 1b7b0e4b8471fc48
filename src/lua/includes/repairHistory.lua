--[[
  The history of a repair (DESIGN.md §4.6, action 'repair'): each reconcile script in 'repair'
  mode records what it changed in the same script that changes it, one entry per group it
  changed (group '' for what belongs to no group: a payload whose job is gone), so a repair that
  fails part way leaves entries for exactly the steps that ran, and a group's history shows what
  a repair changed of it.

  local log = repairLog(step)
      step: which script ('leases', 'indexes', 'payloads', 'groups'); goes to the detail
  noteRepair(log, group, field, found, expected)
      one change made to `group`: `field` read `found` before and `expected` after (the
      finding's found / expected). A group's entry keeps its first REPAIR_FIELDS_KEPT fields and
      counts them all (a lease script may fix thousands of jobs of one group in one call).
  recordRepairs(base, h, log)
      one history entry per group noted, in the order first noted: before `{ <field> = found }`,
      after `{ <field> = expected }`, detail `{ step, changes }` (changes: how many, all
      counted). h is historyArgs(actor, cap) (includes/history.lua). Nothing noted: nothing
      recorded.
  findingText(text)
      the first 100 bytes of a finding's text and '…', cut on a character boundary: never
      within a UTF-8 sequence (the bytes 0x80–0xBF continue one), so the finding is valid text.
]]
--- @include "history"

local REPAIR_FIELDS_KEPT = 10

local function findingText(text)
  if #text <= 100 then
    return text
  end
  local n = 100
  local b = string.byte(text, n + 1)
  while n > 0 and b >= 0x80 and b < 0xC0 do
    b = string.byte(text, n)
    n = n - 1
  end
  return string.sub(text, 1, n) .. '…'
end

local function repairLog(step)
  return { step = step, order = {}, byGroup = {} }
end

local function noteRepair(log, group, field, found, expected)
  local e = log.byGroup[group]
  if e == nil then
    e = { before = {}, after = {}, kept = 0, changes = 0 }
    log.byGroup[group] = e
    log.order[#log.order + 1] = group
  end
  e.changes = e.changes + 1
  if e.kept < REPAIR_FIELDS_KEPT and e.before[field] == nil then
    e.kept = e.kept + 1
    e.before[field] = found
    e.after[field] = expected
  end
end

local function recordRepairs(base, h, log)
  for _, group in ipairs(log.order) do
    local e = log.byGroup[group]
    recordHistory(base, h, 'repair', group, e.before, e.after,
      { step = log.step, changes = e.changes })
  end
end
