/** Job operations (worker role): thin calls into the engine (DESIGN.md §4 `Mutation`). */

import type { Context } from '../context.js';
import type { Job } from '../lanes/index.js';

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

/** `Job.leaseUntil` as a Date (the engine keeps ms). */
export const leaseUntil = (job: Job): Date | null =>
  job.leaseUntil === null ? null : new Date(job.leaseUntil);
