--[[
  readGroups — the state of a page of groups in one round trip, for Queue.group and the pages
  of Queue.groups (DESIGN.md §2 "Reads"). Read-only; O(page).

  Input:
    KEYS[1] glimit   hash   group -> limit
    KEYS[2] gactive  hash   group -> active count
    KEYS[3] paused   set    paused groups

    ARGV[1] base     'P:{Q}:' — each group's lane P:{Q}:g:<group>:pending is built from it
                     (includes/keys.lua); it shares the queue's slot
    ARGV[2 ..]       group ids

  Output: the group fields (includes/groupReply.lua) of each group in turn, flat, as
          includes/groupReply.lua answers for one

  Events: none.
]]
--- @include "keys"
--- @include "groupReply"

local k = { base = ARGV[1], glimit = KEYS[1], gactive = KEYS[2], paused = KEYS[3] }
local base = ARGV[1]
local reply = {}
for i = 2, #ARGV do
  local group = ARGV[i]
  local g = readGroup(k, group, laneKeyOf(base, group))
  appendFields(reply, g)
end
return reply
