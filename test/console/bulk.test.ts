/**
 * The console's bulk-action loop (console/src/bulk.ts): a bounded mutation is called
 * until nothing matching is left, with the progress after each call; it stops when a call does
 * nothing while some remain, or when the operator stops it.
 */
import { describe, expect, it } from 'vitest';
import { type Bounded, untilDone } from '../../console/src/bulk.js';

/** A fake bounded action over `total` jobs, `limit` a call; `stuck` jobs never move. */
function fake(total: number, limit: number, stuck = 0) {
  let left = total;
  const calls: number[] = [];
  const call = async (): Promise<Bounded> => {
    const movable = Math.max(0, left - stuck);
    const count = Math.min(limit, movable);
    left -= count;
    calls.push(count);
    return { count, remaining: left, skipped: 0 };
  };
  return { call, calls };
}

describe('untilDone', () => {
  it('calls until remaining is 0, reporting the totals after each call', async () => {
    const { call, calls } = fake(2_345, 1_000);
    const seen: [number, number, number][] = [];
    const result = await untilDone(
      call,
      (done, n) => seen.push([done.count, done.remaining, n]),
      () => false,
    );
    expect(calls).toEqual([1_000, 1_000, 345]);
    expect(seen).toEqual([
      [1_000, 1_345, 1],
      [2_000, 345, 2],
      [2_345, 0, 3],
    ]);
    expect(result).toEqual({
      count: 2_345,
      remaining: 0,
      skipped: 0,
      calls: 3,
      stoppedEarly: false,
    });
  });

  it('makes one call when everything fits in it, and one for an empty selection', async () => {
    expect(
      (
        await untilDone(
          fake(3, 1_000).call,
          () => {},
          () => false,
        )
      ).calls,
    ).toBe(1);
    const empty = await untilDone(
      fake(0, 1_000).call,
      () => {},
      () => false,
    );
    expect(empty).toEqual({ count: 0, remaining: 0, skipped: 0, calls: 1, stoppedEarly: false });
  });

  it('stops when a call moves nothing while some remain (no endless loop)', async () => {
    const { call, calls } = fake(1_500, 1_000, 2);
    const result = await untilDone(
      call,
      () => {},
      () => false,
    );
    expect(calls).toEqual([1_000, 498, 0]);
    expect(result).toMatchObject({ count: 1_498, remaining: 2, stoppedEarly: true });
  });

  it('stops between calls when the operator stops it', async () => {
    const { call, calls } = fake(5_000, 1_000);
    let stop = false;
    const result = await untilDone(
      call,
      (_, n) => {
        if (n === 2) stop = true;
      },
      () => stop,
    );
    expect(calls).toEqual([1_000, 1_000]);
    expect(result).toMatchObject({ count: 2_000, remaining: 3_000, calls: 2, stoppedEarly: true });
  });

  it('sums what each call skipped', async () => {
    let n = 0;
    const result = await untilDone(
      async () => {
        n += 1;
        return { count: 1, remaining: n < 3 ? 1 : 0, skipped: 2 };
      },
      () => {},
      () => false,
    );
    expect(result).toMatchObject({ count: 3, skipped: 6, calls: 3 });
  });
});
