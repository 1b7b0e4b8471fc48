/**
 * The worker registry (DESIGN.md §4.9 "Workers"): `WorkerInfo` and `Queue.workers`. Registered
 * by a `Worker`'s heartbeat, or by `claim(workerId:)` for a GraphQL client (src/resolvers/job.ts).
 */
import type { WorkerInfo } from '../lanes/internal.js';
import * as resolve from '../resolvers/workers.js';
import { builder } from './builder.js';
import { QueueRef } from './queue.js';

export const WorkerInfoRef = builder.objectRef<WorkerInfo>('WorkerInfo').implement({
  description:
    'A live worker of the queue, as its last heartbeat registered it: gone at once when it closes, or 3 heartbeats after its last one (a crash).',
  fields: (t) => ({
    id: t.exposeString('id', {
      description: 'Its id (a Worker’s `id` option, or the `workerId` a client claims with).',
    }),
    hostname: t.exposeString('hostname', {
      nullable: true,
      description: 'Its host’s name; null for a GraphQL client.',
    }),
    pid: t.exposeInt('pid', { nullable: true, description: 'Its process id; null for a client.' }),
    concurrency: t.exposeInt('concurrency', {
      nullable: true,
      description: 'Jobs it runs at once; null for a client.',
    }),
    active: t.exposeInt('active', {
      description:
        'Jobs it holds now: as a Worker reported at its last heartbeat, or, for a client, its active jobs.',
    }),
    startedAt: t.field({
      type: 'DateTime',
      description: 'When it started (Redis clock; a client: its first claim).',
      resolve: (w) => resolve.at(w.startedAt),
    }),
    lastSeenAt: t.field({
      type: 'DateTime',
      description: 'Its last heartbeat (Redis clock; a client: its last claim).',
      resolve: (w) => resolve.at(w.lastSeenAt),
    }),
    version: t.exposeString('version', {
      nullable: true,
      description: 'The Ringmaster version it runs; null when unknown (a client).',
    }),
    heartbeatMs: t.exposeInt('heartbeatMs', {
      description: 'How often it beats (ms); it is gone 3 beats after the last.',
    }),
    client: t.exposeBoolean('client', {
      description: 'Registered by claims over GraphQL (`claim(workerId:)`), not by a Worker.',
    }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
  workers: t.field({
    type: [WorkerInfoRef],
    description:
      'The live workers, by id (at most 10,000). O(workers); a client’s `active` counts the queue’s active jobs, O(active).',
    resolve: resolve.workers,
  }),
}));
