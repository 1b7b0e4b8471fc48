/**
 * Weights (DESIGN.md §3, "Weights"; §4.3 `setWeight`): a thin call into the engine.
 */
import type { Context } from '../context.js';
import type { GroupInfo, SteeringOptions } from '../lanes/index.js';

/**
 * `Mutation.setWeight` (admin): the group after. `steering` is who asks, for the history
 * (DESIGN.md §4.6); `{}` records the engine's actor.
 * @throws RingmasterError BAD_USER_INPUT (`queue`, `group`, `weight` not 1..1,000)
 */
export const setWeight = (
  ctx: Context,
  a: { queue: string; group: string; weight: number },
  steering: SteeringOptions = {},
): Promise<GroupInfo> => ctx.engine.queue(a.queue).setWeight(a.group, a.weight, steering);
