/**
 * Queue.jobs (DESIGN.md §3 readJobs, §4.1): each state in its order — PENDING a
 * group's lane in run order, DELAYED by run-at time, ACTIVE by lease deadline, DEAD and COMPLETED
 * newest first —, by group or for the whole queue, with totalCount; cursor paging that visits
 * every job once in order (1,200 jobs, pages of 500) and keeps its place when the cursor's job
 * leaves the index or moves; reads write nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Job, JobPage, JobState, Queue } from '../../src/lanes/index.js';
import { placeJob, placeJobs } from '../support/jobs.js';
import { snapshot, useEngine } from '../support/lanes.js';

const engine = useEngine();

const ids = (page: JobPage) => page.jobs.map((j) => j.id);

/** Every page of `state` (`group`), `first` at a time: the ids in order, and the pages. */
async function allPages(
  q: Queue,
  state: JobState,
  first: number,
  group?: string,
): Promise<{ ids: string[]; pages: JobPage[] }> {
  const pages: JobPage[] = [];
  let after: string | null = null;
  for (let i = 0; i < 100; i++) {
    const page: JobPage = await q.jobs({ state, group, first, after });
    pages.push(page);
    if (!page.hasNextPage) return { ids: pages.flatMap(ids), pages };
    after = page.endCursor;
  }
  throw new Error('paging did not end');
}

async function claimed(q: Queue, leaseMs = 600_000): Promise<Job> {
  const job = await q.claim({ leaseMs });
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

describe('each state in its order', () => {
  it('PENDING: a group’s lane in run order (a requeued dead job at its FIFO place); a group is required', async () => {
    const q = engine.queue();
    const a1 = await q.enqueue('a', { n: 1 });
    const dead = await placeJob(q, 'a', 'dead');
    const a3 = await q.enqueue('a', { n: 3 });
    await q.enqueue('b');
    await q.requeueDead({ ids: [dead] });
    const page = await q.jobs({ state: 'PENDING', group: 'a' });
    expect(ids(page)).toEqual([a1.id, dead, a3.id]);
    expect(page.jobs[0]).toMatchObject({ state: 'PENDING', group: 'a', payload: { n: 1 } });
    expect(page).toMatchObject({ totalCount: 3, hasNextPage: false });
    expect(page.cursors).toHaveLength(3);
    expect(page.endCursor).toBe(page.cursors[2]);
    await expect(q.jobs({ state: 'PENDING' })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'group',
    });
  });

  it('DELAYED: by run-at time, soonest first, for the queue or one group', async () => {
    const q = engine.queue();
    const t = Date.now() + 60_000;
    // Delayed by the engine, each with its run-at time.
    const late = (await q.enqueue('a', { n: 3 }, { runAt: t + 30 })).id;
    const soon = (await q.enqueue('b', { n: 1 }, { runAt: t + 10 })).id;
    const mid = (await q.enqueue('a', { n: 2 }, { runAt: t + 20 })).id;
    const queue = await q.jobs({ state: 'DELAYED' });
    expect(ids(queue)).toEqual([soon, mid, late]);
    expect(queue.totalCount).toBe(3);
    expect(queue.jobs[0]).toMatchObject({ state: 'DELAYED', runAt: t + 10 });
    const a = await q.jobs({ state: 'DELAYED', group: 'a' });
    expect(ids(a)).toEqual([mid, late]);
    expect(a.totalCount).toBe(2);
  });

  it('ACTIVE: by lease deadline, soonest first; with a group, its jobs only and its active count', async () => {
    const q = engine.queue();
    for (const g of ['a', 'b', 'a', 'b', 'a']) await q.enqueue(g);
    // The rota alternates a, b: leases of decreasing length.
    const claims: Job[] = [];
    for (const leaseMs of [50_000, 40_000, 30_000, 20_000, 10_000]) {
      claims.push(await claimed(q, leaseMs));
    }
    const byDeadline = [...claims].sort(
      (x, y) => (x.leaseUntil as number) - (y.leaseUntil as number),
    );
    const all = await q.jobs({ state: 'ACTIVE' });
    expect(ids(all)).toEqual(byDeadline.map((j) => j.id));
    expect(all.totalCount).toBe(5);
    expect(all.jobs[0]).toMatchObject({ state: 'ACTIVE', attempts: 1 });
    const a = await q.jobs({ state: 'ACTIVE', group: 'a' });
    expect(ids(a)).toEqual(byDeadline.filter((j) => j.group === 'a').map((j) => j.id));
    expect(a.totalCount).toBe(3);
    // Paged one at a time through the filter.
    expect((await allPages(q, 'ACTIVE', 1, 'b')).ids).toEqual(
      byDeadline.filter((j) => j.group === 'b').map((j) => j.id),
    );
    expect(await q.jobs({ state: 'ACTIVE', group: 'nobody' })).toMatchObject({
      jobs: [],
      totalCount: 0,
      hasNextPage: false,
      endCursor: null,
    });
  });

  it.each(['DEAD', 'COMPLETED'] as const)(
    '%s: newest first, for the queue or one group',
    async (state) => {
      const q = engine.queue();
      const place = state === 'DEAD' ? 'dead' : 'completed';
      const t = Date.now();
      const old = await placeJob(q, 'a', place, { at: t - 300, lastError: 'old' });
      const newest = await placeJob(q, 'b', place, { at: t - 100 });
      const middle = await placeJob(q, 'a', place, { at: t - 200 });
      const queue = await q.jobs({ state });
      expect(ids(queue)).toEqual([newest, middle, old]);
      expect(queue.jobs[2]).toMatchObject({ state, finishedAt: t - 300, group: 'a' });
      expect(queue.totalCount).toBe(3);
      const a = await q.jobs({ state, group: 'a' });
      expect(ids(a)).toEqual([middle, old]);
      expect(a.totalCount).toBe(2);
    },
  );

  it('reads write nothing and register nothing', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await placeJob(q, 'a', 'dead');
    const before = await snapshot(q.redis);
    for (const state of ['DELAYED', 'ACTIVE', 'DEAD', 'COMPLETED'] as const) {
      await q.jobs({ state });
      await q.jobs({ state, group: 'unknown' });
    }
    await q.jobs({ state: 'PENDING', group: 'a' });
    await q.jobs({ state: 'PENDING', group: 'unknown' });
    expect(await snapshot(q.redis)).toEqual(before);
  });
});

describe('paging', () => {
  it('1,200 pending jobs in pages of 500: each exactly once, in run order', async () => {
    const q = engine.queue();
    // Enqueued by the engine: 1,200 calls, sent at once.
    const jobs = await Promise.all(
      Array.from({ length: 1_200 }, (_, i) => q.enqueue('big', { i })),
    );
    const order = jobs.map((j) => j.id).sort((x, y) => Number(x) - Number(y));
    const { ids: seen, pages } = await allPages(q, 'PENDING', 500, 'big');
    expect(pages.map((p) => p.jobs.length)).toEqual([500, 500, 200]);
    expect(pages.map((p) => p.hasNextPage)).toEqual([true, true, false]);
    expect(pages.every((p) => p.totalCount === 1_200)).toBe(true);
    expect(seen).toEqual(order);
  });

  it('1,200 dead jobs in pages of 500, newest first, many sharing a time: each exactly once', async () => {
    const q = engine.queue();
    const t = Date.now();
    // 120 distinct times, 10 jobs each: ties are ordered by id bytes ('10' < '9'), descending.
    const placed: { id: string; at: number; group: string }[] = [];
    for (let i = 0; i < 1_200; i++) {
      const at = t - Math.floor(i / 10);
      const group = i % 2 ? 'odd' : 'even';
      placed.push({ id: await placeJob(q, group, 'dead', { at }), at, group });
    }
    const expected = [...placed]
      .sort((x, y) => y.at - x.at || Buffer.compare(Buffer.from(y.id), Buffer.from(x.id)))
      .map((p) => p.id);
    const { ids: seen, pages } = await allPages(q, 'DEAD', 500);
    expect(pages.map((p) => p.jobs.length)).toEqual([500, 500, 200]);
    expect(seen).toEqual(expected);
    const odd = await allPages(q, 'DEAD', 500, 'odd');
    const oddIds = new Set(placed.filter((p) => p.group === 'odd').map((p) => p.id));
    expect(odd.ids).toEqual(expected.filter((id) => oddIds.has(id)));
    expect(odd.pages[0]?.totalCount).toBe(600);
  });

  it('a cursor whose job was removed continues right after where it was', async () => {
    const q = engine.queue();
    const jobs: Job[] = [];
    for (let i = 0; i < 6; i++) jobs.push(await q.enqueue('a', { i }));
    const page1 = await q.jobs({ state: 'PENDING', group: 'a', first: 2 });
    expect(ids(page1)).toEqual([jobs[0]?.id, jobs[1]?.id]);
    // The cursor's job goes (and its neighbour before it).
    await q.removeJobs({ ids: [jobs[1]?.id as string, jobs[0]?.id as string] });
    const page2 = await q.jobs({ state: 'PENDING', group: 'a', first: 2, after: page1.endCursor });
    expect(ids(page2)).toEqual([jobs[2]?.id, jobs[3]?.id]);
    // Claimed (it left the lane): the same.
    const claim = await claimed(q);
    expect(claim.id).toBe(jobs[2]?.id);
    const again = await q.jobs({ state: 'PENDING', group: 'a', first: 2, after: page2.cursors[0] });
    expect(ids(again)).toEqual([jobs[3]?.id, jobs[4]?.id]);
  });

  it('a removed cursor among equal scores continues with the next id, both orders', async () => {
    const q = engine.queue();
    const t = Date.now();
    // ids 1..12 all at one time: by bytes 1 < 10 < 11 < 12 < 2 < … < 9.
    const placed = await placeJobs(q, 'g', 'dead', 12, { at: t, step: 0 });
    const delayed = await placeJobs(q, 'g', 'delayed', 12, { at: t + 60_000, step: 0 });
    const bytes = (list: string[]) =>
      [...list].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    for (const [state, list, desc] of [
      ['DEAD', placed, true],
      ['DELAYED', delayed, false],
    ] as const) {
      const expected = desc ? bytes(list).reverse() : bytes(list);
      const page1 = await q.jobs({ state, first: 4 });
      expect(ids(page1)).toEqual(expected.slice(0, 4));
      await q.removeJobs({ ids: [expected[3] as string] });
      const page2 = await q.jobs({ state, first: 4, after: page1.endCursor });
      expect(ids(page2)).toEqual(expected.slice(4, 8));
      expect(page2.totalCount).toBe(11);
    }
  });

  it('a cursor whose job moved (its lease extended) continues from the cursor’s place', async () => {
    const q = engine.queue();
    for (let i = 0; i < 4; i++) await q.enqueue(`g${i}`);
    const claims: Job[] = [];
    for (const leaseMs of [10_000, 20_000, 30_000, 40_000]) claims.push(await claimed(q, leaseMs));
    const page1 = await q.jobs({ state: 'ACTIVE', first: 2 });
    expect(ids(page1)).toEqual([claims[0]?.id, claims[1]?.id]);
    const moved = claims[1] as Job;
    await q.extendLease(moved.id, moved.token as string, 100_000);
    const page2 = await q.jobs({ state: 'ACTIVE', first: 5, after: page1.endCursor });
    // Continues after the old deadline: the two later ones, then the moved job at its new place.
    expect(ids(page2)).toEqual([claims[2]?.id, claims[3]?.id, moved.id]);
  });

  it('a member whose hash is gone is left out, and the next page does not read it again', async () => {
    const q = engine.queue();
    const t = Date.now() + 60_000;
    const [a, b, c] = await placeJobs(q, 'g', 'delayed', 3, { at: t });
    await q.redis.del(q.keys.job(b as string));
    const page1 = await q.jobs({ state: 'DELAYED', first: 2 });
    expect(ids(page1)).toEqual([a]);
    expect(page1.hasNextPage).toBe(true);
    const page2 = await q.jobs({ state: 'DELAYED', first: 2, after: page1.endCursor });
    expect(ids(page2)).toEqual([c]);
    expect(page2.hasNextPage).toBe(false);
  });
});
