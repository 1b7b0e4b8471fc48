/**
 * The operator actions (DESIGN.md §3 "Operator actions", §4.1): requeueDead,
 * removeJobs and purgeGroup, by ids, by group and for the whole queue, paged by `limit`. After
 * every call the counters are exact and `Queue.audit` is clean (I1–I4 and the totals); ACTIVE
 * jobs are never touched; a removal that empties a lane de-rings the group and a requeue that
 * makes it serviceable re-rings it with a wake (I1), checked on the ring itself.
 */
import { describe, expect, it } from 'vitest';
import type { Job, JobActionResult, Queue } from '../../src/lanes/internal.js';
import { placeJob, placeJobs, placesOf } from '../support/jobs.js';
import { rawState, snapshot, statsOf, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Audit finds nothing: I1–I4 hold and every total agrees with a recount. */
async function expectClean(q: Queue): Promise<void> {
  expect((await q.audit()).findings).toEqual([]);
}

async function claimed(q: Queue, leaseMs = 600_000): Promise<Job> {
  const job = await q.claim({ leaseMs });
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

/** A dead job of `group` made by the engine (one attempt, failed). */
async function diedOnce(q: Queue, group: string, error = 'boom'): Promise<Job> {
  await q.enqueue(group, { doomed: group }, { maxAttempts: 1 });
  const job = await claimed(q);
  const dead = await q.retry(job.id, job.token as string, error);
  expect(dead.state).toBe('DEAD');
  return dead;
}

/** Call `action` until `remaining` is 0; every call's result, each followed by a clean audit. */
async function drain(q: Queue, action: () => Promise<JobActionResult>): Promise<JobActionResult[]> {
  const results: JobActionResult[] = [];
  for (let i = 0; i < 50; i++) {
    const r = await action();
    results.push(r);
    await expectClean(q);
    if (r.remaining === 0) return results;
  }
  throw new Error(`remaining never reached 0: ${JSON.stringify(results.slice(-3))}`);
}

describe('requeueDead', () => {
  it('by ids: back to the lane at the original FIFO place, attempts reset, errors kept, re-ringed with a wake', async () => {
    const q = engine.queue();
    const errors = [
      { attempt: 3, at: 3, message: 'third', stack: 'at x' },
      { attempt: 2, at: 2, message: 'second', stack: null },
    ];
    // b dies by the engine (one attempt, its error recorded); a is placed with a history.
    const b = (await diedOnce(q, 'b')).id;
    const a = await placeJob(q, 'a', 'dead', { attempts: 3, lastError: 'third', errors });
    const later = await q.enqueue('a', { n: 'later' });
    const pending = await q.enqueue('c');
    await q.redis.del(q.keys.wake);
    const before = await statsOf(q);
    expect((await rawState(q)).ring).toEqual(['a', 'c']);

    const r = await q.requeueDead({ ids: [a, b, pending.id, '999999', 'not-an-id'] });
    expect(r).toEqual({ count: 2, remaining: 0, skipped: 3 });

    const job = await q.job(a);
    expect(job).toMatchObject({
      state: 'PENDING',
      attempts: 0,
      lastError: 'third',
      finishedAt: null,
    });
    expect(await q.redis.lrange(q.keys.errors(a), 0, -1)).toEqual(
      errors.map((e) => JSON.stringify(e)),
    );
    const state = await rawState(q);
    expect(state.lanes.a).toEqual([a, later.id]);
    expect(state.lanes.b).toEqual([b]);
    expect(await q.job(b)).toMatchObject({ attempts: 0, lastError: 'boom' });
    expect((await q.job(b))?.errors).toMatchObject([{ attempt: 1, message: 'boom' }]);
    expect(state.dead).toEqual([]);
    expect(await q.redis.zcard(q.keys.groupDead('a'))).toBe(0);
    expect(await placesOf(q, 'a', a)).toEqual(['lane', 'hash', 'errors']);
    // a was on the ring already (no duplicate); b became serviceable: re-ringed, one wake.
    expect(state.ring).toEqual(['a', 'c', 'b']);
    expect(state.wake).toBe(1);
    const after = await statsOf(q);
    expect(Number(after.pending) - Number(before.pending)).toBe(2);
    expect(after.requeued).toBe(2);
    await expectClean(q);
    // FIFO: the requeued job runs before the job enqueued after it.
    expect((await claimed(q)).id).toBe(a);
  });

  it('resetAttempts false keeps attempts (a job that used them all gets one more try)', async () => {
    const q = engine.queue();
    const dead = await diedOnce(q, 'g');
    expect(dead.attempts).toBe(1);
    expect(await q.requeueDead({ ids: [dead.id] }, { resetAttempts: false })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.job(dead.id)).toMatchObject({
      state: 'PENDING',
      attempts: 1,
      lastError: 'boom',
    });
    await expectClean(q);
    const again = await claimed(q);
    expect(again).toMatchObject({ id: dead.id, attempts: 2 });
    expect((await q.retry(again.id, again.token as string, 'still')).state).toBe('DEAD');
  });

  it('by group, paged by limit: remaining goes to 0, other groups untouched', async () => {
    const q = engine.queue();
    const a = await placeJobs(q, 'a', 'dead', 5);
    const b = await placeJobs(q, 'b', 'dead', 2);
    const results = await drain(q, () => q.requeueDead({ group: 'a' }, { limit: 2 }));
    expect(results).toEqual([
      { count: 2, remaining: 3, skipped: 0 },
      { count: 2, remaining: 1, skipped: 0 },
      { count: 1, remaining: 0, skipped: 0 },
    ]);
    const state = await rawState(q);
    expect(state.lanes.a).toEqual(a);
    expect(state.dead.sort()).toEqual([...b].sort());
    expect(await q.redis.zrange(q.keys.groupDead('b'), 0, -1)).toEqual(b);
    expect(state.ring).toEqual(['a']);
    expect((await statsOf(q)).requeued).toBe(5);
  });

  it('all, paged by limit across groups, oldest-dead first', async () => {
    const q = engine.queue();
    const t = Date.now();
    const x = await placeJob(q, 'x', 'dead', { at: t + 30 });
    const y = await placeJob(q, 'y', 'dead', { at: t + 10 });
    const z = await placeJob(q, 'z', 'dead', { at: t + 20 });
    const first = await q.requeueDead({ all: true }, { limit: 2 });
    expect(first).toEqual({ count: 2, remaining: 1, skipped: 0 });
    expect((await rawState(q)).dead).toEqual([x]);
    // y then z went back, in that order, each re-ringed as it became serviceable.
    expect((await rawState(q)).ring).toEqual(['y', 'z']);
    await expectClean(q);
    expect(await q.requeueDead({ all: true }, { limit: 2 })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.requeueDead({ all: true })).toEqual({ count: 0, remaining: 0, skipped: 0 });
    await expectClean(q);
    expect((await rawState(q)).lanes).toEqual({ x: [x], y: [y], z: [z] });
  });

  it('re-rings by I1 only: a paused or saturated group stays off the ring, and is served once free', async () => {
    const q = engine.queue();
    const p = await placeJob(q, 'p', 'dead');
    const s = await placeJob(q, 's', 'dead');
    await q.pause('p');
    await q.setLimit('s', 0);
    await q.redis.del(q.keys.wake);
    expect(await q.requeueDead({ ids: [p, s] })).toEqual({ count: 2, remaining: 0, skipped: 0 });
    const state = await rawState(q);
    expect(state.ring).toEqual([]);
    expect(state.wake).toBe(0);
    expect(state.lanes).toEqual({ p: [p], s: [s] });
    await expectClean(q);
    await q.resume('p');
    await q.clearLimit('s');
    expect((await rawState(q)).ring).toEqual(['p', 's']);
  });

  it('never touches an ACTIVE job, even one listed in dead (damage): skipped every time', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const active = await claimed(q);
    const before = await snapshot(q.redis);
    expect(await q.requeueDead({ ids: [active.id] })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 1,
    });
    expect(await snapshot(q.redis)).toEqual(before);
    // A hand edit lists it in dead too (now: an entry older than the dead age is gone to every
    // reader and writer): requeue by all still leaves it where it runs.
    await q.redis.zadd(q.keys.dead, Date.now(), active.id);
    const result = await q.requeueDead({ all: true });
    expect(result).toEqual({ count: 0, remaining: 1, skipped: 1 });
    expect(await q.job(active.id)).toMatchObject({ state: 'ACTIVE', token: active.token });
    expect((await rawState(q)).active).toEqual([active.id]);
  });

  it('an entry whose job hash is gone is dropped, so looping on remaining ends', async () => {
    const q = engine.queue();
    const ghost = await placeJob(q, 'g', 'dead');
    const real = await placeJob(q, 'g', 'dead');
    await q.redis.del(q.keys.job(ghost));
    expect(await q.requeueDead({ group: 'g' })).toEqual({ count: 1, remaining: 0, skipped: 1 });
    expect((await rawState(q)).dead).toEqual([]);
    expect((await rawState(q)).lanes).toEqual({ g: [real] });
    await expectClean(q);
  });
});

describe('removeJobs', () => {
  it('by ids: pending, delayed, dead and completed leave every index, hash and errors gone; active and missing skipped', async () => {
    const q = engine.queue();
    await q.enqueue('b');
    const active = await claimed(q);
    const pending = await q.enqueue('a', { n: 1 });
    const keep = await q.enqueue('a', { n: 2 });
    const delayed = (await q.enqueue('a', { n: 'later' }, { delayMs: 60_000 })).id;
    const dead = await placeJob(q, 'a', 'dead', {
      errors: [{ attempt: 1, at: 1, message: 'x', stack: null }],
    });
    const completed = await placeJob(q, 'a', 'completed');
    const before = await statsOf(q);
    const activeBefore = await q.redis.hgetall(q.keys.job(active.id));

    const r = await q.removeJobs({
      ids: [pending.id, delayed, dead, completed, active.id, '424242', 'x', pending.id],
    });
    expect(r).toEqual({ count: 4, remaining: 0, skipped: 4 });
    for (const id of [pending.id, delayed, dead, completed]) {
      expect(await placesOf(q, 'a', id)).toEqual([]);
      expect(await q.job(id)).toBeNull();
    }
    expect(await q.redis.hgetall(q.keys.job(active.id))).toEqual(activeBefore);
    const state = await rawState(q);
    expect(state.lanes).toEqual({ a: [keep.id] });
    expect(state.active).toEqual([active.id]);
    expect(state.ring).toEqual(['a']);
    const after = await statsOf(q);
    expect(after.removed).toBe(4);
    expect(after.pending).toBe(Number(before.pending) - 1);
    expect(after.delayed).toBe(Number(before.delayed) - 1);
    expect(after.active).toBe(before.active);
    await expectClean(q);
  });

  it('by ids with a state: only the jobs in that state', async () => {
    const q = engine.queue();
    const pending = await q.enqueue('a');
    const dead = await placeJob(q, 'a', 'dead');
    expect(await q.removeJobs({ ids: [pending.id, dead], state: 'DEAD' })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 1,
    });
    expect(await q.job(pending.id)).toMatchObject({ state: 'PENDING' });
    expect(await q.job(dead)).toBeNull();
    await expectClean(q);
  });

  it('never touches an ACTIVE job, whatever its hash or an index says (damage)', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const active = await claimed(q);
    // Another writer's damage: the running job's hash says dead, and a's dead index lists it.
    await q.redis.hset(q.keys.job(active.id), 'state', 'dead');
    await q.redis.zadd(q.keys.groupDead('a'), Date.now(), active.id);
    await q.redis.zadd(q.keys.dead, Date.now(), active.id);
    const before = await snapshot(q.redis);
    expect(await q.removeJobs({ ids: [active.id] })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 1,
    });
    expect(await q.removeJobs({ group: 'a', state: 'DEAD' })).toEqual({
      count: 0,
      remaining: 1,
      skipped: 1,
    });
    expect(await q.removeJobs({ all: true, state: 'DEAD' })).toEqual({
      count: 0,
      remaining: 1,
      skipped: 1,
    });
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it('the last pending job of a group de-rings it (from the middle of the ring)', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const b = await q.enqueue('b');
    await q.enqueue('c');
    expect((await rawState(q)).ring).toEqual(['a', 'b', 'c']);
    expect(await q.removeJobs({ ids: [b.id] })).toEqual({ count: 1, remaining: 0, skipped: 0 });
    expect((await rawState(q)).ring).toEqual(['a', 'c']);
    await expectClean(q);
  });

  it.each([
    ['DELAYED', 'delayed'],
    ['DEAD', 'dead'],
    ['COMPLETED', 'completed'],
  ] as const)(
    'by group, %s, paged by limit: only that group’s, both indexes emptied',
    async (state, place) => {
      const q = engine.queue();
      const mine = await placeJobs(q, 'a', place, 5, { at: Date.now() + 60_000 });
      const theirs = await placeJobs(q, 'b', place, 2, { at: Date.now() + 60_000 });
      const results = await drain(q, () => q.removeJobs({ group: 'a', state }, { limit: 2 }));
      expect(results.map((r) => [r.count, r.remaining, r.skipped])).toEqual([
        [2, 3, 0],
        [2, 1, 0],
        [1, 0, 0],
      ]);
      for (const id of mine) expect(await placesOf(q, 'a', id)).toEqual([]);
      for (const id of theirs) expect((await placesOf(q, 'b', id)).length).toBeGreaterThan(2);
      const index = { delayed: q.keys.delayed, dead: q.keys.dead, completed: q.keys.completed }[
        place
      ];
      expect((await q.redis.zrange(index, 0, -1)).sort()).toEqual([...theirs].sort());
      expect((await statsOf(q)).removed).toBe(5);
      expect((await statsOf(q)).delayed).toBe(place === 'delayed' ? 2 : 0);
    },
  );

  it.each([
    ['DELAYED', 'delayed'],
    ['DEAD', 'dead'],
    ['COMPLETED', 'completed'],
  ] as const)('all %s, paged by limit, oldest first, across groups', async (state, place) => {
    const q = engine.queue();
    const t = Date.now() + 60_000;
    const late = await placeJob(q, 'a', place, { at: t + 20 });
    const early = await placeJob(q, 'b', place, { at: t });
    const mid = await placeJob(q, 'c', place, { at: t + 10 });
    expect(await q.removeJobs({ all: true, state }, { limit: 2 })).toEqual({
      count: 2,
      remaining: 1,
      skipped: 0,
    });
    expect(await q.job(early)).toBeNull();
    expect(await q.job(mid)).toBeNull();
    expect(await q.job(late)).not.toBeNull();
    await expectClean(q);
    expect(await q.removeJobs({ all: true, state }, { limit: 2 })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    await expectClean(q);
  });

  it('leaves a job in another state than its index says (stale entry): dropped from that index only', async () => {
    const q = engine.queue();
    const pending = await q.enqueue('a');
    // A hand edit lists a pending job in a's dead index.
    await q.redis.zadd(q.keys.groupDead('a'), Date.now(), pending.id);
    expect(await q.removeJobs({ group: 'a', state: 'DEAD' })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 1,
    });
    expect(await q.job(pending.id)).toMatchObject({ state: 'PENDING' });
    await expectClean(q);
  });
});

describe('purgeGroup', () => {
  it('removes the backlog in run order, paged by limit; active jobs run on; the group leaves the ring at the end', async () => {
    const q = engine.queue();
    await q.setLimit('a', 2);
    const jobs: Job[] = [];
    for (let i = 0; i < 7; i++) jobs.push(await q.enqueue('a', { i }));
    await q.enqueue('b');
    const running = await claimed(q);
    expect(running.id).toBe(jobs[0]?.id);
    const delayed = await placeJob(q, 'a', 'delayed', { at: Date.now() + 60_000 });
    const dead = await placeJob(q, 'a', 'dead');
    expect((await rawState(q)).ring).toEqual(['b', 'a']);

    const first = await q.purgeGroup('a', { limit: 4 });
    expect(first).toEqual({ count: 4, remaining: 2, skipped: 0 });
    // The first 4 of the backlog (run order) went; the group is still serviceable.
    expect((await rawState(q)).lanes.a).toEqual(jobs.slice(5).map((j) => j.id));
    expect((await rawState(q)).ring).toEqual(['b', 'a']);
    await expectClean(q);

    expect(await q.purgeGroup('a', { limit: 4 })).toEqual({ count: 2, remaining: 0, skipped: 0 });
    const state = await rawState(q);
    expect(state.lanes.a).toBeUndefined();
    expect(state.ring).toEqual(['b']);
    expect(state.gactive).toEqual({ a: '1' });
    expect(await q.job(running.id)).toMatchObject({ state: 'ACTIVE', token: running.token });
    expect(await q.job(delayed)).toMatchObject({ state: 'DELAYED' });
    expect(await q.job(dead)).toMatchObject({ state: 'DEAD' });
    expect((await statsOf(q)).removed).toBe(6);
    expect((await statsOf(q)).pending).toBe(1);
    await expectClean(q);
    // The running job completes as usual.
    expect((await q.complete(running.id, running.token as string)).state).toBe('COMPLETED');
    await expectClean(q);
  });

  it('a lane member with no job hash (a seed writer’s bare id) is removed like a job', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.redis.zadd(q.keys.lane('a'), 0, 'bare');
    await q.redis.hincrby(q.keys.stats, 'pending', 1);
    expect(await q.purgeGroup('a')).toEqual({ count: 2, remaining: 0, skipped: 0 });
    expect((await rawState(q)).ring).toEqual([]);
    await expectClean(q);
  });

  it('on a group with nothing pending changes nothing', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const before = await snapshot(q.redis);
    expect(await q.purgeGroup('empty')).toEqual({ count: 0, remaining: 0, skipped: 0 });
    expect(await snapshot(q.redis)).toEqual(before);
  });
});
