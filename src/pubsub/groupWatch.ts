/** `groupChanged(queue, group)`: one group's state, sent whenever any field of it changes. */
import type { GroupInfo, Queue, QueueCap, QueueKeys } from '../lanes/internal.js';
import { atCap } from '../lanes/queue/state.js';
import type { Render } from './conflate.js';

/** Each group a watch read → the queue's cap read beside it. */
const capSeen = new WeakMap<GroupInfo, QueueCap>();

/**
 * A watched group, read with the queue's cap beside it (one MULTI more, O(1)), so a change of
 * the cap, or the queue reaching it or falling below it, sends the group again (DESIGN.md §4.4);
 * its `blockedBy` (QUEUE_LIMIT) and `reason` ("the queue is at its cap, 20 of 20") turn on it.
 */
export async function readWatchedGroup(
  q: Pick<Queue, 'group' | 'cap'>,
  id: string,
): Promise<GroupInfo> {
  const [group, cap] = await Promise.all([q.group(id), q.cap()]);
  capSeen.set(group, cap);
  return group;
}

/**
 * The cap a watch read beside `event` (a `groupChanged` event's group) when it is of `queue`:
 * what the event's fields show of the cap, with no read more; undefined for anything else.
 */
export function capReadWith(event: unknown, queue: string): QueueCap | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const group = event as GroupInfo;
  return group.queue === queue ? capSeen.get(group) : undefined;
}

/** The caps read with `a` and `b` agree on what a group shows of them (either not read: they do). */
function sameCap(a: GroupInfo, b: GroupInfo): boolean {
  const x = capSeen.get(a);
  const y = capSeen.get(b);
  return x === undefined || y === undefined || (x.limit === y.limit && atCap(x) === atCap(y));
}

/** Every field equal, and the queue's cap read beside each the same. */
export function sameGroup(a: GroupInfo, b: GroupInfo): boolean {
  return (
    sameCap(a, b) &&
    a.id === b.id &&
    a.queue === b.queue &&
    a.limit === b.limit &&
    a.active === b.active &&
    a.pending === b.pending &&
    a.paused === b.paused &&
    a.onRing === b.onRing &&
    a.state === b.state &&
    a.weight === b.weight &&
    a.reserve === b.reserve &&
    a.maxPending === b.maxPending &&
    a.rateLimit?.max === b.rateLimit?.max &&
    a.rateLimit?.windowMs === b.rateLimit?.windowMs &&
    a.rateLimitedUntil === b.rateLimitedUntil &&
    a.rateReopenedAt === b.rateReopenedAt &&
    a.limitOverride?.until === b.limitOverride?.until &&
    a.limitOverride?.revertTo === b.limitOverride?.revertTo &&
    a.pauseOverride?.until === b.pauseOverride?.until &&
    a.pauseOverride?.revertTo === b.pauseOverride?.revertTo
  );
}

/** The current state first, then whenever it differs from the last sent, and after a resync. */
export const renderGroup: Render<GroupInfo, GroupInfo> = (group, previous, forced) =>
  previous === undefined || forced || !sameGroup(group, previous.value) ? group : undefined;

/**
 * The keys a group's fields are read from: `glimit`, `gactive`, `paused`, and the operations
 * hashes (weight, rate, ratelimited, goverride, greserve, gmaxpending) (queue-wide: they notify per key, not per field,
 * so an event on them re-reads every watched group of the queue, each coalesced) and the
 * group's own lane; and `settings`, where the queue's cap is (its jobs in flight move with
 * `gactive`).
 */
export function groupKeys(k: QueueKeys, group: string): string[] {
  return [
    k.glimit,
    k.gactive,
    k.settings,
    k.paused,
    k.weight,
    k.rate,
    k.rateLimited,
    k.overrideData,
    k.reserve,
    k.maxPending,
    k.lane(group),
  ];
}
