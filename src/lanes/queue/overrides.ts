/**
 * Timed overrides (DESIGN.md §4.8): the engine's half — the options a timed steering call
 * takes, their validation, and the revert loop's result. The scripts are `setLimit-8.lua` and
 * `pause-7.lua` (given `forMs`), `cancelOverride-4.lua` and `applyOverrides-6.lua`, with
 * `includes/overrides.lua`; `Queue.setLimit`, `pause`, `cancelOverride` and `applyOverrides` call
 * them, and the {@link Reaper} applies due overrides every pass.
 */
import { badInput } from '../errors.js';
import { Limits } from '../limits.js';
import type { SteeringOptions } from '../types.js';
import { integerIn } from '../validate.js';

/** The two kinds of timed override: a group's limit and a group's pause. */
export type OverrideKind = 'limit' | 'pause';

/** The kinds, in the order the API lists them. */
export const OVERRIDE_KINDS: readonly OverrideKind[] = ['limit', 'pause'];

export { TIMER_ACTOR } from '../defaults.js';

/** Due overrides one `applyOverrides-6.lua` call reverts (count): its cost is O(batch · log n). */
export const APPLY_OVERRIDES_BATCH = 100;

/** Options of a steering call that may be timed (`Queue.setLimit`, `Queue.pause`). */
export interface TimedSteeringOptions extends SteeringOptions {
  /**
   * Make it a timed override (ms, an integer in 1..2,592,000,000 = 30 days): the value is set
   * now and reverts on its own at Redis now + forMs, to the value before the first pending
   * override of its kind. Left out (or null): a plain call, which also drops a pending revert of
   * its kind (DESIGN.md §4.8).
   */
  readonly forMs?: number | null | undefined;
}

/** What `Queue.applyOverrides` did. */
export interface AppliedOverrides {
  /** Overrides reverted by this call (count). */
  readonly applied: number;
  /** When the next pending override reverts (ms, Redis clock), or null when none is pending. */
  readonly nextAt: number | null;
}

/**
 * A timed call's `forMs`: undefined or null for a plain call, else an integer in
 * 1..2,592,000,000 (ms).
 * @throws RingmasterError BAD_USER_INPUT (argument `forMs`) for anything else
 */
export function forMs(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  return integerIn('forMs', value, 1, Limits.maxDelayMs);
}

/**
 * An override's kind: 'limit' or 'pause'.
 * @throws RingmasterError BAD_USER_INPUT (argument `kind`) for anything else
 */
export function overrideKind(value: unknown): OverrideKind {
  if (value === 'limit' || value === 'pause') return value;
  throw badInput('kind', "must be 'limit' or 'pause'");
}

/** How long until `until` (ms, Redis clock) from `now` (ms, the same clock): never negative. */
export function remainingMs(until: number, now: number): number {
  return Math.max(0, until - now);
}
