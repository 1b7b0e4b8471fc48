/**
 * DESIGN.md §3, one rule per test, against a real Redis through the public engine API.
 * Every test asserts the stored state exactly: ring contents and order, gactive, lanes, the
 * wake list's length and the stats counters, not only what the engine answers.
 */
import { describe, expect, it, vi } from 'vitest';
import { type Job, Queue, REGISTRATION_REFRESH_MS, Ringmaster } from '../../src/lanes/internal.js';
import { pollUntil, rawState, statsOf, useEngine } from '../support/lanes.js';

const engine = useEngine();

async function claimed(q: Queue): Promise<Job> {
  const job = await q.claim();
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

async function enqueueMany(q: Queue, group: string, n: number): Promise<Job[]> {
  const jobs: Job[] = [];
  for (let i = 0; i < n; i++) jobs.push(await q.enqueue(group, { i }));
  return jobs;
}

describe('claim (the seed @gclaim)', () => {
  it('the claim that reaches the limit de-rings the group', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    const [j1, j2, j3] = await enqueueMany(q, 'g', 3);

    const a = await claimed(q);
    expect(a.id).toBe(j1?.id);
    let s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.gactive).toEqual({ g: '1' });

    const b = await claimed(q);
    expect(b.id).toBe(j2?.id);
    s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.gactive).toEqual({ g: '2' });
    expect(s.lanes).toEqual({ g: [j3?.id] });
    expect(s.active.sort()).toEqual([j1?.id, j2?.id].sort());
    expect((await statsOf(q)).saturated).toBe(1);

    expect(await q.claim()).toBeNull();
    expect(await q.group('g')).toMatchObject({
      limit: 2,
      active: 2,
      pending: 1,
      onRing: false,
      state: 'SATURATED',
    });
    expect((await q.counts()).saturated).toBe(1);
  });

  it('records the lease: active, leases, token, attempts + 1, stats', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', { hello: 'world' });
    expect(job).toMatchObject({ state: 'PENDING', attempts: 0, token: null, group: 'g' });

    const c = await claimed(q);
    expect(c).toMatchObject({
      id: job.id,
      group: 'g',
      state: 'ACTIVE',
      attempts: 1,
      payload: { hello: 'world' },
    });
    expect(c.token).toMatch(/.+/);
    const deadline = Number(await q.redis.zscore(q.keys.active, c.id));
    expect(c.leaseUntil).toBe(deadline);
    const s = await rawState(q);
    expect(s.leases).toEqual({ [c.id]: 'g' });
    expect(s.gactive).toEqual({ g: '1' });
    expect(s.lanes).toEqual({});
    // Its lane is now empty: de-ringed (the rota addition for a fair ring).
    expect(s.ring).toEqual([]);
    expect(await statsOf(q)).toMatchObject({ enqueued: 1, claimed: 1, pending: 0, active: 1 });
  });

  it('a served group still serviceable rotates to the tail; an emptied one leaves the ring', async () => {
    const q = engine.queue();
    await q.enqueue('x');
    await q.enqueue('x');
    await q.enqueue('y');
    expect(await q.ring()).toEqual(['x', 'y']);
    expect((await claimed(q)).group).toBe('x');
    expect(await q.ring()).toEqual(['y', 'x']);
    expect((await claimed(q)).group).toBe('y');
    expect(await q.ring()).toEqual(['x']);
    expect((await claimed(q)).group).toBe('x');
    expect(await q.ring()).toEqual([]);
    expect(await q.claim()).toBeNull();
  });

  it('a stale head (paused, saturated or empty, left by another writer) is dropped and the next tried', async () => {
    const q = engine.queue();
    await q.enqueue('p');
    await q.pause('p');
    await q.setLimit('s', 0);
    await q.enqueue('s');
    const live = await q.enqueue('live');
    expect(await q.ring()).toEqual(['live']);
    // Another writer left three groups at the head that I1 says are not serviceable.
    await q.redis.lpush(q.keys.ring, 'empty', 's', 'p');
    expect(await q.ring()).toEqual(['p', 's', 'empty', 'live']);

    const c = await claimed(q);
    expect(c.id).toBe(live.id);
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.gactive).toEqual({ live: '1' });
    expect(s.lanes).toEqual({ p: ['1'], s: ['2'] });
  });

  it('returns null and changes nothing when no group is serviceable', async () => {
    const q = engine.queue();
    await q.enqueue('p');
    await q.pause('p');
    const before = await rawState(q);
    expect(await q.claim()).toBeNull();
    expect(await rawState(q)).toEqual(before);
  });
});

describe('complete', () => {
  it('a completion below the limit re-rings and pushes exactly one wake', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    await enqueueMany(q, 'g', 4);
    const wakeAfterEnqueue = (await rawState(q)).wake;
    expect(wakeAfterEnqueue).toBe(1); // the first enqueue re-ringed it; the rest found it on
    const a = await claimed(q);
    const b = await claimed(q);
    expect(await q.ring()).toEqual([]);

    const done = await q.complete(a.id, a.token as string);
    expect(done).toMatchObject({ id: a.id, state: 'COMPLETED', group: 'g' });
    let s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wakeAfterEnqueue + 1);
    expect(s.gactive).toEqual({ g: '1' });
    expect(s.active).toEqual([b.id]);
    expect(s.leases).toEqual({ [b.id]: 'g' });
    // kept by the default completed retention: state completed, the lease gone
    expect(await q.redis.hmget(q.keys.job(a.id), 'state', 'token', 'leaseUntil')).toEqual([
      'completed',
      null,
      null,
    ]);
    expect(await statsOf(q)).toMatchObject({ completed: 1, saturated: 0, active: 1 });

    // Already on the ring: a second completion neither duplicates it nor wakes anyone.
    await q.complete(b.id, b.token as string);
    s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wakeAfterEnqueue + 1);
    expect(s.gactive).toEqual({}); // field removed at 0
  });

  it('every re-ring pushes one wake and the wake list is trimmed to 64', async () => {
    const q = engine.queue();
    const groups = Array.from({ length: 70 }, (_, i) => `g${String(i).padStart(2, '0')}`);
    for (const [i, g] of groups.entries()) {
      await q.enqueue(g);
      expect(await q.redis.llen(q.keys.wake)).toBe(Math.min(i + 1, 64));
    }
    const s = await rawState(q);
    expect(s.wake).toBe(64);
    expect(s.ring).toEqual(groups);
  });
});

describe('setLimit (the seed @glimit)', () => {
  it('lowering the limit below the live count de-rings at once; nothing is claimed until active drops below it, then exactly one re-ring', async () => {
    const q = engine.queue();
    await q.setLimit('g', 3);
    await enqueueMany(q, 'g', 4);
    const a = await claimed(q);
    const b = await claimed(q);
    expect(await q.ring()).toEqual(['g']);
    const wake = (await rawState(q)).wake;

    const info = await q.setLimit('g', 1);
    expect(info).toMatchObject({ limit: 1, active: 2, pending: 2, onRing: false });
    expect(info.state).toBe('SATURATED');
    let s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(wake);
    expect(await q.claim()).toBeNull();

    await q.complete(a.id, a.token as string);
    s = await rawState(q);
    expect(s.gactive).toEqual({ g: '1' }); // 1 >= 1: still parked
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(wake);
    expect(await q.claim()).toBeNull();

    await q.complete(b.id, b.token as string);
    s = await rawState(q);
    expect(s.gactive).toEqual({});
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wake + 1);
    expect((await statsOf(q)).saturated).toBe(0);

    const c = await claimed(q);
    expect(c.group).toBe('g');
    expect(await q.ring()).toEqual([]); // at its new limit again
  });

  it('raising the limit re-admits at once, with a wake, without waiting for a completion', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await enqueueMany(q, 'g', 2);
    await claimed(q);
    expect(await q.ring()).toEqual([]);
    const wake = (await rawState(q)).wake;

    const info = await q.setLimit('g', 2);
    expect(info).toMatchObject({ limit: 2, active: 1, pending: 1, onRing: true, state: 'READY' });
    const s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wake + 1);
    expect((await statsOf(q)).saturated).toBe(0);

    expect((await claimed(q)).group).toBe('g');
    expect((await rawState(q)).gactive).toEqual({ g: '2' });
  });

  it('limit 0 parks the group: off the ring, nothing claimed, even a completion does not re-admit it', async () => {
    const q = engine.queue();
    await enqueueMany(q, 'g', 3);
    const running = await claimed(q);
    expect(await q.ring()).toEqual(['g']);
    const wake = (await rawState(q)).wake;

    const info = await q.setLimit('g', 0);
    expect(info).toMatchObject({ limit: 0, active: 1, pending: 2, state: 'SATURATED' });
    let s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.glimit).toEqual({ g: '0' });
    expect(await q.claim()).toBeNull();

    await q.complete(running.id, running.token as string);
    s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(wake);
    expect(s.lanes.g).toHaveLength(2);
    expect(await q.claim()).toBeNull();
    expect(await q.group('g')).toMatchObject({ active: 0, state: 'SATURATED' });
    expect((await statsOf(q)).saturated).toBe(1);
  });

  it('a limit set on a group with no work registers it and touches neither ring nor wake', async () => {
    const q = engine.queue();
    const info = await q.setLimit('g', 5);
    expect(info).toMatchObject({ limit: 5, active: 0, pending: 0, state: 'IDLE', onRing: false });
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(0);
    expect(s.groups).toEqual(['g']);
  });
});

describe('clearLimit', () => {
  it('re-admits a parked group with a wake', async () => {
    const q = engine.queue();
    await q.setLimit('g', 0);
    await enqueueMany(q, 'g', 2);
    expect(await q.ring()).toEqual([]);
    expect((await rawState(q)).wake).toBe(0);
    expect((await statsOf(q)).saturated).toBe(1);

    const info = await q.clearLimit('g');
    expect(info).toMatchObject({
      limit: null,
      active: 0,
      pending: 2,
      onRing: true,
      state: 'READY',
    });
    const s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(1);
    expect(s.glimit).toEqual({});
    expect((await statsOf(q)).saturated).toBe(0);
    expect((await claimed(q)).group).toBe('g');
    expect((await claimed(q)).group).toBe('g'); // unlimited now
  });

  it('does not re-ring a paused group or an empty one', async () => {
    const q = engine.queue();
    await q.setLimit('p', 0);
    await q.enqueue('p');
    await q.pause('p');
    await q.setLimit('e', 0);
    await q.clearLimit('p');
    await q.clearLimit('e');
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(0);
    expect(s.glimit).toEqual({});
  });
});

describe('pause and resume (the seed @gpause)', () => {
  it('pause keeps the backlog and the in-flight jobs; nothing of the group is claimed after it returns', async () => {
    const q = engine.queue();
    const pJobs = await enqueueMany(q, 'p', 3);
    const oJobs = await enqueueMany(q, 'o', 3);
    const running = await claimed(q);
    expect(running.id).toBe(pJobs[0]?.id);
    expect(await q.ring()).toEqual(['o', 'p']);

    const info = await q.pause('p');
    expect(info).toMatchObject({ paused: true, active: 1, pending: 2, state: 'PAUSED' });
    let s = await rawState(q);
    expect(s.ring).toEqual(['o']);
    expect(s.paused).toEqual(['p']);
    expect(s.lanes.p).toEqual([pJobs[1]?.id, pJobs[2]?.id]);
    expect(s.active).toEqual([running.id]);
    expect(s.gactive).toEqual({ p: '1' });

    const served: string[] = [];
    for (let job = await q.claim(); job; job = await q.claim()) served.push(job.id);
    expect(served).toEqual(oJobs.map((j) => j.id));

    // The in-flight job is untouched: it still completes normally.
    await q.complete(running.id, running.token as string);
    s = await rawState(q);
    expect(s.lanes.p).toEqual([pJobs[1]?.id, pJobs[2]?.id]);
    expect(s.ring).toEqual([]);
  });

  it('no job of a paused group is claimed after pause returns, with claims racing on other connections', async () => {
    const q = engine.queue();
    const conns = [engine.client(), engine.client(), engine.client()];
    const queues = conns.map((c) => new Queue(c, q.name));
    for (let i = 0; i < 300; i++) {
      await q.enqueue('p', i);
      await q.enqueue('o', i);
    }
    let pauseReturned = false;
    const violations: string[] = [];
    let pClaimedBefore = 0;
    const claimers = queues.map(async (cq) => {
      for (;;) {
        const issuedAfterPause = pauseReturned;
        const job = await cq.claim();
        if (!job) return;
        if (job.group === 'p') {
          if (issuedAfterPause) violations.push(job.id);
          else pClaimedBefore += 1;
        }
      }
    });
    // Let some claims through first, then pause mid-stream.
    await pollUntil('a claim of p', async () => (await q.redis.hget(q.keys.gactive, 'p')) !== null);
    await q.pause('p');
    pauseReturned = true;
    await Promise.all(claimers);

    expect(violations).toEqual([]);
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(Number(s.gactive.p)).toBe(pClaimedBefore);
    expect(s.lanes.p).toHaveLength(300 - pClaimedBefore);
    expect(s.lanes.o).toBeUndefined();
  });

  it('a completion while paused does not re-ring', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await enqueueMany(q, 'g', 2);
    const a = await claimed(q);
    await q.pause('g');
    const wake = (await rawState(q)).wake;

    await q.complete(a.id, a.token as string);
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(wake);
    expect(s.gactive).toEqual({});
    expect(await q.group('g')).toMatchObject({ state: 'PAUSED', active: 0, pending: 1 });
    expect(await q.claim()).toBeNull();
  });

  it('resume re-rings a serviceable group with a wake', async () => {
    const q = engine.queue();
    await enqueueMany(q, 'g', 2);
    await q.pause('g');
    const wake = (await rawState(q)).wake;
    const info = await q.resume('g');
    expect(info).toMatchObject({ paused: false, onRing: true, state: 'READY' });
    const s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.paused).toEqual([]);
    expect(s.wake).toBe(wake + 1);
  });

  it('resume leaves a paused group at its limit off the ring until a permit frees', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await enqueueMany(q, 'g', 2);
    const a = await claimed(q);
    await q.pause('g');
    const wake = (await rawState(q)).wake;

    const info = await q.resume('g');
    expect(info).toMatchObject({ paused: false, onRing: false, state: 'SATURATED' });
    let s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(wake);
    expect(await q.claim()).toBeNull();

    await q.complete(a.id, a.token as string);
    s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(wake + 1);
  });

  it('resume leaves an empty group off the ring, and resuming an unpaused group changes nothing', async () => {
    const q = engine.queue();
    await q.pause('idle');
    expect(await q.resume('idle')).toMatchObject({ state: 'IDLE', onRing: false });
    await q.enqueue('on');
    const before = await rawState(q);
    expect(before.ring).toEqual(['on']);
    await q.resume('on');
    const after = await rawState(q);
    expect(after.ring).toEqual(['on']);
    expect(after.wake).toBe(before.wake);
    expect(after.groups).toEqual(['idle', 'on']);
  });

  it('pause → resume → pause with in-flight jobs ends paused', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    await enqueueMany(q, 'g', 3);
    const a = await claimed(q);
    expect(await q.ring()).toEqual(['g']);

    await q.pause('g');
    expect(await q.ring()).toEqual([]);
    await q.resume('g');
    expect(await q.ring()).toEqual(['g']);
    const info = await q.pause('g');
    expect(info).toMatchObject({ paused: true, active: 1, pending: 2, state: 'PAUSED' });

    let s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.paused).toEqual(['g']);
    expect(s.gactive).toEqual({ g: '1' });
    expect(s.lanes.g).toHaveLength(2);
    expect(await q.claim()).toBeNull();

    await q.complete(a.id, a.token as string);
    s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.paused).toEqual(['g']);
    expect(await q.claim()).toBeNull();
  });
});

describe('enqueue', () => {
  it('re-rings with one wake only on the transition to serviceable', async () => {
    const q = engine.queue();
    const j1 = await q.enqueue('g', { n: 1 }, { maxAttempts: 5 });
    expect(j1).toMatchObject({ group: 'g', state: 'PENDING', attempts: 0, maxAttempts: 5 });
    expect(j1.payload).toEqual({ n: 1 });
    let s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(1);
    expect(s.groups).toEqual(['g']);

    const j2 = await q.enqueue('g');
    expect(j2.payload).toBeNull();
    expect(Number(j2.id)).toBe(Number(j1.id) + 1);
    s = await rawState(q);
    expect(s.ring).toEqual(['g']);
    expect(s.wake).toBe(1);
    expect(s.lanes).toEqual({ g: [j1.id, j2.id] });
    expect(await q.redis.zscore(q.keys.lane('g'), j2.id)).toBe(j2.id); // FIFO score = id
    expect(await statsOf(q)).toMatchObject({ enqueued: 2, pending: 2 });
  });

  it('does not ring a paused or saturated group', async () => {
    const q = engine.queue();
    await q.pause('p');
    await q.setLimit('s', 0);
    await q.enqueue('p');
    await q.enqueue('s');
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.wake).toBe(0);
    expect(s.lanes).toEqual({ p: ['1'], s: ['2'] });
  });
});

describe('registration', () => {
  it('enqueue, setLimit, clearLimit, pause and resume register the group and the queue; reads do not', async () => {
    const q = engine.queue();
    await q.group('r0');
    await q.groups();
    await q.counts();
    expect(await q.redis.sismember('emq:queues', q.name)).toBe(0);
    expect(await q.redis.exists(q.keys.groups)).toBe(0);

    await q.enqueue('a');
    await q.setLimit('b', 1);
    await q.clearLimit('c');
    await q.pause('d');
    await q.resume('e');
    expect((await rawState(q)).groups).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await q.redis.sismember('emq:queues', q.name)).toBe(1);
  });

  it('a connection sends the SADD once per REGISTRATION_REFRESH_MS, and again after it (a registry entry removed by hand comes back)', async () => {
    // Handles of one engine share its connection's state (`Ringmaster` owns a `Connection`).
    const rm = new Ringmaster(engine.redis());
    const q = rm.queue(engine.queue().name);
    const sadds = async () => {
      const stats = (await q.redis.info('commandstats')).match(/cmdstat_sadd:calls=(\d+)/);
      return Number(stats?.[1] ?? 0);
    };
    const before = await sadds();
    for (let i = 0; i < 10; i++) await q.enqueue(`g${i}`);
    await q.setLimit('g0', 2);
    // Another handle of the same engine shares what it knows. (No SADD inside these scripts:
    // commandstats counts a script's commands too, register-1.lua's SADD included.)
    await rm.queue(q.name).clearLimit('g1');
    expect((await sadds()) - before).toBe(1);

    await q.redis.srem('emq:queues', q.name);
    await q.resume('g1');
    expect(await q.redis.sismember('emq:queues', q.name)).toBe(0);
    // The refresh is due by the connection's clock (Date.now): moved past it, not waited out.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + REGISTRATION_REFRESH_MS + 50);
      await q.resume('g1');
    } finally {
      vi.useRealTimers();
    }
    expect(await q.redis.sismember('emq:queues', q.name)).toBe(1);
    expect((await sadds()) - before).toBe(2);
  });
});

describe('I2: re-ring never duplicates', () => {
  it('every path that can re-ring leaves each group on the ring at most once, in rota order', async () => {
    const q = engine.queue();
    await q.enqueue('h');
    await q.enqueue('g');
    await q.enqueue('g');
    await q.enqueue('g');
    const ring = async () => q.ring();
    expect(await ring()).toEqual(['h', 'g']);

    await q.resume('g'); // not paused
    await q.clearLimit('g'); // no limit
    await q.setLimit('g', 5); // raise while serviceable
    await q.setLimit('g', 10);
    await q.enqueue('g');
    expect(await ring()).toEqual(['h', 'g']);

    const h = await claimed(q); // h emptied: off
    expect(h.group).toBe('h');
    expect(await ring()).toEqual(['g']);
    const g1 = await claimed(q);
    expect(await ring()).toEqual(['g']);
    await q.complete(g1.id, g1.token as string); // completion while on the ring
    const g2 = await claimed(q);
    await q.retry(g2.id, g2.token as string); // retry while on the ring
    expect(await ring()).toEqual(['g']);

    await q.setLimit('g', 1); // active 0 < 1: stays
    const g3 = await claimed(q); // de-ringed at the limit
    expect(await ring()).toEqual([]);
    await q.setLimit('g', 3); // re-ring
    await q.setLimit('g', 4); // already on
    await q.resume('g');
    await q.clearLimit('g');
    await q.enqueue('g');
    expect(await ring()).toEqual(['g']);
    await q.complete(g3.id, g3.token as string);
    expect(await ring()).toEqual(['g']);

    await q.pause('g');
    await q.pause('g');
    await q.resume('g');
    await q.resume('g');
    await q.enqueue('h');
    expect(await ring()).toEqual(['g', 'h']);
    const s = await rawState(q);
    expect(new Set(s.ring).size).toBe(s.ring.length);
  });
});
