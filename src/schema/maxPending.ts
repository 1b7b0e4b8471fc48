/**
 * Backlog bounds (DESIGN.md §3, "Backlog bounds"): `Group.maxPending`,
 * `Queue.defaultMaxPending`, and the `setMaxPending` / `setDefaultMaxPending` mutations (admin).
 * An enqueue past a group's bound is refused with GROUP_FULL (HTTP 429).
 */
import * as resolve from '../resolvers/maxPending.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import { QueueRef } from './queue.js';

const RANGE = '0..1,000,000,000; null clears it';

builder.objectFields(GroupRef, (t) => ({
  maxPending: t.exposeInt('maxPending', {
    nullable: true,
    description:
      'The group’s own backlog bound (setMaxPending): an enqueue that would leave it holding more pending + delayed jobs is refused with GROUP_FULL. null: none of its own (the queue’s defaultMaxPending applies, if any).',
  }),
}));

builder.objectFields(QueueRef, (t) => ({
  defaultMaxPending: t.int({
    nullable: true,
    description:
      'The backlog bound of every group without its own (setDefaultMaxPending); null: none. O(1).',
    resolve: (q) => resolve.defaultMaxPending(q),
  }),
}));

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  setMaxPending: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description: `Bound the group’s backlog at \`maxPending\` pending + delayed jobs (${RANGE}): an enqueue (or an enqueueJobs batch, all or nothing) that would pass it is refused with GROUP_FULL (HTTP 429) and writes nothing. Jobs it holds already stay.`,
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      maxPending: t.arg.int({ required: false }),
    },
    resolve: (_root, args, ctx) => resolve.setMaxPending(ctx, args),
  }),
  setDefaultMaxPending: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description: `The queue’s default backlog bound (${RANGE}): the bound of every group without its own.`,
    args: {
      queue: t.arg.string({ required: true }),
      maxPending: t.arg.int({ required: false }),
    },
    resolve: (_root, args, ctx) => resolve.setDefaultMaxPending(ctx, args),
  }),
}));
