/**
 * Timed overrides in the API (DESIGN.md §4.8): `cancelOverride` (admin), a thin call into the
 * engine; `TimedOverride.remainingMs`, measured on the Redis clock read once per execution; and
 * the clause `Group.reason` gains while a revert is pending, in the words of src/overrideWords.ts
 * ("paused for 12 more minutes, then resumes").
 */
import type { Context } from '../context.js';
import {
  type GroupInfo,
  type OverrideKind,
  remainingMs,
  type TimedOverride,
} from '../lanes/internal.js';
import { overrideClause, revertWhen } from '../overrideWords.js';
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

/** One clause of `Group.reason` for the pending revert `o` of `kind` (src/overrideWords.ts). */
function clauseOf(kind: OverrideKind, o: TimedOverride, now: number, g: GroupInfo): string {
  return overrideClause(kind, o.revertTo, g, revertWhen(remainingMs(o.until, now)));
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
  if (g.pauseOverride) clauses.push(clauseOf('pause', g.pauseOverride, now, g));
  if (g.limitOverride) clauses.push(clauseOf('limit', g.limitOverride, now, g));
  return `${sentence}; ${clauses.join('; ')}`;
}
