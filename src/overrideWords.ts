/**
 * A pending timed override in words (DESIGN.md §4.8): how long it has left and what the group
 * does then, built once for all that show it — `Group.reason`'s clause
 * (src/resolvers/overrides.ts), the console's group panel (console/src/overrides.ts) and the
 * CLI's report of a timed call (src/cli/commands/steering.ts) — so all three say the same words.
 * Imports nothing, so the console can bundle it.
 */

/** An override's kind: a timed limit, or a timed pause or resume. */
export type OverrideWordsKind = 'limit' | 'pause';

/**
 * "12 more minutes": a span in ms, rounded up in the unit that reads best — a unit from 2 of it
 * up (90 minutes, not 2 hours), seconds below 2 minutes, at least 1 second.
 */
export function moreTime(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    if (ms >= 2 * size) return `${Math.ceil(ms / size)} more ${name}s`;
  }
  const s = Math.max(1, Math.ceil(ms / 1_000));
  return `${s} more second${s === 1 ? '' : 's'}`;
}

/**
 * How long a revert `leftMs` away holds: "for 12 more minutes", or, at 0 or less (due, not
 * applied yet), "until the next reaper pass (its deadline has passed)".
 */
export function revertWhen(leftMs: number): string {
  return leftMs > 0
    ? `for ${moreTime(leftMs)}`
    : 'until the next reaper pass (its deadline has passed)';
}

/**
 * What the revert leaves: for a limit the limit it goes back to (`revertTo`, null: "no limit");
 * for a pause-kind override of a group `paused` now "resumes", of one running now (a timed
 * resume) "paused again" — or, when `revertTo` is the state the group has, that it stays so.
 */
export function revertOutcome(
  kind: OverrideWordsKind,
  revertTo: number | boolean | null,
  paused: boolean,
): string {
  if (kind === 'limit') return typeof revertTo === 'number' ? String(revertTo) : 'no limit';
  if (paused) return revertTo === true ? 'still paused (it was paused before)' : 'resumes';
  return revertTo === true ? 'paused again' : 'still resumed (it was not paused before)';
}

/**
 * The whole clause: "paused for 12 more minutes, then resumes", "resumed for 12 more minutes,
 * then paused again", "limit 2 for 5 more minutes, then 10". `now` is the group as it is
 * (`limit` null: none); `when` says how long it holds ({@link revertWhen}).
 */
export function overrideClause(
  kind: OverrideWordsKind,
  revertTo: number | boolean | null,
  now: { readonly limit: number | null; readonly paused: boolean },
  when: string,
): string {
  const then = revertOutcome(kind, revertTo, now.paused);
  if (kind === 'limit') return `limit ${now.limit ?? 'none'} ${when}, then ${then}`;
  return `${now.paused ? 'paused' : 'resumed'} ${when}, then ${then}`;
}
