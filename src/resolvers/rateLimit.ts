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

/**
 * `setRateLimit(queue, group, max, windowMs, burst)`: a bucket of `max` tokens per `windowMs`
 * (ms), `burst` held at most (null or absent: `max`).
 */
export const setRateLimit = (
  ctx: Context,
  a: GroupArgs & { max: number; windowMs: number; burst?: number | null | undefined },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) =>
    q.setRateLimit(
      a.group,
      { max: a.max, windowMs: a.windowMs, burst: a.burst ?? undefined },
      steering(ctx),
    ),
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

/** The group's bucket for people ("1 token per 1 h, burst 1"), or "its rate" when none parses. */
export function rateText(g: GroupInfo): string {
  return g.rateLimit
    ? `${g.rateLimit.max} token${g.rateLimit.max === 1 ? '' : 's'} per ${span(g.rateLimit.windowMs)}, burst ${g.rateLimit.burst}`
    : 'its rate';
}

/**
 * When the group's next token (enough for its head job's cost) comes: an ISO time on the Redis
 * clock, or "later" when unknown.
 */
export function reopensAt(g: GroupInfo): string {
  return g.rateLimitedUntil === null ? 'later' : new Date(g.rateLimitedUntil).toISOString();
}

/**
 * `Group.reason` for a group whose only blocker is its rate (RATE_LIMITED): its bucket short of
 * its head job's cost, and when the token it needs comes (an ISO time on the Redis clock).
 */
export function rateLimitedSentence(g: GroupInfo): string {
  return `rate-limited: its bucket (${rateText(g)}) is short of its next job's cost, so it gets no turns until the next token it needs comes at ${reopensAt(g)} (${g.pending} pending, ${g.active} in flight)`;
}

/**
 * `Group.reason` for a group whose token has come (`rateReopenedAt`, a time on the
 * Redis clock at or before the read) but which no claim or reaper pass has put back on the ring
 * yet (DESIGN.md §3 "Rate limits"): nothing blocks it; the next claim re-rings it at the tail
 * and may serve it in the same call.
 */
export function reopenedSentence(g: GroupInfo): string {
  const at = new Date(g.rateReopenedAt ?? 0).toISOString();
  return `ready: the token it waited for came at ${at}; it re-joins the ring (at its tail) with the next claim, which may serve it at once (${g.pending} pending, ${g.active} in flight)`;
}
