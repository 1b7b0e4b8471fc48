/** `RingChange`, its reason, and the `ringChanged` subscription (DESIGN.md §4). */
import type { RingChange } from '../pubsub/index.js';
import { ringChanged } from '../resolvers/live.js';
import { knownByName } from '../resolvers/snapshot.js';
import { builder } from './builder.js';
import { QueueStateRef } from './queue.js';

const RingChangeReasonRef = builder.enumType('RingChangeReason', {
  description:
    "SNAPSHOT first, then CHANGE (the ring or the queue state differs); RESYNC when the ring is sent again whatever it is: after the notification connection reconnects, when Redis lost the queue's state, or to a subscriber too far behind to be told what changed (resyncReason says which).",
  values: ['SNAPSHOT', 'CHANGE', 'RESYNC'] as const,
});

const ResyncReasonRef = builder.enumType('ResyncReason', {
  description:
    "Why a RESYNC was sent: MISSED_EVENTS when notifications may have been missed (the feed reconnected, its canary went unheard, the slot moved, the subscriber fell too far behind); STATE_LOST when Redis lost the queue's state (restarted without its data, flushed, failed over to an empty replica): the ring is what Redis holds now.",
  values: ['MISSED_EVENTS', 'STATE_LOST'] as const,
});

/** A list's first `first` (all when null or absent; a negative one was refused at subscribe). */
const head = (list: readonly string[], first: number | null | undefined) =>
  first === null || first === undefined ? list : list.slice(0, Math.max(0, first));

const FIRST = 'Only the first n (n ≥ 0): an event then costs O(n + what changed) to send.';

const RingChangeRef = builder.objectRef<RingChange>('RingChange').implement({
  fields: (t) => ({
    queue: t.exposeString('queue'),
    ring: t.stringList({
      description: 'The ring now, head first.',
      args: { first: t.arg.int({ description: FIRST }) },
      resolve: (c, args) => head(c.ring, args.first),
    }),
    size: t.int({ description: 'Groups on the ring now.', resolve: (c) => c.size }),
    added: t.stringList({
      description:
        'Groups that joined since your last event, in the order they joined (a SNAPSHOT: the ring).',
      args: { first: t.arg.int({ description: FIRST }) },
      resolve: (c, args) => head(c.added, args.first),
    }),
    removed: t.stringList({
      description: 'Groups that left since your last event, in the order they left.',
      args: { first: t.arg.int({ description: FIRST }) },
      resolve: (c, args) => head(c.removed, args.first),
    }),
    addedCount: t.int({
      description: 'How many groups `added` holds (with no `first`).',
      resolve: (c) => c.addedCount,
    }),
    removedCount: t.int({
      description: 'How many groups `removed` holds (with no `first`).',
      resolve: (c) => c.removed.length,
    }),
    queueState: t.field({
      type: QueueStateRef,
      description:
        'The queue as it is in this event: RUNNING, or PAUSED (pauseQueue) — the ring stands, nothing is claimed. A change of it alone is a CHANGE with nothing added or removed.',
      resolve: (c) => c.queueState,
    }),
    reason: t.field({ type: RingChangeReasonRef, resolve: (c) => c.reason }),
    resyncReason: t.field({
      type: ResyncReasonRef,
      nullable: true,
      description: 'Why, for a RESYNC; null for SNAPSHOT and CHANGE.',
      resolve: (c) => c.resyncReason ?? null,
    }),
    known: t.boolean({
      description:
        'Whether the queue is known (`Queue.known`) when the event is sent: an empty SNAPSHOT of a queue never used says false.',
      resolve: (c, _args, ctx) => knownByName(ctx, c.queue),
    }),
  }),
});

builder.subscriptionType({
  fields: (t) => ({
    ringChanged: t.field({
      type: RingChangeRef,
      authScopes: { read: true },
      args: { queue: t.arg.string({ required: true }) },
      subscribe: (_root, args, ctx, info) => ringChanged(ctx, args.queue, info),
      resolve: (change) => change,
    }),
  }),
});
