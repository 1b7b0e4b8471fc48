/**
 * `Group.known` (DESIGN.md §4.2): whether the queue has seen the group — it is in the queue's
 * group registry (`P:{Q}:groups`): it has or had jobs, or was steered, and has not been
 * forgotten since (§3, "Forgetting groups"). A steering mutation registers the group it names,
 * so its answer says whether the group was known BEFORE the call: {@link steered} reads it
 * first and the answer's `known` gives that reading.
 */
import type { Context } from '../context.js';
import type { GroupInfo, Queue } from '../lanes/index.js';

/** The readings taken before a steering call, by the group object it answered. */
const knownBefore = new WeakMap<GroupInfo, boolean>();

/** Whether `group` is in the registry of `queue`. One ZSCORE. */
async function registered(queue: Queue, group: string): Promise<boolean> {
  return (await queue.redis.zscore(queue.keys.groups, group)) !== null;
}

/**
 * Run the steering `call` on `a.group` of `a.queue`, its answer carrying whether the group was
 * known before it. The reading and the call are two steps: a call of another client between
 * them can register the group first, and then both answers say false.
 */
export async function steered(
  ctx: Context,
  a: { queue: string; group: string },
  call: (queue: Queue) => Promise<GroupInfo>,
): Promise<GroupInfo> {
  const queue = ctx.engine.queue(a.queue);
  const known = await registered(queue, a.group);
  const after = await call(queue);
  knownBefore.set(after, known);
  return after;
}

/** `Group.known`: as before the call for a steering mutation's answer, else as it is now. */
export const groupKnown = (ctx: Context, g: GroupInfo): Promise<boolean> | boolean =>
  knownBefore.get(g) ?? registered(ctx.engine.queue(g.queue), g.id);
