/**
 * The groups that matter (DESIGN.md §3, "Group rankings"; §4.2): `enum GroupRanking`,
 * `Queue.topGroups(by, first)` and `Group.oldestPendingAt`. Logic in
 * `src/resolvers/topGroups.ts`.
 */
import { Defaults, type GROUP_RANKINGS, Limits } from '../lanes/internal.js';
import * as resolve from '../resolvers/topGroups.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';
import { QueueRef } from './queue.js';

export const GroupRankingRef = builder.enumType('GroupRanking', {
  description:
    'What `Queue.topGroups` ranks groups by. Equal counts rank in group order (by bytes).',
  values: {
    PENDING: { description: 'Most pending jobs first.' },
    OLDEST_PENDING: {
      description: 'The group whose oldest pending job was enqueued first (lowest id) first.',
    },
    ACTIVE: { description: 'Most active (in-flight) jobs first.' },
  } satisfies Record<(typeof GROUP_RANKINGS)[number], { description: string }>,
});

builder.objectFields(QueueRef, (t) => ({
  topGroups: t.field({
    type: [GroupRef],
    description: `The first \`first\` groups (1..${Limits.maxTopGroups}, else BAD_USER_INPUT) ranked \`by\`; only groups with pending (ACTIVE: active) jobs rank. O(log groups + first), whatever the number of groups. OLDEST_PENDING mends at most 100 stale entries of its index per read and answers fewer groups while more are left.`,
    args: {
      by: t.arg({ type: GroupRankingRef, required: true }),
      first: t.arg.int({ defaultValue: Defaults.topGroups }),
    },
    resolve: (q, args) => resolve.topGroups(q, args.by, args.first),
  }),
}));

builder.objectFields(GroupRef, (t) => ({
  oldestPendingAt: t.field({
    type: 'DateTime',
    nullable: true,
    description:
      'When its oldest pending job was enqueued (Redis clock), as `Queue.topGroups` reads it; null with none pending, and in every other read of a group (not read there).',
    resolve: (g) => resolve.oldestPendingAt(g),
  }),
}));
