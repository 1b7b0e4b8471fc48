--[[
  The text of a small count without a format: COUNT_TEXT[n] is '0' .. '64' for n in 0 .. 64 (nil
  past them and below them: string.format then). Redis turns a Lua number argument of
  redis.call into text with %.17g (~2,200 instructions), string.format costs about as much, a
  lookup here a few dozen (docs/PERFORMANCE.md, "Redis: the claim's own cost"): the claim's
  commands take it for the counts they write (its claims, a group's active count, the `stats`
  deltas, LPOP's count), and the retention trim for its ranges. An array (and its 0): under the
  library it is made once, at load (src/lanes/scripts/lua.ts, isConstant), but a script run by EVALSHA
  (Redis 6.2) makes it again at every call, and a table keyed by text cost such a call ~50,000
  instructions.
]]

local COUNT_TEXT = {
  [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15',
  '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26', '27', '28', '29', '30', '31', '32', '33',
  '34', '35', '36', '37', '38', '39', '40', '41', '42', '43', '44', '45', '46', '47', '48', '49',
  '50', '51', '52', '53', '54', '55', '56', '57', '58', '59', '60', '61', '62', '63', '64'
}
