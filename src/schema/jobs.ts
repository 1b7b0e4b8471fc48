/** Job reads on `Queue` (DESIGN.md §4.2): `Queue.job(id)`. */
import * as resolve from '../resolvers/job.js';
import { builder } from './builder.js';
import { JobRef } from './job.js';
import { QueueRef } from './queue.js';

builder.objectFields(QueueRef, (t) => ({
  job: t.field({
    type: JobRef,
    nullable: true,
    description:
      'One job with its errors and backoff; null when there is no such job (never was, or gone: completed without retention, trimmed or removed). An id that is not a decimal string names no job.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (q, args) => resolve.job(q, String(args.id)),
  }),
}));
