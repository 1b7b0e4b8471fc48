/** `Job`, `JobState` and the job mutations of the worker role (DESIGN.md §4). */
import { Defaults, type Job } from '../lanes/index.js';
import * as resolve from '../resolvers/job.js';
import { builder } from './builder.js';

export const JobStateRef = builder.enumType('JobState', {
  values: ['PENDING', 'DELAYED', 'ACTIVE', 'COMPLETED', 'DEAD'] as const,
});

export const JobRef = builder.objectRef<Job>('Job').implement({
  description: 'One unit of work, belonging to exactly one group.',
  fields: (t) => ({
    id: t.exposeID('id'),
    queue: t.exposeString('queue'),
    group: t.exposeString('group'),
    payload: t.field({ type: 'JSON', nullable: true, resolve: (j) => j.payload }),
    state: t.field({ type: JobStateRef, resolve: (j) => j.state }),
    attempts: t.exposeInt('attempts', { description: 'Claims so far.' }),
    token: t.exposeString('token', {
      nullable: true,
      description: 'The lease token while ACTIVE.',
    }),
    leaseUntil: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the lease expires (Redis clock) while ACTIVE.',
      resolve: resolve.leaseUntil,
    }),
  }),
});

// Every mutation field is nullable: null, with an error at its path, when it
// failed. A non-null root mutation field that fails nulls all of `data`, hiding the results of
// the fields before it that did run — an enqueued job's id, lost to a client that then retries.
builder.mutationFields((t) => ({
  enqueue: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description:
      "Add a job to the tail of its group's lane. With `key`, a retry is safe: the same key within the queue answers the job it made (for 24 h after it) and adds nothing.",
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      payload: t.arg({ type: 'JSON' }),
      maxAttempts: t.arg.int({ defaultValue: Defaults.maxAttempts }),
      key: t.arg.string({
        description:
          'Idempotency key, 1–256 UTF-8 bytes: an enqueue with a key already used in this queue within 24 h answers that job (state COMPLETED once it finished) and writes nothing; BAD_USER_INPUT when that job had another group, payload or maxAttempts. Without a key, an enqueue retried after a lost reply adds a second job.',
      }),
    },
    resolve: (_root, args, ctx) => resolve.enqueue(ctx, args),
  }),
  claim: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: 'Claim the next job of the rota; null when no group is serviceable.',
    args: {
      queue: t.arg.string({ required: true }),
      leaseMs: t.arg.int({ defaultValue: Defaults.leaseMs }),
    },
    resolve: (_root, args, ctx) => resolve.claim(ctx, args),
  }),
  complete: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: 'Complete an active job you hold the lease of; its permit is released.',
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.complete(ctx, { ...args, id: String(args.id) }),
  }),
  retry: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: 'Give an active job back to the front of its lane (or dead at maxAttempts).',
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.retry(ctx, { ...args, id: String(args.id) }),
  }),
  extendLease: t.field({
    type: JobRef,
    nullable: true,
    authScopes: { worker: true },
    description: "Push an active job's lease deadline to now + leaseMs.",
    args: {
      queue: t.arg.string({ required: true }),
      id: t.arg.id({ required: true }),
      token: t.arg.string({ required: true }),
      leaseMs: t.arg.int({ required: true }),
    },
    resolve: (_root, args, ctx) => resolve.extendLease(ctx, { ...args, id: String(args.id) }),
  }),
}));
