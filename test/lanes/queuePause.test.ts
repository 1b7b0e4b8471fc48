/**
 * Pausing a whole queue (DESIGN.md §3, pauseQueue / resumeQueue): while paused, claim
 * and completeAndClaim claim nothing for any group; completions, retries, lease extensions and
 * promotion go on; the ring and every group's state are untouched (I1 unchanged). resumeQueue
 * pushes a wake, so a parked Worker claims at once.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, Ringmaster, Worker } from '../../src/lanes/index.js';
import { putDelayed } from '../support/delayed.js';
import {
  type RawState,
  rawState,
  redisNow,
  snapshot,
  statsOf,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

/** A queue with every kind of group: serviceable ones on the ring, saturated, paused, parked. */
async function busy(q: Queue): Promise<Job[]> {
  await q.setLimit('sat', 1);
  await q.setLimit('parked', 0);
  for (const g of ['a', 'b', 'c', 'sat', 'sat', 'held', 'parked']) await q.enqueue(g, g);
  await q.pause('held');
  const held: Job[] = [];
  for (let i = 0; i < 3; i++) held.push((await q.claim()) as Job);
  return held;
}

/** The rota's state: everything but the wake list and the settings (the pause flag). */
function rota(s: RawState): Omit<RawState, 'wake'> {
  const { wake: _, ...rest } = s;
  return rest;
}

describe('pauseQueue', () => {
  it('stops every claim, claim and completeAndClaim, and leaves the ring and every group as they were', async () => {
    const q = engine.queue();
    const held = await busy(q);
    const before = await rawState(q);
    const groupsBefore = await q.groups();
    expect(before.ring.length).toBeGreaterThan(0);

    expect(await q.pauseQueue()).toBe('PAUSED');
    expect(await q.state()).toBe('PAUSED');
    expect(await q.redis.hget(q.keys.settings, 'paused')).toBe('1');
    expect(rota(await rawState(q))).toEqual(rota(before));

    expect(await q.claim()).toBeNull();
    const batch = await q.completeAndClaim([], { claim: 5 });
    expect(batch.claimed).toEqual([]);
    expect(batch.nextRunAt).toBeNull();
    expect(rota(await rawState(q))).toEqual(rota(before));
    expect(await q.groups()).toEqual(groupsBefore);
    expect((await q.snapshot()).paused).toBe(true);
    expect((await q.audit()).findings).toEqual([]);

    // Resumed: the rota runs on from where it stood.
    expect(await q.resumeQueue()).toBe('RUNNING');
    expect(await q.state()).toBe('RUNNING');
    expect(await q.redis.hexists(q.keys.settings, 'paused')).toBe(0);
    const next = await q.claim();
    expect(next?.group).toBe(before.ring[0]);
    expect(held).toHaveLength(3);
  });

  it('completions, retries and lease extensions go on while paused; a freed group re-rings, unclaimed', async () => {
    const q = engine.queue();
    await q.setLimit('a', 1);
    await q.enqueue('a', 1);
    await q.enqueue('a', 2);
    await q.enqueue('b', 3);
    await q.enqueue('b', 4);
    const a = (await q.claim()) as Job;
    const b = (await q.claim()) as Job;
    const c = (await q.claim()) as Job;
    expect([a.group, b.group, c.group]).toEqual(['a', 'b', 'b']);
    await q.pauseQueue();

    expect((await q.extendLease(b.id, b.token as string, 60_000)).state).toBe('ACTIVE');
    expect((await q.retry(b.id, b.token as string, 'again')).state).toBe('PENDING');
    // The completion frees a (saturated): it re-rings, with a wake, but nothing claims it.
    const wake = (await rawState(q)).wake;
    const done = await q.completeAndClaim([{ id: a.id, token: a.token as string }], { claim: 3 });
    expect(done.refused).toEqual([null]);
    expect(done.claimed).toEqual([]);
    expect((await q.complete(c.id, c.token as string)).state).toBe('COMPLETED');
    const s = await rawState(q);
    expect(s.ring).toEqual(['b', 'a']);
    expect(s.wake).toBe(wake + 1);
    expect(s.gactive).toEqual({});
    expect(await statsOf(q)).toMatchObject({ completed: 2, retried: 1, claimed: 3, active: 0 });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('promotion still runs while paused: due delayed jobs reach their lanes, none is claimed', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    const [d] = await putDelayed(q, 'g', now - 1);
    await putDelayed(q, 'g', now + 60_000);
    await q.pauseQueue();
    const result = await q.completeAndClaim([], { claim: 1 });
    expect(result.claimed).toEqual([]);
    // Paused: no nextRunAt (a worker waits for the resume's wake instead).
    expect(result.nextRunAt).toBeNull();
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1)).toEqual([d]);
    expect(await q.ring()).toEqual(['g']);
    expect(await statsOf(q)).toMatchObject({ delayed: 1, pending: 1 });
  });

  it('is idempotent: a second pause or resume writes nothing; resume of a paused queue pushes one wake', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pauseQueue();
    const paused = await snapshot(q.redis);
    await q.pauseQueue();
    expect(await snapshot(q.redis)).toEqual(paused);
    const wake = (await rawState(q)).wake;
    await q.resumeQueue();
    expect((await rawState(q)).wake).toBe(wake + 1);
    const running = await snapshot(q.redis);
    await q.resumeQueue();
    expect(await snapshot(q.redis)).toEqual(running);
  });

  it('registers the queue as the steering calls do; state() reads nothing into being', async () => {
    const rm = new Ringmaster(engine.redis());
    const q = rm.queue(`qp-${Math.random().toString(36).slice(2, 8)}`);
    expect(await q.state()).toBe('RUNNING');
    expect(await q.known()).toBe(false);
    await q.pauseQueue();
    expect(await q.known()).toBe(true);
    expect(await rm.queues()).toContain(q.name);
  });

  it('a snapshot says whether the queue is paused, in the same read as the rest', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    expect((await q.snapshot()).paused).toBe(false);
    await q.pauseQueue();
    const s = await q.snapshot();
    expect(s.paused).toBe(true);
    expect(s.ring).toEqual(['g']);
    await q.resumeQueue();
    expect((await q.snapshot()).paused).toBe(false);
  });
});

describe('a Worker and the queue pause', () => {
  it('claims nothing while paused, and is woken by resumeQueue at once (not at its park timeout)', async () => {
    const q = engine.queue();
    await q.pauseQueue();
    await q.enqueue('g', 'x');
    const ran: { id: string; at: number }[] = [];
    const worker = new Worker(
      q,
      async (job) => {
        ran.push({ id: job.id, at: Date.now() });
      },
      { parkTimeoutMs: 30_000, reaper: false },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(ran).toEqual([]);
      expect((await q.group('g')).pending).toBe(1);
      const resumed = Date.now();
      await q.resumeQueue();
      const deadline = Date.now() + 5_000;
      while (ran.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(ran).toHaveLength(1);
      expect((ran[0]?.at ?? Infinity) - resumed).toBeLessThan(1_000);
    } finally {
      await worker.close();
    }
  });
});
