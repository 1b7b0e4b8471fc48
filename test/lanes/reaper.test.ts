/**
 * The engine's `Reaper` (src/lanes/reaper.ts) against a real Redis: which queues it reaps (every
 * registered one, a fixed list, or one queue), how reapers share a queue (`P:{Q}:reapedAt`: a
 * queue reaped less than a reaper's own interval ago is left alone; the lock `P:{Q}:reaper` lives
 * for a pass and is released, and one that lost its expiry is given one back), the hooks,
 * start/close, and its options' bounds, its source's shape too. Leases expire for real on the
 * Redis clock; waits are bounded polls.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Queue, Reaper, type ReaperOptions, Ringmaster } from '../../src/lanes/index.js';
import { LOCK_MS } from '../../src/lanes/reaper.js';
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
    // `a` was reaped less than this reaper's interval ago by the first one; `b` was not.
    // (An interval of a minute, so a slow machine cannot let it lapse mid-test.)
    expect(await new Reaper(rm, { onReaped, intervalMs: 60_000 }).reapOnce()).toBe(1);
    expect(reaped).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    // The lock lived for the pass only; the pass's start is kept, on the Redis clock.
    expect(await rm.redis.exists(a.keys.reaper, b.keys.reaper)).toBe(0);
    const reapedAt = Number(await rm.redis.get(a.keys.reapedAt));
    expect(reapedAt).toBeLessThanOrEqual(await redisNow(rm.redis));
    expect(reapedAt).toBeGreaterThan((await redisNow(rm.redis)) - 5_000);

    // Another reaper this interval leaves a reaped queue alone; the script itself does not.
    await expiredLease(b);
    expect(await new Reaper(b, { intervalMs: 60_000 }).reapOnce()).toBe(0);
    expect(await b.reap()).toBe(1);
    // A reaper whose own interval has passed since reaps it, whatever the others' intervals.
    await expiredLease(b);
    await untilRedisTimePasses(rm.redis, Number(await rm.redis.get(b.keys.reapedAt)) + 2);
    expect(await new Reaper(b, { intervalMs: 1 }).reapOnce()).toBe(1);
  });

  it("takes a lock that holds the caller's id already: a lock call sent again after its reply was lost", async () => {
    const q = engine().queue('again');
    expect(await q.lockReaping('me', 60_000, LOCK_MS)).toBe(true);
    // ioredis resends a call whose reply a lost connection cut: the pass must go on.
    expect(await q.lockReaping('me', 60_000, LOCK_MS)).toBe(true);
    expect(await q.lockReaping('another', 1, LOCK_MS)).toBe(false);
    await q.releaseReaping('me');
    expect(await q.redis.exists(q.keys.reaper)).toBe(0);
  });

  it('gives a lock key with no expiry one, so a stray key delays reaping by the lock lifetime at most', async () => {
    const rm = engine();
    const q = rm.queue('stuck');
    await expiredLease(q);
    await rm.redis.set(q.keys.reaper, 'left by hand'); // no expiry
    const reaper = new Reaper(q, { intervalMs: 50 });
    expect(await reaper.reapOnce()).toBe(0);
    const ttl = await rm.redis.pttl(q.keys.reaper);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LOCK_MS);
    // Redis expires the key by itself; what is left to check is that no pass extends an expiry
    // the lock already has (polled passes would keep it alive for ever) and that reaping resumes
    // once the key is gone: so its expiry is brought forward, not waited out.
    await rm.redis.pexpire(q.keys.reaper, 200);
    await pollUntil(
      'the stray lock to expire and the queue to be reaped',
      async () => (await reaper.reapOnce()) === 1,
      LOCK_MS + 5_000,
    );
  }, 20_000);

  it('ignores a reapedAt that is not a number or is later than now, so a stray value cannot stop reaping', async () => {
    const rm = engine();
    const q = rm.queue('stray-marker');
    for (const stray of ['not a time', String((await redisNow(rm.redis)) + 3_600_000)]) {
      await expiredLease(q);
      await rm.redis.set(q.keys.reapedAt, stray);
      expect(await new Reaper(q, { intervalMs: 60_000 }).reapOnce(), stray).toBe(1);
    }
  });

  it('refuses a source that is not an engine or a queue at construction, in one line', () => {
    const rm = engine();
    // An ioredis client, and the object form an older text of DESIGN.md §4.1 showed: each was
    // taken, and every pass then reaped nothing and reported nothing.
    for (const source of [
      rm.redis,
      { queue: rm.queue('q'), intervalMs: 100 },
      { engine: rm },
      undefined,
      'q',
    ]) {
      expect(() => new Reaper(source as unknown as Queue)).toThrow(
        expect.objectContaining({
          code: ErrorCode.BAD_USER_INPUT,
          argument: 'source',
          message: expect.stringMatching(/^source: must be a Ringmaster or a Queue[^\n]*$/),
        }),
      );
    }
    // A Queue made on its own (not through an engine) is a source.
    expect(new Reaper(new Queue(rm.redis, 'alone'))).toBeInstanceOf(Reaper);
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
    // Past the interval of the last tick, and then some: no tick of a closed reaper reaps it.
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
