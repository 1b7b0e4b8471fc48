/**
 * Per-group rate limits (admin, DESIGN.md §3 "Rate limits", §4.3): thin calls into the engine's
 * `Queue.setRateLimit` / `Queue.clearRateLimit`, and the words `Group.reason` uses for a
 * rate-limited group.
 */
import type { Context } from '../context.js';
import type { GroupInfo } from '../lanes/index.js';
import { steered } from './known.js';
import { steering } from './steering.js';

interface GroupArgs {
  queue: string;
  group: string;
}

/** `setRateLimit(queue, group, max, windowMs)`: at most `max` claims per `windowMs` (ms). */
export const setRateLimit = (
  ctx: Context,
  a: GroupArgs & { max: number; windowMs: number },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) =>
    q.setRateLimit(a.group, { max: a.max, windowMs: a.windowMs }, steering(ctx)),
  );

/** `clearRateLimit(queue, group)`: the group has no rate limit after. */
export const clearRateLimit = (ctx: Context, a: GroupArgs): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.clearRateLimit(a.group, steering(ctx)));

/** A window's length in the largest whole unit: 1 h, 90 s, 1500 ms. */
function span(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms % size === 0) return `${ms / size} ${unit}`;
  }
  return `${ms} ms`;
}

/** The group's rate for people ("1 claim per 1 h"), or "its rate" when none parses. */
export function rateText(g: GroupInfo): string {
  return g.rateLimit
    ? `${g.rateLimit.max} claim${g.rateLimit.max === 1 ? '' : 's'} per ${span(g.rateLimit.windowMs)}`
    : 'its rate';
}

/** When the group's window reopens: an ISO time on the Redis clock, or "later" when unknown. */
export function reopensAt(g: GroupInfo): string {
  return g.rateLimitedUntil === null ? 'later' : new Date(g.rateLimitedUntil).toISOString();
}

/**
 * `Group.reason` for a group whose only blocker is its rate (RATE_LIMITED): the rate used up and
 * when its window reopens (an ISO time on the Redis clock).
 */
export function rateLimitedSentence(g: GroupInfo): string {
  return `rate-limited: it has used its ${rateText(g)}, so it gets no turns until its window reopens at ${reopensAt(g)} (${g.pending} pending, ${g.active} in flight)`;
}

/**
 * `Group.reason` for a group whose rate window has reopened (`rateReopenedAt`, a time on the
 * Redis clock at or before the read) but which no claim or reaper pass has put back on the ring
 * yet (DESIGN.md §3 "Rate limits"): nothing blocks it; the next claim re-rings it at the tail
 * and may serve it in the same call.
 */
export function reopenedSentence(g: GroupInfo): string {
  const at = new Date(g.rateReopenedAt ?? 0).toISOString();
  return `ready: its rate window reopened at ${at}; it re-joins the ring (at its tail) with the next claim, which may serve it at once (${g.pending} pending, ${g.active} in flight)`;
}
