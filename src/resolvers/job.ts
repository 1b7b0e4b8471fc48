/** Job operations (worker role) and job reads: thin calls into the engine (DESIGN.md §4). */

import type { Context } from '../context.js';
import type { BackoffPolicy, Job, JobError, Queue } from '../lanes/index.js';

interface JobArgs {
  queue: string;
  id: string;
  token: string;
}

export const enqueue = (
  ctx: Context,
  a: {
    queue: string;
    group: string;
    payload?: unknown;
    maxAttempts?: number | null | undefined;
    key?: string | null | undefined;
  },
): Promise<Job> =>
  ctx.engine.queue(a.queue).enqueue(a.group, a.payload, {
    maxAttempts: a.maxAttempts ?? undefined,
    key: a.key ?? undefined,
  });

export const claim = (
  ctx: Context,
  a: { queue: string; leaseMs?: number | null | undefined },
): Promise<Job | null> => ctx.engine.queue(a.queue).claim({ leaseMs: a.leaseMs ?? undefined });

export const complete = (ctx: Context, a: JobArgs): Promise<Job> =>
  ctx.engine.queue(a.queue).complete(a.id, a.token);

export const retry = (ctx: Context, a: JobArgs): Promise<Job> =>
  ctx.engine.queue(a.queue).retry(a.id, a.token);

export const extendLease = (ctx: Context, a: JobArgs & { leaseMs: number }): Promise<Job> =>
  ctx.engine.queue(a.queue).extendLease(a.id, a.token, a.leaseMs);

/**
 * `Queue.job(id)`: the job with its errors and backoff, or null when there is no such job
 * (never was, or gone: completed without retention, trimmed, removed). An id that is not a
 * decimal string names no job, so it reads as null too (the engine's `Queue.job`).
 */
export const job = (q: Queue, id: string): Promise<Job | null> => q.job(id);

/** A time the engine keeps in ms (Redis clock) as a `DateTime`; null stays null. */
export const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** `Job.leaseUntil` as a Date (the engine keeps ms). */
export const leaseUntil = (j: Job): Date | null => date(j.leaseUntil);

/**
 * Jobs read again by id for the fields a job from a list or a job script lacks (`errors`,
 * `backoff`), once per job per execution: a page of 500 jobs asking for `errors` costs one
 * read per job, however many fields and aliases ask. An execution is a request's context for a
 * query or mutation; for a subscription, whose context lives as long as it does, the event being
 * executed (its root value), so every event reads the job as it is then.
 */
const rereadByExecution = new WeakMap<object, Map<string, Promise<Job | null>>>();

function reread(ctx: Context, j: Job, rootValue: unknown): Promise<Job | null> {
  const execution = typeof rootValue === 'object' && rootValue !== null ? rootValue : ctx;
  let byJob = rereadByExecution.get(execution);
  if (!byJob) {
    byJob = new Map();
    rereadByExecution.set(execution, byJob);
  }
  const key = `${j.queue}\u0000${j.id}`;
  let read = byJob.get(key);
  if (!read) {
    read = ctx.engine.queue(j.queue).job(j.id);
    byJob.set(key, read);
  }
  return read;
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
  const read = await reread(ctx, j, rootValue);
  // REVISIT(issue 16, failure path): until the engine's Queue.job reads the errors list, it
  // answers errors undefined, shown as []; once it does, only a job gone reaches this [].
  return read?.errors ?? [];
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
