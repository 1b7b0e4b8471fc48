/**
 * `Queue.snapshot` and `Queue.known`: one moment of a queue, read by one script, and
 * whether the queue was ever used.
 */

import type { Context } from '../context.js';
import type { GroupInfo, Queue, QueueSnapshot } from '../lanes/internal.js';
import { describeWithRing } from './group.js';
import { toConnection } from './queue.js';

/** A snapshot with its page shaped as a Relay connection (as `Queue.groups` answers). */
export interface SnapshotView extends QueueSnapshot {
  readonly connection: {
    edges: { cursor: string; node: GroupInfo }[];
    hasNextPage: boolean;
    endCursor: string | null;
    totalCount: number;
  };
}

/**
 * `Queue.snapshot(first, after, prefix, ids, ringFirst)`. The groups it read say where they stand on the
 * ring of the same read (`Group.reason`), not on a ring read later.
 * @throws RingmasterError BAD_USER_INPUT for a bad page argument, id or ringFirst (Queue.snapshot)
 */
export async function snapshot(
  q: Queue,
  args: {
    first?: number | null | undefined;
    after?: string | null | undefined;
    prefix?: string | null | undefined;
    ids?: readonly string[] | null | undefined;
    ringFirst?: number | null | undefined;
  },
): Promise<SnapshotView> {
  const s = await q.snapshot({
    first: args.first ?? undefined,
    after: args.after,
    prefix: args.prefix ?? undefined,
    ids: args.ids ?? undefined,
    ringFirst: args.ringFirst,
  });
  describeWithRing([...s.page.groups, ...s.picked], s.ring, s.paused, s.ringSize, s.ringLevels);
  return { ...s, connection: toConnection(s.page) };
}

/** `Queue.known`: the queue is in the registry (`P:queues`). */
export const known = (q: Queue): Promise<boolean> => q.known();

/** `RingChange.known`: the same, read when the event is sent. */
export const knownByName = (ctx: Context, queue: string): Promise<boolean> =>
  ctx.engine.queue(queue).known();
