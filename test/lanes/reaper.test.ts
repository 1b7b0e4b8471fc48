/**
 * The engine's `Reaper` (src/lanes/reaper.ts) against a real Redis: which queues it reaps (every
 * registered one, a fixed list, or one queue), its per-queue lock `P:{Q}:reaper` (a queue locked
 * by another reaper is left alone this interval; a lock key that lost its expiry is given one
 * back), the hooks, start/close, and its options' bounds. Leases expire for real on the Redis
 * clock; waits are bounded polls.
 */
import { describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type Queue,
  Reaper,
  type ReaperOptions,
  Ringmaster,
} from '../../src/lanes/index.js';
import { pollUntil, redisNow, uniqueQueueName, untilRedisTimePasses } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();

/** An engine under a prefix of its own, so its registry holds only this test's queues. */
function engine(): Ringmaster {
  return new Ringmaster(redis.client(), { prefix: uniqueQueueName('reaper') });
}

/** Enqueue and claim one job of `queue` under a 1 ms lease, and wait until it has expired. */
async function expiredLease(queue: Queue): Promise<void> {
  await queue.enqueue('g');
  const job = await queue.claim({ leaseMs: 1 });
  await untilRedisTimePasses(queue.redis, job?.leaseUntil as number);
}

describe('Reaper', () => {
  it('reaps every registered queue, or only the ones named, each once per interval', async () => {
    const rm = engine();
    const [a, b] = [rm.queue('a'), rm.queue('b')];
    await expiredLease(a);
    await expiredLease(b);

    const reaped: [string, number][] = [];
    const onReaped = (queue: string, n: number) => reaped.push([queue, n]);
    expect(await new Reaper(rm, { queues: ['a'], onReaped }).reapOnce()).toBe(1);
    expect(await b.counts()).toMatchObject({ active: 1 });
    // `a` is locked for this interval by the first reaper; `b` is free.
    expect(await new Reaper(rm, { onReaped }).reapOnce()).toBe(1);
    expect(reaped).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(await rm.redis.get(a.keys.reaper)).toMatch(/:\d+:\d+$/);

    // Another reaper this interval leaves a locked queue alone; the script itself does not.
    await expiredLease(b);
    expect(await new Reaper(b).reapOnce()).toBe(0);
    expect(await b.reap()).toBe(1);
  });

  it('gives a lock key with no expiry one, so a stray key delays reaping by one interval at most', async () => {
    const rm = engine();
    const q = rm.queue('stuck');
    await expiredLease(q);
    await rm.redis.set(q.keys.reaper, 'left by hand'); // no expiry
    const reaper = new Reaper(q, { intervalMs: 50 });
    expect(await reaper.reapOnce()).toBe(0);
    const ttl = await rm.redis.pttl(q.keys.reaper);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(50);
    await pollUntil('the stray lock to expire and the queue to be reaped', async () => {
      return (await reaper.reapOnce()) === 1;
    });
  });

  it('ticks once started, reports through its hooks, and stops for good on close', async () => {
    const rm = engine();
    const q = rm.queue('ticking');
    await expiredLease(q);
    const reaped: number[] = [];
    const reaper = new Reaper(rm, { intervalMs: 20, onReaped: (_q, n) => reaped.push(n) });
    reaper.start();
    await pollUntil('a tick to reap the lease', async () => reaped.length > 0);
    await reaper.close();
    reaper.start(); // closed: does nothing
    await expiredLease(q);
    // Past the lock of the last tick, and then some: no tick of a closed reaper reaps it.
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + 100);
    expect(reaped).toEqual([1]);
    expect(await q.counts()).toMatchObject({ active: 1 });
  });

  it('reports a queue whose reap Redis refuses once, goes on to the next, and says when it recovers', async () => {
    const rm = engine();
    const broken = rm.queue('aaa-broken');
    const good = rm.queue('bbb-good');
    await rm.redis.set(broken.keys.active, 'not a sorted set');
    await rm.redis.sadd(`${rm.prefix}:queues`, broken.name);
    await expiredLease(good);
    const errors: [string | null, string][] = [];
    const recovered: string[] = [];
    const reaper = new Reaper(rm, {
      intervalMs: 1,
      onError: (error, queue) => errors.push([queue, error.message]),
      onRecovered: (queue) => recovered.push(queue),
    });
    expect(await reaper.reapOnce()).toBe(1);
    await untilRedisTimePasses(rm.redis, (await redisNow(rm.redis)) + 2);
    expect(await reaper.reapOnce()).toBe(0);
    expect(errors).toEqual([['aaa-broken', expect.stringMatching(/WRONGTYPE/)]]);
    await rm.redis.del(broken.keys.active);
    await untilRedisTimePasses(rm.redis, (await redisNow(rm.redis)) + 2);
    await reaper.reapOnce();
    expect(recovered).toEqual(['aaa-broken']);
  });

  it('refuses out-of-range options with BAD_USER_INPUT', () => {
    const rm = engine();
    for (const options of [
      { intervalMs: 0 },
      { intervalMs: 1.5 },
      { intervalMs: 86_400_001 },
      { batch: 0 },
      { batch: 10_001 },
      { queues: ['not a queue name'] },
      { onError: 5 },
      { onReaped: 'log' },
      { onRecovered: {} },
    ] as ReaperOptions[]) {
      expect(() => new Reaper(rm, options), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: ErrorCode.BAD_USER_INPUT }),
      );
    }
  });
});
