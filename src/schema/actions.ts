/**
 * Operator actions (admin, DESIGN.md §4.3): `requeueDeadJobs`, `removeJobs`, `purgeGroup`
 * (each answers a `JobActionResult`), and the queue's own steering: `pauseQueue`,
 * `resumeQueue`, `setRetention` (each answers the `Queue` after). Nullable, as every mutation
 * field (src/schema/job.ts says why).
 */
import { Defaults, type JobActionResult } from '../lanes/internal.js';
import * as resolve from '../resolvers/actions.js';
import { builder } from './builder.js';
import { JobStateRef } from './job.js';
import { QueueRef } from './queue.js';

const JobActionResultRef = builder.objectRef<JobActionResult>('JobActionResult').implement({
  description:
    'What one call of an operator action did. A call handles at most its `limit` of jobs: call again while `remaining` > 0 (and the last call did something).',
  fields: (t) => ({
    count: t.exposeInt('count', { description: 'Jobs requeued or removed by this call.' }),
    remaining: t.exposeInt('remaining', {
      description: "Jobs still matching the group's or queue's selection after it; 0 for ids.",
    }),
    skipped: t.exposeInt('skipped', {
      description:
        'Jobs looked at and left alone: ACTIVE jobs (never touched), ids that name no job or a job in another state.',
    }),
  }),
});

const RetentionInputRef = builder.inputType('RetentionInput', {
  description:
    'A retention policy to set; a field left out keeps what the queue has (the default if none was set).',
  fields: (t) => ({
    count: t.int({
      description: 'Jobs kept, 0..1,000,000 (0: none; completed jobs are then deleted at once).',
    }),
    ageMs: t.field({
      type: 'SafeInt',
      description:
        'The longest a job is kept (ms), 1..31,536,000,000 (365 days); null = no age bound.',
    }),
  }),
});

const LIMIT = `Jobs of a group or of the queue handled by this call at most, 1..1,000 (default ${Defaults.actionLimit}); a list of ids is handled whole (it holds 1,000 at most).`;

builder.mutationFields((t) => ({
  requeueDeadJobs: t.field({
    type: JobActionResultRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Dead jobs back to the front of their lanes (their original place: by priority, then FIFO), PENDING: those listed in `ids`, or a group’s, or (`all: true`) the queue’s, oldest-dead first. Give exactly one of ids, group, all. Their lastError and errors are kept. A dead job past the dead retention’s age is gone, as `Queue.job` reads it: skipped, and left out of `remaining`.',
    args: {
      queue: t.arg.string({ required: true }),
      ids: t.arg.idList({ description: '1..1,000 job ids; one that is not dead is skipped.' }),
      group: t.arg.string(),
      all: t.arg.boolean({ description: 'true: every dead job of the queue.' }),
      resetAttempts: t.arg.boolean({
        defaultValue: true,
        description: 'Start their attempts again from 0 (else they keep them).',
      }),
      limit: t.arg.int({ defaultValue: Defaults.actionLimit, description: LIMIT }),
    },
    resolve: (_root, args, ctx) => resolve.requeueDeadJobs(ctx, args),
  }),
  removeJobs: t.field({
    type: JobActionResultRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Delete jobs that are not running — PENDING, DELAYED, DEAD or kept COMPLETED — with their error history: those listed in `ids` (only those in `state`, if given), a group’s jobs in `state`, or (`all: true`) the queue’s DELAYED, DEAD or COMPLETED jobs. ACTIVE jobs are never touched (skipped). A group whose lane this empties leaves the ring. A DEAD or COMPLETED job past its retention’s age is gone, as `Queue.job` reads it: skipped, and left out of `remaining`.',
    args: {
      queue: t.arg.string({ required: true }),
      ids: t.arg.idList({ description: '1..1,000 job ids; an ACTIVE or missing one is skipped.' }),
      group: t.arg.string(),
      all: t.arg.boolean({
        description:
          'true: the queue’s jobs in `state` (DELAYED, DEAD or COMPLETED; PENDING needs a group).',
      }),
      state: t.arg({
        type: JobStateRef,
        description:
          'Required with `group` or `all`; with `ids`, only jobs in this state. Not ACTIVE.',
      }),
      limit: t.arg.int({ defaultValue: Defaults.actionLimit, description: LIMIT }),
    },
    resolve: (_root, args, ctx) => resolve.removeJobs(ctx, args),
  }),
  purgeGroup: t.field({
    type: JobActionResultRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Delete a group’s backlog (its PENDING jobs, in run order): removeJobs(group, state: PENDING). Its active jobs run on; its delayed and dead jobs stay.',
    args: {
      queue: t.arg.string({ required: true }),
      group: t.arg.string({ required: true }),
      limit: t.arg.int({ defaultValue: Defaults.actionLimit, description: LIMIT }),
    },
    resolve: (_root, args, ctx) => resolve.purgeGroup(ctx, args),
  }),
  pauseQueue: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Pause the whole queue: no job is claimed from any group until resumeQueue. Completions, retries, lease extensions, reaping and promotion go on; the ring and every group are left as they are. Idempotent.',
    args: { queue: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.pauseQueue(ctx, args),
  }),
  resumeQueue: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description: 'End the queue’s pause: claims run again from the ring as it stands. Idempotent.',
    args: { queue: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => resolve.resumeQueue(ctx, args),
  }),
  setRetention: t.field({
    type: QueueRef,
    nullable: true,
    authScopes: { admin: true },
    description:
      'Set how many completed and/or dead jobs the queue keeps; a policy (or field) left out keeps what the queue has. Jobs past a new policy go a few at a time as jobs finish, and with the reaper’s passes.',
    args: {
      queue: t.arg.string({ required: true }),
      completed: t.arg({ type: RetentionInputRef }),
      dead: t.arg({ type: RetentionInputRef }),
    },
    resolve: (_root, args, ctx) => resolve.setRetention(ctx, args),
  }),
}));
