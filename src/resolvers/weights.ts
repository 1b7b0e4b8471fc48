/**
 * Weights (DESIGN.md §3, "Weights"; §4.3 `setWeight`): a thin call into the engine.
 */
import type { Context } from '../context.js';
import type { GroupInfo } from '../lanes/index.js';
import { steered } from './known.js';
import { steering } from './steering.js';

/**
 * `Mutation.setWeight` (admin): the group after; the history records the caller's actor
 * (DESIGN.md §4.6, `steering`).
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `group`, `weight` not 1..1,000)
 */
export const setWeight = (
  ctx: Context,
  a: { queue: string; group: string; weight: number },
): Promise<GroupInfo> => steered(ctx, a, (q) => q.setWeight(a.group, a.weight, steering(ctx)));
