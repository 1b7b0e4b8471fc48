/**
 * `ringChanged(queue)`: each subscriber's events rendered from the versions of a watched ring
 * (src/pubsub/ringMirror.ts), at a cost of what changed since the version it was last sent,
 * plus the head of the ring it asked for (DESIGN.md §4.4).
 */
import type { QueueKeys, QueueState } from '../lanes/internal.js';
import type { Render } from './conflate.js';
import { type RingVersion, stepsBetween } from './ringMirror.js';

export type RingChangeReason = 'SNAPSHOT' | 'CHANGE' | 'RESYNC';
/**
 * Why a RESYNC was sent: MISSED_EVENTS when notifications may have been missed (the feed
 * reconnected, its canary went unheard, the queue's slot moved, a subscriber fell too far
 * behind); STATE_LOST when Redis lost the queue's state (DESIGN.md §3, "A Redis that lost a
 * queue's state").
 */
export type ResyncReason = 'MISSED_EVENTS' | 'STATE_LOST';

/**
 * What of the ring a subscriber's events carry (the GraphQL selection says it; the engine API's
 * default is the whole ring, {@link WHOLE_RING}).
 */
export interface RingNeed {
  /** Groups of `ring` from the head (Infinity: the whole ring; 0: none). */
  readonly ring: number;
  /** Groups of a SNAPSHOT's `added` (the whole ring) from the head (Infinity: all; 0: none). */
  readonly snapshotAdded: number;
}

/** Every event carries the whole ring. */
export const WHOLE_RING: RingNeed = {
  ring: Number.POSITIVE_INFINITY,
  snapshotAdded: Number.POSITIVE_INFINITY,
};

/** One `ringChanged` event (DESIGN.md §4.4 `RingChange`). */
export interface RingChange {
  queue: string;
  /** The ring, head first: its first `RingNeed.ring` groups. */
  ring: string[];
  /** Groups on the ring now (count). */
  size: number;
  /**
   * Groups that joined since the last event sent to this subscriber, in the order they joined
   * (a SNAPSHOT: the ring, its first `RingNeed.snapshotAdded`).
   */
  added: string[];
  /** How many joined (a SNAPSHOT: the ring's size, whatever of it `added` carries). */
  addedCount: number;
  /** Groups that left since the last event sent to this subscriber, in the order they left. */
  removed: string[];
  /** RUNNING, or PAUSED while the queue is paused (the ring stands; nothing is claimed). */
  queueState: QueueState;
  /**
   * SNAPSHOT first; CHANGE when the ring or the queue's state differs; RESYNC after a reconnect
   * or a lost state (sent always), or for a subscriber too far behind to be told what changed;
   * why in `resyncReason`.
   */
  reason: RingChangeReason;
  /** Why, for a RESYNC; absent otherwise. */
  resyncReason?: ResyncReason;
}

/** Events shared by the subscribers that were sent the same version and need the same. */
const SNAPSHOTS = new WeakMap<RingVersion, Map<string, RingChange>>();
const DIFFS = new WeakMap<RingVersion, WeakMap<RingVersion, Map<string, Diff>>>();
interface Diff {
  change?: RingChange | null;
  resync?: RingChange;
}

const needKey = (need: RingNeed) => `${need.ring}:${need.snapshotAdded}`;

function cached<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * A subscriber's next event from the latest version. The first is a SNAPSHOT; `added`/`removed`
 * are against the last version sent to this subscriber (nothing before the first: a SNAPSHOT
 * lists the ring as added). A version with the same ring and queue state sends nothing unless a
 * resync happened since the last event; a change of the queue's state alone is a CHANGE with
 * nothing added or removed, and so is a rotation (the same groups, moved). A subscriber more than `RING_VERSIONS_KEPT` versions behind gets a RESYNC whose
 * `added` is the ring and `removed` empty.
 *
 * Rendered while `version` is the watch's latest (a stream renders the latest value offered to
 * it), so the head of the ring is taken from the watch's copy then. Subscribers that were sent
 * the same version and need the same get the same event object: the fan-out to a thousand
 * subscribers costs one step, not one per subscriber (events are never mutated downstream).
 */
export function renderRing(
  queue: string,
  need: RingNeed = WHOLE_RING,
): Render<RingVersion, RingChange> {
  const key = needKey(need);
  const whole = (
    version: RingVersion,
    reason: RingChangeReason,
    resyncReason?: ResyncReason,
  ): RingChange => ({
    queue,
    ring: version.prefix(need.ring),
    size: version.size,
    added: version.prefix(need.snapshotAdded),
    addedCount: version.size,
    removed: [],
    queueState: version.queueState,
    reason,
    ...(resyncReason === undefined ? {} : { resyncReason }),
  });
  return (version, previous, forced) => {
    if (previous === undefined) {
      const byNeed = cached(SNAPSHOTS, version, () => new Map<string, RingChange>());
      let snapshot = byNeed.get(key);
      if (snapshot === undefined) {
        snapshot = whole(version, 'SNAPSHOT');
        byNeed.set(key, snapshot);
      }
      return snapshot;
    }
    const byLatest = cached(DIFFS, previous.value, () => new WeakMap());
    const byNeed = cached(byLatest, version, () => new Map<string, Diff>());
    let diff = byNeed.get(key);
    if (diff === undefined) {
      diff = {};
      byNeed.set(key, diff);
    }
    const make = (reason: RingChangeReason, resyncReason?: ResyncReason): RingChange => {
      const step = stepsBetween(previous.value, version);
      if (step === null) return whole(version, 'RESYNC', resyncReason ?? 'MISSED_EVENTS');
      return {
        queue,
        ring: version.prefix(need.ring),
        size: version.size,
        added: [...step.added],
        addedCount: step.added.length,
        removed: [...step.removed],
        queueState: version.queueState,
        reason,
        ...(resyncReason === undefined ? {} : { resyncReason }),
      };
    };
    if (forced || version.stateLost) {
      diff.resync ??= make('RESYNC', version.stateLost ? 'STATE_LOST' : 'MISSED_EVENTS');
      return diff.resync;
    }
    if (diff.change === undefined) {
      diff.change = version === previous.value ? null : make('CHANGE');
    }
    return diff.change ?? undefined;
  };
}

/**
 * The keys whose events may change a ring event: the ring, the rota of the other levels
 * (`levels`, DESIGN.md §3 "Levels"), and the queue's settings (its pause; a change of retention
 * there is read and found equal, sending nothing).
 */
export function ringKeys(keys: QueueKeys): string[] {
  return [keys.ring, keys.levels, keys.settings];
}
