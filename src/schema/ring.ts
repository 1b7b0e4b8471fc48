/** `RingChange`, its reason, and the `ringChanged` subscription (DESIGN.md §4). */
import type { RingChange } from '../pubsub/index.js';
import { ringChanged } from '../resolvers/live.js';
import { knownByName } from '../resolvers/snapshot.js';
import { builder } from './builder.js';
import { QueueStateRef } from './queue.js';

const RingChangeReasonRef = builder.enumType('RingChangeReason', {
  description:
    "SNAPSHOT first, then CHANGE (the ring or the queue state differs); RESYNC when the ring is sent again whatever it is: after the notification connection reconnects, or when Redis lost the queue's state (resyncReason says which).",
  values: ['SNAPSHOT', 'CHANGE', 'RESYNC'] as const,
});

const ResyncReasonRef = builder.enumType('ResyncReason', {
  description:
    "Why a RESYNC was sent: MISSED_EVENTS when notifications may have been missed (the feed reconnected, its canary went unheard, the slot moved); STATE_LOST when Redis lost the queue's state (restarted without its data, flushed, failed over to an empty replica): the ring is what Redis holds now.",
  values: ['MISSED_EVENTS', 'STATE_LOST'] as const,
});

const RingChangeRef = builder.objectRef<RingChange>('RingChange').implement({
  fields: (t) => ({
    queue: t.exposeString('queue'),
    ring: t.exposeStringList('ring', { description: 'The ring now, head first.' }),
    added: t.exposeStringList('added', { description: 'Groups new since your last event.' }),
    removed: t.exposeStringList('removed', { description: 'Groups gone since your last event.' }),
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
      subscribe: (_root, args, ctx) => ringChanged(ctx, args.queue),
      resolve: (change) => change,
    }),
  }),
});
