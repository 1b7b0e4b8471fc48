/**
 * The loop of the console's bulk actions: a bounded operator action (`requeueDeadJobs`,
 * `removeJobs`: at most `limit` jobs a call) called again until nothing matching is left. No DOM,
 * no network of its own: `test/console/bulk.test.ts` drives it with a fake call.
 */

/** What one call of a bounded operator action did (GraphQL `JobActionResult`, counts). */
export interface Bounded {
  count: number;
  remaining: number;
  skipped: number;
}

/**
 * Call a bounded action until nothing matching is left, telling `progress` after each call. It
 * stops early when a call does nothing while some remain (what is left cannot be moved: an
 * ACTIVE job also listed dead, or another operator is at it) or when `stopping()` says so.
 * @returns the totals over every call (`remaining` as the last call said), the number of calls,
 *   and whether it stopped before `remaining` was 0
 * @throws whatever `call` throws (the calls before it stand: each is atomic)
 */
export async function untilDone(
  call: () => Promise<Bounded>,
  progress: (done: Bounded, calls: number) => void,
  stopping: () => boolean,
): Promise<Bounded & { calls: number; stoppedEarly: boolean }> {
  const total: Bounded = { count: 0, remaining: 0, skipped: 0 };
  let calls = 0;
  for (;;) {
    const r = await call();
    calls += 1;
    total.count += r.count;
    total.skipped += r.skipped;
    total.remaining = r.remaining;
    progress({ ...total }, calls);
    if (r.remaining === 0) return { ...total, calls, stoppedEarly: false };
    if (r.count === 0 || stopping()) return { ...total, calls, stoppedEarly: true };
  }
}
