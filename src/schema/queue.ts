/**
 * `Queue` with its reads, the `groups` connection, `QueueCounts`, and the root queries
 * `queue` and `queues` (DESIGN.md §4); `QueueStats` (the event counters a throughput chart
 * differentiates) and `groupsWithPrefix` (search by id, O(page)), which the console reads.
 */
import {
  Defaults,
  type GroupInfo,
  type Queue,
  type QueueCounts,
  type QueueRetention,
  type QueueStats,
  type RetentionPolicy,
} from '../lanes/internal.js';
import * as resolve from '../resolvers/queue.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import { PageInfoRef } from './pageInfo.js';

interface GroupConnectionShape {
  edges: { cursor: string; node: GroupInfo }[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

const GroupEdgeRef = builder.objectRef<{ cursor: string; node: GroupInfo }>('GroupEdge').implement({
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description:
        'Opaque; pass as `after` for the next page of this listing (another queue or prefix refuses it: BAD_USER_INPUT).',
    }),
    node: t.field({ type: GroupRef, resolve: (e) => e.node }),
  }),
});

export const GroupConnectionRef = builder
  .objectRef<GroupConnectionShape>('GroupConnection')
  .implement({
    fields: (t) => ({
      edges: t.field({ type: [GroupEdgeRef], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c }),
      totalCount: t.exposeInt('totalCount', {
        description: 'Registered groups in the queue (for `groupsWithPrefix`: those matching).',
      }),
    }),
  });

export const QueueStateRef = builder.enumType('QueueState', {
  description:
    'RUNNING, or PAUSED between pauseQueue and resumeQueue: nothing is claimed from any group, while completions, retries, reaping and promotion go on and the ring stands as it is.',
  values: ['RUNNING', 'PAUSED'] as const,
});

export const QueueCountsRef = builder.objectRef<QueueCounts>('QueueCounts').implement({
  description: 'Queue-wide totals, each O(1) to read.',
  fields: (t) => ({
    groups: t.exposeInt('groups'),
    onRing: t.exposeInt('onRing', {
      description:
        'Groups on the ring at every priority level (the serviceable ones): the length of `Queue.ring`.',
    }),
    paused: t.exposeInt('paused'),
    saturated: t.exposeInt('saturated', {
      description: 'Groups with a limit and active >= limit.',
    }),
    pending: t.exposeInt('pending'),
    delayed: t.exposeInt('delayed', {
      description: 'Jobs DELAYED: waiting for their run-at time (a delayed enqueue or a backoff).',
    }),
    active: t.exposeInt('active'),
    dead: t.exposeInt('dead', { description: 'Dead jobs kept (the dead retention).' }),
    completed: t.exposeInt('completed', {
      description: 'Completed jobs kept (the completed retention); `stats.completed` counts all.',
    }),
  }),
});

export const QueueRef = builder.objectRef<Queue>('Queue').implement({
  description: 'A named set of groups sharing one ring.',
  fields: (t) => ({
    name: t.exposeString('name'),
    ring: t.stringList({
      description:
        'Serviceable groups, head first, in the order claims take them: with priorities, the groups of levels 1–4, the ring of level 5, then those of levels 6–9 (DESIGN.md §3, Levels).',
      resolve: resolve.ring,
    }),
    group: t.field({
      type: GroupRef,
      description: 'One group; an unknown id reads as empty (limit null, zeros).',
      args: { id: t.arg.string({ required: true }) },
      resolve: (q, args) => resolve.group(q, args.id),
    }),
    groups: t.field({
      type: GroupConnectionRef,
      description: 'Registered groups by id.',
      args: { first: t.arg.int({ defaultValue: Defaults.pageSize }), after: t.arg.string() },
      resolve: (q, args) => resolve.groups(q, args.first, args.after),
    }),
    activeGroups: t.field({
      type: [GroupRef],
      description: 'Groups with active > 0.',
      resolve: resolve.activeGroups,
    }),
    paused: t.stringList({ description: 'Paused groups, sorted.', resolve: resolve.paused }),
    counts: t.field({ type: QueueCountsRef, resolve: resolve.counts }),
  }),
});

builder.queryType({
  fields: (t) => ({
    queue: t.field({
      type: QueueRef,
      authScopes: { read: true },
      args: { name: t.arg.string({ required: true }) },
      resolve: (_root, args, ctx) => resolve.queue(ctx, args.name),
    }),
    queues: t.field({
      type: [QueueRef],
      nullable: { list: false, items: true },
      authScopes: { read: true },
      description:
        'Every queue ever steered or enqueued to, sorted by name. Each is read on its own: one that cannot be read now (its Redis Cluster master is down) is null at its place, with its error (REDIS_UNAVAILABLE, `extensions.queue` naming it), and the others are still listed.',
      resolve: (_root, _args, ctx) => resolve.queues(ctx),
    }),
  }),
});

/** The event counters of `QueueStats` and what each counts (DESIGN.md §4, `stats`). */
const STATS_COUNTERS: ReadonlyArray<[keyof QueueStats & string, string]> = [
  ['enqueued', 'Jobs enqueued.'],
  ['claimed', 'Claims (a retried job counts again).'],
  ['completed', 'Jobs completed.'],
  [
    'retried',
    'Retries a worker asked for (its processor failed); expired leases are counted in `reaped`, not here.',
  ],
  ['reaped', 'Leases that expired and were taken back.'],
  ['dead', 'Jobs that ran out of attempts.'],
  ['removed', 'Jobs an operator removed (removeJobs, purgeGroup), in any state.'],
  ['requeued', 'Dead jobs an operator requeued (requeueDeadJobs).'],
];

export const QueueStatsRef = builder.objectRef<QueueStats>('QueueStats').implement({
  description:
    'Event counters since the queue was created, each O(1) to read. A rate is the difference of two reads over the time between them. SafeInt, not Int: at 10,000 claims a second a queue passes 2^31 in under three days.',
  fields: (t) =>
    Object.fromEntries(
      STATS_COUNTERS.map(([name, description]) => [
        name,
        t.expose(name, { type: 'SafeInt', description }),
      ]),
    ),
});

export const RetentionPolicyRef = builder.objectRef<RetentionPolicy>('RetentionPolicy').implement({
  description:
    'How many finished jobs a queue keeps: a job is kept while it is among the newest `count` and, with `ageMs`, finished less than `ageMs` ago.',
  fields: (t) => ({
    count: t.exposeInt('count', {
      description: 'Jobs kept, 0..1,000,000 (0: none — a completed job is deleted at once).',
    }),
    ageMs: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The longest a job is kept (ms, up to 365 days); null = no age bound.',
      resolve: (p) => p.ageMs,
    }),
  }),
});

export const QueueRetentionRef = builder.objectRef<QueueRetention>('QueueRetention').implement({
  description: "A queue's retention of completed and dead jobs, the defaults where none was set.",
  fields: (t) => ({
    completed: t.field({ type: RetentionPolicyRef, resolve: (r) => r.completed }),
    dead: t.field({ type: RetentionPolicyRef, resolve: (r) => r.dead }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
  state: t.field({
    type: QueueStateRef,
    description: 'RUNNING, or PAUSED between pauseQueue and resumeQueue. O(1).',
    resolve: resolve.state,
  }),
  retention: t.field({
    type: QueueRetentionRef,
    description:
      'How many completed and dead jobs the queue keeps (setRetention; the defaults where none was set). O(1).',
    resolve: resolve.retention,
  }),
  stats: t.field({
    type: QueueStatsRef,
    description: 'Event counters (enqueued, claimed, completed, …) since the queue was created.',
    resolve: resolve.stats,
  }),
  groupsWithPrefix: t.field({
    type: GroupConnectionRef,
    description:
      'Registered groups whose id starts with `prefix`, by id; `totalCount` counts the matches. O(log groups + page).',
    args: {
      prefix: t.arg.string({ required: true }),
      first: t.arg.int({ defaultValue: Defaults.pageSize }),
      after: t.arg.string(),
    },
    resolve: (q, args) => resolve.groups(q, args.first, args.after, args.prefix),
  }),
}));
