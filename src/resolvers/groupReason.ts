/**
 * "Why is this group not running?" (issue 6): `Group.blockedBy` and `Group.reason`, plain
 * functions of the group's state (and, for a group on the ring, its place there). The console
 * shows the sentence; programs switch on the enum.
 */

import { type RingPosition, ringPosition } from '../lanes/groupLookup.js';
import type { GroupInfo } from '../lanes/index.js';
import type { Context } from '../schema/context.js';

/** What keeps a group off the ring; null when it is on it (serviceable). */
export type BlockedBy = 'PAUSED' | 'PARKED' | 'LIMIT' | 'IDLE';

/**
 * By the precedence of `GroupState`: paused first; then a limit reached — PARKED when the
 * limit is 0 or below the work in flight (lowered under it), LIMIT when exactly reached;
 * then no backlog (IDLE). Null when the group is serviceable (invariant I1).
 */
export function blockedBy(g: GroupInfo): BlockedBy | null {
  if (g.paused) return 'PAUSED';
  if (g.limit !== null && g.active >= g.limit) {
    return g.limit === 0 || g.active > g.limit ? 'PARKED' : 'LIMIT';
  }
  if (g.pending === 0) return 'IDLE';
  return null;
}

const inFlight = (n: number): string => `${n} in flight`;

/**
 * One plain sentence saying why `g` runs or not. `ring` is where it stands on the ring, and is
 * only read for a group that is not blocked (it costs O(ring)).
 */
export function reasonSentence(g: GroupInfo, ring: RingPosition | null): string {
  const blocked = blockedBy(g);
  switch (blocked) {
    case 'PAUSED':
      return `paused: it gets no turns until resumed (${g.pending} pending, ${inFlight(g.active)})`;
    case 'PARKED':
      if (g.limit === 0) {
        return g.active > 0
          ? `parked: the limit is 0, so it gets no turns until the limit is raised (${inFlight(g.active)})`
          : 'parked: the limit is 0, so it gets no turns until the limit is raised';
      }
      return `parked: the limit was lowered below the work in flight, ${
        g.active - (g.limit ?? 0) + 1
      } must finish first (${inFlight(g.active)}, limit ${g.limit})`;
    case 'LIMIT':
      return g.pending > 0
        ? `at its limit (${g.active} of ${g.limit} in flight): it re-joins the ring when one finishes`
        : `at its limit (${g.active} of ${g.limit} in flight), with no backlog`;
    case 'IDLE':
      return g.active > 0 ? `idle: no backlog (${inFlight(g.active)})` : 'idle: no backlog';
    case null: {
      if (ring === null || ring.position === null) {
        // Serviceable by I1 but not found on the ring: it changed between the two reads (a
        // claim emptied it, say), or another writer left the ring damaged (Queue.audit).
        return 'ready to run, but not on the ring at this moment (its state changed while it was read)';
      }
      const place = `on the ring at position ${ring.position} of ${ring.length}`;
      return ring.position === 1 ? `${place}: next to be served` : place;
    }
  }
}

/** `Group.reason`: reads the ring position only when the group is serviceable. */
export async function reason(ctx: Context, g: GroupInfo): Promise<string> {
  if (blockedBy(g) !== null) return reasonSentence(g, null);
  const queue = ctx.engine.queue(g.queue);
  return reasonSentence(g, await ringPosition(queue, g.id));
}
