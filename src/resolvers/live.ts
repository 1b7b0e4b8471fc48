/**
 * Subscriptions: the live feed's generators, unchanged (DESIGN.md §4 `Subscription`). The feed
 * validates the queue name and group id before it watches anything, so a bad argument fails
 * the subscription at once with BAD_USER_INPUT.
 */
import type { GroupInfo } from '../lanes/index.js';
import type { RingChange } from '../pubsub/index.js';
import type { Context } from '../schema/context.js';

/** `ringChanged(queue)`: SNAPSHOT, then CHANGE/RESYNC. */
export const ringChanged = (ctx: Context, queue: string): AsyncGenerator<RingChange> =>
  ctx.feed.ringChanges(queue);

/** `groupChanged(queue, group)`: the group's state now, then on every change. */
export const groupChanged = (
  ctx: Context,
  queue: string,
  group: string,
): AsyncGenerator<GroupInfo> => ctx.feed.groupChanges(queue, group);
