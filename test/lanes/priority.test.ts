/**
 * Priorities within a group's lane (DESIGN.md §3, "Priorities"): a lane runs in priority order
 * (1 first, 9 last, 5 by default), FIFO within a priority; a job keeps its priority through
 * every way back to its lane (retry, reap, promotion, requeueDead); `changeJobPriority` moves a
 * pending job at once and gives a delayed one its place for later; a default job writes
 * nothing for it.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue } from '../../src/lanes/index.js';
import {
  pollUntil,
  queueSnapshot,
  reapAtLeast,
  refusal,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

/** Claim until the rota is empty; the ids in the order they were claimed. */
async function drain(q: Queue): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const job = await q.claim();
    if (!job) return ids;
    ids.push(job.id);
  }
}

async function claimed(q: Queue, leaseMs?: number): Promise<Job> {
  const job = await q.claim(leaseMs === undefined ? {} : { leaseMs });
  if (!job) throw new Error('expected a job');
  return job;
}

/** Four jobs in group g: priorities 5, 9, 1, 5 — run order 1 (c), 5 (a), 5 (d), 9 (b). */
async function mixed(q: Queue) {
  const a = await q.enqueue('g', 'a');
  const b = await q.enqueue('g', 'b', { priority: 9 });
  const c = await q.enqueue('g', 'c', { priority: 1 });
  const d = await q.enqueue('g', 'd', { priority: 5 });
  return { a, b, c, d };
}

describe('the lane runs by priority, FIFO within one', () => {
  it('enqueue: 1 first, 9 last, the default 5 between, each priority oldest first', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    expect([a, b, c, d].map((j) => j.priority)).toEqual([5, 9, 1, 5]);
    const e = await q.enqueue('g', 'e', { priority: 1 });
    expect(await drain(q)).toEqual([c.id, e.id, a.id, d.id, b.id]);
  });

  it('enqueueMany: each job at its priority, as enqueues one by one', async () => {
    const q = engine.queue();
    const jobs = await q.enqueueMany([
      { group: 'g', payload: 1, options: { priority: 7 } },
      { group: 'g', payload: 2 },
      { group: 'g', payload: 3, options: { priority: 2 } },
      { group: 'g', payload: 4, options: { priority: 7 } },
      { group: 'h', payload: 5, options: { priority: 9 } },
    ]);
    expect(jobs.map((j) => j.priority)).toEqual([7, 5, 2, 7, 9]);
    const [j1, j2, j3, j4] = jobs as [Job, Job, Job, Job, Job];
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1)).toEqual([j3.id, j2.id, j1.id, j4.id]);
  });

  it('a default job writes no priority and no score (its lane score is its id); another holds both', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    for (const job of [a, d]) {
      expect(await q.redis.hmget(q.keys.job(job.id), 'priority', 'score')).toEqual([null, null]);
      expect(await q.redis.zscore(q.keys.lane('g'), job.id)).toBe(job.id);
    }
    const step = 10 ** 15;
    expect(await q.redis.hmget(q.keys.job(b.id), 'priority', 'score')).toEqual([
      '9',
      String(Number(b.id) + 4 * step),
    ]);
    expect(await q.redis.zscore(q.keys.lane('g'), c.id)).toBe(String(Number(c.id) - 4 * step));
    expect((await q.job(c.id))?.priority).toBe(1);
    const page = await q.jobs({ state: 'PENDING', group: 'g' });
    expect(page.jobs.map((j) => [j.id, j.priority])).toEqual([
      [c.id, 1],
      [a.id, 5],
      [d.id, 5],
      [b.id, 9],
    ]);
  });

  it('a lane pages in run order, one job a page, across priorities', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await q.jobs({ state: 'PENDING', group: 'g', first: 1, after });
      seen.push(...page.jobs.map((j) => j.id));
      if (!page.hasNextPage || page.endCursor === null) break;
      after = page.endCursor;
    }
    expect(seen).toEqual([c.id, a.id, d.id, b.id]);
  });

  it('every priority scores its job id + (priority − 5) × 10^15 (includes/priority.lua), one by one and in a batch', async () => {
    const q = engine.queue();
    const levels = [1, 2, 3, 4, 5, 6, 7, 8, 9];
    const one = await Promise.all(levels.map((priority) => q.enqueue('a', null, { priority })));
    const many = await q.enqueueMany(
      levels.map((priority) => ({ group: 'b', options: { priority } })),
    );
    for (const [group, jobs] of [
      ['a', one],
      ['b', many],
    ] as const) {
      for (const job of jobs) {
        const score = Number(job.id) + ((job.priority as number) - 5) * 10 ** 15;
        expect(await q.redis.zscore(q.keys.lane(group), job.id)).toBe(String(score));
        expect(await q.redis.hget(q.keys.job(job.id), 'score')).toBe(
          job.priority === 5 ? null : String(score),
        );
      }
    }
  });

  it('an idempotency key tells priorities apart; 5 is the default request', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', 'x', { key: 'k' });
    expect((await q.enqueue('g', 'x', { key: 'k', priority: 5 })).id).toBe(first.id);
    const conflict = await refusal(() => q.enqueue('g', 'x', { key: 'k', priority: 2 }));
    expect([conflict.code, conflict.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'key']);
    const urgent = await q.enqueue('g', 'y', { key: 'u', priority: 2 });
    expect((await q.enqueue('g', 'y', { key: 'u', priority: 2 })).id).toBe(urgent.id);
  });

  it.each([0, 10, 1.5, '3', Number.NaN, -1])(
    'refuses priority %s with BAD_USER_INPUT, nothing written',
    async (priority) => {
      const q = engine.queue();
      await q.enqueue('g', 'before');
      const before = await queueSnapshot(q);
      const one = await refusal(() => q.enqueue('g', 'x', { priority: priority as number }));
      expect([one.code, one.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'priority']);
      const many = await refusal(() =>
        q.enqueueMany([
          { group: 'g', payload: 1 },
          { group: 'g', payload: 2, options: { priority: priority as number } },
        ]),
      );
      expect([many.code, many.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs[1].priority']);
      expect(await queueSnapshot(q)).toEqual(before);
    },
  );
});

describe('a job keeps its priority on its way back to its lane', () => {
  it('retry: back before the default jobs enqueued before it', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    const first = await claimed(q);
    expect(first.id).toBe(c.id);
    await q.retry(first.id, first.token as string, { error: 'again', delayMs: 0 });
    expect((await q.job(c.id))?.priority).toBe(1);
    expect(await drain(q)).toEqual([c.id, a.id, d.id, b.id]);
  });

  it('reap of an expired lease: back at its place', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    const first = await claimed(q, 1);
    expect(first.id).toBe(c.id);
    await untilRedisTimePasses(q.redis, first.leaseUntil as number);
    await reapAtLeast(q, 1);
    expect((await q.job(c.id))?.state).toBe('PENDING');
    expect(await drain(q)).toEqual([c.id, a.id, d.id, b.id]);
  });

  it('a retry with a wait: delayed, then promoted by a claim to its place', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    const first = await claimed(q);
    await q.retry(first.id, first.token as string, { error: 'later', delayMs: 20 });
    expect((await q.job(c.id))?.state).toBe('DELAYED');
    const runAt = (await q.job(c.id))?.runAt as number;
    await untilRedisTimePasses(q.redis, runAt);
    expect(await drain(q)).toEqual([c.id, a.id, d.id, b.id]);
  });

  it('delayed at enqueue, then promoted when due or by promoteJob: at its place', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 'a');
    const late = await q.enqueue('g', 'late', { priority: 2, delayMs: 20 });
    const now = await q.enqueue('g', 'now', { priority: 3, delayMs: 3_600_000 });
    const b = await q.enqueue('g', 'b');
    expect([late.state, late.priority, now.priority]).toEqual(['DELAYED', 2, 3]);
    expect((await q.promote(now.id)).promoted).toBe(true);
    await untilRedisTimePasses(q.redis, late.runAt as number);
    expect(await drain(q)).toEqual([late.id, now.id, a.id, b.id]);
  });

  it('dead, then requeueDead: at its place', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 'a');
    const urgent = await q.enqueue('g', 'urgent', { priority: 1, maxAttempts: 1 });
    const job = await claimed(q);
    expect(job.id).toBe(urgent.id);
    await q.retry(job.id, job.token as string, { error: 'fatal' });
    expect((await q.job(urgent.id))?.state).toBe('DEAD');
    const b = await q.enqueue('g', 'b');
    expect((await q.requeueDead({ ids: [urgent.id] })).count).toBe(1);
    expect((await q.job(urgent.id))?.priority).toBe(1);
    expect(await drain(q)).toEqual([urgent.id, a.id, b.id]);
  });
});

describe('changeJobPriority', () => {
  it('a pending job moves to its new place at once, FIFO by id within the priority', async () => {
    const q = engine.queue();
    const { a, b, c, d } = await mixed(q);
    const moved = await q.changeJobPriority(d.id, 1);
    expect([moved.id, moved.state, moved.priority]).toEqual([d.id, 'PENDING', 1]);
    // b, the newest at 9, to 5: after a (and after d's old place: d is gone from 5).
    expect((await q.changeJobPriority(b.id, 5)).priority).toBe(5);
    expect(await q.redis.hmget(q.keys.job(b.id), 'priority', 'score')).toEqual([null, null]);
    expect(await q.redis.zscore(q.keys.lane('g'), b.id)).toBe(b.id);
    expect(await drain(q)).toEqual([c.id, d.id, a.id, b.id]);
  });

  it('a delayed job keeps it for when it is promoted', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 'a');
    const later = await q.enqueue('g', 'later', { delayMs: 3_600_000 });
    const changed = await q.changeJobPriority(later.id, 1);
    expect([changed.state, changed.priority]).toEqual(['DELAYED', 1]);
    expect(await q.redis.zscore(q.keys.lane('g'), later.id)).toBeNull();
    await q.promote(later.id);
    expect(await drain(q)).toEqual([later.id, a.id]);
  });

  it('records the change in the history, and nothing for a call that changes nothing', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 'a');
    await q.changeJobPriority(a.id, 2, { actor: 'ops' });
    await q.changeJobPriority(a.id, 2);
    const entries = (await q.history()).entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'changeJobPriority',
      group: 'g',
      actor: 'ops',
      before: { state: 'pending', priority: 5 },
      after: { state: 'pending', priority: 2 },
      detail: { id: a.id },
    });
  });

  it('an active, completed or dead job is answered unchanged, nothing written', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 10 } });
    const done = await q.enqueue('g', 'done');
    const dead = await q.enqueue('g', 'dead', { maxAttempts: 1 });
    const active = await q.enqueue('g', 'active');
    const j1 = await claimed(q);
    await q.complete(j1.id, j1.token as string);
    const j2 = await claimed(q);
    await q.retry(j2.id, j2.token as string, { error: 'x' });
    await claimed(q);
    for (const [job, state] of [
      [done, 'COMPLETED'],
      [dead, 'DEAD'],
      [active, 'ACTIVE'],
    ] as const) {
      const before = await queueSnapshot(q);
      const answer = await q.changeJobPriority(job.id, 1);
      expect([answer.id, answer.state, answer.priority]).toEqual([job.id, state, 5]);
      expect(await queueSnapshot(q)).toEqual(before);
    }
  });

  it('JOB_NOT_FOUND for a missing job; BAD_USER_INPUT priority before anything, nothing written', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 'a');
    const before = await queueSnapshot(q);
    expect((await refusal(() => q.changeJobPriority('999', 1))).code).toBe(ErrorCode.JOB_NOT_FOUND);
    for (const bad of [0, 10, 2.5, '1']) {
      const e = await refusal(() => q.changeJobPriority(a.id, bad as number));
      expect([e.code, e.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'priority']);
    }
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

describe('the oldest pending job, with priorities', () => {
  it('is the lowest id, not the lane head: a newer urgent job does not hide it', async () => {
    const q = engine.queue();
    const old = await q.enqueue('g', 'old', { priority: 9 });
    await q.enqueue('g', 'new', { priority: 1 });
    await q.enqueue('h', 'other');
    await pollUntil('a settled read', async () => (await q.metrics()).settled);
    const m = await q.metrics();
    expect(m.oldestPending?.id).toBe(old.id);
    expect(m.oldestPending?.score).toBe(Number(old.id) + 4 * 10 ** 15);
  });

  it('repair indexes a lane by its oldest job, not its head', async () => {
    const q = engine.queue();
    const old = await q.enqueue('g', 'old', { priority: 9 });
    await q.enqueue('g', 'new', { priority: 1 });
    // A lane no Ringmaster write indexed (another writer's, or from before the index).
    await q.redis.del(q.keys.heads);
    await q.repair();
    expect(await q.redis.zrange(q.keys.heads, 0, -1, 'WITHSCORES')).toEqual(['g', old.id]);
    expect((await q.metrics()).oldestPending?.id).toBe(old.id);
  });
});
