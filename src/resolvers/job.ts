/** Job operations (worker role) and job reads: thin calls into the engine (DESIGN.md §4). */

import type { Context } from '../context.js';
import { badInput } from '../lanes/errors.js';
import type {
  BackoffPolicy,
  BackoffPolicyInput,
  EnqueueOptions,
  Job,
  JobError,
  JobLog,
  JobLogPage,
  JobProgress,
  PromotedJob,
  Queue,
} from '../lanes/internal.js';
import { checkWorkerId, Defaults, withoutToken } from '../lanes/internal.js';
import { isIntegerIn, Limits } from '../lanes/limits.js';
import { oncePerExecution } from './perExecution.js';
import { steering } from './steering.js';

interface JobArgs {
  queue: string;
  id: string;
  token: string;
}

/** `BackoffInput` as GraphQL gives it: absent and null fields alike. */
export interface BackoffArg {
  type: 'FIXED' | 'EXPONENTIAL';
  delayMs: number;
  maxDelayMs?: number | null | undefined;
  jitter?: number | null | undefined;
}

/** A GraphQL backoff input as the engine takes it (null fields: the defaults). */
export function backoffOf(b: BackoffArg | null | undefined): BackoffPolicyInput | undefined {
  if (b == null) return undefined;
  return {
    type: b.type,
    delayMs: b.delayMs,
    ...(b.maxDelayMs == null ? {} : { maxDelayMs: b.maxDelayMs }),
    ...(b.jitter == null ? {} : { jitter: b.jitter }),
  };
}

/**
 * One `EnqueueJobInput` as GraphQL gives it (absent and null fields alike); `enqueue`'s
 * arguments are the same with the queue.
 */
export interface EnqueueJobArg {
  group: string;
  payload?: unknown;
  maxAttempts?: number | null | undefined;
  key?: string | null | undefined;
  delayMs?: number | null | undefined;
  runAt?: Date | null | undefined;
  backoff?: BackoffArg | null | undefined;
  priority?: number | null | undefined;
  cost?: number | null | undefined;
  debounce?: { key: string; windowMs: number } | null | undefined;
}

/**
 * A job's options as the engine's `enqueue` takes them: null fields absent, `runAt` (a
 * DateTime) as its ms since the epoch on the Redis clock.
 */
function enqueueOptionsOf(j: EnqueueJobArg): EnqueueOptions {
  return {
    maxAttempts: j.maxAttempts ?? undefined,
    key: j.key ?? undefined,
    delayMs: j.delayMs ?? undefined,
    runAt: j.runAt == null ? undefined : j.runAt.getTime(),
    backoff: backoffOf(j.backoff),
    priority: j.priority ?? undefined,
    cost: j.cost ?? undefined,
    debounce: j.debounce ?? undefined,
  };
}

/**
 * `enqueue`: a job in its group's lane, or DELAYED with `delayMs` / `runAt` (a DateTime: its ms
 * on the Redis clock). The engine judges every argument (BAD_USER_INPUT) before Redis.
 */
export const enqueue = (ctx: Context, a: EnqueueJobArg & { queue: string }): Promise<Job> =>
  ctx.engine.queue(a.queue).enqueue(a.group, a.payload, enqueueOptionsOf(a));

/**
 * `enqueueJobs`: `Queue.enqueueMany`, each job's fields as `enqueue` passes them. The engine
 * judges every job (BAD_USER_INPUT `jobs[i].…`) before anything reaches Redis.
 */
export const enqueueJobs = (
  ctx: Context,
  a: { queue: string; jobs: readonly EnqueueJobArg[] },
): Promise<Job[]> =>
  ctx.engine
    .queue(a.queue)
    .enqueueMany(
      a.jobs.map((j) => ({ group: j.group, payload: j.payload, options: enqueueOptionsOf(j) })),
    );

/**
 * `claim`: with a `workerId`, the job keeps it while ACTIVE and the client is registered (or
 * refreshed) as a worker of the queue after the claim, whether or not it found a job (DESIGN.md
 * §4.9 "Workers"); a refused claim registers nothing, and a registration that fails does not
 * fail the claim.
 */
export async function claim(
  ctx: Context,
  a: { queue: string; leaseMs?: number | null | undefined; workerId?: string | null | undefined },
): Promise<Job | null> {
  const q = ctx.engine.queue(a.queue);
  if (a.workerId == null) return q.claim({ leaseMs: a.leaseMs ?? undefined });
  const workerId = checkWorkerId(a.workerId);
  const job = await q.claim({ leaseMs: a.leaseMs ?? undefined, workerId });
  // Best effort: the claim stands whatever the registration answers (a client that got no
  // job or token back would leave its lease to the reaper); its next claim beats again.
  await q.workerHeartbeat({ id: workerId, heartbeatMs: Defaults.heartbeatMs }).catch(() => {});
  return job;
}

/** `complete`: a null or absent result is none. */
export const complete = (ctx: Context, a: JobArgs & { result?: unknown }): Promise<Job> =>
  ctx.engine.queue(a.queue).complete(a.id, a.token, { result: a.result ?? undefined });

/** `retry`: the failed attempt recorded (`error`, `stack`), the job back after its wait. */
export const retry = (
  ctx: Context,
  a: JobArgs & {
    error?: string | null | undefined;
    stack?: string | null | undefined;
    delayMs?: number | null | undefined;
  },
): Promise<Job> =>
  ctx.engine.queue(a.queue).retry(a.id, a.token, {
    error: a.error ?? undefined,
    stack: a.stack ?? undefined,
    delayMs: a.delayMs ?? undefined,
  });

/**
 * `promoteJob` (admin): a DELAYED job to its lane now; any other job is answered unchanged.
 * @throws RingmasterError JOB_NOT_FOUND when there is no such job
 */
export const promoteJob = (ctx: Context, a: { queue: string; id: string }): Promise<PromotedJob> =>
  ctx.engine.queue(a.queue).promote(a.id, steering(ctx));

/**
 * `changeJobPriority` (admin): a PENDING or DELAYED job's new priority; any other job is
 * answered unchanged.
 * @throws RingmasterError BAD_USER_INPUT `priority`, JOB_NOT_FOUND when there is no such job
 */
export const changeJobPriority = (
  ctx: Context,
  a: { queue: string; id: string; priority: number },
): Promise<Job> => ctx.engine.queue(a.queue).changeJobPriority(a.id, a.priority, steering(ctx));

export const extendLease = (ctx: Context, a: JobArgs & { leaseMs: number }): Promise<Job> =>
  ctx.engine.queue(a.queue).extendLease(a.id, a.token, a.leaseMs);

/** `updateJobProgress`: the job with its progress (the engine judges the JSON, §5). */
export const updateJobProgress = (
  ctx: Context,
  a: JobArgs & { progress?: unknown },
): Promise<Job> =>
  ctx.engine.queue(a.queue).updateJobProgress(a.id, a.token, a.progress as JobProgress);

/** `addJobLog`: the line as kept, with its time. */
export const addJobLog = (ctx: Context, a: JobArgs & { line: string }): Promise<JobLog> =>
  ctx.engine.queue(a.queue).addJobLog(a.id, a.token, a.line);

/** A page of a job's log as a Relay connection. */
export interface JobLogConnection {
  readonly edges: { cursor: string; node: JobLog }[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  readonly totalCount: number;
}

const NO_LOGS: JobLogPage = {
  logs: [],
  cursors: [],
  hasNextPage: false,
  endCursor: null,
  totalCount: 0,
};

/** The ellipsis that ends a cut preview. */
const PREVIEW_ELLIPSIS = '…';

/**
 * `Job.payloadPreview`, `Job.resultPreview` and `Job.progressPreview` (`chars`): `value`'s JSON text (as
 * `JSON.stringify` writes it: one line) whole when it has at most `chars` characters (code
 * points, so a cut never splits a surrogate pair), else its first `chars − 1` and `…`: at most
 * `chars` either way. Null for a null value (none). A list asks for this instead of the value, so a
 * page of 100 rows carries a line each, not up to 512 KB each (payload, result).
 * @throws RingmasterError BAD_USER_INPUT (`chars`) when not an integer in 1..{@link Limits.maxPreviewChars}
 */
export function jsonPreview(value: unknown, chars: unknown): string | null {
  if (!isIntegerIn(chars, 1, Limits.maxPreviewChars)) {
    throw badInput('chars', `must be an integer from 1 to ${Limits.maxPreviewChars}`);
  }
  if (value === null || value === undefined) return null;
  const text = JSON.stringify(value);
  // UTF-16 units ≥ code points: this short text is whole.
  if (text.length <= chars) return text;
  // Walk `chars` code points: `keep` ends the first chars − 1, `end` the first chars.
  let keep = 0;
  let end = 0;
  for (let points = 0; points < chars && end < text.length; points += 1) {
    keep = end;
    end += (text.codePointAt(end) as number) > 0xffff ? 2 : 1;
  }
  return end >= text.length ? text : `${text.slice(0, keep)}${PREVIEW_ELLIPSIS}`;
}

/**
 * `Job.logs(first, after, last)`: its log, oldest first (`last`: its newest lines; the engine
 * gives `first` its default and refuses it beside `last`). A job gone since it was read has none.
 * @throws RingmasterError BAD_USER_INPUT (`first`, `after`, `last`)
 */
export async function logs(
  ctx: Context,
  j: Job,
  a: {
    first?: number | null | undefined;
    after?: string | null | undefined;
    last?: number | null | undefined;
  },
): Promise<JobLogConnection> {
  const page =
    (await ctx.engine.queue(j.queue).jobLogs(j.id, {
      first: a.first ?? undefined,
      after: a.after,
      last: a.last ?? undefined,
    })) ?? NO_LOGS;
  return {
    edges: page.logs.map((node, i) => ({ cursor: page.cursors[i] as string, node })),
    hasNextPage: page.hasNextPage,
    endCursor: page.endCursor,
    totalCount: page.totalCount,
  };
}

/**
 * `Queue.job(id)`: the job with its errors and backoff, or null when there is no such job
 * (never was, or gone: completed without retention, trimmed, removed). An id that is not a
 * decimal string names no job, so it reads as null too (the engine's `Queue.job`). No token
 * ({@link withoutToken}).
 */
export const job = async (q: Queue, id: string): Promise<Job | null> =>
  withoutToken(await q.job(id));

/** A time the engine keeps in ms (Redis clock) as a `DateTime`; null stays null. */
export const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** `Job.leaseUntil` as a Date (the engine keeps ms). */
export const leaseUntil = (j: Job): Date | null => date(j.leaseUntil);

/**
 * A job read again by id for the fields a job from a list or a job script lacks (`errors`,
 * `backoff`), once per job per execution ({@link oncePerExecution}): a page of 500 jobs asking
 * for `errors` costs one read per job, however many fields and aliases ask.
 */
function reread(ctx: Context, j: Job, rootValue: unknown): Promise<Job | null> {
  return oncePerExecution(ctx, rootValue, `job\u0000${j.queue}\u0000${j.id}`, () =>
    ctx.engine.queue(j.queue).job(j.id),
  );
}

/**
 * `Job.errors`: its failed attempts, newest first. Taken from the job when it was read with
 * them (`Queue.job`, `jobChanged`); else read by id. A job gone by then (completed without
 * retention) has none to show: [].
 */
export async function errors(
  ctx: Context,
  j: Job,
  rootValue: unknown,
): Promise<readonly JobError[]> {
  if (j.errors !== undefined) return j.errors;
  return (await reread(ctx, j, rootValue))?.errors ?? [];
}

/**
 * `Job.backoff`: its retry policy, or null for none. Taken from the job when it was read with it;
 * else (a job from a claim script) read by id; null for a job gone by then.
 */
export async function backoff(
  ctx: Context,
  j: Job,
  rootValue: unknown,
): Promise<BackoffPolicy | null> {
  if (j.backoff !== undefined) return j.backoff;
  return (await reread(ctx, j, rootValue))?.backoff ?? null;
}

/**
 * `Job.cost`: tokens its claim takes (1 by default). Taken from the job when it was read with
 * it; else (a job from a claim script) read by id; 1 for a job gone by then.
 */
export async function cost(ctx: Context, j: Job, rootValue: unknown): Promise<number> {
  if (j.cost !== undefined) return j.cost;
  return (await reread(ctx, j, rootValue))?.cost ?? 1;
}

/**
 * `Job.priority`: 1..9. Taken from the job when it was read with it; else (a job from a claim
 * script) read by id; the default for a job gone by then.
 */
export async function priority(ctx: Context, j: Job, rootValue: unknown): Promise<number> {
  if (j.priority !== undefined) return j.priority;
  return (await reread(ctx, j, rootValue))?.priority ?? Defaults.priority;
}
