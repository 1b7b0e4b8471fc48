/**
 * Job reads on `Queue` and `Group` (DESIGN.md §4.2): `Queue.job(id)`, and `Queue.jobs` /
 * `Group.jobs`, cursor-paged Relay connections of the jobs in one state.
 */
import { Defaults, type Job } from '../lanes/index.js';
import * as resolve from '../resolvers/job.js';
import { type JobConnection, jobs } from '../resolvers/queue.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import { JobRef, JobStateRef } from './job.js';
import { PageInfoRef } from './pageInfo.js';
import { QueueRef } from './queue.js';

const JobEdgeRef = builder.objectRef<{ cursor: string; node: Job }>('JobEdge').implement({
  fields: (t) => ({
    cursor: t.exposeString('cursor', {
      description:
        'Opaque; pass as `after` for the next page of this listing (another listing refuses it: BAD_USER_INPUT).',
    }),
    node: t.field({ type: JobRef, resolve: (e) => e.node }),
  }),
});

const JobConnectionRef = builder.objectRef<JobConnection>('JobConnection').implement({
  description:
    'A page of jobs in one state. A cursor stays good after its job has left the state (claimed, promoted, removed): the next page goes on from where it was. It belongs to its listing (queue, state, group): given to another it is BAD_USER_INPUT, start that one without `after`.',
  fields: (t) => ({
    edges: t.field({ type: [JobEdgeRef], resolve: (c) => c.edges }),
    pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c }),
    totalCount: t.exposeInt('totalCount', {
      description:
        "Jobs in that state (the queue's or the group's); for ACTIVE jobs of a group, its active count; for DEAD and COMPLETED, the jobs the retention keeps now (within its age on the Redis clock), exactly.",
    }),
  }),
});

const ORDER =
  'PENDING: a group’s lane in run order (a group is required); DELAYED: by run-at time, soonest first; ACTIVE: by lease deadline, soonest first; DEAD and COMPLETED (kept by retention, a job past the retention age left out even before it is trimmed): newest first.';

builder.objectFields(QueueRef, (t) => ({
  job: t.field({
    type: JobRef,
    nullable: true,
    description:
      'One job with its errors and backoff; null when there is no such job (never was, or gone: completed without retention, trimmed, removed, or completed or dead and past its retention age even before it is trimmed). An id that is not a decimal string names no job.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (q, args) => resolve.job(q, String(args.id)),
  }),
  jobs: t.field({
    type: JobConnectionRef,
    description: `The queue's jobs in \`state\` (with \`group\`: that group's), a page at a time, O(log n + page). ${ORDER} ACTIVE with a group walks the queue's active jobs (bounded by the workers' concurrency).`,
    args: {
      state: t.arg({ type: JobStateRef, required: true }),
      group: t.arg.string(),
      first: t.arg.int({ defaultValue: Defaults.pageSize }),
      after: t.arg.string(),
    },
    resolve: (q, args) => jobs(q, args),
  }),
}));

builder.objectFields(GroupRef, (t) => ({
  jobs: t.field({
    type: JobConnectionRef,
    description: `The group's jobs in \`state\`, a page at a time (as \`Queue.jobs\` with this group). ${ORDER}`,
    args: {
      state: t.arg({ type: JobStateRef, required: true }),
      first: t.arg.int({ defaultValue: Defaults.pageSize }),
      after: t.arg.string(),
    },
    resolve: (g, args, ctx) => jobs(ctx.engine.queue(g.queue), { ...args, group: g.id }),
  }),
}));
