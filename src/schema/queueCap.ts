/**
 * The queue's cap and the groups' reserves (DESIGN.md §3, "The queue's cap and reserves"):
 * `Queue.limit`, `Queue.active`, `Queue.reserved`, `Queue.limitOverride`, `Group.reserve`, and the mutations
 * `setQueueLimit`, `clearQueueLimit` and `setReserve` (admin). Logic in
 * `src/resolvers/queueCap.ts`.
 */
import * as resolve from '../resolvers/queueCap.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import { TimedOverrideRef } from './overrides.js';
import { QueueRef } from './queue.js';

builder.objectFields(QueueRef, (t) => ({
  limit: t.int({
    nullable: true,
    description:
      'The most jobs of the whole queue in flight at once (setQueueLimit); null = no cap. O(1).',
    resolve: async (q, _args, ctx, info) => (await resolve.capOf(ctx, q, info.rootValue)).limit,
  }),
  active: t.int({
    description: 'Jobs of the queue in flight now (every group). O(1).',
    resolve: async (q, _args, ctx, info) => (await resolve.capOf(ctx, q, info.rootValue)).active,
  }),
  reserved: t.int({
    description: 'The sum of the groups’ reserves (setReserve): never above the cap. O(1).',
    resolve: async (q, _args, ctx, info) => (await resolve.capOf(ctx, q, info.rootValue)).reserved,
  }),
  limitOverride: t.field({
    type: TimedOverrideRef,
    nullable: true,
    description:
      'The pending revert of a timed setQueueLimit (kind LIMIT; `revertToLimit` the cap it goes back to, null for none), or null. O(1).',
    resolve: (q, _args, ctx, info) => resolve.capOverride(ctx, q, info.rootValue),
  }),
}));

builder.objectFields(GroupRef, (t) => ({
  reserve: t.exposeInt('reserve', {
    description:
      'Permits of the queue’s cap the group gets first while they are scarce (setReserve); 0 = none. Lent to the others while it has nothing pending; held at its own limit.',
  }),
}));

const FOR_MS =
  'A timed cap (ms, 1..2,592,000,000 = 30 days): reverts at the deadline (Redis clock) to the cap before the first pending timed one; left out, a plain call that also drops a pending revert.';

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  setQueueLimit: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Cap the whole queue at `limit` jobs in flight (0..1,000,000; at least the sum of the reserves). Nothing in flight is taken back: a cap below the work in flight holds every claim until it drains. The ring and the groups are untouched.',
    args: {
      queue: t.arg.string({ required: true }),
      limit: t.arg.int({ required: true }),
      forMs: t.arg({ type: 'SafeInt', description: FOR_MS }),
    },
    resolve: (_root, args, ctx) => resolve.setQueueLimit(ctx, args),
  }),
  clearQueueLimit: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Remove the queue’s cap (and a pending timed one); the reserves stay and count again under the next cap.',
    args: { queue: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.clearQueueLimit(ctx, args),
  }),
  setReserve: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Reserve `reserve` permits of the queue’s cap for the group (0 clears it): while permits are scarce it gets the next one before any group at or above its own reserve. Refused above the group’s limit, or when the sum of the reserves would pass the cap.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      reserve: t.arg.int({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.setReserve(ctx, args),
  }),
}));
