/** A job's priority as the console says it (DESIGN.md §3, "Priorities"): 1 runs first, 9 last. */
import { Limits } from '../../src/lanes/limits.js';

/** "1 (runs first)", "9 (runs last)", else the number. */
export const priorityText = (p: number): string =>
  p === Limits.minPriority
    ? `${p} (runs first)`
    : p === Limits.maxPriority
      ? `${p} (runs last)`
      : String(p);

/** Every priority, first to last: the choices of a job's detail. */
export const PRIORITIES: readonly number[] = Array.from(
  { length: Limits.maxPriority - Limits.minPriority + 1 },
  (_, i) => Limits.minPriority + i,
);
