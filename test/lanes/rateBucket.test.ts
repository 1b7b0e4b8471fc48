/**
 * The token bucket's own rules (DESIGN.md §3 "Rate limits"): burst, a job's cost (stored only
 * when not 1, refused above the burst), the head job deciding (FIFO), the upgrade from fixed
 * windows, and the audit and repair of a malformed bucket. Windows are an hour wherever the test
 * does not wait for a token, so no token refills within it.
 */
import { describe, expect, it } from 'vitest';
import { type Job, RingmasterError } from '../../src/lanes/index.js';
import { queueSnapshot, redisNow, useEngine } from '../support/lanes.js';

const engine = useEngine();
const HOUR = 3_600_000;

describe('burst and cost', () => {
  it('a burst above max lets that many claims through at once, then max per window', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR, burst: 4 });
    for (let i = 0; i < 6; i++) await q.enqueue('g', i);
    const { claimed } = await q.completeAndClaim([], { claim: 6 });
    expect(claimed).toHaveLength(4);
    const at = Number(claimed[0]?.claimedAt);
    // The next token: one window after the bucket started (it was full at the first claim).
    expect(Number(await q.redis.zscore(q.keys.rateLimited, 'g'))).toBe(at + HOUR);
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toBe(`0:${at}`);
  });

  it('a cost is stored only when not 1, read back as Job.cost, and counted at the claim', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 5, windowMs: HOUR });
    const plain = await q.enqueue('g', 'a');
    const dear = await q.enqueue('g', 'b', { cost: 3 });
    const one = await q.enqueue('g', 'c', { cost: 1 });
    expect(await q.redis.hexists(q.keys.job(plain.id), 'cost')).toBe(0);
    expect(await q.redis.hexists(q.keys.job(one.id), 'cost')).toBe(0);
    expect(await q.redis.hget(q.keys.job(dear.id), 'cost')).toBe('3');
    expect((await q.job(dear.id))?.cost).toBe(3);
    expect((await q.job(plain.id))?.cost).toBe(1);
    const { claimed } = await q.completeAndClaim([], { claim: 3 });
    expect(claimed.map((j) => j.id)).toEqual([plain.id, dear.id, one.id]);
    // 5 − 1 − 3 − 1: none left.
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toMatch(/^0:\d+$/);
  });

  it('the head job decides: a costly head waits, and the cheap jobs behind it wait too', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 3, windowMs: HOUR });
    await q.enqueue('g', 'first');
    const dear = await q.enqueue('g', 'dear', { cost: 3 });
    await q.enqueue('g', 'cheap');
    const first = (await q.claim()) as Job;
    // Two tokens left, the head costs three: off the ring until the third refills.
    expect(await q.claim()).toBeNull();
    const g = await q.group('g');
    expect(g).toMatchObject({ state: 'RATE_LIMITED', onRing: false, pending: 2 });
    expect(g.rateLimitedUntil).toBe(Number(first.claimedAt) + HOUR / 3);
    // Raising the burst does not add tokens; a cheaper limit that refills fast frees it.
    await q.setRateLimit('g', { max: 3, windowMs: 30 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    const next = (await q.completeAndClaim([], { claim: 2 })).claimed;
    expect(next[0]?.id).toBe(dear.id);
  });

  it('a cost above the burst is refused before anything is written; with no rate any cost goes', async () => {
    const q = engine.queue();
    await q.enqueue('free', 1, { cost: 50 });
    await q.setRateLimit('g', { max: 5, windowMs: HOUR, burst: 2 });
    const before = await queueSnapshot(q);
    await expect(q.enqueue('g', 1, { cost: 3 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'cost',
    });
    await expect(
      q.enqueueMany([
        { group: 'g', options: { cost: 2 } },
        { group: 'g', options: { cost: 3 } },
      ]),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', argument: 'jobs[1].cost' });
    expect(await queueSnapshot(q)).toEqual(before);
    const many = await q.enqueueMany([{ group: 'g', options: { cost: 2 } }, { group: 'g' }]);
    expect(many.map((j) => j.cost)).toEqual([2, 1]);
  });

  it('a cost goes with a debounce key: judged against the burst, the replaced job keeps its own', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 5, windowMs: HOUR, burst: 4 });
    const debounce = { key: 'k', windowMs: HOUR };
    const first = await q.enqueue('g', 'a', { cost: 3, debounce });
    expect(first).toMatchObject({ state: 'DELAYED', cost: 3, debounceKey: 'k' });
    const before = await queueSnapshot(q);
    await expect(q.enqueue('g', 'b', { cost: 5, debounce })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'cost',
    });
    expect(await queueSnapshot(q)).toEqual(before);
    const again = await q.enqueue('g', 'c', { cost: 2, debounce });
    expect(again.id).toBe(first.id);
    expect(await q.job(first.id)).toMatchObject({ payload: 'c', cost: 3, debounceKey: 'k' });
    // A cost with no debounce key: '' goes in the debounce slots, none is recorded.
    const plain = await q.enqueue('g', 'd', { cost: 2, priority: 2 });
    expect(await q.job(plain.id)).toMatchObject({ state: 'PENDING', cost: 2, priority: 2 });
    expect((await q.job(plain.id))?.debounceKey).toBeUndefined();
  });

  it('enqueueMany with costs, debounce keys and priorities: each job keeps its own', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 5, windowMs: HOUR, burst: 4 });
    const jobs = await q.enqueueMany([
      { group: 'g', payload: 1, options: { cost: 2, debounce: { key: 'k', windowMs: HOUR } } },
      { group: 'g', payload: 2, options: { priority: 2 } },
      { group: 'g', payload: 3, options: { debounce: { key: 'j', windowMs: HOUR } } },
      { group: 'g', payload: 4, options: { debounce: { key: 'k', windowMs: HOUR } } },
      { group: 'g', payload: 5 },
    ]);
    expect(jobs.map((j) => j.cost)).toEqual([2, 1, 1, 2, 1]);
    expect(jobs[3]?.id).toBe(jobs[0]?.id);
    const read = await Promise.all(jobs.map((j) => q.job(j.id)));
    expect(read.map((j) => [j?.payload, j?.priority, j?.debounceKey])).toEqual([
      [4, 5, 'k'],
      [2, 2, undefined],
      [3, 5, 'j'],
      [4, 5, 'k'],
      [5, 5, undefined],
    ]);
    const before = await queueSnapshot(q);
    await expect(
      q.enqueueMany([
        { group: 'g', options: { priority: 3 } },
        { group: 'g', options: { cost: 5, debounce: { key: 'k', windowMs: HOUR } } },
      ]),
    ).rejects.toMatchObject({ code: 'BAD_USER_INPUT', argument: 'jobs[1].cost' });
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it("a job with a cost at its group's backlog bound is refused GROUP_FULL, nothing written", async () => {
    const q = engine.queue();
    await q.setMaxPending('g', 1);
    await q.enqueue('g', 1, { cost: 2 });
    const before = await queueSnapshot(q);
    await expect(q.enqueue('g', 2, { cost: 2 })).rejects.toMatchObject({ code: 'GROUP_FULL' });
    await expect(q.enqueueMany([{ group: 'g', options: { cost: 2 } }])).rejects.toMatchObject({
      code: 'GROUP_FULL',
    });
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('a job dearer than a burst set after it takes the whole bucket when full', async () => {
    const q = engine.queue();
    const dear = await q.enqueue('g', 1, { cost: 5 });
    await q.setRateLimit('g', { max: 1, windowMs: HOUR, burst: 2 });
    const job = (await q.claim()) as Job;
    expect(job.id).toBe(dear.id);
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toBe(`0:${job.claimedAt}`);
  });

  for (const [name, cost] of [
    ['0', 0],
    ['over 1,000,000', 1_000_001],
    ['a fraction', 1.5],
    ['a string', '2'],
  ] as const) {
    it(`cost ${name}: BAD_USER_INPUT (cost), nothing written`, async () => {
      const q = engine.queue();
      await q.enqueue('g', 1);
      const before = await queueSnapshot(q);
      const error = await q.enqueue('g', 1, { cost: cost as never }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RingmasterError);
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'cost' });
      expect(await queueSnapshot(q)).toEqual(before);
    });
  }
});

describe('the upgrade from fixed windows', () => {
  it('an old two-part rate reads as burst = max; an open old window as what it had left', async () => {
    const q = engine.queue();
    for (let i = 0; i < 5; i++) await q.enqueue('g', i);
    const now = await redisNow(q.redis);
    // As the fixed windows left it: 3 per hour, 2 claims made in a window opened a minute ago.
    await q.redis.hset(q.keys.rate, 'g', `3:${HOUR}`);
    await q.redis.hset(q.keys.rateWindow, 'g', `${now - 60_000}:2`);
    expect((await q.group('g')).rateLimit).toEqual({ max: 3, windowMs: HOUR, burst: 3 });
    const { claimed } = await q.completeAndClaim([], { claim: 5 });
    expect(claimed).toHaveLength(1);
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toMatch(/^0:\d+$/);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('an old window that ended reads as a full bucket', async () => {
    const q = engine.queue();
    for (let i = 0; i < 5; i++) await q.enqueue('g', i);
    const now = await redisNow(q.redis);
    await q.redis.hset(q.keys.rate, 'g', `2:${HOUR}`);
    await q.redis.hset(q.keys.rateWindow, 'g', `${now - 2 * HOUR}:2`);
    expect((await q.completeAndClaim([], { claim: 5 })).claimed).toHaveLength(2);
  });
});

describe('audit and repair of the buckets', () => {
  it('a malformed bucket is a RATE finding, read as empty; repair writes it empty at now', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 2, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.redis.hset(q.keys.rateWindow, 'g', 'lots:of');
    await q.redis.hset(q.keys.rateWindow, 'stray', '1:1');
    const { findings } = await q.audit();
    expect(findings.map((f) => [f.kind, f.subject, f.found]).sort()).toEqual([
      ['RATE', 'g', 'lots:of'],
      ['RATE', 'stray', '1:1'],
    ]);
    // Read as empty: never over the rate.
    expect(await q.claim()).toBeNull();
    // More tokens than its burst, at a time after now.
    await q.redis.hset(q.keys.rateWindow, 'g', `99:${(await redisNow(q.redis)) + HOUR}`);
    const repaired = await q.repair();
    expect(repaired.findings.map((f) => [f.kind, f.subject]).sort()).toEqual([
      ['RATE', 'g'],
      ['RATE', 'stray'],
    ]);
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toMatch(/^0:\d+$/);
    expect(await q.redis.hexists(q.keys.rateWindow, 'stray')).toBe(0);
    expect((await q.audit()).findings).toEqual([]);
  });
});
