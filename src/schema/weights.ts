/**
 * Weights (DESIGN.md §3, "Weights"): `Group.weight` and the `setWeight` mutation (admin).
 */
import * as resolve from '../resolvers/weights.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';

builder.objectFields(GroupRef, (t) => ({
  weight: t.exposeInt('weight', {
    description:
      'Turns in a row the group gets each time the rota comes round to it (claims per round of the ring); 1 unless set.',
  }),
}));

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  setWeight: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Give a group `weight` turns in a row per round of the ring (1..1,000; 1 is the default). A lowered weight the group has already reached in the current round ends that round.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      weight: t.arg.int({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.setWeight(ctx, args),
  }),
}));
