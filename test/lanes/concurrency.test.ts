/**
 * The semaphore under contention: claims from many connections at once never put more of a
 * group in flight than its limit (the original design's HINCRBY note: two claims cannot both see a
 * free permit). Every claim is atomic, so this is Redis' guarantee plus the scripts' bookkeeping.
 */
import { describe, expect, it } from 'vitest';
import { type Job, Queue } from '../../src/lanes/index.js';
import { rawState, statsOf, useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('concurrency', () => {
  it('10 clients racing claims on a group at limit 1 for 1,000 iterations never see two active', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    const total = 1000;
    await Promise.all(Array.from({ length: total }, (_, i) => q.enqueue('g', i)));
    const clients = Array.from({ length: 10 }, () => new Queue(engine.client(), q.name));

    const served: Job[] = [];
    const overLimit: string[] = [];
    let emptyClaims = 0;
    await Promise.all(
      clients.map(async (cq) => {
        while (served.length < total) {
          const job = await cq.claim();
          if (!job) {
            emptyClaims += 1;
            continue;
          }
          served.push(job);
          // Between this client's claim and its completion nobody else may hold a permit of
          // g, so Redis itself must show exactly one job in flight, whoever looks.
          const [gactive, inFlight] = await Promise.all([
            cq.redis.hget(q.keys.gactive, 'g'),
            cq.redis.zcard(q.keys.active),
          ]);
          if (gactive !== '1' || inFlight !== 1) {
            overLimit.push(`${job.id}: gactive=${gactive} active=${inFlight}`);
          }
          await cq.complete(job.id, job.token as string);
        }
      }),
    );

    expect(overLimit).toEqual([]);
    expect(served).toHaveLength(total);
    expect(new Set(served.map((j) => j.id)).size).toBe(total);
    // One group at limit 1 is served strictly in FIFO order.
    expect(served.map((j) => j.payload)).toEqual(Array.from({ length: total }, (_, i) => i));
    expect(emptyClaims).toBeGreaterThan(0); // the clients really did contend
    const s = await rawState(q);
    expect(s.gactive).toEqual({});
    expect(s.active).toEqual([]);
    expect(s.ring).toEqual([]);
    expect(s.lanes).toEqual({});
    expect(await statsOf(q)).toMatchObject({
      enqueued: total,
      claimed: total,
      completed: total,
      pending: 0,
      active: 0,
      saturated: 0,
    });
  }, 60_000);

  it('two clients racing for the last free permit never both win', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    const a = new Queue(engine.client(), q.name);
    const b = new Queue(engine.client(), q.name);
    const rounds = 200;
    await Promise.all(Array.from({ length: rounds + 1 }, (_, i) => q.enqueue('g', i)));
    const holder = await q.claim({ leaseMs: 600_000 }); // one permit taken for the whole test
    expect(holder).not.toBeNull();

    const winners = { a: 0, b: 0 };
    for (let round = 0; round < rounds; round++) {
      const [ja, jb] = await Promise.all([a.claim(), b.claim()]);
      const won = [ja, jb].filter((j): j is Job => j !== null);
      expect(won).toHaveLength(1);
      if (ja) winners.a += 1;
      if (jb) winners.b += 1;
      const s = await rawState(q);
      expect(s.gactive).toEqual({ g: '2' });
      expect(s.ring).toEqual([]);
      const [job] = won as [Job];
      await q.complete(job.id, job.token as string);
      expect(await q.ring()).toEqual(round < rounds - 1 ? ['g'] : []);
    }
    expect(winners.a + winners.b).toBe(rounds);
    expect((await rawState(q)).gactive).toEqual({ g: '1' });
  }, 60_000);
});
