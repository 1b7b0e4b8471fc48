--[[
  The wake a lease's end owes a claim the queue's cap held back (DESIGN.md §3, "The queue's cap
  and reserves"). A claim the cap refused sets `settings.capped` (includes/queueCap.lua); the
  scripts that end a lease (complete, completeAndClaim, retry, reap) read the flag in the read of
  `settings` they already make (retentionOf's third answer), and the first that ends one pushes a
  wake token and clears the flag, so a worker parked by the cap claims the permit at once.
  completeAndClaim judges it after its own claims: when they left no permit free (cap − ZCARD
  `active` ≤ 0) it wakes no one and the flag stays for the next lease to end. A raised or
  cleared cap (setQueueLimit-3.lua, applyOverrides-6.lua) wakes the same way.

    wakeCapped(k, capped)   `capped` the field as read: when '1', HDEL it and push one wake
                            token (LPUSH + LTRIM to WAKE_LENGTH); else nothing. k: settings, wake.
]]
--- @include "keys"

local function wakeCapped(k, capped)
  if capped == '1' then
    redis.call('HDEL', k.settings, 'capped')
    redis.call('LPUSH', k.wake, '1')
    redis.call('LTRIM', k.wake, 0, WAKE_LENGTH - 1)
  end
end
