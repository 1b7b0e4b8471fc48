--[[
  Integers that pass through Lua exactly, or not at all (never rounded silently past 2^53). Lua numbers are
  doubles: an integer beyond ±(2^53−1) that a script reads from Redis (tonumber of a field, or
  a command's integer reply) silently loses precision, and written back it overwrites what was
  stored with a different number. So a stored value is judged by its text before it is
  converted, and every script that would convert one it cannot hold exactly refuses before its
  first write (or, where a batch cannot refuse, leaves that item alone: see each caller).

  isSafeInteger(raw)   raw is decimal text of an integer within ±(2^53−1): an optional '-',
                       digits only (no '+', spaces, hex, exponent or fraction, all of which
                       tonumber accepts); leading zeros allowed
  safeInteger(raw)     its value, or nil when it is not one (a missing field included)
  isInteger(raw)       raw is decimal text of an integer of any size (same grammar)
  compareIntegers(a, b) -1, 0 or 1, exactly, for two isInteger texts of any size
  incrementDigits(raw) raw + 1 as text, exactly, for a non-negative isInteger text of any size
  finiteScore(raw)     raw's value when it is a finite number (a score ZADD accepts), else nil:
                       a FIFO score read from a job hash may be anything another writer put
                       there, and NaN (tonumber('nan')) would make ZADD fail after the script
                       had written
  refuse(key, field, raw, wanted, remedy)
                       stop the script with the error reply 'DATA_OUT_OF_RANGE <message>' naming
                       the key, the field (or nil), the value found (at most 40 bytes of it),
                       what was wanted and what to do. The engine turns it into RingmasterError
                       DATA_OUT_OF_RANGE (src/lanes/errors.ts). A caller must refuse before its
                       first write: Redis does not roll a script back.
]]
--- @include "bounds"

-- Sign ('' or '-') and digits without leading zeros of an integer text, or nil.
local function integerParts(raw)
  if type(raw) ~= 'string' then
    return nil
  end
  local sign, digits = string.match(raw, '^(%-?)0*(%d+)$')
  if digits == '0' then
    sign = ''
  end
  return sign, digits
end

local function isInteger(raw)
  return integerParts(raw) ~= nil
end

local function isSafeInteger(raw)
  local _, digits = integerParts(raw)
  if digits == nil then
    return false
  end
  local n = #digits
  return n < 16 or (n == 16 and digits <= MAX_SAFE_DIGITS)
end

local function safeInteger(raw)
  -- The common answers first, without the grammar's two calls (a Lua call costs about what a
  -- redis.call does, and the claim asks this of every group it reads: see
  -- docs/PERFORMANCE.md "Redis: fewer Lua calls per job"): no text, or the canonical text of a
  -- non-negative integer below 10^15 (its number formats back to it exactly).
  if type(raw) ~= 'string' then
    return nil
  end
  local n = tonumber(raw)
  if n and n >= 0 and n < 1e15 and string.format('%d', n) == raw then
    return n
  end
  if isSafeInteger(raw) then
    return tonumber(raw)
  end
  return nil
end

local function compareIntegers(a, b)
  local signA, digitsA = integerParts(a)
  local signB, digitsB = integerParts(b)
  if signA ~= signB then
    return signA == '-' and -1 or 1
  end
  local c = 0
  if #digitsA ~= #digitsB then
    c = #digitsA < #digitsB and -1 or 1
  elseif digitsA ~= digitsB then
    c = digitsA < digitsB and -1 or 1
  end
  return signA == '-' and -c or c
end

local function incrementDigits(raw)
  local _, digits = integerParts(raw)
  local i = #digits
  while i > 0 and string.byte(digits, i) == 57 do -- '9'
    i = i - 1
  end
  if i == 0 then
    return '1' .. string.rep('0', #digits)
  end
  return string.sub(digits, 1, i - 1) .. string.char(string.byte(digits, i) + 1)
    .. string.rep('0', #digits - i)
end

local function finiteScore(raw)
  local n = tonumber(raw)
  if n == nil or n ~= n or n == math.huge or n == -math.huge then
    return nil
  end
  return n
end

local function refuse(key, field, raw, wanted, remedy)
  local shown = tostring(raw)
  if #shown > 40 then
    shown = string.sub(shown, 1, 40) .. '...'
  end
  local where = key
  if field then
    where = key .. ' field ' .. field
  end
  error({ err = 'DATA_OUT_OF_RANGE ' .. where .. " holds '" .. shown .. "', not " .. wanted
    .. '; nothing was changed. ' .. remedy })
end
