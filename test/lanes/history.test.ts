/**
 * The steering history (DESIGN.md §4.6) of the actions recorded by the queue-wide and
 * job steering scripts: pauseQueue, resumeQueue, setRetention, requeueDead, removeJobs,
 * purgeGroup, promoteJob and repair. Each call that changes something records one entry (with
 * who asked, before, after and a bounded detail) in the queue's stream and, for a group's
 * action, the group's; a call that changes nothing or is refused records none; the streams keep
 * their caps; `Queue.history` pages newest first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type HistoryEntry,
  type Job,
  Queue,
  Ringmaster,
  RingmasterError,
} from '../../src/lanes/index.js';
import { putDelayed } from '../support/delayed.js';
import { redisNow, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Every entry of the queue's stream (or a group's), newest first. */
async function entries(q: Queue, group?: string): Promise<HistoryEntry[]> {
  return (await q.history({ ...(group === undefined ? {} : { group }), first: 500 })).entries;
}

/** The one entry `run` added to the queue's history. */
async function recorded(q: Queue, run: () => Promise<unknown>): Promise<HistoryEntry> {
  const before = (await q.history({ first: 1 })).totalCount;
  await run();
  const page = await q.history({ first: 500 });
  expect(page.totalCount).toBe(before + 1);
  return page.entries[0] as HistoryEntry;
}

/** `run` adds nothing to the queue's history (nor to any group's stream). */
async function unrecorded(q: Queue, run: () => Promise<unknown>): Promise<void> {
  const streams = async () => {
    const keys = await q.redis.keys(`${q.keys.base.replace(/[{}]/g, '\\$&')}*history`);
    return Promise.all(keys.sort().map(async (k) => [k, await q.redis.xlen(k)] as const));
  };
  const before = await streams();
  await run().catch(() => undefined);
  expect(await streams()).toEqual(before);
}

async function claimed(q: Queue): Promise<Job> {
  const job = await q.claim({ leaseMs: 600_000 });
  if (!job) throw new Error('expected a job');
  return job;
}

/** A dead job of `group`, by the engine (one attempt, failed). */
async function died(q: Queue, group: string): Promise<Job> {
  await q.enqueue(group, null, { maxAttempts: 1 });
  const job = await claimed(q);
  return q.retry(job.id, job.token as string, 'boom');
}

describe('queue-wide steering', () => {
  it('pauseQueue and resumeQueue each record one entry with who asked, before and after', async () => {
    const q = engine.queue();
    const paused = await recorded(q, () => q.pauseQueue({ actor: 'alice' }));
    expect(paused).toMatchObject({
      action: 'pauseQueue',
      group: '',
      actor: 'alice',
      before: { paused: false },
      after: { paused: true },
      detail: null,
    });
    expect(paused.id).toMatch(/^\d+-\d+$/);
    const now = await redisNow(q.redis);
    expect(paused.at).toBeLessThanOrEqual(now);
    expect(paused.at).toBeGreaterThan(now - 60_000);

    const resumed = await recorded(q, () => q.resumeQueue());
    expect(resumed).toMatchObject({
      action: 'resumeQueue',
      actor: 'engine',
      before: { paused: true },
      after: { paused: false },
    });
    expect((await entries(q)).map((e) => e.action)).toEqual(['resumeQueue', 'pauseQueue']);
  });

  it('a pause of a paused queue or a resume of a running one records nothing', async () => {
    const q = engine.queue();
    await unrecorded(q, () => q.resumeQueue());
    await q.pauseQueue();
    await unrecorded(q, () => q.pauseQueue());
  });

  it("the queue handle's actor is recorded when a call names none", async () => {
    const q = new Queue(engine.redis(), uniqueQueueName(), { actor: 'nightly-job' });
    expect((await recorded(q, () => q.pauseQueue())).actor).toBe('nightly-job');
  });

  it('setRetention records the policies in force before and after; an unchanged or refused one records nothing', async () => {
    const q = engine.queue();
    const e = await recorded(q, () =>
      q.setRetention({ completed: { count: 5 }, dead: { ageMs: null } }, { actor: 'ops' }),
    );
    expect(e).toMatchObject({
      action: 'setRetention',
      group: '',
      actor: 'ops',
      before: {
        completed: { count: 1000, ageMs: 3_600_000 },
        dead: { count: 10_000, ageMs: 604_800_000 },
      },
      after: {
        completed: { count: 5, ageMs: 3_600_000 },
        dead: { count: 10_000, ageMs: null },
      },
    });
    await unrecorded(q, () => q.setRetention({ completed: { count: 5 } }));
    await unrecorded(q, () => q.setRetention({ completed: { count: -1 } }));
    await expect(q.setRetention({ completed: { count: -1 } })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
    });
  });
});

describe('property: the queue-wide history is a chain', () => {
  it('any sequence of pauseQueue, resumeQueue and setRetention: one entry per change, each entry’s before the previous one’s after', async () => {
    const op = fc.oneof(
      fc.constant({ kind: 'pause' as const }),
      fc.constant({ kind: 'resume' as const }),
      fc.record({
        kind: fc.constant('retention' as const),
        count: fc.integer({ min: 0, max: 3 }),
        ageMs: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 12 }), async (ops) => {
        const q = engine.queue();
        let changes = 0;
        for (const o of ops) {
          const before = JSON.stringify([await q.state(), await q.retention()]);
          if (o.kind === 'pause') await q.pauseQueue({ actor: 'p' });
          else if (o.kind === 'resume') await q.resumeQueue({ actor: 'p' });
          else await q.setRetention({ dead: { count: o.count, ageMs: o.ageMs } });
          if (JSON.stringify([await q.state(), await q.retention()]) !== before) changes++;
        }
        const all = (await entries(q)).reverse();
        expect(all).toHaveLength(changes);
        for (const family of [['pauseQueue', 'resumeQueue'], ['setRetention']]) {
          const chain = all.filter((e) => family.includes(e.action));
          for (const [i, e] of chain.entries()) {
            expect(e.before).not.toEqual(e.after);
            if (i > 0) expect(e.before).toEqual(chain[i - 1]?.after);
          }
        }
        expect(all.at(-1)?.after ?? null).toEqual(
          all.length === 0
            ? null
            : all.at(-1)?.action === 'setRetention'
              ? JSON.parse(JSON.stringify(await q.retention()))
              : { paused: (await q.state()) === 'PAUSED' },
        );
      }),
      { numRuns: 25 },
    );
  });
});

describe('job actions', () => {
  it("requeueDead of a group records in the queue's and the group's stream, with the dead counts and a detail", async () => {
    const q = engine.queue();
    await died(q, 'g');
    await died(q, 'g');
    await died(q, 'h');
    const e = await recorded(q, () => q.requeueDead({ group: 'g' }, {}, { actor: 'bob' }));
    expect(e).toMatchObject({
      action: 'requeueDead',
      group: 'g',
      actor: 'bob',
      before: { dead: 2 },
      after: { dead: 0 },
      detail: { mode: 'group', count: 2, remaining: 0, skipped: 0, resetAttempts: true },
    });
    expect(e.detail?.limit).toBe(1000);
    const group = await entries(q, 'g');
    expect(group).toHaveLength(1);
    expect(group[0]).toEqual(e);
    expect(await entries(q, 'h')).toEqual([]);
  });

  it('requeueDead of all records group "" and the queue-wide dead counts', async () => {
    const q = engine.queue();
    await died(q, 'a');
    await died(q, 'b');
    const e = await recorded(q, () => q.requeueDead({ all: true }, { limit: 1 }));
    expect(e).toMatchObject({
      group: '',
      before: { dead: 2 },
      after: { dead: 1 },
      detail: { mode: 'all', count: 1, remaining: 1, limit: 1 },
    });
  });

  it('removeJobs by ids keeps the first 10 ids and the count, not all of them', async () => {
    const q = engine.queue();
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push((await died(q, 'g')).id);
    const e = await recorded(q, () => q.removeJobs({ ids, state: 'DEAD' }));
    expect(e.action).toBe('removeJobs');
    expect(e.group).toBe('');
    expect(e.detail).toMatchObject({ mode: 'ids', state: 'dead', count: 30, idCount: 30 });
    expect(e.detail?.ids).toEqual(ids.slice(0, 10));
    expect(e.before).toMatchObject({ dead: 30, pending: 0 });
    expect(e.after).toMatchObject({ dead: 0 });
    expect(JSON.stringify(e).length).toBeLessThan(1000);
  });

  it('purgeGroup is recorded as purgeGroup with the lane sizes', async () => {
    const q = engine.queue();
    for (let i = 0; i < 3; i++) await q.enqueue('g');
    const e = await recorded(q, () => q.purgeGroup('g', { limit: 2 }, { actor: 'carol' }));
    expect(e).toMatchObject({
      action: 'purgeGroup',
      group: 'g',
      actor: 'carol',
      before: { pending: 3 },
      after: { pending: 1 },
      detail: { mode: 'group', state: 'pending', count: 2, remaining: 1, limit: 2 },
    });
    expect(await entries(q, 'g')).toHaveLength(1);
  });

  it('a job action that changes nothing, or is refused, records nothing', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const active = await claimed(q);
    await unrecorded(q, () => q.removeJobs({ ids: [active.id, '999'] }));
    await unrecorded(q, () => q.requeueDead({ all: true }));
    await unrecorded(q, () => q.removeJobs({ group: 'g', state: 'ACTIVE' as never }));
    // DATA_OUT_OF_RANGE: a group's active count that cannot be counted exactly.
    await died(q, 'broken');
    await q.setLimit('broken', 5);
    await q.redis.hset(q.keys.gactive, 'broken', 'lots');
    await expect(q.requeueDead({ group: 'broken' })).rejects.toMatchObject({
      code: 'DATA_OUT_OF_RANGE',
    });
    await unrecorded(q, () => q.requeueDead({ group: 'broken' }));
  });

  it('promote records the job state before and after; not delayed, not found and refused record nothing', async () => {
    const q = engine.queue();
    const [id] = await putDelayed(q, 'g', (await redisNow(q.redis)) + 600_000);
    const runAt = Number((await q.job(id as string))?.runAt);
    const e = await recorded(q, () => q.promote(id as string, { actor: 'dave' }));
    expect(e).toMatchObject({
      action: 'promoteJob',
      group: 'g',
      actor: 'dave',
      before: { state: 'delayed', runAt },
      after: { state: 'pending', runAt: null },
      detail: { id },
    });
    await unrecorded(q, () => q.promote(id as string));
    await unrecorded(q, () => q.promote('424242'));
    const [other] = await putDelayed(q, 'x', (await redisNow(q.redis)) + 600_000);
    await q.redis.hset(q.keys.gactive, 'x', '1.5');
    await expect(q.promote(other as string)).rejects.toBeInstanceOf(RingmasterError);
    await unrecorded(q, () => q.promote(other as string));
  });
  // repair: test/lanes/repairHistory.test.ts (an entry per group a step changed).
});

describe('caps', () => {
  it("the queue's stream keeps historyMaxLen entries, the newest", async () => {
    const q = new Queue(engine.redis(), uniqueQueueName(), { historyMaxLen: 3 });
    for (let i = 0; i < 5; i++) {
      await q.pauseQueue({ actor: `p${i}` });
      await q.resumeQueue({ actor: `r${i}` });
    }
    expect(await q.redis.xlen(q.keys.history)).toBe(3);
    expect((await entries(q)).map((e) => e.actor)).toEqual(['r4', 'p4', 'r3']);
  });

  it("a group's history is bounded by the queue's cap (no stream of its own)", async () => {
    const q = new Queue(engine.redis(), uniqueQueueName(), { historyMaxLen: 2 });
    for (let i = 0; i < 4; i++) {
      await q.enqueue('g');
      await q.purgeGroup('g');
    }
    expect(await q.redis.xlen(q.keys.history)).toBe(2);
    expect((await q.history({ group: 'g' })).entries).toHaveLength(2);
    expect(await q.redis.exists(`${q.keys.base}g:g:history`)).toBe(0);
  });

  it('steering N distinct groups creates no per-group key: only the queue stream grows', async () => {
    const q = new Queue(engine.redis(), uniqueQueueName());
    const groups = Array.from({ length: 30 }, (_, i) => `t${i}`);
    const before = new Set(await q.redis.keys(`${q.keys.base}*`));
    for (const g of groups) await q.setLimit(g, 3);
    const after = await q.redis.keys(`${q.keys.base}*`);
    const added = after.filter((key) => !before.has(key));
    expect(added.filter((key) => key.endsWith(':history'))).toEqual([q.keys.history]);
    expect(await q.redis.type(q.keys.history)).toBe('stream');
    expect(await q.redis.xlen(q.keys.history)).toBe(groups.length);
    for (const g of groups) expect(await q.redis.exists(`${q.keys.base}g:${g}:history`)).toBe(0);
    expect((await q.history({ group: 't7' })).entries.map((e) => [e.group, e.action])).toEqual([
      ['t7', 'setLimit'],
    ]);
  });

  it("a Ringmaster's actor and historyMaxLen reach every queue handle it makes", async () => {
    const rm = new Ringmaster(engine.redis(), { actor: 'svc', historyMaxLen: 1 });
    const q = rm.queue(uniqueQueueName());
    expect([q.actor, q.historyMaxLen]).toEqual(['svc', 1]);
    await q.pauseQueue();
    await q.resumeQueue();
    expect((await entries(q)).map((e) => [e.action, e.actor])).toEqual([['resumeQueue', 'svc']]);
    const plain = new Ringmaster(engine.redis()).queue(uniqueQueueName());
    expect([plain.actor, plain.historyMaxLen]).toEqual(['engine', 10_000]);
  });

  it('historyMaxLen 0 records nothing', async () => {
    const q = new Queue(engine.redis(), uniqueQueueName(), { historyMaxLen: 0 });
    await q.enqueue('g');
    await q.pauseQueue();
    await q.purgeGroup('g');
    await q.repair();
    expect(await q.redis.exists(q.keys.history, `${q.keys.base}g:g:history`)).toBe(0);
  });
});

describe('Queue.history', () => {
  it('pages newest first with cursors, hasNextPage and totalCount', async () => {
    const q = engine.queue();
    for (let i = 0; i < 5; i++) {
      await q.pauseQueue({ actor: `a${i}` });
      await q.resumeQueue({ actor: `a${i}` });
    }
    const first = await q.history({ first: 4 });
    expect(first.totalCount).toBe(10);
    expect(first.hasNextPage).toBe(true);
    expect(first.entries.map((e) => e.action)).toEqual([
      'resumeQueue',
      'pauseQueue',
      'resumeQueue',
      'pauseQueue',
    ]);
    expect(first.endCursor).toBe(first.cursors[3]);
    const second = await q.history({ first: 4, after: first.endCursor });
    const third = await q.history({ first: 4, after: second.endCursor });
    expect(third.hasNextPage).toBe(false);
    expect(third.entries).toHaveLength(2);
    const all = [...first.entries, ...second.entries, ...third.entries];
    expect(all).toEqual(await entries(q));
    expect(new Set(all.map((e) => e.id)).size).toBe(10);
    expect((await q.history()).entries).toHaveLength(10);
  });

  it('an empty stream reads as an empty page; bad input is refused', async () => {
    const q = engine.queue();
    expect(await q.history()).toEqual({
      entries: [],
      cursors: [],
      hasNextPage: false,
      endCursor: null,
      totalCount: 0,
    });
    for (const bad of [{ first: 0 }, { first: 501 }, { after: 'nope!' }, { after: 'aDox' }]) {
      await expect(q.history(bad)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    await expect(q.history({ group: '' })).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it("a group's page skips other groups' entries across chunk boundaries; cursors page on", async () => {
    const q = engine.queue();
    const others = async (n: number) => {
      for (let i = 0; i < n; i++) await q.setLimit(`o${i % 3}`, 1 + (Math.floor(i / 3) % 2));
    };
    await q.setLimit('g', 1);
    await others(450);
    await q.setLimit('g', 2);
    await others(450);
    await q.setLimit('g', 3);
    await others(7);
    const total = await q.redis.xlen(q.keys.history);
    expect(total).toBe(3 + 450 + 450 + 7);
    const limits: unknown[] = [];
    let after: string | null = null;
    for (let i = 0; i < 3; i++) {
      const page = await q.history({ group: 'g', first: 1, after });
      expect(page.entries.map((e) => e.group)).toEqual(['g']);
      expect(page.hasNextPage).toBe(i < 2);
      expect(page.totalCount).toBe(total);
      limits.push(page.entries[0]?.after?.limit);
      after = page.endCursor;
    }
    expect(limits).toEqual([3, 2, 1]);
    expect(await q.history({ group: 'g', first: 1, after })).toMatchObject({
      entries: [],
      hasNextPage: false,
      endCursor: null,
    });
    const whole = await q.history({ group: 'g', first: 3 });
    expect([whole.entries.length, whole.hasNextPage]).toEqual([3, false]);
    const two = await q.history({ group: 'g', first: 2 });
    expect([two.entries.map((e) => e.after?.limit), two.hasNextPage]).toEqual([[3, 2], true]);
    const o1 = await q.history({ group: 'o1', first: 500 });
    expect(o1.entries).toHaveLength(302);
    expect(o1.entries.every((e) => e.group === 'o1')).toBe(true);
  });

  it("property: any page size walks a group's entries once, newest first", async () => {
    const q = engine.queue();
    for (let i = 0; i < 12; i++) {
      await q.setLimit(i % 3 === 0 ? 'g' : `x${i}`, i + 1);
      if (i % 4 === 0) await q.pauseQueue({ actor: String(i) });
      if (i % 4 === 0) await q.resumeQueue({ actor: String(i) });
    }
    const mine = (await entries(q)).filter((e) => e.group === 'g');
    expect(mine).toHaveLength(4);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), async (size) => {
        const walked: HistoryEntry[] = [];
        let after: string | null = null;
        for (;;) {
          const page = await q.history({ group: 'g', first: size, after });
          walked.push(...page.entries);
          if (!page.hasNextPage) break;
          after = page.endCursor;
        }
        expect(walked).toEqual(mine);
      }),
      { numRuns: 12 },
    );
  });

  it('property: any page size walks every entry once, newest first', async () => {
    const q = engine.queue();
    for (let i = 0; i < 7; i++) {
      await q.pauseQueue({ actor: String(i) });
      await q.resumeQueue({ actor: String(i) });
    }
    const all = await entries(q);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 16 }), async (size) => {
        const walked: HistoryEntry[] = [];
        let after: string | null = null;
        for (;;) {
          const page = await q.history({ first: size, after });
          walked.push(...page.entries);
          if (!page.hasNextPage) break;
          after = page.endCursor;
        }
        expect(walked).toEqual(all);
      }),
      { numRuns: 16 },
    );
  });
});
