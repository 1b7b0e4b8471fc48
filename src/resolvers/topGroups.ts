/**
 * `Queue.topGroups` and `Group.oldestPendingAt` (DESIGN.md §3, "Group rankings"; §4.2): thin
 * calls into the engine.
 */
import type { GroupInfo, GroupRanking, Queue, TopGroup } from '../lanes/internal.js';

/**
 * `Queue.topGroups(by, first)`: the engine validates both (BAD_USER_INPUT `by`, `first` out of
 * 1..100); a `first` given as null takes the default, as left out.
 * @throws RingmasterError BAD_USER_INPUT (`by`, `first`)
 */
export function topGroups(
  q: Queue,
  by: GroupRanking,
  first: number | null | undefined,
): Promise<TopGroup[]> {
  return q.topGroups(by, first ?? undefined);
}

/**
 * `Group.oldestPendingAt`: when its oldest pending job was enqueued (ms, Redis clock), as
 * `Queue.topGroups` read it; null for a group read any other way, and for none pending.
 */
export function oldestPendingAt(g: GroupInfo): Date | null {
  const at = (g as Partial<TopGroup>).oldestPendingAt;
  return typeof at === 'number' ? new Date(at) : null;
}
