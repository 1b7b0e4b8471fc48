/**
 * Per-group rate limits (DESIGN.md §3, "Rate limits"): the input check of `Queue.setRateLimit`
 * (its bounds are `Limits.maxRateClaims` and `Limits.maxDelayMs`). The scripts are `setRateLimit-8.lua` and `clearRateLimit-8.lua`; the
 * claim side is `src/lua/includes/rateLimit.lua`.
 */
import { badInput } from '../errors.js';
import { Limits } from '../limits.js';
import type { RateLimit } from '../types.js';
import { integerIn, options } from '../validate.js';

/**
 * A rate limit as given to `Queue.setRateLimit`: `{ max, windowMs }` with `max` an integer in
 * 1..1,000,000 (claims per window) and `windowMs` an integer in 1..2,592,000,000 (ms).
 * @throws RingmasterError BAD_USER_INPUT — argument `rateLimit` when it is not an object, `max`
 *   or `windowMs` for a value out of range (DESIGN.md §5); nothing is sent then
 */
export function rateLimit(value: unknown): RateLimit {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badInput('rateLimit', 'must be an object { max, windowMs }');
  }
  const { max, windowMs } = options('rateLimit', value as Record<string, unknown>, {
    max: true,
    windowMs: true,
  });
  return {
    max: integerIn('max', max, 1, Limits.maxRateClaims),
    windowMs: integerIn('windowMs', windowMs, 1, Limits.maxDelayMs),
  };
}
