/** `ringChanged(queue)`: a queue's ring, and each subscriber's events rendered from it. */
import type { QueueKeys } from '../lanes/index.js';
import type { Render } from './conflate.js';

export type RingChangeReason = 'SNAPSHOT' | 'CHANGE' | 'RESYNC';

/** One `ringChanged` event (DESIGN.md §4 `RingChange`). */
export interface RingChange {
  queue: string;
  /** The ring, head first. */
  ring: string[];
  /** Groups on `ring` that were not on the last ring sent to this subscriber (ring order). */
  added: string[];
  /** Groups on the last ring sent to this subscriber that are not on `ring` (its order). */
  removed: string[];
  /** SNAPSHOT first; CHANGE when the ring differs; RESYNC after a reconnect (sent always). */
  reason: RingChangeReason;
}

/** Same groups in the same order (a rotation is a change: the ring is the rota). */
export function sameRing(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((group, i) => group === b[i]);
}

/** Members of `a` not in `b`, in `a`'s order. */
function minus(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return a.filter((group) => !other.has(group));
}

/** Ring reads are shared by every subscriber of a queue, so are the events rendered from them. */
const SNAPSHOTS = new WeakMap<readonly string[], RingChange>();
const DIFFS = new WeakMap<readonly string[], WeakMap<readonly string[], Diff>>();
interface Diff {
  change?: RingChange | null;
  resync?: RingChange;
}

/**
 * A subscriber's next event from the latest ring. The first is a SNAPSHOT; `added`/`removed`
 * are always against the last ring sent to this subscriber (the empty ring before the first,
 * so a SNAPSHOT lists the whole ring as added). An unchanged ring sends nothing unless a
 * resync happened since the last event.
 *
 * Subscribers that were sent the same ring read get the same event object for the next read:
 * it is computed once per (last sent, latest) pair of reads, not once per subscriber, so the
 * fan-out to a thousand subscribers costs one diff (events are never mutated downstream).
 */
export function renderRing(queue: string): Render<string[], RingChange> {
  return (ring, previous, forced) => {
    if (previous === undefined) {
      let snapshot = SNAPSHOTS.get(ring);
      if (!snapshot) {
        snapshot = { queue, ring: [...ring], added: [...ring], removed: [], reason: 'SNAPSHOT' };
        SNAPSHOTS.set(ring, snapshot);
      }
      return snapshot;
    }
    let byLatest = DIFFS.get(previous.value);
    if (!byLatest) {
      byLatest = new WeakMap();
      DIFFS.set(previous.value, byLatest);
    }
    let diff = byLatest.get(ring);
    if (!diff) {
      diff = {};
      byLatest.set(ring, diff);
    }
    const make = (reason: RingChangeReason): RingChange => ({
      queue,
      ring: [...ring],
      added: minus(ring, previous.value),
      removed: minus(previous.value, ring),
      reason,
    });
    if (forced) {
      diff.resync ??= make('RESYNC');
      return diff.resync;
    }
    if (diff.change === undefined) {
      diff.change = sameRing(ring, previous.value) ? null : make('CHANGE');
    }
    return diff.change ?? undefined;
  };
}

/** The keys whose events may change the ring: only the ring itself. */
export function ringKeys(keys: QueueKeys): string[] {
  return [keys.ring];
}
