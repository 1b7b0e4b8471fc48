/**
 * `Group.reason` and `Group.blockedBy` (issue 6): why a group is not running, as one plain
 * sentence for people and as an enum for programs. Logic in `src/resolvers/groupReason.ts`.
 */
import * as resolve from '../resolvers/groupReason.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';

const BlockedByRef = builder.enumType('BlockedBy', {
  description: 'What keeps a group off the ring (null when it is on it).',
  values: {
    PAUSED: { description: 'Paused by an operator.' },
    LIMIT: { description: 'Exactly at its limit: the next completion puts it back.' },
    PARKED: {
      description:
        'Its limit is 0, or was lowered below the work in flight (active > limit): several jobs must finish, or the limit be raised, first.',
    },
    IDLE: {
      description:
        'No backlog: nothing is waiting. Jobs may still be in flight (`active` > 0): such a group is busy, not doing nothing.',
    },
  } as const,
});

builder.objectFields(GroupRef, (t) => ({
  blockedBy: t.field({
    type: BlockedByRef,
    nullable: true,
    description:
      'Why the group is off the ring, by the precedence of `state`; null when it is on the ring.',
    resolve: (g) => resolve.blockedBy(g),
  }),
  reason: t.string({
    description:
      'One plain sentence answering "why does it get no more turns?": paused; at its limit (n of m in flight); parked; busy with no backlog; empty; or, on the ring, its position p of r (reading the position costs O(ring) for this group; in a `Queue.snapshot`, the position on that snapshot\'s ring).',
    resolve: (g, _args, ctx, info) => resolve.reason(ctx, g, info.rootValue),
  }),
}));
