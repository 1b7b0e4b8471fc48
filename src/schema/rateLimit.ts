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
    "The group's token bucket, on top of its limit: `max` tokens refill per `windowMs`, at most `burst` held; a claim takes its job's `cost` (1 by default).",
  fields: (t) => ({
    max: t.exposeInt('max', {
      description: 'Tokens refilled per window (1..1,000,000): the sustained rate.',
    }),
    windowMs: t.field({
      type: 'SafeInt',
      description: "The window's length (ms, up to 30 days).",
      resolve: (r) => r.windowMs,
    }),
    burst: t.exposeInt('burst', {
      description:
        'Tokens the bucket holds at most (1..1,000,000): the largest burst of claims; `max` unless set.',
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
      "While its bucket is short of its head job's cost (state RATE_LIMITED): when enough tokens will have refilled (Redis clock, after the read); else null — also once that time has passed, before a claim puts the group back on the ring.",
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
      "Give the group a token bucket, on top of its limit: `max` tokens refill per `windowMs`, at most `burst` (default `max`) held; a claim takes its job's cost. The tokens it holds carry over (at most the new burst) and are judged at once: short of the head job's cost the group is rate-limited now, enough frees it now.",
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      max: t.arg.int({ required: true }),
      windowMs: t.arg({ type: 'SafeInt', required: true }),
      burst: t.arg.int({ description: 'Tokens held at most, 1..1,000,000; default `max`.' }),
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
