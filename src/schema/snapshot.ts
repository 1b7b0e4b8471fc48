/**
 * `Queue.snapshot` and `Queue.known`, which the admin console draws from. A snapshot is one moment of a queue — ring,
 * totals, counters, a page of groups and a few groups by id — read by one script, so its parts
 * never disagree; `known` tells a queue never used from an empty one.
 */
import { Defaults } from '../lanes/index.js';
import * as resolve from '../resolvers/snapshot.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import {
  GroupConnectionRef,
  QueueCountsRef,
  QueueRef,
  QueueStateRef,
  QueueStatsRef,
} from './queue.js';

const QueueSnapshotRef = builder.objectRef<resolve.SnapshotView>('QueueSnapshot').implement({
  description:
    'One moment of a queue: every field was read by one Redis script, so they agree (a group on the ring is READY in `groups` and `picked`; `counts.onRing` and `ringSize` are the length of the ring).',
  fields: (t) => ({
    at: t.field({
      type: 'DateTime',
      description: 'When it was read (the Redis clock).',
      resolve: (s) => new Date(s.at),
    }),
    ring: t.exposeStringList('ring', {
      description:
        'The ring, head first, in the order claims take it: with priorities, the groups of levels 1–4, the ring of level 5, then those of levels 6–9 (DESIGN.md §3, Levels); its first `ringFirst` groups when `snapshot` was given one.',
    }),
    ringSize: t.exposeInt('ringSize', { description: 'The length of the ring.' }),
    queueState: t.field({
      type: QueueStateRef,
      description: 'RUNNING, or PAUSED (pauseQueue: the ring stands, nothing is claimed).',
      resolve: (s) => (s.paused ? 'PAUSED' : 'RUNNING'),
    }),
    counts: t.field({ type: QueueCountsRef, resolve: (s) => s.counts }),
    stats: t.field({ type: QueueStatsRef, resolve: (s) => s.stats }),
    groups: t.field({
      type: GroupConnectionRef,
      description: 'The page asked for, by id (with `prefix`: the matching groups).',
      resolve: (s) => s.connection,
    }),
    picked: t.field({
      type: [GroupRef],
      description: 'The groups named in `ids`, in that order (an unknown id reads as empty).',
      resolve: (s) => s.picked,
    }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
  known: t.boolean({
    description:
      'True once anything was enqueued to the queue or steered in it (setting a limit before the first job counts): it is in the queue registry. False for a name never used, whose reads are all zeros like an empty queue.',
    resolve: resolve.known,
  }),
  snapshot: t.field({
    type: QueueSnapshotRef,
    description:
      'One moment of the queue read by one script: ring, totals, counters, a page of groups (as `groups` / `groupsWithPrefix` page them) and up to 20 groups by id. O(ring + page); O(ringFirst + page) with ringFirst.',
    args: {
      first: t.arg.int({ defaultValue: Defaults.pageSize }),
      after: t.arg.string(),
      prefix: t.arg.string({ description: 'Only groups whose id starts with it.' }),
      ids: t.arg.stringList({ description: 'Groups to read besides the page (at most 20).' }),
      ringFirst: t.arg.int({
        description:
          'Only the first n groups of the ring in `ring` (n ≥ 0); `ringSize` is its length either way. Default: the whole ring.',
      }),
    },
    resolve: (q, args) => resolve.snapshot(q, args),
  }),
}));
