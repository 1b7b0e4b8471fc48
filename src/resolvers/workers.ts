/** The worker registry's reads (DESIGN.md §4.9 "Workers"): thin calls into the engine. */
import type { Queue, WorkerInfo } from '../lanes/internal.js';

/** `Queue.workers`: the live workers, by id. */
export const workers = (q: Queue): Promise<WorkerInfo[]> => q.workers();

/** A time of the engine's (ms) as a Date. */
export const at = (ms: number): Date => new Date(ms);
