/**
 * The reads (DESIGN.md §2 "Reads", §4 Queue): one group, pages of groups by id with opaque
 * cursors, counts, activeGroups, paused, queues. Reads register nothing and write nothing.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, Ringmaster } from '../../src/lanes/index.js';
import { NO_OPERATIONS, snapshot, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

async function claimed(q: Queue): Promise<Job> {
  const job = await q.claim();
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

describe('group()', () => {
  it('an unknown id reads as empty and registers nothing', async () => {
    const q = engine.queue();
    await q.enqueue('known');
    const before = await snapshot(q.redis);
    expect(await q.group('never-seen')).toEqual({
      id: 'never-seen',
      queue: q.name,
      limit: null,
      active: 0,
      pending: 0,
      paused: false,
      onRing: false,
      state: 'IDLE',
      ...NO_OPERATIONS,
    });
    // On a queue that does not exist at all, too.
    const ghost = engine.queue();
    expect(await ghost.group('g')).toMatchObject({ limit: null, active: 0, state: 'IDLE' });
    expect(await ghost.counts()).toEqual({
      groups: 0,
      onRing: 0,
      paused: 0,
      saturated: 0,
      pending: 0,
      delayed: 0,
      active: 0,
      dead: 0,
      completed: 0,
    });
    expect(await ghost.groups()).toMatchObject({ groups: [], totalCount: 0, endCursor: null });
    expect(await ghost.ring()).toEqual([]);
    expect(await ghost.paused()).toEqual([]);
    expect(await ghost.activeGroups()).toEqual([]);
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it('reads each state by DESIGN.md §4 precedence: PAUSED, SATURATED, READY, IDLE', async () => {
    const q = engine.queue();
    await q.setLimit('ps', 1);
    await q.enqueue('ps');
    await q.enqueue('ps');
    await claimed(q);
    await q.pause('ps'); // paused and saturated: PAUSED wins
    await q.setLimit('s', 0);
    await q.enqueue('s');
    await q.enqueue('r');
    await q.setLimit('i', 3);
    expect(await q.group('ps')).toMatchObject({
      state: 'PAUSED',
      paused: true,
      limit: 1,
      active: 1,
    });
    expect(await q.group('s')).toMatchObject({ state: 'SATURATED', limit: 0, pending: 1 });
    expect(await q.group('r')).toMatchObject({ state: 'READY', onRing: true, pending: 1 });
    expect(await q.group('i')).toMatchObject({ state: 'IDLE', onRing: false, limit: 3 });
  });
});

describe('groups()', () => {
  // Registry order is by bytes (ZRANGEBYLEX): '(' < 'B' < '[' < 'a' < 'a:b' < … < 'é'.
  const ids = ['b', 'a', 'c', 'B', 'é', 'a:b', '[x', '(y', 'z'];
  const sorted = ['(y', 'B', '[x', 'a', 'a:b', 'b', 'c', 'z', 'é'];

  async function registered(): Promise<Queue> {
    const q = engine.queue();
    for (const id of ids) await q.setLimit(id, 2);
    await q.enqueue('c');
    return q;
  }

  it('pages by id with opaque cursors until hasNextPage is false', async () => {
    const q = await registered();
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const page = await q.groups({ first: 2, after });
      pages += 1;
      expect(page.totalCount).toBe(ids.length);
      expect(page.cursors).toHaveLength(page.groups.length);
      expect(page.endCursor).toBe(page.cursors.at(-1) ?? null);
      for (const [i, g] of page.groups.entries()) {
        // Opaque: URL-safe text, not the id itself.
        expect(page.cursors[i]).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(page.cursors[i]).not.toBe(g.id);
      }
      seen.push(...page.groups.map((g) => g.id));
      if (!page.hasNextPage) break;
      after = page.endCursor;
    }
    expect(seen).toEqual(sorted);
    expect(pages).toBe(5);
  });

  it('continues after any node cursor, and pages carry full group state', async () => {
    const q = await registered();
    const all = await q.groups({ first: 500 });
    expect(all.groups.map((g) => g.id)).toEqual(sorted);
    expect(all.hasNextPage).toBe(false);
    expect(all.groups.find((g) => g.id === 'c')).toMatchObject({
      limit: 2,
      pending: 1,
      state: 'READY',
      onRing: true,
    });
    for (const [i, cursor] of all.cursors.entries()) {
      const rest = await q.groups({ first: 500, after: cursor });
      expect(rest.groups.map((g) => g.id)).toEqual(sorted.slice(i + 1));
    }
  });

  it('hasNextPage is exact at a page boundary, and the page after the last is empty', async () => {
    const q = await registered();
    expect((await q.groups({ first: ids.length })).hasNextPage).toBe(false);
    expect((await q.groups({ first: ids.length - 1 })).hasNextPage).toBe(true);
    const last = await q.groups({ first: 1 });
    const tail = await q.groups({
      first: 1,
      after: (await q.groups({ first: 500 })).endCursor,
    });
    expect(last.groups).toHaveLength(1);
    expect(tail).toEqual({
      groups: [],
      cursors: [],
      hasNextPage: false,
      endCursor: null,
      totalCount: ids.length,
    });
    expect((await q.groups()).groups).toHaveLength(ids.length); // default first: 50
  });
});

describe('counts, activeGroups, paused, queues, job, stats', () => {
  async function mixed(): Promise<Queue & { satJob: Job }> {
    const q = engine.queue();
    const dead = await q.enqueue('dead', null, { maxAttempts: 1 });
    const d = await claimed(q);
    expect(d.id).toBe(dead.id);
    await q.retry(d.id, d.token as string, 'x');
    await q.setLimit('sat', 1);
    await q.enqueue('sat');
    await q.enqueue('sat');
    const satJob = await claimed(q);
    expect(satJob.group).toBe('sat');
    await q.setLimit('psat', 1);
    await q.enqueue('psat');
    await q.enqueue('psat');
    expect((await claimed(q)).group).toBe('psat');
    await q.pause('psat');
    for (let i = 0; i < 3; i++) await q.enqueue('ready');
    await q.enqueue('held');
    await q.pause('held');
    await q.setLimit('idle', 5);
    return Object.assign(q, { satJob });
  }

  it('counts() totals every kind of group and job exactly', async () => {
    const q = await mixed();
    expect(await q.counts()).toEqual({
      groups: 6, // dead, sat, psat, ready, held, idle
      onRing: 1, // ready
      paused: 2, // psat, held
      saturated: 2, // sat, psat (paused or not)
      pending: 6, // sat 1, psat 1, ready 3, held 1
      delayed: 0,
      active: 2,
      dead: 1,
      completed: 0,
    });
  });

  it('activeGroups() lists the groups with active work, sorted by id', async () => {
    const q = await mixed();
    const active = await q.activeGroups();
    expect(active.map((g) => [g.id, g.active, g.state])).toEqual([
      ['psat', 1, 'PAUSED'],
      ['sat', 1, 'SATURATED'],
    ]);
    await q.complete(q.satJob.id, q.satJob.token as string);
    expect((await q.activeGroups()).map((g) => g.id)).toEqual(['psat']);
  });

  it('paused() is sorted', async () => {
    const q = engine.queue();
    for (const g of ['zeta', 'alpha', 'Mid', 'beta']) await q.pause(g);
    expect(await q.paused()).toEqual(['Mid', 'alpha', 'beta', 'zeta']);
    await q.resume('alpha');
    expect(await q.paused()).toEqual(['Mid', 'beta', 'zeta']);
  });

  it('queues() lists every queue steered or enqueued to, sorted; reads do not register', async () => {
    const rm = new Ringmaster(engine.redis(), { prefix: uniqueQueueName('pfx') });
    await rm.queue('b-queue').enqueue('g');
    await rm.queue('a-queue').setLimit('g', 1);
    await rm.queue('d-queue').pause('g');
    await rm.queue('c-queue').group('g');
    await rm.queue('c-queue').counts();
    await rm.queue('c-queue').claim();
    expect(await rm.queues()).toEqual(['a-queue', 'b-queue', 'd-queue']);
    expect(
      await new Ringmaster(engine.redis(), { prefix: uniqueQueueName('empty') }).queues(),
    ).toEqual([]);
  });

  it('job() reads a job by id, COMPLETED while retained, and null for unknown, malformed or forgotten ids', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', { a: [1, 2] }, { maxAttempts: 4 });
    // job() reads the error list too (none yet); the enqueue's answer does not.
    expect(await q.job(job.id)).toEqual({ ...job, errors: [] });
    expect(await q.job('424242')).toBeNull();
    expect(await q.job('not-an-id')).toBeNull();
    const c = await claimed(q);
    expect(await q.job(c.id)).toMatchObject({ state: 'ACTIVE', token: c.token, attempts: 1 });
    await q.complete(c.id, c.token as string);
    expect(await q.job(c.id)).toMatchObject({ state: 'COMPLETED', token: null, leaseUntil: null });
    expect((await q.job(c.id))?.finishedAt).toEqual(expect.any(Number));
    await q.setRetention({ completed: { count: 0 } });
    await q.enqueue('g');
    const d = await claimed(q);
    await q.complete(d.id, d.token as string);
    expect(await q.job(d.id)).toBeNull();
  });

  it('stats() counts events since the queue was created', async () => {
    const q = await mixed();
    expect(await q.stats()).toEqual({
      enqueued: 9,
      claimed: 3,
      completed: 0,
      retried: 0,
      reaped: 0,
      dead: 1,
      removed: 0,
      requeued: 0,
    });
  });
});
