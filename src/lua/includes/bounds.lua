--[[
  The bounds the scripts check, each written once here; the engine checks the same bounds
  before it sends a call (DESIGN.md §5), and test/lua/bounds.test.ts holds each equal to its
  TypeScript twin, so the two cannot drift:
    MAX_DELAY_MS      `Limits.maxDelayMs` (src/lanes/limits.ts): the longest span of time (ms)
                      an argument may name, 30 days — how far an enqueue's runAt may be from
                      now, and the longest wait a backoff policy reaches
    MAX_SAFE_INTEGER  `Number.MAX_SAFE_INTEGER`, 2^53−1: the largest integer a double (a Lua
                      number, a lane score) holds exactly — the last id `seq` may mint, the
                      widest ms and limit a timed override's data may hold
    MAX_SAFE_DIGITS   the same bound as decimal text, for judging a stored integer by its text
                      before it is converted (includes/safeInteger.lua)
    THROUGHPUT_MINUTES  `Limits.throughputMinutes`: the minutes of throughput a queue keeps,
                      one slot each (includes/throughput.lua), and the most Queue.throughput
                      reads (DESIGN.md §3, "Throughput history")
]]
local MAX_DELAY_MS = 2592000000
local MAX_SAFE_INTEGER = 9007199254740991
local MAX_SAFE_DIGITS = '9007199254740991'
local THROUGHPUT_MINUTES = 1440
