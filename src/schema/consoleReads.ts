/**
 * Reads the admin console needs (issue 6), open to every client: `Queue.stats` (the event
 * counters a throughput chart differentiates), `Queue.groupsWithPrefix` (search by id, O(page))
 * and `Query.viewer` (the caller's role, so a client can hide actions it may not take).
 */
import { Defaults, type QueueStats } from '../lanes/index.js';
import * as resolve from '../resolvers/consoleReads.js';
import { builder } from './builder.js';
import { GroupConnectionRef, QueueRef } from './queue.js';

export const QueueStatsRef = builder.objectRef<QueueStats>('QueueStats').implement({
  description:
    'Event counters since the queue was created, each O(1) to read. A rate is the difference of two reads over the time between them.',
  fields: (t) => ({
    enqueued: t.exposeInt('enqueued', { description: 'Jobs enqueued.' }),
    claimed: t.exposeInt('claimed', { description: 'Claims (a retried job counts again).' }),
    completed: t.exposeInt('completed', { description: 'Jobs completed.' }),
    retried: t.exposeInt('retried', {
      description:
        'Retries a worker asked for (its processor failed); expired leases are counted in `reaped`, not here.',
    }),
    reaped: t.exposeInt('reaped', { description: 'Leases that expired and were taken back.' }),
    dead: t.exposeInt('dead', { description: 'Jobs that ran out of attempts.' }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
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
    resolve: (q, args) => resolve.groupsByPrefix(q, args.prefix, args.first, args.after),
  }),
}));

const RoleRef = builder.enumType('Role', {
  description: 'read: queries and subscriptions; worker: read + job calls; admin: everything.',
  values: ['READ', 'WORKER', 'ADMIN'] as const,
});

const ViewerRef = builder.objectRef<{ role: 'read' | 'worker' | 'admin' }>('Viewer').implement({
  description: 'The caller.',
  fields: (t) => ({
    role: t.field({
      type: RoleRef,
      description: 'ADMIN when AUTH_TOKENS is unset.',
      resolve: (v) => v.role.toUpperCase() as 'READ' | 'WORKER' | 'ADMIN',
    }),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: ViewerRef,
    authScopes: { read: true },
    description: 'The caller: its role, so a client can hide what it may not do.',
    resolve: (_root, _args, ctx) => resolve.viewer(ctx),
  }),
);
