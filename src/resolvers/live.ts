/** Subscriptions: the live feed's generators, unchanged (DESIGN.md §4 `Subscription`). */
import type { GroupInfo } from '../lanes/index.js';
import * as validate from '../lanes/validate.js';
import type { RingChange } from '../pubsub/index.js';
import type { Context } from '../schema/context.js';

/**
 * `ringChanged(queue)`: SNAPSHOT, then CHANGE/RESYNC. The queue name is validated (by making
 * its handle) before anything is watched, so a bad name fails the subscription at once.
 */
export function ringChanged(ctx: Context, queue: string): AsyncGenerator<RingChange> {
  ctx.engine.queue(queue);
  return ctx.feed.ringChanges(queue);
}

/** `groupChanged(queue, group)`: the group's state now, then on every change. */
export function groupChanged(
  ctx: Context,
  queue: string,
  group: string,
): AsyncGenerator<GroupInfo> {
  ctx.engine.queue(queue);
  validate.groupId(group);
  return ctx.feed.groupChanges(queue, group);
}
