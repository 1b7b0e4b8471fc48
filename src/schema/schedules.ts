/**
 * Schedules (DESIGN.md §3, "Schedules"): `Schedule`, `Queue.schedules` (a connection by id) and
 * the mutations `upsertSchedule` and `removeSchedule` (admin). Logic in
 * `src/resolvers/schedules.ts`.
 */
import { Defaults, Limits, type Schedule } from '../lanes/internal.js';
import * as resolve from '../resolvers/schedules.js';
import { builder } from './builder.js';
import { BackoffInputRef, BackoffRef } from './job.js';
import { PageInfoRef } from './pageInfo.js';
import { QueueRef } from './queue.js';

const time = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export const ScheduleRef = builder.objectRef<Schedule>('Schedule').implement({
  description:
    'A job enqueued into `group` on every tick: every `everyMs`, or at each match of `cron` in `timezone`. One job per tick however many servers and workers run; a tick missed while nothing ran fires once (the latest).',
  fields: (t) => ({
    id: t.exposeID('id'),
    group: t.exposeString('group', { description: 'The group each tick’s job goes to.' }),
    everyMs: t.field({
      type: 'SafeInt',
      nullable: true,
      description: 'The interval between ticks (ms); null for a cron schedule.',
      resolve: (s) => s.everyMs,
    }),
    cron: t.exposeString('cron', {
      nullable: true,
      description: 'The cron expression (5 fields, or 6 with seconds first); null for an interval.',
    }),
    timezone: t.exposeString('timezone', {
      nullable: true,
      description: 'The IANA time zone the cron is read in; null for UTC (or an interval).',
    }),
    payload: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Each job’s payload.',
      resolve: (s) => s.payload,
    }),
    maxAttempts: t.exposeInt('maxAttempts', { description: 'Each job’s maxAttempts.' }),
    backoff: t.field({
      type: BackoffRef,
      nullable: true,
      description: 'Each job’s retry policy; null for none.',
      resolve: (s) => s.backoff,
    }),
    priority: t.exposeInt('priority', { description: 'Each job’s priority (1..9).' }),
    nextRunAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next tick is due (Redis clock); null when a cron has no match left.',
      resolve: (s) => (Number.isFinite(s.nextRunAt) ? new Date(s.nextRunAt) : null),
    }),
    lastRunAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'The last tick fired (the tick’s own time); null before the first.',
      resolve: (s) => time(s.lastRunAt),
    }),
    lastJobId: t.field({
      type: 'ID',
      nullable: true,
      description: 'The job the last tick enqueued; null before the first.',
      resolve: (s) => s.lastJobId,
    }),
  }),
});

const ScheduleEdgeRef = builder
  .objectRef<{ cursor: string; node: Schedule }>('ScheduleEdge')
  .implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor', {
        description: 'Opaque; pass as `after` for the next page (another queue refuses it).',
      }),
      node: t.field({ type: ScheduleRef, resolve: (e) => e.node }),
    }),
  });

const ScheduleConnectionRef = builder
  .objectRef<{
    edges: { cursor: string; node: Schedule }[];
    hasNextPage: boolean;
    endCursor: string | null;
    totalCount: number;
    unreadable: string[];
  }>('ScheduleConnection')
  .implement({
    fields: (t) => ({
      edges: t.field({ type: [ScheduleEdgeRef], resolve: (c) => c.edges }),
      pageInfo: t.field({ type: PageInfoRef, resolve: (c) => c }),
      totalCount: t.exposeInt('totalCount', {
        description: 'The queue’s schedules, the unreadable included.',
      }),
      unreadable: t.field({
        type: ['ID'],
        description:
          'The ids on this page whose stored definition is not one (another writer’s): not in `edges`, before `endCursor`. The audit reports them (kind SCHEDULE) and a repair removes them.',
        resolve: (c) => c.unreadable,
      }),
    }),
  });

builder.objectFields(QueueRef, (t) => ({
  schedules: t.field({
    type: ScheduleConnectionRef,
    description: `The queue's schedules by id (at most ${Limits.maxSchedules.toLocaleString('en-US')}).`,
    args: { first: t.arg.int({ defaultValue: Defaults.pageSize }), after: t.arg.string() },
    resolve: (q, args) => resolve.schedules(q, args.first, args.after),
  }),
}));

// Nullable, as every mutation field (src/schema/job.ts says why).
builder.mutationFields((t) => ({
  upsertSchedule: t.field({
    type: ScheduleRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      "Create a schedule, or replace the one of this id: exactly one of `everyMs` and `cron`. Each tick enqueues one job into `group` with the payload and options given (as `enqueue`'s). A replaced schedule whose timing is unchanged keeps its next tick. To pause it, pause its group.",
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      group: t.arg.string({ required: true }),
      everyMs: t.arg({
        type: 'SafeInt',
        description: `Ticks every everyMs ms from now (${Limits.minEveryMs.toLocaleString('en-US')}..${Limits.maxEveryMs.toLocaleString('en-US')}). Not with \`cron\`.`,
      }),
      cron: t.arg.string({
        description:
          'A cron expression: 5 fields, or 6 with seconds first (`*/10 * * * * *`). A time in the hour a DST change skips fires just after it; one in the repeated hour fires once (a fixed time) or in both (a wildcard or step). Not with `everyMs`.',
      }),
      timezone: t.arg.string({ description: 'The IANA time zone of `cron` (default UTC).' }),
      payload: t.arg({ type: 'JSON' }),
      maxAttempts: t.arg.int({ defaultValue: Defaults.maxAttempts }),
      backoff: t.arg({ type: BackoffInputRef }),
      priority: t.arg.int({
        description: `Each job's priority, ${Limits.minPriority}..${Limits.maxPriority} (default ${Defaults.priority}).`,
      }),
    },
    resolve: (_root, args, ctx) => resolve.upsertSchedule(ctx, { ...args, id: String(args.id) }),
  }),
  removeSchedule: t.field({
    type: 'Boolean',
    nullable: true,
    authScopes: { admin: true },
    description:
      'Remove a schedule: no tick of it fires after this; its jobs stay. False when there was none.',
    args: { queue: t.arg.string({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => resolve.removeSchedule(ctx, { ...args, id: String(args.id) }),
  }),
}));
