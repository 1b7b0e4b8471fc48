/**
 * Per-group rate limits (DESIGN.md §3 "Rate limits", §4.3): `Group.rateLimit`,
 * `Group.rateLimitedUntil`, and the admin mutations `setRateLimit` / `clearRateLimit` (logic in
 * `src/resolvers/rateLimit.ts`).
 */
import type { RateLimit } from '../lanes/internal.js';
import * as resolve from '../resolvers/rateLimit.js';
import { builder } from './builder.js';
import { GroupRef } from './group.js';

export const RateLimitRef = builder.objectRef<RateLimit>('RateLimit').implement({
  description:
    'At most `max` claims of the group per `windowMs` (fixed windows), on top of its limit.',
  fields: (t) => ({
    max: t.exposeInt('max', { description: 'Claims allowed per window (1..1,000,000).' }),
    windowMs: t.field({
      type: 'SafeInt',
      description: "The window's length (ms, up to 30 days).",
      resolve: (r) => r.windowMs,
    }),
  }),
});

builder.objectFields(GroupRef, (t) => ({
  rateLimit: t.field({
    type: RateLimitRef,
    nullable: true,
    description: 'Its rate limit; null = none.',
    resolve: (g) => g.rateLimit,
  }),
  rateLimitedUntil: t.field({
    type: 'DateTime',
    nullable: true,
    description:
      'While its rate window is used up (state RATE_LIMITED): when the window reopens (Redis clock, after the read); else null — also once that time has passed, before a claim puts the group back on the ring.',
    resolve: (g) => (g.rateLimitedUntil === null ? null : new Date(g.rateLimitedUntil)),
  }),
}));

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  setRateLimit: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Allow the group at most `max` claims per `windowMs` (fixed windows), on top of its limit; takes effect on the current window at once.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      max: t.arg.int({ required: true }),
      windowMs: t.arg({ type: 'SafeInt', required: true }),
    },
    resolve: (_root, args, ctx) => resolve.setRateLimit(ctx, args),
  }),
  clearRateLimit: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description: 'Remove the rate limit: a rate-limited group re-joins the ring at once.',
    args: { queue: t.arg.string({ required: true }), group: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.clearRateLimit(ctx, args),
  }),
}));
