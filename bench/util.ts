/** Small helpers shared by the sections: clocks, percentiles, bounded concurrency, progress. */
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Monotonic milliseconds. */
export const now = (): number => performance.now();

/** The `p`-th percentile (0..100) of `values` (nearest rank); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Run `task(i)` for i in 0..count-1 with at most `concurrency` in flight. */
export async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** A progress line on stderr, so stdout keeps only the report. */
export function progress(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** A countdown: `hit()` `target` times and `done` resolves with the time of the last hit. */
export function latch(target: number): {
  hit(): void;
  readonly count: number;
  done: Promise<number>;
} {
  let count = 0;
  let resolve: (at: number) => void = () => {};
  const done = new Promise<number>((r) => {
    resolve = r;
  });
  if (target <= 0) resolve(now());
  return {
    hit() {
      count++;
      if (count === target) resolve(now());
    },
    get count() {
      return count;
    },
    done,
  };
}
