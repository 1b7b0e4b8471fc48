/** `ringChanged(queue)`: a queue's ring and state, and each subscriber's events rendered from them. */
import type { QueueKeys, QueueState } from '../lanes/internal.js';
import type { Render } from './conflate.js';

export type RingChangeReason = 'SNAPSHOT' | 'CHANGE' | 'RESYNC';
/**
 * Why a RESYNC was sent: MISSED_EVENTS when notifications may have been missed (the feed
 * reconnected, its canary went unheard, the queue's slot moved); STATE_LOST when Redis lost the
 * queue's state (DESIGN.md §3, "A Redis that lost a queue's state").
 */
export type ResyncReason = 'MISSED_EVENTS' | 'STATE_LOST';

/** One read of a watched ring: the ring and the queue's state, the watch's value. */
export interface RingRead {
  /** The ring, head first. */
  readonly ring: string[];
  readonly queueState: QueueState;
  /** The first read after the engine found the queue's state lost: sent as a RESYNC. */
  readonly stateLost?: true;
}

/** One `ringChanged` event (DESIGN.md §4 `RingChange`). */
export interface RingChange {
  queue: string;
  /** The ring, head first. */
  ring: string[];
  /** Groups on `ring` that were not on the last ring sent to this subscriber (ring order). */
  added: string[];
  /** Groups on the last ring sent to this subscriber that are not on `ring` (its order). */
  removed: string[];
  /** RUNNING, or PAUSED while the queue is paused (the ring stands; nothing is claimed). */
  queueState: QueueState;
  /**
   * SNAPSHOT first; CHANGE when the ring or the queue's state differs; RESYNC after a reconnect
   * or a lost state (sent always; why in `resyncReason`).
   */
  reason: RingChangeReason;
  /** Why, for a RESYNC; absent otherwise. */
  resyncReason?: ResyncReason;
}

/** Same groups in the same order (a rotation is a change: the ring is the rota). */
export function sameRing(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((group, i) => group === b[i]);
}

/** Same ring and same queue state. */
export function sameRingRead(a: RingRead, b: RingRead): boolean {
  return a.queueState === b.queueState && sameRing(a.ring, b.ring);
}

/** Members of `a` not in `b`, in `a`'s order. */
function minus(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return a.filter((group) => !other.has(group));
}

/** Ring reads are shared by every subscriber of a queue, so are the events rendered from them. */
const SNAPSHOTS = new WeakMap<RingRead, RingChange>();
const DIFFS = new WeakMap<RingRead, WeakMap<RingRead, Diff>>();
interface Diff {
  change?: RingChange | null;
  resync?: RingChange;
}

/**
 * A subscriber's next event from the latest read. The first is a SNAPSHOT; `added`/`removed`
 * are always against the last ring sent to this subscriber (the empty ring before the first,
 * so a SNAPSHOT lists the whole ring as added). A read with the same ring and queue state sends
 * nothing unless a resync happened since the last event; a change of the queue's state alone is
 * a CHANGE with nothing added or removed.
 *
 * Subscribers that were sent the same read get the same event object for the next read: it is
 * computed once per (last sent, latest) pair of reads, not once per subscriber, so the fan-out
 * to a thousand subscribers costs one diff (events are never mutated downstream).
 */
export function renderRing(queue: string): Render<RingRead, RingChange> {
  return (read, previous, forced) => {
    const { ring, queueState } = read;
    if (previous === undefined) {
      let snapshot = SNAPSHOTS.get(read);
      if (!snapshot) {
        snapshot = {
          queue,
          ring: [...ring],
          added: [...ring],
          removed: [],
          queueState,
          reason: 'SNAPSHOT',
        };
        SNAPSHOTS.set(read, snapshot);
      }
      return snapshot;
    }
    let byLatest = DIFFS.get(previous.value);
    if (!byLatest) {
      byLatest = new WeakMap();
      DIFFS.set(previous.value, byLatest);
    }
    let diff = byLatest.get(read);
    if (!diff) {
      diff = {};
      byLatest.set(read, diff);
    }
    const before = previous.value.ring;
    const make = (reason: RingChangeReason, resyncReason?: ResyncReason): RingChange => ({
      queue,
      ring: [...ring],
      added: minus(ring, before),
      removed: minus(before, ring),
      queueState,
      reason,
      ...(resyncReason === undefined ? {} : { resyncReason }),
    });
    if (forced || read.stateLost) {
      diff.resync ??= make('RESYNC', read.stateLost ? 'STATE_LOST' : 'MISSED_EVENTS');
      return diff.resync;
    }
    if (diff.change === undefined) {
      diff.change = sameRingRead(read, previous.value) ? null : make('CHANGE');
    }
    return diff.change ?? undefined;
  };
}

/**
 * The keys whose events may change a ring event: the ring, and the queue's settings (its pause;
 * a change of retention there is read and found equal, sending nothing).
 */
export function ringKeys(keys: QueueKeys): string[] {
  return [keys.ring, keys.settings];
}
