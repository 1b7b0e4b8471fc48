/**
 * Backlog bounds (DESIGN.md §3, "Backlog bounds"; §4.3 `setMaxPending`, `setDefaultMaxPending`):
 * thin calls into the engine.
 */
import type { Context } from '../context.js';
import type { GroupInfo, Queue } from '../lanes/index.js';
import { steered } from './known.js';
import { steering } from './steering.js';

/**
 * `Mutation.setMaxPending` (admin): the group after; null clears its bound.
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `group`, `maxPending` not 0..1,000,000,000)
 */
export const setMaxPending = (
  ctx: Context,
  a: { queue: string; group: string; maxPending?: number | null | undefined },
): Promise<GroupInfo> =>
  steered(ctx, a, (q) => q.setMaxPending(a.group, a.maxPending ?? null, steering(ctx)));

/**
 * `Mutation.setDefaultMaxPending` (admin): the queue after; null clears the default.
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `maxPending` not 0..1,000,000,000)
 */
export async function setDefaultMaxPending(
  ctx: Context,
  a: { queue: string; maxPending?: number | null | undefined },
): Promise<Queue> {
  const q = ctx.engine.queue(a.queue);
  await q.setDefaultMaxPending(a.maxPending ?? null, steering(ctx));
  return q;
}

/** `Queue.defaultMaxPending`: the queue's default bound, null for none. O(1). */
export const defaultMaxPending = (q: Queue): Promise<number | null> => q.defaultMaxPending();
