/**
 * Per-group rate limits (DESIGN.md §3, "Rate limits"): the bounds and the input check of
 * `Queue.setRateLimit`. The scripts are `setRateLimit-8.lua` and `clearRateLimit-8.lua`; the
 * claim side is `src/lua/includes/rateLimit.lua`.
 */
import { badInput } from './errors.js';
import type { RateLimit } from './types.js';
import { options } from './validate.js';

/** Bounds of a rate limit (DESIGN.md §5). */
export const RateLimits = {
  /** The most claims a window may allow (count). */
  maxClaims: 1_000_000,
  /** The longest window (ms): 30 days. */
  maxWindowMs: 2_592_000_000,
} as const;

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
    max: integerIn('max', max, 1, RateLimits.maxClaims),
    windowMs: integerIn('windowMs', windowMs, 1, RateLimits.maxWindowMs),
  };
}

function integerIn(argument: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw badInput(argument, `must be an integer from ${min} to ${max}`);
  }
  return value;
}
