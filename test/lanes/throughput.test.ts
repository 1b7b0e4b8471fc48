/**
 * The throughput history (DESIGN.md §3 "Throughput history", §4.1 `Queue.throughput`): the
 * scripts that count events count them per minute of the Redis clock in `P:{Q}:throughput`, a
 * day of minutes at most, and `Queue.throughput` reads the last minutes back, oldest first.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, Limits, type Queue } from '../../src/lanes/index.js';
import { LUA_DIR } from '../../src/lanes/scripts/lua.js';
import {
  reapAtLeast,
  redisNow,
  refusal,
  snapshot,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();
const MINUTE = 60_000;

async function claimed(q: Queue, leaseMs?: number): Promise<Job> {
  const job = await q.claim(leaseMs === undefined ? {} : { leaseMs });
  if (!job) throw new Error('expected a job');
  return job;
}

/** Each kind summed over `points`. */
function totals(
  points: { enqueued: number; claimed: number; completed: number; failed: number }[],
) {
  const sum = { enqueued: 0, claimed: 0, completed: 0, failed: 0 };
  for (const p of points) {
    sum.enqueued += p.enqueued;
    sum.claimed += p.claimed;
    sum.completed += p.completed;
    sum.failed += p.failed;
  }
  return sum;
}

const include = (name: string) => readFileSync(`${LUA_DIR}includes/${name}.lua`, 'utf8');
/**
 * countThroughput (includes/throughput.lua) run with a clock of the test's: ARGV[1] the base,
 * then per call `<ms> <enqueued> <claimed> <completed> <failed>`. nowMs.lua's cached instant is
 * set before each call, so each call counts in the minute the test names.
 */
const COUNT_AT = `${include('keys')}${include('nowMs')}${include('bounds')}${include('smallCounts')}${include('throughput')}
for i = 2, #ARGV, 5 do
  scriptNow = tonumber(ARGV[i])
  countThroughput(ARGV[1], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3]),
    tonumber(ARGV[i + 4]))
end
return redis.call('HLEN', ARGV[1] .. 'throughput')`;

describe('Queue.throughput', () => {
  it('counts each kind as it happened: enqueued, claimed, completed, failed', async () => {
    const q = engine.queue();
    const start = await redisNow(q.redis);
    await q.enqueue('a', { n: 1 });
    await q.enqueue('a', { n: 2 }, { maxAttempts: 1 });
    await q.enqueueMany([
      { group: 'b', payload: 1 },
      { group: 'b', payload: 2 },
      { group: 'c', payload: 3, options: { maxAttempts: 3 } },
    ]);
    // Claimed 5 in all: 2 by claim, 3 by completeAndClaim.
    const one = await claimed(q);
    const two = await claimed(q);
    await q.complete(one.id, one.token as string);
    // A retry that requeues and one that kills the job: each a failed attempt.
    await q.retry(two.id, two.token as string, 'boom');
    const batch = await q.completeAndClaim([], { claim: 3 });
    expect(batch.claimed).toHaveLength(3);
    const [x, y, z] = batch.claimed as [Job, Job, Job];
    await q.completeAndClaim(
      [
        { id: x.id, token: x.token as string },
        { id: y.id, token: y.token as string },
      ],
      { claim: 0 },
    );
    // An expired lease reaped: a failed attempt too.
    await q.retry(z.id, z.token as string, 'again');
    const short = await claimed(q, 50);
    await untilRedisTimePasses(q.redis, (short.leaseUntil as number) + 1);
    await reapAtLeast(q, 1);

    const points = await q.throughput(5);
    expect(totals(points)).toEqual({ enqueued: 5, claimed: 6, completed: 3, failed: 3 });
    // The same events as the counters since the queue began.
    const stats = await statsOf(q);
    expect(stats).toMatchObject({ enqueued: 5, claimed: 6, completed: 3, reaped: 1 });
    // Every event happened in the minutes since `start`.
    const at = points.filter((p) => p.enqueued + p.claimed + p.completed + p.failed > 0);
    for (const p of at) expect(p.at).toBeGreaterThanOrEqual(Math.floor(start / MINUTE) * MINUTE);
  });

  it('answers `minutes` points, oldest first, a minute apart, ending with the current minute', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    for (;;) {
      const before = await redisNow(q.redis);
      const points = await q.throughput(60);
      const after = await redisNow(q.redis);
      // A minute that turned during the read leaves no single current minute to compare with.
      if (Math.floor(before / MINUTE) !== Math.floor(after / MINUTE)) continue;
      expect(points).toHaveLength(60);
      const current = Math.floor(before / MINUTE) * MINUTE;
      expect(points.map((p) => p.at)).toEqual(
        Array.from({ length: 60 }, (_, i) => current - (59 - i) * MINUTE),
      );
      break;
    }
    expect(await q.throughput()).toHaveLength(60);
    expect(await q.throughput(1)).toHaveLength(1);
    expect(await q.throughput(Limits.throughputMinutes)).toHaveLength(Limits.throughputMinutes);
  });

  it('answers zeros for minutes with no events, and writes nothing', async () => {
    const q = engine.queue();
    const before = await snapshot(q.redis);
    const points = await q.throughput(30);
    expect(points).toHaveLength(30);
    for (const p of points) {
      expect(p).toEqual({ at: p.at, enqueued: 0, claimed: 0, completed: 0, failed: 0 });
    }
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it('an idle claim counts nothing and writes no throughput', async () => {
    const q = engine.queue();
    expect(await q.claim()).toBeNull();
    expect(await q.redis.exists(q.keys.throughput)).toBe(0);
  });

  it('keeps a day of minutes: after 3,000 distinct minutes it holds 1,440 slots, each its own minute', async () => {
    const q = engine.queue();
    const r = q.redis;
    // Written with the test's clock over the 3,000 minutes up to the current one: minute m
    // counts m % 7 enqueued, m % 5 claimed, m % 3 completed and 1 failed.
    for (;;) {
      const now = await redisNow(r);
      const current = Math.floor(now / MINUTE);
      const args: (string | number)[] = [q.keys.base];
      for (let m = current - 2_999; m <= current; m++) {
        args.push(m * MINUTE + 7, m % 7, m % 5, m % 3, 1);
      }
      const size = (await r.eval(COUNT_AT, 0, ...args)) as number;
      expect(size).toBe(Limits.throughputMinutes);
      expect(await r.hlen(q.keys.throughput)).toBe(Limits.throughputMinutes);
      const points = await q.throughput(Limits.throughputMinutes);
      if (points.at(-1)?.at !== current * MINUTE) continue; // the minute turned: again
      expect(points).toEqual(
        Array.from({ length: Limits.throughputMinutes }, (_, i) => {
          const m = current - Limits.throughputMinutes + 1 + i;
          return { at: m * MINUTE, enqueued: m % 7, claimed: m % 5, completed: m % 3, failed: 1 };
        }),
      );
      break;
    }
  });

  it('a slot a day old starts again at zero; the minute after it is untouched', async () => {
    const q = engine.queue();
    const r = q.redis;
    for (;;) {
      const current = Math.floor((await redisNow(r)) / MINUTE);
      const day = Limits.throughputMinutes;
      // The current minute's slot holds the same minute a day ago, the one before it a minute
      // this script's clock wrote within the day.
      await r.eval(COUNT_AT, 0, q.keys.base, (current - day) * MINUTE, 9, 9, 9, 9);
      await r.eval(COUNT_AT, 0, q.keys.base, (current - 1) * MINUTE, 4, 3, 2, 1);
      await q.enqueue('a');
      const points = await q.throughput(2);
      if (points.at(-1)?.at !== current * MINUTE) continue;
      expect(points).toEqual([
        { at: (current - 1) * MINUTE, enqueued: 4, claimed: 3, completed: 2, failed: 1 },
        { at: current * MINUTE, enqueued: 1, claimed: 0, completed: 0, failed: 0 },
      ]);
      expect(await r.hlen(q.keys.throughput)).toBe(2);
      break;
    }
  });

  it('refuses minutes outside 1..1,440 with BAD_USER_INPUT, writing nothing', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const before = await snapshot(q.redis);
    for (const bad of [0, -1, 1_441, 1.5, Number.NaN, '60' as unknown as number]) {
      const error = await refusal(() => q.throughput(bad));
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
      expect(error.message).toMatch(/minutes/);
    }
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it('counts every job of a batch, in one slot per minute', async () => {
    const q = engine.queue();
    const jobs = Array.from({ length: 50 }, (_, i) => ({ group: `g${i % 5}`, payload: i }));
    await q.enqueueMany(jobs);
    expect(totals(await q.throughput(2)).enqueued).toBe(50);
    expect(await q.redis.hlen(q.keys.throughput)).toBe(1);
  });
});
