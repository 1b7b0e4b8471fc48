/** `Queue.throughput`: a thin call into the engine (DESIGN.md §4.2). */

import type { Queue, ThroughputPoint } from '../lanes/internal.js';

/**
 * The last `minutes` minutes of events, oldest first; null or none is the default (60), and the
 * engine checks the range (BAD_USER_INPUT).
 */
export const throughput = (
  q: Queue,
  minutes: number | null | undefined,
): Promise<ThroughputPoint[]> => q.throughput(minutes ?? undefined);
