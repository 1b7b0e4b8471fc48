/**
 * The queue's cap and the groups' reserves (DESIGN.md §3, "The queue's cap and reserves"): thin
 * calls into the engine, and `Queue.limit` / `active` / `reserved` / `limitOverride`, read once per queue per
 * execution (one MULTI, O(1)).
 */
import type { Context } from '../context.js';
import type { GroupInfo, Queue, QueueCap } from '../lanes/internal.js';
import { capReadWith } from '../pubsub/groupWatch.js';
import { steered } from './known.js';
import type { OverrideOf } from './overrides.js';
import { oncePerExecution } from './perExecution.js';
import { steering } from './steering.js';

/**
 * The queue's cap, read once per queue per execution ({@link oncePerExecution}); for a
 * `groupChanged` event, the cap its watch read beside the group (src/pubsub/groupWatch.ts).
 */
export const capOf = (ctx: Context, q: Queue, rootValue: unknown): Promise<QueueCap> =>
  oncePerExecution(ctx, rootValue, `cap\u0000${q.name}`, () => {
    const seen = capReadWith(rootValue, q.name);
    return seen === undefined ? q.cap() : Promise.resolve(seen);
  });

/** `Queue.limitOverride`: the cap's pending timed revert (DESIGN.md §4.8), or null. */
export async function capOverride(
  ctx: Context,
  q: Queue,
  rootValue: unknown,
): Promise<OverrideOf | null> {
  const { override } = await capOf(ctx, q, rootValue);
  return override === null ? null : { kind: 'limit', queue: q.name, override };
}

/**
 * `Mutation.setQueueLimit` (admin): the queue after.
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `limit`: out of range or below the sum of
 *   the reserves, `forMs`)
 */
export async function setQueueLimit(
  ctx: Context,
  a: { queue: string; limit: number; forMs?: number | null | undefined },
): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  await q.setQueueLimit(a.limit, { ...steering(ctx), forMs: a.forMs });
  return q;
}

/** `Mutation.clearQueueLimit` (admin): the queue after, with no cap. */
export async function clearQueueLimit(ctx: Context, a: { queue: string }): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  await q.clearQueueLimit(steering(ctx));
  return q;
}

/**
 * `Mutation.setReserve` (admin): the group after.
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `group`, `reserve`: out of range, above the
 *   group's limit, or the sum of the reserves past the cap)
 */
export const setReserve = (
  ctx: Context,
  a: { queue: string; group: string; reserve: number },
): Promise<GroupInfo> => steered(ctx, a, (q) => q.setReserve(a.group, a.reserve, steering(ctx)));

/**
 * `Group.reason` of a serviceable group while its queue is at its cap (DESIGN.md §4.2): it waits
 * for a permit, and gets the next one when it is owed its reserve (fewer in flight than its
 * reserve held at its limit), else in ring order (`place`: where it stands, when known).
 * "waiting for a permit: the queue is at its cap, 20 of 20; it holds a reserve of 2, so it gets
 * the next one".
 */
export function capSentence(g: GroupInfo, cap: QueueCap, place: string | null): string {
  const head = `waiting for a permit: the queue is at its cap, ${cap.active} of ${cap.limit}`;
  const owed = Math.min(g.reserve, g.limit ?? g.reserve);
  if (g.active < owed) {
    const flying = g.active > 0 ? ` (${g.active} in flight)` : '';
    return `${head}; it holds a reserve of ${g.reserve}${flying}, so it gets the next one`;
  }
  if (g.reserve > 0) {
    return `${head}; its reserve of ${g.reserve} is in flight, so it waits its turn${place ? ` ${place}` : ''}`;
  }
  return place ? `${head}; ${place}` : head;
}
