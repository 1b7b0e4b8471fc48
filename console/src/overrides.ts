/**
 * Timed overrides in words for the console (DESIGN.md §4.8): the durations an operator
 * types and the sentence a pending revert reads as (`components/TimedOverrides.tsx`).
 */

import { Limits } from '../../src/lanes/limits.js';
import { overrideClause, revertWhen } from '../../src/overrideWords.js';

export { moreTime } from '../../src/overrideWords.js';

/** The longest override the API takes (ms): 30 days. */
const MAX_FOR_MS = Limits.maxDelayMs;

const MINUTE = 60_000;
const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: MINUTE, s: 1_000 };

/**
 * A duration as typed — "90s", "10m", "1h30m", "2d", or a bare number of minutes — in ms; null
 * when it does not read as one, or is not within 1 s .. 30 days.
 */
export function parseDuration(text: string): number | null {
  const t = text.trim().toLowerCase().replace(/\s+/g, '');
  if (/^\d+$/.test(t)) return bounded(Number(t) * MINUTE);
  if (!/^(\d+[dhms])+$/.test(t)) return null;
  let total = 0;
  for (const [, amount, unit] of t.matchAll(/(\d+)([dhms])/g)) {
    total += Number(amount) * (UNITS[unit as string] as number);
  }
  return bounded(total);
}

const bounded = (ms: number): number | null => (ms >= 1_000 && ms <= MAX_FOR_MS ? ms : null);

/**
 * The queue's timed cap in words (`Queue.limitOverride`, DESIGN.md §4.8), `left` ms before its
 * revert is due: "Cap 2 for 5 more minutes, then 10", "…, then no cap".
 */
export function capOverrideText(
  left: number,
  limit: number | null,
  revertTo: number | null,
): string {
  return `Cap ${limit ?? 'none'} ${revertWhen(left)}, then ${revertTo ?? 'no cap'}`;
}

/**
 * One pending revert in words (src/overrideWords.ts, as `Group.reason` says it, capitalised),
 * `left` ms before it is due (≤ 0: due, not applied yet). `paused` is whether the group is
 * paused now: a pause-kind revert of a group that is not is a timed resume ("Resumed for 10
 * more minutes, then paused again").
 */
export function overrideText(
  kind: 'limit' | 'pause',
  left: number,
  limit: number | null,
  revertTo: number | boolean | null,
  paused = true,
): string {
  const clause = overrideClause(kind, revertTo, { limit, paused }, revertWhen(left));
  return `${clause.charAt(0).toUpperCase()}${clause.slice(1)}`;
}
