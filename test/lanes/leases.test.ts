/**
 * Leases (DESIGN.md §3 complete, retry, extendLease, reap; invariants I3 and I5): a dead
 * worker's job comes back with exactly one permit released, racing recovery paths release it
 * exactly once, stale tokens are refused, and attempts run out into `dead`.
 *
 * Lease expiry is real: short leases (20–50 ms) and a bounded poll on the Redis clock or on
 * `reap()`, never a fixed sleep.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, Queue, RingmasterError } from '../../src/lanes/index.js';
import {
  rawState,
  reapAtLeast,
  snapshot,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

async function claimed(q: Queue, leaseMs = 60_000): Promise<Job> {
  const job = await q.claim({ leaseMs });
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

/** The code of the RingmasterError `promise` rejects with. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RingmasterError) return error.code;
    throw error;
  }
  throw new Error('expected a RingmasterError, the call succeeded');
}

describe('reap', () => {
  it('a worker killed mid-job: the lease expires, the reaper releases exactly one permit and the job runs again', async () => {
    const q = engine.queue();
    await q.setLimit('g', 3);
    const doomed = await q.enqueue('g', 'doomed');
    for (const name of ['b', 'c', 'd']) await q.enqueue('g', name);

    // The worker claims on its own connection and dies without completing.
    const workerConn = engine.client();
    const worker = new Queue(workerConn, q.name);
    const lost = await claimed(worker, 30);
    expect(lost.id).toBe(doomed.id);
    workerConn.disconnect();
    // Two healthy jobs of the same group hold long leases.
    const b = await claimed(q);
    const c = await claimed(q);
    let s = await rawState(q);
    expect(s.gactive).toEqual({ g: '3' });
    expect(s.ring).toEqual([]);
    const wake = s.wake;

    expect(await reapAtLeast(q, 1)).toBe(1);
    s = await rawState(q);
    expect(s.gactive).toEqual({ g: '2' }); // exactly one permit back
    expect(s.active.sort()).toEqual([b.id, c.id].sort());
    expect(s.leases).toEqual({ [b.id]: 'g', [c.id]: 'g' });
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wake + 1);
    expect(s.lanes.g?.[0]).toBe(doomed.id); // back at the front of its lane
    expect(await statsOf(q)).toMatchObject({ reaped: 1, retried: 0, active: 2, saturated: 0 });
    expect(await q.job(doomed.id)).toMatchObject({
      state: 'PENDING',
      attempts: 1,
      token: null,
      leaseUntil: null,
      lastError: 'lease expired',
    });
    expect(await q.reap()).toBe(0); // nothing else has expired

    const again = await claimed(q);
    expect(again).toMatchObject({ id: doomed.id, attempts: 2, state: 'ACTIVE' });
    expect(again.token).not.toBe(lost.token);
    await q.complete(again.id, again.token as string);
    expect((await rawState(q)).gactive).toEqual({ g: '2' });
  });

  it('reaps in batches until every expired lease is back, leaving live leases alone', async () => {
    const q = engine.queue();
    for (let i = 0; i < 7; i++) await q.enqueue(`g${i}`);
    const short: Job[] = [];
    for (let i = 0; i < 5; i++) short.push(await claimed(q, 20));
    const long = await claimed(q);
    await untilRedisTimePasses(q.redis, Math.max(...short.map((j) => j.leaseUntil as number)));

    expect(await q.reap({ batch: 2 })).toBe(5);
    const s = await rawState(q);
    expect(s.active).toEqual([long.id]);
    expect(s.gactive).toEqual({ [long.group]: '1' });
    expect(Object.keys(s.lanes).sort()).toEqual([...short.map((j) => j.group), 'g6'].sort());
    expect((await statsOf(q)).reaped).toBe(5);
  });

  it('deleting a job hash by hand before the reaper runs still releases its group permit', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    const j1 = await q.enqueue('g');
    const j2 = await q.enqueue('g');
    const c = await claimed(q, 20);
    expect(c.id).toBe(j1.id);
    await q.redis.del(q.keys.job(c.id));
    // The worker cannot finish it any more: there is no such job.
    expect(await codeOf(q.complete(c.id, c.token as string))).toBe(ErrorCode.JOB_NOT_FOUND);
    expect((await rawState(q)).gactive).toEqual({ g: '1' });

    await untilRedisTimePasses(q.redis, c.leaseUntil as number);
    expect(await q.reap()).toBe(1);
    const s = await rawState(q);
    expect(s.gactive).toEqual({});
    expect(s.active).toEqual([]);
    expect(s.leases).toEqual({});
    expect(s.ring).toEqual(['g']);
    // Back in its lane as a bare id (as a job written by another implementation would be).
    expect(s.lanes).toEqual({ g: [j1.id, j2.id] });
    expect((await statsOf(q)).reaped).toBe(1);
  });
});

describe('racing recovery paths release a permit exactly once', () => {
  type Order = 'concurrently' | 'worker first' | 'reaper first';

  async function race(
    kind: 'complete' | 'retry',
    order: Order = 'concurrently',
  ): Promise<'worker' | 'reaper'> {
    const q = engine.queue();
    await q.setLimit('g', 5);
    await q.enqueue('g', 'racer');
    await q.enqueue('g', 'bystander');
    await q.enqueue('g', 'waiting');
    const workerQ = new Queue(engine.client(), q.name);
    const reaperQ = new Queue(engine.client(), q.name);
    const racer = await claimed(q, 20);
    await claimed(q); // a bystander of the same group holds a long lease
    await untilRedisTimePasses(q.redis, racer.leaseUntil as number);

    const work = () =>
      kind === 'complete'
        ? workerQ.complete(racer.id, racer.token as string)
        : workerQ.retry(racer.id, racer.token as string, 'failed');
    const settle = <T>(p: Promise<T>) =>
      Promise.allSettled([p]).then(([r]) => r as PromiseSettledResult<T>);
    let worker: PromiseSettledResult<Job>;
    let reaped: PromiseSettledResult<number>;
    if (order === 'concurrently') {
      [worker, reaped] = await Promise.all([settle(work()), settle(reaperQ.reap())]);
    } else if (order === 'worker first') {
      worker = await settle(work());
      reaped = await settle(reaperQ.reap());
    } else {
      reaped = await settle(reaperQ.reap());
      worker = await settle(work());
    }
    workerQ.redis.disconnect();
    reaperQ.redis.disconnect();
    if (reaped.status === 'rejected') throw reaped.reason;
    const s = await rawState(q);
    expect(s.gactive).toEqual({ g: '1' }); // 2 - 1, never 2 - 2
    expect(s.leases).toEqual({ [s.active[0] as string]: 'g' });
    expect(s.active).toHaveLength(1);
    const stats = await statsOf(q);
    expect(stats.active).toBe(1);
    if (worker.status === 'fulfilled') {
      expect(reaped.value).toBe(0);
      expect(stats.reaped).toBe(0);
      return 'worker';
    }
    expect(worker.reason).toBeInstanceOf(RingmasterError);
    expect((worker.reason as RingmasterError).code).toBe(ErrorCode.LEASE_LOST);
    expect(reaped.value).toBe(1);
    expect(stats).toMatchObject({ reaped: 1, completed: 0, retried: 0 });
    expect(s.lanes.g).toEqual([racer.id, expect.any(String)]);
    return 'reaper';
  }

  for (const kind of ['complete', 'retry'] as const) {
    it(`an expired lease: ${kind} first, then the reaper finds nothing`, async () => {
      expect(await race(kind, 'worker first')).toBe('worker');
    });

    it(`an expired lease: the reaper first, then ${kind} gets LEASE_LOST`, async () => {
      expect(await race(kind, 'reaper first')).toBe('reaper');
    });

    it(`a lease expiring while the worker calls ${kind}, racing the reaper (40 rounds)`, async () => {
      // Either may win; race() asserts the permit was released exactly once either way.
      for (let i = 0; i < 40; i++) await race(kind);
    });
  }

  it('a lease expiring while claims are in flight: the freed permit is handed on at most once', async () => {
    for (let round = 0; round < 30; round++) {
      const q = engine.queue();
      await q.setLimit('g', 1);
      const first = await q.enqueue('g');
      await q.enqueue('g');
      const expiring = await claimed(q, 20);
      await untilRedisTimePasses(q.redis, expiring.leaseUntil as number);
      const [reaper, a, b] = [0, 1, 2].map(() => new Queue(engine.client(), q.name)) as [
        Queue,
        Queue,
        Queue,
      ];
      const [reaped, ja, jb] = await Promise.all([reaper.reap(), a.claim(), b.claim()]);
      for (const c of [reaper, a, b]) c.redis.disconnect();
      expect(reaped).toBe(1);
      const won = [ja, jb].filter((j): j is Job => j !== null);
      expect(won.length).toBeLessThanOrEqual(1);
      // A claim that ran after the reap got the reaped job back: it was next in its lane.
      if (won[0]) expect(won[0]).toMatchObject({ id: first.id, attempts: 2 });
      const s = await rawState(q);
      expect(s.gactive).toEqual(won.length ? { g: '1' } : {});
      expect(s.active).toEqual(won.map((j) => j.id));
      expect(s.ring).toEqual(won.length ? [] : ['g']);
    }
  });

  it('two reapers racing for the same expired lease', async () => {
    const q = engine.queue();
    await q.setLimit('g', 5);
    await q.enqueue('g');
    await q.enqueue('g');
    const short = await claimed(q, 20);
    await claimed(q);
    await untilRedisTimePasses(q.redis, short.leaseUntil as number);
    const others = [new Queue(engine.client(), q.name), new Queue(engine.client(), q.name)];
    const counts = await Promise.all(others.map((o) => o.reap()));
    expect(counts.sort()).toEqual([0, 1]);
    expect((await rawState(q)).gactive).toEqual({ g: '1' });
    expect((await statsOf(q)).reaped).toBe(1);
  });
});

describe('stale tokens (I5)', () => {
  it('a reaped-then-reclaimed job refuses the old token on complete, retry and extendLease', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const first = await claimed(q, 20);
    await reapAtLeast(q, 1);
    const second = await claimed(q);
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);

    const before = await snapshot(q.redis);
    const old = first.token as string;
    expect(await codeOf(q.complete(first.id, old))).toBe(ErrorCode.LEASE_LOST);
    expect(await codeOf(q.retry(first.id, old, 'stale'))).toBe(ErrorCode.LEASE_LOST);
    expect(await codeOf(q.extendLease(first.id, old, 60_000))).toBe(ErrorCode.LEASE_LOST);
    expect(await snapshot(q.redis)).toEqual(before);

    // The new holder is unaffected.
    const extended = await q.extendLease(second.id, second.token as string, 120_000);
    expect(extended.token).toBe(second.token);
    const done = await q.complete(second.id, second.token as string);
    expect(done.state).toBe('COMPLETED');
    expect((await rawState(q)).gactive).toEqual({});
  });

  it('a job that is not active (pending, completed or dead) cannot be completed, retried or extended', async () => {
    const q = engine.queue();
    const pending = await q.enqueue('g');
    for (const call of [
      q.complete(pending.id, 'whatever'),
      q.retry(pending.id, 'whatever'),
      q.extendLease(pending.id, 'whatever', 1000),
    ]) {
      expect(await codeOf(call)).toBe(ErrorCode.LEASE_LOST);
    }
    const c = await claimed(q);
    await q.complete(c.id, c.token as string);
    // Kept by the completed retention: it exists, and is not active.
    expect(await codeOf(q.complete(c.id, c.token as string))).toBe(ErrorCode.LEASE_LOST);
    expect(await codeOf(q.retry(c.id, c.token as string))).toBe(ErrorCode.LEASE_LOST);
    // Not kept (retention count 0): gone.
    await q.setRetention({ completed: { count: 0 } });
    await q.enqueue('g');
    const d = await claimed(q);
    await q.complete(d.id, d.token as string);
    expect(await codeOf(q.complete(d.id, d.token as string))).toBe(ErrorCode.JOB_NOT_FOUND);
    expect(await codeOf(q.retry('999999', 'x'))).toBe(ErrorCode.JOB_NOT_FOUND);
  });
});

describe('retry', () => {
  it('returns the job to the front of its own group and releases the permit at the moment of the retry', async () => {
    const q = engine.queue();
    await q.setLimit('a', 1);
    const a1 = await q.enqueue('a', 'a1');
    const a2 = await q.enqueue('a', 'a2');
    const b1 = await q.enqueue('b', 'b1');
    const c = await claimed(q);
    expect(c.id).toBe(a1.id);
    let s = await rawState(q);
    expect(s.ring).toEqual(['b']);
    expect(s.gactive).toEqual({ a: '1' });
    const wake = s.wake;

    const retried = await q.retry(c.id, c.token as string, 'boom');
    expect(retried).toMatchObject({
      id: a1.id,
      group: 'a',
      state: 'PENDING',
      attempts: 1,
      token: null,
      lastError: 'boom',
    });
    s = await rawState(q);
    expect(s.gactive).toEqual({}); // released now, not at some later reap
    expect(s.active).toEqual([]);
    expect(s.leases).toEqual({});
    expect(s.ring).toEqual(['b', 'a']);
    expect(s.wake).toBe(wake + 1);
    expect(s.lanes).toEqual({ a: [a1.id, a2.id], b: [b1.id] });
    expect(await q.redis.zscore(q.keys.lane('a'), a1.id)).toBe(a1.id); // its original score
    expect(await statsOf(q)).toMatchObject({ retried: 1, saturated: 0, pending: 3, active: 0 });

    expect((await claimed(q)).id).toBe(b1.id);
    const again = await claimed(q);
    expect(again).toMatchObject({ id: a1.id, group: 'a', attempts: 2 });
  });

  it('after maxAttempts the job is dead: kept, out of its lane, its permit released', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    const job = await q.enqueue('g', { x: 1 }, { maxAttempts: 2 });
    const next = await q.enqueue('g');

    const first = await claimed(q);
    await q.retry(first.id, first.token as string, 'one');
    const second = await claimed(q);
    expect(second).toMatchObject({ id: job.id, attempts: 2 });
    const dead = await q.retry(second.id, second.token as string, 'two');
    expect(dead).toMatchObject({ id: job.id, state: 'DEAD', attempts: 2, lastError: 'two' });
    expect(dead.finishedAt).toEqual(expect.any(Number));

    const s = await rawState(q);
    expect(s.dead).toEqual([job.id]);
    expect(s.lanes).toEqual({ g: [next.id] });
    expect(s.active).toEqual([]);
    expect(s.gactive).toEqual({});
    expect(s.ring).toEqual(['g']);
    expect(await q.job(job.id)).toMatchObject({ state: 'DEAD', payload: { x: 1 }, token: null });
    expect(await statsOf(q)).toMatchObject({ retried: 1, dead: 1, pending: 1 });
    expect((await q.counts()).dead).toBe(1);
    expect(await codeOf(q.retry(job.id, second.token as string))).toBe(ErrorCode.LEASE_LOST);
  });

  it('a reaped job that has used its last attempt is dead too', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { maxAttempts: 1 });
    await claimed(q, 20);
    expect(await reapAtLeast(q, 1)).toBe(1);
    const s = await rawState(q);
    expect(s.dead).toEqual([job.id]);
    expect(s.lanes).toEqual({});
    expect(s.gactive).toEqual({});
    expect(s.ring).toEqual([]);
    expect(await q.job(job.id)).toMatchObject({ state: 'DEAD', lastError: 'lease expired' });
    expect(await statsOf(q)).toMatchObject({ reaped: 1, dead: 1, pending: 0, active: 0 });
  });
});

describe('extendLease', () => {
  it('pushes the deadline out on the Redis clock, so the job outlives its first lease', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const c = await claimed(q, 50);
    const extended = await q.extendLease(c.id, c.token as string, 60_000);
    expect(extended.leaseUntil).toBeGreaterThan((c.leaseUntil as number) + 50_000);
    expect(Number(await q.redis.zscore(q.keys.active, c.id))).toBe(extended.leaseUntil);

    await untilRedisTimePasses(q.redis, c.leaseUntil as number);
    expect(await q.reap()).toBe(0);
    expect((await rawState(q)).gactive).toEqual({ g: '1' });
    expect(await codeOf(q.extendLease(c.id, 'not-the-token', 1000))).toBe(ErrorCode.LEASE_LOST);
    await q.complete(c.id, c.token as string);
  });
});

describe('extendLease only pushes the deadline out', () => {
  it('a shorter extension keeps the later deadline; a longer one moves it', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const job = (await q.claim({ leaseMs: 60_000 })) as Job;
    const token = job.token as string;
    const first = job.leaseUntil as number;

    const shorter = await q.extendLease(job.id, token, 1_000);
    expect(shorter.leaseUntil).toBe(first);
    expect(Number(await engine.redis().zscore(q.keys.active, job.id))).toBe(first);

    const longer = await q.extendLease(job.id, token, 120_000);
    expect(longer.leaseUntil as number).toBeGreaterThan(first);
    expect(Number(await engine.redis().zscore(q.keys.active, job.id))).toBe(longer.leaseUntil);
  });
});
