/** Audit and repair (admin): thin calls into the engine (DESIGN.md §3 invariants). */

import type { Context } from '../context.js';
import type { Queue, ReconcileReport } from '../lanes/internal.js';
import { steering } from './steering.js';

/** `Queue.audit`: what violates I1–I3 now; writes nothing. */
export const audit = (q: Queue): Promise<ReconcileReport> => q.audit();

/** `Mutation.repairQueue(queue)`: fix it, in bounded batches; returns what changed. */
export const repairQueue = (ctx: Context, a: { queue: string }): Promise<ReconcileReport> =>
  ctx.engine.queue(a.queue).repair(steering(ctx));
