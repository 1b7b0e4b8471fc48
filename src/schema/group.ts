/**
 * `Group`, `GroupState`, the group-steering mutations and `groupChanged` (DESIGN.md §4), and
 * `Group.blockedBy` / `Group.reason`: why a group is not running, as an enum for programs and as
 * one plain sentence for people (logic in `src/resolvers/group.ts`).
 */
import type { GroupInfo } from '../lanes/index.js';
import * as resolve from '../resolvers/group.js';
import { groupKnown } from '../resolvers/known.js';
import { groupChanged } from '../resolvers/live.js';
import { builder } from './builder.js';

export const GroupStateRef = builder.enumType('GroupState', {
  description:
    'PAUSED if paused; else SATURATED if a limit is set and active >= limit; else RATE_LIMITED while its rate window is used up (until `rateLimitedUntil`); else READY if it has pending work; else IDLE (nothing waiting; jobs may still be in flight).',
  values: ['PAUSED', 'SATURATED', 'RATE_LIMITED', 'READY', 'IDLE'] as const,
});

export const GroupRef = builder.objectRef<GroupInfo>('Group').implement({
  description: "One tenant's lane of work inside a queue.",
  fields: (t) => ({
    id: t.exposeString('id'),
    queue: t.exposeString('queue'),
    limit: t.exposeInt('limit', {
      nullable: true,
      description: 'The most jobs that may be active at once; null = unlimited.',
    }),
    active: t.exposeInt('active', { description: 'Jobs in flight.' }),
    pending: t.exposeInt('pending', { description: 'Jobs waiting in the lane.' }),
    paused: t.exposeBoolean('paused'),
    onRing: t.exposeBoolean('onRing', {
      description:
        'Serviceable: not paused, below its limit, not rate-limited, with pending work (invariant I1). False too for a group whose rate window has reopened but that no claim has put back on the ring yet (state READY, `blockedBy` null: the next claim re-rings it).',
    }),
    state: t.field({ type: GroupStateRef, resolve: (g) => g.state }),
    known: t.boolean({
      description:
        'Whether the queue has seen the group: it has or had jobs, or was steered, and was not forgotten since (in the group registry). In the answer of a steering mutation (which registers the group), whether it was known before the call: false says the call named a group the queue had never seen (a mistyped id?).',
      resolve: (g, _args, ctx) => groupKnown(ctx, g),
    }),
  }),
});

/** The `forMs` argument of the timed steering calls (DESIGN.md §4.8). */
const FOR_MS =
  'A timed override (ms, 1..2,592,000,000 = 30 days): reverts on its own at the deadline (Redis clock) to the value before the first pending override of its kind; when that is the value the call sets, nothing would revert and the call is the plain one (no override, nothing recorded when nothing changed). Left out: a plain call, which also drops a pending revert of its kind.';

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  setLimit: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description: 'Set the most jobs of a group that may be active at once (0 parks it).',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      limit: t.arg.int({ required: true }),
      forMs: t.arg({ type: 'SafeInt', description: FOR_MS }),
    },
    resolve: (_root, args, ctx) => resolve.setLimit(ctx, args),
  }),
  clearLimit: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description: 'Remove the limit: the group is unlimited.',
    args: { queue: t.arg.string({ required: true }), group: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.clearLimit(ctx, args),
  }),
  pauseGroup: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description: 'Stop new turns for the group; its backlog and active jobs are untouched.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      forMs: t.arg({ type: 'SafeInt', description: FOR_MS }),
    },
    resolve: (_root, args, ctx) => resolve.pauseGroup(ctx, args),
  }),
  resumeGroup: t.field({
    type: GroupRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Unpause; the group re-joins the ring if serviceable. With forMs, a timed resume: paused again at the deadline when it was paused before (an override of the pause kind: `cancelOverride(kind: PAUSE)` cancels it).',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      forMs: t.arg({ type: 'SafeInt', description: FOR_MS }),
    },
    resolve: (_root, args, ctx) => resolve.resumeGroup(ctx, args),
  }),
}));

builder.subscriptionFields((t) => ({
  groupChanged: t.field({
    type: GroupRef,
    authScopes: { read: true },
    description: "The group's state now, then whenever any of its fields change.",
    args: { queue: t.arg.string({ required: true }), group: t.arg.string({ required: true }) },
    subscribe: (_root, args, ctx) => groupChanged(ctx, args.queue, args.group),
    resolve: (group) => group,
  }),
}));

const BlockedByRef = builder.enumType('BlockedBy', {
  description:
    'What keeps a group from its turn: off the ring; or, on it, the queue at its cap (QUEUE_LIMIT), else a more urgent level (LEVEL); null when it is on the ring of a queue below its cap and its level is the most urgent there, or when its rate window has reopened and the next claim puts it back.',
  values: {
    PAUSED: { description: 'Paused by an operator.' },
    LIMIT: { description: 'Exactly at its limit: the next completion puts it back.' },
    PARKED: {
      description:
        'Its limit is 0, or was lowered below the work in flight (active > limit): several jobs must finish, or the limit be raised, first.',
    },
    RATE_LIMITED: {
      description:
        "Its rate-limit bucket is short of its head job's cost: it re-joins the ring when enough tokens have refilled (`rateLimitedUntil`).",
    },
    IDLE: {
      description:
        'No backlog: nothing is waiting. Jobs may still be in flight (`active` > 0): such a group is busy, not doing nothing.',
    },
    QUEUE_LIMIT: {
      description:
        "On the ring (READY, under its own limit, with pending work), but the queue is at or over its cap (`Queue.limit`, setQueueLimit): its claim waits for a permit, which the next completion of any of the queue's groups frees; a group owed its reserve gets it first (`reason` says which). Goes before LEVEL: at the cap no level is served.",
    },
    LEVEL: {
      description:
        'On the ring, but a more urgent level has a group ready: the head of its lane is of a later priority, and a claim serves the most urgent level first (strictly; `reason` names both levels).',
    },
  } as const,
});

builder.objectFields(GroupRef, (t) => ({
  blockedBy: t.field({
    type: BlockedByRef,
    nullable: true,
    description:
      'Why the group is off the ring: the first blocker by the precedence of `state` (others may hold too: `reason` names every one); on the ring, QUEUE_LIMIT while the queue is at or over its cap (read once per queue, O(1)), else LEVEL when it is behind a more urgent level (which reads the ring once per queue, O(ring)); null when it is on the ring and nothing holds it back, or off it only until the next claim puts it back (the token it waited for came; `reason` says so).',
    resolve: (g, _args, ctx, info) => resolve.blockedByOf(ctx, g, info.rootValue),
  }),
  reason: t.string({
    description:
      'One plain sentence answering "why does it get no more turns?": paused; at its limit (n of m in flight); parked; rate-limited until the next token it needs comes, and when (each blocker that holds named, with what lifts it); busy with no backlog; empty; ready and re-joining the ring with the next claim (the token it waited for came at when); or, on the ring, its position p of r (reading the position costs O(ring) for this group; in a `Queue.snapshot`, the position on that snapshot\'s ring), and, when a more urgent level holds it back, its level and that one. While the whole queue is paused (pauseQueue) it says so too, whatever the group\'s state; a group on the ring of a queue at its cap (setQueueLimit) waits for a permit, and is told whether its reserve gets it the next one. A group on the ring that nothing holds back, with pending jobs, on a queue with no live worker (`Queue.workers` empty) ends with "; jobs are waiting and no worker is connected".',
    resolve: (g, _args, ctx, info) => resolve.reason(ctx, g, info.rootValue),
  }),
}));
