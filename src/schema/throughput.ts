/**
 * `ThroughputPoint` and `Queue.throughput(minutes)`: the queue's events per minute, kept in
 * Redis for a day (DESIGN.md §3 "Throughput history", §4.2); the console's chart opens with it.
 */
import { Limits, type ThroughputPoint } from '../lanes/internal.js';
import * as resolve from '../resolvers/throughput.js';
import { builder } from './builder.js';
import { QueueRef } from './queue.js';

export const ThroughputPointRef = builder.objectRef<ThroughputPoint>('ThroughputPoint').implement({
  description:
    "One minute of a queue's events (Redis clock); every count is 0 for a minute with none.",
  fields: (t) => ({
    at: t.field({
      type: 'DateTime',
      description: "The minute's start.",
      resolve: (p) => new Date(p.at),
    }),
    enqueued: t.exposeInt('enqueued', {
      description: 'Jobs created (enqueue, enqueueMany; not dead jobs requeued).',
    }),
    claimed: t.exposeInt('claimed', { description: 'Claims (a retried job counts again).' }),
    completed: t.exposeInt('completed', { description: 'Jobs completed.' }),
    failed: t.exposeInt('failed', {
      description:
        'Failed attempts: retries a worker asked for (whatever became of the job: back in its lane, delayed, or dead) plus expired leases the reaper took back.',
    }),
  }),
});

builder.objectFields(QueueRef, (t) => ({
  throughput: t.field({
    type: [ThroughputPointRef],
    description: `The queue's events per minute over the last \`minutes\` minutes (1..${Limits.throughputMinutes.toLocaleString('en-US')}, else BAD_USER_INPUT), oldest first, the last being the current minute so far (Redis clock). Kept in Redis for a day. O(minutes).`,
    args: { minutes: t.arg.int({ defaultValue: 60 }) },
    resolve: (q, args) => resolve.throughput(q, args.minutes),
  }),
}));
