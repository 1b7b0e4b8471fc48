/**
 * Timed overrides in the API (DESIGN.md §4.8): `cancelOverride` (admin), a thin call into the
 * engine; `TimedOverride.remainingMs`, measured on the Redis clock read once per execution; and
 * the clause `Group.reason` gains while a revert is pending ("paused for 12 more minutes, then
 * resumes"; "resumed for 12 more minutes, then paused again"; "limit 2 for 5 more minutes, then
 * 10").
 */
import type { Context } from '../context.js';
import {
  type GroupInfo,
  type OverrideKind,
  remainingMs,
  type TimedOverride,
} from '../lanes/internal.js';
import { oncePerExecution } from './perExecution.js';
import { steering } from './steering.js';

/** A group's pending revert as the schema's `TimedOverride` resolves it. */
export interface OverrideOf {
  readonly kind: OverrideKind;
  readonly queue: string;
  readonly override: TimedOverride;
}

/** `cancelOverride` (admin): drop the pending revert of `kind`, keeping the value; the group after. */
export const cancelOverride = (
  ctx: Context,
  a: { queue: string; group: string; kind: OverrideKind },
): Promise<GroupInfo> => ctx.engine.queue(a.queue).cancelOverride(a.group, a.kind, steering(ctx));

/** `Group.limitOverride` / `Group.pauseOverride`: the pending revert of `kind`, or null. */
export function overrideOf(g: GroupInfo, kind: OverrideKind): OverrideOf | null {
  const override = kind === 'limit' ? g.limitOverride : g.pauseOverride;
  return override === null ? null : { kind, queue: g.queue, override };
}

/** Redis' clock (ms), read once per queue per execution. */
function redisNow(ctx: Context, rootValue: unknown, queue: string): Promise<number> {
  return oncePerExecution(ctx, rootValue, `clock\u0000${queue}`, () =>
    ctx.engine.queue(queue).clock(),
  );
}

/** `TimedOverride.remainingMs`: ms until the revert on the Redis clock; 0 once it is due. */
export async function remaining(ctx: Context, o: OverrideOf, rootValue: unknown): Promise<number> {
  return remainingMs(o.override.until, await redisNow(ctx, rootValue, o.queue));
}

/** "12 more minutes": a positive span in ms, rounded up to the unit that reads best. */
export function moreTime(ms: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, name] of units) {
    // A unit is used from 2 of it up (90 minutes, not 2 hours), seconds for anything shorter.
    if (ms >= 2 * size || size === 1_000) {
      const n = Math.max(1, Math.ceil(ms / size));
      return `${n} more ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return 'a moment';
}

/**
 * What a pending revert of `o` will do, for people: one clause of `Group.reason` ("paused for 12
 * more minutes, then resumes", "resumed for 12 more minutes, then paused again", "limit 2 for 5
 * more minutes, then 10"). `limit` is the group's limit now (null: none); `paused` whether it is
 * paused now (a pause-kind override of a group not paused is a timed resume); `now` Redis'
 * clock (ms).
 */
export function overrideClause(
  kind: OverrideKind,
  o: TimedOverride,
  now: number,
  { limit, paused }: { limit: number | null; paused: boolean },
): string {
  const left = remainingMs(o.until, now);
  const when =
    left === 0 ? 'until the next reaper pass (its deadline has passed)' : `for ${moreTime(left)}`;
  if (kind === 'pause' && !paused) {
    return o.revertTo === true
      ? `resumed ${when}, then paused again`
      : `resumed ${when}, then still resumed (it was not paused before)`;
  }
  if (kind === 'pause') {
    return o.revertTo === true
      ? `paused ${when}, then still paused (it was paused before)`
      : `paused ${when}, then resumes`;
  }
  const to = typeof o.revertTo === 'number' ? String(o.revertTo) : 'no limit';
  return `limit ${limit ?? 'none'} ${when}, then ${to}`;
}

/**
 * `Group.reason`'s sentence with a clause per pending revert appended ("…; paused for 12 more
 * minutes, then resumes"); `sentence` unchanged, and no Redis read, when none is pending.
 */
export async function withOverrides(
  ctx: Context,
  g: GroupInfo,
  rootValue: unknown,
  sentence: string,
): Promise<string> {
  if (g.limitOverride === null && g.pauseOverride === null) return sentence;
  const now = await redisNow(ctx, rootValue, g.queue);
  const clauses: string[] = [];
  if (g.pauseOverride) clauses.push(overrideClause('pause', g.pauseOverride, now, g));
  if (g.limitOverride) clauses.push(overrideClause('limit', g.limitOverride, now, g));
  return `${sentence}; ${clauses.join('; ')}`;
}
