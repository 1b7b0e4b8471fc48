/** The in-place job-layout upgrade (admin): a thin, bounded call into the engine (DESIGN.md §2). */

import type { Context } from '../context.js';
import { Defaults, type LayoutUpgrade } from '../lanes/internal.js';
import { steering } from './steering.js';

/**
 * Steps one `upgradeQueueLayout` call makes at most, so one request stays short (a few ms of
 * Redis a step of the default 500 ids, DESIGN.md §2: well under a second a call).
 */
export const LAYOUT_STEPS_PER_CALL = 100;

/** Job ids a step visits when the call gives no `batch`: the engine's default. */
export const DEFAULT_BATCH = Defaults.layoutUpgradeBatch;

/**
 * `Mutation.upgradeQueueLayout(queue, batch)`: at most {@link LAYOUT_STEPS_PER_CALL} steps of
 * `Queue.upgradeLayout`; the caller calls again while `done` is false.
 * @throws RingmasterError BAD_USER_INPUT `batch` (not 1..10,000); LAYOUT_MISMATCH (another mark);
 *   DATA_OUT_OF_RANGE (an unreadable `seq`); nothing written by any
 */
export const upgradeQueueLayout = (
  ctx: Context,
  a: { queue: string; batch?: number | null | undefined },
): Promise<LayoutUpgrade> =>
  ctx.engine.queue(a.queue).upgradeLayout({
    ...(a.batch == null ? {} : { batch: a.batch }),
    maxSteps: LAYOUT_STEPS_PER_CALL,
    ...steering(ctx),
  });
