/** Group steering (admin): thin calls into the engine (DESIGN.md §4 `Mutation`). */
import type { GroupInfo } from '../lanes/index.js';
import type { Context } from '../schema/context.js';

interface GroupArgs {
  queue: string;
  group: string;
}

export const setLimit = (ctx: Context, a: GroupArgs & { limit: number }): Promise<GroupInfo> =>
  ctx.engine.queue(a.queue).setLimit(a.group, a.limit);

export const clearLimit = (ctx: Context, a: GroupArgs): Promise<GroupInfo> =>
  ctx.engine.queue(a.queue).clearLimit(a.group);

export const pauseGroup = (ctx: Context, a: GroupArgs): Promise<GroupInfo> =>
  ctx.engine.queue(a.queue).pause(a.group);

export const resumeGroup = (ctx: Context, a: GroupArgs): Promise<GroupInfo> =>
  ctx.engine.queue(a.queue).resume(a.group);
