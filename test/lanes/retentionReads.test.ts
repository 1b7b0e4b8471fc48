/**
 * "A completed job looked up inside its window says COMPLETED; outside it, it
 * is gone (null)" — on every read, not only after a trim (DESIGN.md §2 "Retention", §4.1).
 * The reaper never runs here (an engine queue has none) and no completion follows the ones
 * under test, so every job past its age is still in Redis: what hides it is the read — and
 * the counts (Queue.counts, the snapshot's, the metrics read) leave it out alike.
 */
import { describe, expect, it } from 'vitest';
import type { Job, Queue } from '../../src/lanes/index.js';
import { untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Enqueue one job per group and complete each; returns the jobs and the last finish time. */
async function completed(q: Queue, groups: string[]): Promise<{ ids: string[]; last: number }> {
  const ids: string[] = [];
  for (const g of groups) await q.enqueue(g, { g });
  for (const _ of groups) {
    const job = (await q.claim()) as Job;
    await q.complete(job.id, job.token as string);
    ids.push(job.id);
  }
  const last = Number(await q.redis.zscore(q.keys.completed, ids.at(-1) as string));
  return { ids, last };
}

/** Enqueue one job per group with one attempt and fail each: dead. */
async function dead(q: Queue, groups: string[]): Promise<{ ids: string[]; last: number }> {
  const ids: string[] = [];
  for (const g of groups) await q.enqueue(g, { g }, { maxAttempts: 1 });
  for (const _ of groups) {
    const job = (await q.claim()) as Job;
    await q.retry(job.id, job.token as string, 'boom');
    ids.push(job.id);
  }
  const last = Number(await q.redis.zscore(q.keys.dead, ids.at(-1) as string));
  return { ids, last };
}

/** Every id of a state's pages, `first` at a time, with the first page's totalCount. */
async function listed(
  q: Queue,
  state: 'COMPLETED' | 'DEAD',
  group?: string,
  first = 1,
): Promise<{ ids: string[]; total: number }> {
  const ids: string[] = [];
  let after: string | null = null;
  let total = -1;
  for (;;) {
    const page = await q.jobs({ state, group, first, after });
    if (total < 0) total = page.totalCount;
    ids.push(...page.jobs.map((j) => j.id));
    if (!page.hasNextPage) return { ids, total };
    after = page.endCursor;
  }
}

/**
 * The queue's kept completed and dead jobs as every count reads them — Queue.counts, the
 * snapshot's counts and the metrics read — checked to agree, so each is held to the lists.
 */
async function counted(q: Queue): Promise<{ completed: number; dead: number }> {
  const [counts, snapshot, metrics] = await Promise.all([q.counts(), q.snapshot(), q.metrics()]);
  const kept = { completed: counts.completed, dead: counts.dead };
  expect({ completed: snapshot.counts.completed, dead: snapshot.counts.dead }).toEqual(kept);
  expect({ completed: metrics.completed, dead: metrics.dead }).toEqual(kept);
  return kept;
}

describe('completed jobs past their retention age read as gone, with no trim', () => {
  it('inside the window COMPLETED and listed; outside it null, unlisted, uncounted', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 100, ageMs: 1000 } });
    const { ids, last } = await completed(q, ['a', 'b', 'a']);
    const newestFirst = [...ids].reverse();

    expect(await q.job(ids[0] as string)).toMatchObject({ state: 'COMPLETED' });
    expect(await listed(q, 'COMPLETED')).toEqual({ ids: newestFirst, total: 3 });
    expect(await listed(q, 'COMPLETED', 'a')).toEqual({
      ids: [ids[2], ids[0]],
      total: 2,
    });

    expect(await counted(q)).toEqual({ completed: 3, dead: 0 });

    await untilRedisTimePasses(q.redis, last + 1000);
    for (const id of ids) expect(await q.job(id)).toBeNull();
    expect(await listed(q, 'COMPLETED')).toEqual({ ids: [], total: 0 });
    expect(await listed(q, 'COMPLETED', 'a')).toEqual({ ids: [], total: 0 });
    expect(await counted(q)).toEqual({ completed: 0, dead: 0 });
    // Still in Redis: the read hid them, no trim ran.
    expect(await q.redis.zcard(q.keys.completed)).toBe(3);
    expect(await q.redis.exists(q.keys.job(ids[0] as string))).toBe(1);
  });

  it('a page stops at the first job past the age; totalCount counts the kept ones only', async () => {
    const q = engine.queue();
    // No age bound while the jobs complete, so no completion trims the old ones by age.
    await q.setRetention({ completed: { count: 100, ageMs: null } });
    const old = await completed(q, ['a', 'b']);
    await untilRedisTimePasses(q.redis, old.last + 1000);
    const fresh = await completed(q, ['a', 'b']);
    await q.setRetention({ completed: { count: 100, ageMs: 1000 } });
    expect(await q.redis.zcard(q.keys.completed)).toBe(4);
    const page = await q.jobs({ state: 'COMPLETED', first: 2 });
    expect(page.jobs.map((j) => j.id)).toEqual([...fresh.ids].reverse());
    expect(page.hasNextPage).toBe(false);
    expect(page.totalCount).toBe(2);
    expect(await listed(q, 'COMPLETED')).toEqual({ ids: [...fresh.ids].reverse(), total: 2 });
    expect(await listed(q, 'COMPLETED', 'b')).toEqual({ ids: [fresh.ids[1]], total: 1 });
    expect(await counted(q)).toEqual({ completed: 2, dead: 0 });
    expect(await q.job(old.ids[0] as string)).toBeNull();
    expect(await q.job(fresh.ids[0] as string)).toMatchObject({ state: 'COMPLETED' });
  });

  it('no age bound (ageMs null): kept by count alone, read as COMPLETED however old', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 100, ageMs: null } });
    const { ids, last } = await completed(q, ['a']);
    await untilRedisTimePasses(q.redis, last + 50);
    expect(await q.job(ids[0] as string)).toMatchObject({ state: 'COMPLETED' });
    expect(await listed(q, 'COMPLETED')).toEqual({ ids, total: 1 });
  });

  it('the dead retention is its own: a short completed age leaves dead jobs alone', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 100, ageMs: 1 } });
    const { ids, last } = await dead(q, ['a']);
    await untilRedisTimePasses(q.redis, last + 50);
    expect(await q.job(ids[0] as string)).toMatchObject({ state: 'DEAD', lastError: 'boom' });
    expect(await listed(q, 'DEAD')).toEqual({ ids, total: 1 });
  });
});

describe('dead jobs past their retention age read as gone, with no trim', () => {
  it('inside the window DEAD with its errors; outside it null, unlisted, uncounted', async () => {
    const q = engine.queue();
    await q.setRetention({ dead: { count: 100, ageMs: 1000 } });
    const { ids, last } = await dead(q, ['a', 'b']);
    const inside = await q.job(ids[0] as string);
    expect(inside).toMatchObject({ state: 'DEAD', lastError: 'boom' });
    expect(inside?.errors).toHaveLength(1);
    expect(await listed(q, 'DEAD')).toEqual({ ids: [...ids].reverse(), total: 2 });
    expect(await listed(q, 'DEAD', 'b')).toEqual({ ids: [ids[1]], total: 1 });
    expect(await counted(q)).toEqual({ completed: 0, dead: 2 });

    await untilRedisTimePasses(q.redis, last + 1000);
    for (const id of ids) expect(await q.job(id)).toBeNull();
    expect(await listed(q, 'DEAD')).toEqual({ ids: [], total: 0 });
    expect(await counted(q)).toEqual({ completed: 0, dead: 0 });
    expect(await listed(q, 'DEAD', 'b')).toEqual({ ids: [], total: 0 });
    expect(await q.redis.zcard(q.keys.dead)).toBe(2);
  });
});

describe('writers agree: a job past its retention age is gone to them too, with no trim', () => {
  const AGE_MS = 2_000;
  /**
   * Old dead (groups a, b) and completed (a) jobs past the age, and fresh ones (a) inside it:
   * made with no age bound (so no completion or death trims the old ones), then the age set.
   */
  async function oldAndFresh(q: Queue) {
    await q.setRetention({
      completed: { count: 100, ageMs: null },
      dead: { count: 100, ageMs: null },
    });
    const oldDead = await dead(q, ['a', 'b']);
    const oldDone = await completed(q, ['a']);
    await untilRedisTimePasses(q.redis, Math.max(oldDead.last, oldDone.last) + AGE_MS);
    const freshDead = await dead(q, ['a']);
    const freshDone = await completed(q, ['a']);
    await q.setRetention({
      completed: { count: 100, ageMs: AGE_MS },
      dead: { count: 100, ageMs: AGE_MS },
    });
    for (const id of [...oldDead.ids, ...oldDone.ids]) expect(await q.job(id)).toBeNull();
    return {
      oldDead: oldDead.ids,
      oldDone: oldDone.ids,
      freshDead: freshDead.ids[0] as string,
      freshDone: freshDone.ids[0] as string,
    };
  }

  /** What a writer must leave as it is: the finished indexes, the old hashes, the lanes. */
  async function held(q: Queue, ids: string[]) {
    return {
      dead: await q.redis.zrange(q.keys.dead, 0, -1),
      completed: await q.redis.zrange(q.keys.completed, 0, -1),
      hashes: await Promise.all(ids.map((id) => q.redis.hgetall(q.keys.job(id)))),
      lanes: [await q.redis.zcard(q.keys.lane('a')), await q.redis.zcard(q.keys.lane('b'))],
    };
  }

  it('requeueDead: by id skipped, untouched; a group or all requeues only the kept ones, and remaining counts only those', async () => {
    const q = engine.queue();
    const jobs = await oldAndFresh(q);
    const before = await held(q, jobs.oldDead);
    expect(await q.requeueDead({ ids: jobs.oldDead })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 2,
    });
    expect(await held(q, jobs.oldDead)).toEqual(before);
    expect(await q.requeueDead({ group: 'b' })).toEqual({ count: 0, remaining: 0, skipped: 0 });
    expect(await q.requeueDead({ all: true }, { limit: 1 })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.job(jobs.freshDead)).toMatchObject({ state: 'PENDING' });
    for (const id of jobs.oldDead) expect(await q.job(id)).toBeNull();
    // Left for the trim, as a trimmed job would have been: nothing of them moved.
    expect(await q.redis.zrange(q.keys.dead, 0, -1)).toEqual(jobs.oldDead);
    expect(await q.redis.zcard(q.keys.lane('b'))).toBe(0);
  });

  it('a dead hash without a finish time (another writer’s) is not past any age: requeued and removed by id', async () => {
    const q = engine.queue();
    await q.setRetention({ dead: { count: 100, ageMs: AGE_MS } });
    const { ids } = await dead(q, ['a', 'b']);
    for (const id of ids) await q.redis.hdel(q.keys.job(id), 'finishedAt');
    expect(await q.requeueDead({ ids: [ids[0] as string] })).toMatchObject({ count: 1 });
    expect(await q.removeJobs({ ids: [ids[1] as string] })).toMatchObject({ count: 1 });
  });

  it('removeJobs: by id skipped, untouched; a group or all removes only the kept ones, and remaining counts only those', async () => {
    const q = engine.queue();
    const jobs = await oldAndFresh(q);
    const old = [...jobs.oldDead, ...jobs.oldDone];
    const before = await held(q, old);
    expect(await q.removeJobs({ ids: old })).toEqual({ count: 0, remaining: 0, skipped: 3 });
    expect(await q.removeJobs({ ids: jobs.oldDead, state: 'DEAD' })).toMatchObject({ count: 0 });
    expect(await held(q, old)).toEqual(before);
    expect(await q.removeJobs({ group: 'b', state: 'DEAD' })).toEqual({
      count: 0,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.removeJobs({ all: true, state: 'DEAD' }, { limit: 1 })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.removeJobs({ group: 'a', state: 'COMPLETED' }, { limit: 1 })).toEqual({
      count: 1,
      remaining: 0,
      skipped: 0,
    });
    expect(await q.job(jobs.freshDead)).toBeNull();
    expect(await q.job(jobs.freshDone)).toBeNull();
    expect(await q.redis.zrange(q.keys.dead, 0, -1)).toEqual(jobs.oldDead);
    expect(await q.redis.zrange(q.keys.completed, 0, -1)).toEqual(jobs.oldDone);
    expect(await counted(q)).toEqual({ completed: 0, dead: 0 });
  });
});

describe('the lease check, promote and an idempotency key: past its age a finished job is not found', () => {
  const AGE_MS = 1_000;

  it('kept: complete, extendLease, retry, completeAndClaim LEASE_LOST, promote and the key the job; past its age: JOB_NOT_FOUND, and the key in the state its hash says', async () => {
    const q = engine.queue();
    await q.setRetention({
      completed: { count: 100, ageMs: AGE_MS },
      dead: { count: 100, ageMs: AGE_MS },
    });
    await q.enqueue('a', null, { key: 'k-done' });
    await q.enqueue('a', null, { maxAttempts: 1, key: 'k-dead' });
    const done = (await q.claim()) as Job;
    await q.complete(done.id, done.token as string);
    const died = (await q.claim()) as Job;
    await q.retry(died.id, died.token as string, 'boom');
    const codeOf = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e: { code?: string }) => e.code,
      );
    const refusals = async () => [
      await codeOf(q.complete(done.id, done.token as string)),
      await codeOf(q.extendLease(done.id, done.token as string, 1_000)),
      await codeOf(q.retry(done.id, done.token as string, 'again')),
      await codeOf(q.complete(died.id, died.token as string)),
      await codeOf(q.retry(died.id, died.token as string, 'again')),
      (await q.completeAndClaim([{ id: done.id, token: done.token as string }], { claim: 0 }))
        .refused[0]?.code,
    ];
    // Kept: the job is there, not active under that token.
    expect(await refusals()).toEqual(Array(6).fill('LEASE_LOST'));
    expect(await q.promote(done.id)).toMatchObject({ state: 'COMPLETED', promoted: false });
    expect(await q.enqueue('a', null, { key: 'k-done' })).toMatchObject({
      id: done.id,
      state: 'COMPLETED',
      finishedAt: expect.any(Number),
    });
    expect(await q.enqueue('a', null, { maxAttempts: 1, key: 'k-dead' })).toMatchObject({
      id: died.id,
      state: 'DEAD',
      lastError: 'boom',
    });
    expect(await q.enqueueMany([{ group: 'a', options: { key: 'k-done' } }])).toMatchObject([
      { id: done.id, state: 'COMPLETED', finishedAt: expect.any(Number) },
    ]);

    const finished = await Promise.all([
      q.redis.zscore(q.keys.completed, done.id),
      q.redis.zscore(q.keys.dead, died.id),
    ]);
    await untilRedisTimePasses(q.redis, Math.max(...finished.map(Number)) + AGE_MS + 100);
    expect(await q.job(done.id)).toBeNull();
    expect(await q.job(died.id)).toBeNull();
    const before = await q.redis.hgetall(q.keys.job(done.id));
    expect(before).toMatchObject({ state: 'completed' }); // no trim ran
    expect(await refusals()).toEqual(Array(6).fill('JOB_NOT_FOUND'));
    await expect(q.promote(done.id)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    await expect(q.promote(died.id)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    // The key answers as for a job whose hash the trim deleted: COMPLETED as made, no finish.
    const again = await q.enqueue('a', null, { key: 'k-done' });
    expect(again).toMatchObject({ id: done.id, state: 'COMPLETED', attempts: 0 });
    expect(again.finishedAt).toBeNull();
    // enqueueMany answers the key as enqueue does (includes/enqueueJob.lua, keyedReply).
    expect(await q.enqueueMany([{ group: 'a', options: { key: 'k-done' } }])).toEqual([again]);
    // A dead one's key answers DEAD, as its hash says: the request's fields, no lastError.
    const deadAgain = await q.enqueue('a', null, { maxAttempts: 1, key: 'k-dead' });
    expect(deadAgain).toMatchObject({ id: died.id, state: 'DEAD', attempts: 0, maxAttempts: 1 });
    expect(deadAgain.lastError).toBeNull();
    expect(deadAgain.finishedAt).toBeNull();
    expect(await q.job(died.id)).toBeNull();
    expect(
      await q.enqueueMany([{ group: 'a', options: { maxAttempts: 1, key: 'k-dead' } }]),
    ).toEqual([deadAgain]);
    expect(await q.redis.hgetall(q.keys.job(done.id))).toEqual(before);
    expect(await q.redis.zcard(q.keys.dead)).toBe(1);
  });

  it("promote: a finished hash without a group (another writer's) past its age is not found; kept, it is answered as it is", async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 100, ageMs: AGE_MS } });
    const now = Number((await q.redis.time())[0]) * 1000;
    await q.redis.hset(q.keys.job('900001'), { state: 'completed', finishedAt: now });
    await q.redis.hset(q.keys.job('900002'), { state: 'completed', finishedAt: now - 10 * AGE_MS });
    expect(await q.promote('900001')).toMatchObject({ id: '900001', promoted: false });
    await expect(q.promote('900002')).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    expect(await q.job('900002')).toBeNull();
  });
});
