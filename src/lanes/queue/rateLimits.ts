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
 * A rate limit as given to `Queue.setRateLimit`: `{ max, windowMs, burst? }` with `max` an
 * integer in 1..1,000,000 (tokens refilled per window), `windowMs` an integer in
 * 1..2,592,000,000 (ms) and `burst` an integer in 1..1,000,000 (tokens held at most; `max` when
 * absent or null, the fixed window's allowance).
 * @throws RingmasterError BAD_USER_INPUT — argument `rateLimit` when it is not an object, `max`,
 *   `windowMs` or `burst` for a value out of range (DESIGN.md §5); nothing is sent then
 */
export function rateLimit(value: unknown): RateLimit {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badInput('rateLimit', 'must be an object { max, windowMs, burst? }');
  }
  const { max, windowMs, burst } = options('rateLimit', value as Record<string, unknown>, {
    max: true,
    windowMs: true,
    burst: true,
  });
  const m = integerIn('max', max, 1, Limits.maxRateClaims);
  return {
    max: m,
    windowMs: integerIn('windowMs', windowMs, 1, Limits.maxDelayMs),
    burst: burst == null ? m : integerIn('burst', burst, 1, Limits.maxRateClaims),
  };
}

/**
 * A job's cost as given to enqueue (`EnqueueOptions.cost`): the tokens its claim takes from its
 * group's bucket, an integer in 1..1,000,000; undefined for the default, 1.
 * @throws RingmasterError BAD_USER_INPUT — argument `cost` out of range (DESIGN.md §5)
 */
export function jobCost(value: unknown): number | undefined {
  if (value == null) return undefined;
  const cost = integerIn('cost', value, 1, Limits.maxRateClaims);
  return cost === 1 ? undefined : cost;
}
