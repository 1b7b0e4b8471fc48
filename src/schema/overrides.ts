/**
 * Timed overrides (DESIGN.md §4.8): `OverrideKind`, `TimedOverride`, `Group.limitOverride` /
 * `Group.pauseOverride` and `cancelOverride` (admin). The timed calls themselves are `setLimit`
 * and `pauseGroup` / `resumeGroup` given `forMs` (src/schema/group.ts). Logic in `src/resolvers/overrides.ts`.
 */
import type { OverrideKind } from '../lanes/internal.js';
import * as resolve from '../resolvers/overrides.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';

export const OverrideKindRef = builder.enumType('OverrideKind', {
  description: 'What a timed override changed: the group’s limit or its pause.',
  values: {
    LIMIT: { value: 'limit', description: 'A timed setLimit.' },
    PAUSE: {
      value: 'pause',
      description: 'A timed pauseGroup or resumeGroup: the pause reverts at the deadline.',
    },
  } as const,
});

export const TimedOverrideRef = builder.objectRef<resolve.OverrideOf>('TimedOverride').implement({
  description:
    'A pending revert of a timed setLimit, pauseGroup or resumeGroup: at `until` (Redis clock) the value goes back to what it was before the first pending override of its kind, unless a plain call of the same kind, or cancelOverride, drops it first. Applied by the reaper (within a reap interval of `until`, or at the next start after a time with no server or worker running).',
  fields: (t) => ({
    kind: t.field({ type: OverrideKindRef, resolve: (o) => o.kind as OverrideKind }),
    until: t.field({
      type: 'DateTime',
      description: 'When it reverts (Redis clock).',
      resolve: (o) => new Date(o.override.until),
    }),
    remainingMs: t.field({
      type: 'SafeInt',
      description:
        'Ms until it reverts, on the Redis clock as this operation read it; 0 once the deadline has passed (the next reaper pass applies it).',
      resolve: (o, _args, ctx, info) => resolve.remaining(ctx, o, info.rootValue),
    }),
    revertToLimit: t.int({
      nullable: true,
      description: 'LIMIT: the limit it reverts to (null: no limit). PAUSE: null.',
      resolve: (o) =>
        o.kind === 'limit' && typeof o.override.revertTo === 'number' ? o.override.revertTo : null,
    }),
    revertToPaused: t.boolean({
      nullable: true,
      description:
        'PAUSE: whether the group is paused after the revert (false: it resumes — or, after a timed resume, stays resumed; true: it was paused before, so a timed resume ends paused again). LIMIT: null.',
      resolve: (o) => (o.kind === 'pause' ? o.override.revertTo === true : null),
    }),
    setAt: t.field({
      type: 'DateTime',
      description: 'When the latest timed call of this kind was made (Redis clock).',
      resolve: (o) => new Date(o.override.setAt),
    }),
    actor: t.string({
      description: 'Who made the latest timed call (as recorded in the history).',
      resolve: (o) => o.override.actor,
    }),
  }),
});

builder.objectFields(GroupRef, (t) => ({
  limitOverride: t.field({
    type: TimedOverrideRef,
    nullable: true,
    description: 'The pending revert of a timed setLimit, or null.',
    resolve: (g) => resolve.overrideOf(g, 'limit'),
  }),
  pauseOverride: t.field({
    type: TimedOverrideRef,
    nullable: true,
    description: 'The pending revert of a timed pauseGroup or resumeGroup, or null.',
    resolve: (g) => resolve.overrideOf(g, 'pause'),
  }),
}));

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  cancelOverride: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Drop the group’s pending timed override of `kind`: the value it set stays, nothing reverts it (recorded in the history). Nothing pending: nothing changes. Answers the group after.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      kind: t.arg({ type: OverrideKindRef, required: true }),
    },
    resolve: (_root, args, ctx) => resolve.cancelOverride(ctx, args),
  }),
}));
