/** `groupChanged(queue, group)`: one group's state, sent whenever any field of it changes. */
import type { GroupInfo, QueueKeys } from '../lanes/internal.js';
import type { Render } from './conflate.js';

/** Every field equal. */
export function sameGroup(a: GroupInfo, b: GroupInfo): boolean {
  return (
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
 * group's own lane.
 */
export function groupKeys(k: QueueKeys, group: string): string[] {
  return [
    k.glimit,
    k.gactive,
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
