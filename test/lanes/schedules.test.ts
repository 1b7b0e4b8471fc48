/**
 * Schedules (DESIGN.md §3, "Schedules"): an interval or a cron expression in a time zone enqueues
 * one job per tick into its group; ticks are fired by a compare-and-set on the Redis clock, so
 * any number of tickers fire each tick once; a tick missed while nothing ticked fires once (the
 * latest); bad input writes nothing; upsert and remove are steering, recorded in the history.
 * Missed ticks are made by moving a schedule's score back in `P:{Q}:schedules`, as time passing
 * with nothing ticking would leave it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode, Queue, Reaper, Worker } from '../../src/lanes/index.js';
import { ticksOf } from '../../src/lanes/internal.js';
import {
  pollUntil,
  queueSnapshot,
  redisNow,
  refusal,
  uniqueQueueName,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

/** Move schedule `id`'s next tick to `at` (ms), as if the ticks before now were missed. */
async function dueAt(q: Queue, id: string, at: number): Promise<void> {
  await q.redis.zadd(q.keys.schedules, at, id);
}

const pendingOf = async (q: Queue, group: string) =>
  (await q.jobs({ state: 'PENDING', group, first: 500 })).jobs;

describe('upsertSchedule', () => {
  it('an interval: due everyMs after the upsert, listed with its definition', async () => {
    const q = engine.queue();
    const before = await redisNow(q.redis);
    const s = await q.upsertSchedule({
      id: 'nightly',
      group: 'g',
      everyMs: 60_000,
      payload: { n: 1 },
      maxAttempts: 5,
      priority: 2,
    });
    expect(s).toMatchObject({
      queue: q.name,
      id: 'nightly',
      group: 'g',
      everyMs: 60_000,
      cron: null,
      timezone: null,
      payload: { n: 1 },
      maxAttempts: 5,
      priority: 2,
      backoff: null,
      lastRunAt: null,
      lastJobId: null,
    });
    expect(s.nextRunAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(s.nextRunAt).toBeLessThan(before + 61_000);
    const page = await q.schedules();
    expect(page.totalCount).toBe(1);
    expect(page.schedules).toEqual([s]);
    // Not due yet: a tick fires nothing.
    expect(await q.tickSchedules()).toBe(0);
    expect(await pendingOf(q, 'g')).toEqual([]);
  });

  it('a cron with seconds in a time zone: due at its next match', async () => {
    const q = engine.queue();
    const s = await q.upsertSchedule({
      id: 'c',
      group: 'g',
      cron: '*/10 * * * * *',
      timezone: 'Europe/Berlin',
    });
    expect(s).toMatchObject({ cron: '*/10 * * * * *', timezone: 'Europe/Berlin', everyMs: null });
    expect(s.nextRunAt % 10_000).toBe(0);
    const now = await redisNow(q.redis);
    expect(s.nextRunAt).toBeGreaterThan(now - 1_000);
    expect(s.nextRunAt).toBeLessThanOrEqual(now + 10_000);
  });

  it('replacing keeps the next tick when the timing is unchanged, moves it when not', async () => {
    const q = engine.queue();
    const a = await q.upsertSchedule({ id: 's', group: 'g', everyMs: 3_600_000 });
    const b = await q.upsertSchedule({ id: 's', group: 'h', everyMs: 3_600_000, payload: 7 });
    expect(b.nextRunAt).toBe(a.nextRunAt);
    expect(b).toMatchObject({ group: 'h', payload: 7 });
    const c = await q.upsertSchedule({ id: 's', group: 'h', everyMs: 60_000, payload: 7 });
    expect(c.nextRunAt).toBeLessThan(a.nextRunAt);
    expect((await q.schedules()).totalCount).toBe(1);
  });

  it('refuses bad input naming it, and writes nothing', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'keep', group: 'g', everyMs: 5_000 });
    const before = await queueSnapshot(q);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ id: 's', group: 'g' }, 'everyMs', /exactly one of everyMs and cron/],
      [{ id: 's', group: 'g', everyMs: 5_000, cron: '* * * * *' }, 'cron', /exactly one/],
      [{ id: 's', group: 'g', everyMs: 999 }, 'everyMs', /1000/],
      [{ id: 's', group: 'g', everyMs: 1.5e3 + 0.5 }, 'everyMs', /integer/],
      [{ id: 's', group: 'g', cron: 'every day' }, 'cron', /'every day' is not a cron/],
      [{ id: 's', group: 'g', cron: '* * * * * * *' }, 'cron', /not a cron expression/],
      [{ id: 's', group: 'g', cron: '0 0 30 2 *' }, 'cron', /never fires/],
      [
        { id: 's', group: 'g', cron: '* * * * *', timezone: 'Mars/Olympus' },
        'timezone',
        /Mars\/Olympus/,
      ],
      [{ id: 's', group: 'g', everyMs: 5_000, timezone: 'UTC' }, 'timezone', /only to a cron/],
      [{ id: '', group: 'g', everyMs: 5_000 }, 'id', /non-empty/],
      [{ id: 's', group: 'a\nb', everyMs: 5_000 }, 'group', /control/],
      [{ id: 's', group: 'g', everyMs: 5_000, maxAttempts: 0 }, 'maxAttempts', /1/],
      [{ id: 's', group: 'g', everyMs: 5_000, priority: 10 }, 'priority', /9/],
      [{ id: 's', group: 'g', everyMs: 5_000, payload: 1n }, 'payload', /./],
      [{ id: 's', group: 'g', everyMs: 5_000, backoff: { type: 'SOON' } }, 'backoff', /FIXED/],
      [{ id: 's', group: 'g', everyMs: 5_000, colour: 'red' }, 'schedule.colour', /./],
    ];
    for (const [input, argument, message] of cases) {
      const error = await refusal(() => q.upsertSchedule(input as never));
      expect(error.code, JSON.stringify(String(input.cron ?? input.id))).toBe(
        ErrorCode.BAD_USER_INPUT,
      );
      expect(error.argument).toBe(argument);
      expect(error.message).toMatch(message);
    }
    expect(await refusal(() => q.removeSchedule(''))).toMatchObject({ argument: 'id' });
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('upsert and remove are recorded in the steering history; removing twice answers false', async () => {
    const q = new Queue(engine.redis(), uniqueQueueName(), { actor: 'ops' });
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000 });
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000 }); // unchanged: not recorded
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 6_000 }, { actor: 'alice' });
    expect(await q.removeSchedule('s')).toBe(true);
    expect(await q.removeSchedule('s')).toBe(false);
    const { entries } = await q.history();
    expect(entries.map((e) => [e.action, e.group, e.actor])).toEqual([
      ['removeSchedule', 'g', 'ops'],
      ['upsertSchedule', 'g', 'alice'],
      ['upsertSchedule', 'g', 'ops'],
    ]);
    expect(entries[1]?.before).toMatchObject({ everyMs: 5_000 });
    expect(entries[1]?.after).toMatchObject({ everyMs: 6_000 });
    expect(entries[1]?.detail).toEqual({ schedule: 's' });
    expect((await q.schedules()).totalCount).toBe(0);
    expect(await q.redis.exists(q.keys.schedules, q.keys.scheduleDefs)).toBe(0);
  });

  it('a history entry holds a payload as its size and digest, so it stays short however big the payload', async () => {
    const q = engine.queue();
    const payload = (n: number) => ({ text: `${'"\\'.repeat(50_000)}${n}` }); // ~200 KB of JSON text
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000, payload: payload(1) });
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000, payload: payload(2) });
    await q.removeSchedule('s');
    const { entries } = await q.history();
    expect(entries.map((e) => e.action)).toEqual([
      'removeSchedule',
      'upsertSchedule',
      'upsertSchedule',
    ]);
    for (const e of entries) {
      expect(JSON.stringify([e.before, e.after]).length).toBeLessThan(1_000);
    }
    const bytes = JSON.stringify(payload(1)).length;
    const [removed, replaced] = entries;
    expect(replaced?.before).toMatchObject({ everyMs: 5_000, payloadBytes: bytes });
    expect(replaced?.after).toMatchObject({ everyMs: 5_000, payloadBytes: bytes });
    expect(replaced?.before?.payloadSha1).toMatch(/^[0-9a-f]{40}$/);
    expect(replaced?.after?.payloadSha1).not.toBe(replaced?.before?.payloadSha1);
    expect(removed?.before).toEqual(replaced?.after);
  });

  it('pages by id with cursors', async () => {
    const q = engine.queue();
    for (const id of ['c', 'a', 'b']) await q.upsertSchedule({ id, group: 'g', everyMs: 5_000 });
    const one = await q.schedules({ first: 2 });
    expect(one.schedules.map((s) => s.id)).toEqual(['a', 'b']);
    expect(one.hasNextPage).toBe(true);
    const two = await q.schedules({ first: 2, after: one.endCursor });
    expect(two.schedules.map((s) => s.id)).toEqual(['c']);
    expect(two.hasNextPage).toBe(false);
    const other = engine.queue();
    expect(await refusal(() => other.schedules({ after: one.endCursor }))).toMatchObject({
      argument: 'after',
    });
  });

  it('a page lists past a definition another writer broke, and names it', async () => {
    const q = engine.queue();
    for (const id of ['a', 'b', 'c']) await q.upsertSchedule({ id, group: 'g', everyMs: 5_000 });
    await q.redis.hset(q.keys.scheduleDefs, 'b', 'not JSON');
    // Only a zone this engine does not know: listed as stored.
    const mars = { group: 'g', everyMs: null, cron: '* * * * *', timezone: 'Mars/Base' };
    const rest = { payload: null, maxAttempts: 3, backoff: null, priority: 5 };
    await q.redis.hset(q.keys.scheduleDefs, 'c', JSON.stringify({ ...mars, ...rest }));
    const one = await q.schedules({ first: 2 });
    expect(one.schedules.map((s) => s.id)).toEqual(['a']);
    expect(one).toMatchObject({ unreadable: ['b'], hasNextPage: true, totalCount: 3 });
    const two = await q.schedules({ first: 2, after: one.endCursor });
    expect(two.schedules).toMatchObject([{ id: 'c', ...mars, maxAttempts: 3 }]);
    expect(two.unreadable).toEqual([]);
  });
});

describe('an unreadable schedule', () => {
  // Each kind of definition that is no JSON object: not JSON, a JSON string, a number, an array.
  const BROKEN = ['not JSON', '"text"', '42', '[1,2]'];

  it('is removed whole, and the removal recorded, whatever its stored text', async () => {
    for (const text of BROKEN) {
      const q = engine.queue();
      await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000 });
      await q.redis.hset(q.keys.scheduleDefs, 's', text);
      expect(await q.removeSchedule('s')).toBe(true);
      expect(await q.schedules()).toMatchObject({ schedules: [], unreadable: [], totalCount: 0 });
      expect(await q.redis.zcard(q.keys.schedules)).toBe(0);
      const [entry] = (await q.history()).entries;
      expect(entry).toMatchObject({ action: 'removeSchedule', group: '', before: null });
    }
  });

  it('is replaced whole by an upsert of its id, its timing counted from now', async () => {
    for (const text of BROKEN) {
      const q = engine.queue();
      await q.upsertSchedule({ id: 's', group: 'g', everyMs: 5_000 });
      await q.redis.hset(q.keys.scheduleDefs, 's', text);
      await q.upsertSchedule({ id: 's', group: 'h', everyMs: 7_000 });
      const page = await q.schedules();
      expect(page).toMatchObject({ unreadable: [], schedules: [{ id: 's', group: 'h' }] });
      const [entry] = (await q.history()).entries;
      expect(entry).toMatchObject({ action: 'upsertSchedule', group: 'h', before: null });
    }
  });
});

describe('ticks', () => {
  it('a due tick enqueues one job with the definition, and moves the schedule on', async () => {
    const q = engine.queue();
    await q.upsertSchedule({
      id: 's',
      group: 'g',
      everyMs: 10_000,
      payload: { hello: 'world' },
      maxAttempts: 4,
      backoff: { type: 'FIXED', delayMs: 100 },
    });
    const now = await redisNow(q.redis);
    await dueAt(q, 's', now - 1);
    expect(await q.tickSchedules()).toBe(1);
    const [job, ...rest] = await pendingOf(q, 'g');
    expect(rest).toEqual([]);
    expect(job).toMatchObject({ group: 'g', payload: { hello: 'world' }, maxAttempts: 4 });
    const [after] = (await q.schedules()).schedules;
    expect(after).toMatchObject({ lastRunAt: now - 1, lastJobId: job?.id });
    expect(after?.nextRunAt).toBe(now - 1 + 10_000);
    expect(await q.tickSchedules()).toBe(0);
  });

  it('ticks missed while nothing ticked fire once, the latest, and the phase is kept', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 });
    const now = await redisNow(q.redis);
    const first = now - 10_250; // ten ticks and a quarter ago: 11 due
    await dueAt(q, 's', first);
    expect(await q.tickSchedules()).toBe(1);
    expect(await pendingOf(q, 'g')).toHaveLength(1);
    const [s] = (await q.schedules()).schedules;
    expect(s?.lastRunAt).toBe(first + 10_000);
    expect(s?.nextRunAt).toBe(first + 11_000);
    expect(await q.tickSchedules()).toBe(0);
  });

  it('a cron schedule fires its latest missed match and is next due at its next match', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'c', group: 'g', cron: '*/2 * * * * *' });
    const now = await redisNow(q.redis);
    await dueAt(q, 'c', Math.floor((now - 60_000) / 2_000) * 2_000);
    expect(await q.tickSchedules()).toBe(1);
    const [s] = (await q.schedules()).schedules;
    const latest = Math.floor(now / 2_000) * 2_000;
    expect(s?.lastRunAt).toBeGreaterThanOrEqual(latest);
    expect((s?.lastRunAt ?? 0) % 2_000).toBe(0);
    expect(s?.nextRunAt).toBe((s?.lastRunAt ?? 0) + 2_000);
  });

  it('a paused group still gets its jobs: they wait in its lane', async () => {
    const q = engine.queue();
    await q.pause('g');
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 });
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    expect(await q.tickSchedules()).toBe(1);
    expect(await pendingOf(q, 'g')).toHaveLength(1);
    expect(await q.claim()).toBeNull();
  });

  it('a tick’s job is a job like any enqueued one: ranked, counted per minute, and held to its group’s backlog bound', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 });
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    expect(await q.tickSchedules()).toBe(1);
    // The group rankings and the throughput history see it (DESIGN.md §3).
    expect((await q.topGroups('PENDING')).map((g) => [g.id, g.pending])).toEqual([['g', 1]]);
    const minutes = await q.throughput(2);
    expect(minutes.reduce((sum, m) => sum + m.enqueued, 0)).toBe(1);
    // At its bound the group takes no tick's job: the tick is spent, the last run kept.
    await q.setMaxPending('g', 1);
    const last = (await q.schedules()).schedules[0];
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    expect(await q.tickSchedules()).toBe(0);
    expect(await pendingOf(q, 'g')).toHaveLength(1);
    const after = (await q.schedules()).schedules[0];
    expect(after?.lastJobId).toBe(last?.lastJobId);
    expect(after?.nextRunAt).toBeGreaterThan(await redisNow(q.redis));
  });

  it('a definition another writer broke is skipped; the others fire', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'bad', group: 'g', cron: '* * * * *' });
    await q.upsertSchedule({ id: 'good', group: 'h', everyMs: 1_000 });
    await q.redis.hset(q.keys.scheduleDefs, 'bad', '{"group":"g","everyMs":null,"cron":"nope"}');
    const now = await redisNow(q.redis);
    await dueAt(q, 'bad', now - 1);
    await dueAt(q, 'good', now - 1);
    expect(await q.tickSchedules()).toBe(1);
    expect(await pendingOf(q, 'h')).toHaveLength(1);
    expect(await pendingOf(q, 'g')).toEqual([]);
  });

  it('a tick reads past the due schedules it cannot fire, which stay as they are', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'good', group: 'h', everyMs: 1_000 });
    await q.upsertSchedule({ id: 'bad', group: 'g', everyMs: 1_000 });
    await q.redis.hset(q.keys.scheduleDefs, 'bad', 'not JSON');
    const now = await redisNow(q.redis);
    // A full read of them, all due before the good one: entries without a definition.
    const stuck = Array.from({ length: 100 }, (_, i) => [now - 10_000 + i, `lost${i}`]).flat();
    await q.redis.zadd(q.keys.schedules, ...stuck);
    await dueAt(q, 'bad', now - 1_000);
    await dueAt(q, 'good', now - 1);
    expect(await q.tickSchedules()).toBe(1);
    expect(await pendingOf(q, 'h')).toHaveLength(1);
    expect(await q.redis.zscore(q.keys.schedules, 'lost0')).toBe(String(now - 10_000));
    expect(await q.redis.zscore(q.keys.schedules, 'bad')).toBe(String(now - 1_000));
  });

  it('a removed schedule fires no more', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 });
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    await q.removeSchedule('s');
    expect(await q.tickSchedules()).toBe(0);
    expect(await pendingOf(q, 'g')).toEqual([]);
  });

  it('the reaper fires due ticks on its pass', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 });
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    await new Reaper(q).reapOnce();
    expect(await pendingOf(q, 'g')).toHaveLength(1);
  });

  it('a Worker without a reaper ticks its queue itself, and runs the job', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: 60_000, payload: 'hi' });
    await dueAt(q, 's', (await redisNow(q.redis)) - 1);
    const ran: unknown[] = [];
    const w = new Worker(q, async (job) => void ran.push(job.payload), { reaper: false });
    try {
      await pollUntil('the tick’s job ran', async () => ran.length === 1, 5_000);
    } finally {
      await w.close();
    }
    expect(ran).toEqual(['hi']);
    expect((await q.schedules()).schedules[0]?.lastJobId).not.toBeNull();
  });

  it('reapers and workers ticking together on their own connections, in real time: one job per tick', async () => {
    const name = uniqueQueueName();
    const q = new Queue(engine.client(), name);
    const first = (await q.upsertSchedule({ id: 's', group: 'g', everyMs: 1_000 })).nextRunAt;
    const reapers = Array.from(
      { length: 3 },
      () => new Reaper(new Queue(engine.client(), name), { intervalMs: 50 }),
    );
    // The reapers' lock lets one pass a queue per interval: tickers without it race them too.
    const tickers = Array.from({ length: 3 }, () => new Queue(engine.client(), name));
    const timer = setInterval(() => {
      for (const t of tickers) void t.tickSchedules();
    }, 20);
    for (const r of reapers) r.start();
    try {
      await pollUntil('three ticks', async () => (await redisNow(q.redis)) > first + 2_100, 6_000);
    } finally {
      clearInterval(timer);
      await Promise.all(reapers.map((r) => r.close()));
    }
    const [s] = (await q.schedules()).schedules;
    const ticks = ((s?.lastRunAt ?? 0) - first) / 1_000 + 1;
    expect(ticks).toBeGreaterThanOrEqual(3);
    expect((await q.counts()).pending).toBe(ticks);
  });

  it('many tickers on their own connections at once: one job per tick (property)', async () => {
    const name = uniqueQueueName();
    const tickers = Array.from({ length: 6 }, () => new Queue(engine.client(), name));
    const q = tickers[0] as Queue;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 50_000 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 2, max: 6 }),
        async (missed, n) => {
          run += 1;
          const ids = missed.map((_, i) => `r${run}s${i}`);
          for (const id of ids) await q.upsertSchedule({ id, group: id, everyMs: 1_000 });
          const now = await redisNow(q.redis);
          // Each due by a random span (one tick or many missed).
          for (const [i, ms] of missed.entries()) await dueAt(q, ids[i] as string, now - ms);
          const before = (await q.counts()).pending;
          const fired = await Promise.all(tickers.slice(0, n).map((t) => t.tickSchedules()));
          expect(fired.reduce((a, b) => a + b, 0)).toBe(ids.length);
          expect((await q.counts()).pending - before).toBe(ids.length);
          for (const id of ids) expect(await pendingOf(q, id)).toHaveLength(1);
          for (const id of ids) await q.removeSchedule(id);
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('the DST rule (croner, as Vixie cron)', () => {
  const berlin = (cron: string) => ({ everyMs: null, cron, timezone: 'Europe/Berlin' });
  const at = (iso: string) => Date.parse(iso);

  it('a fixed-time tick in the skipped hour fires at the first time after the gap', () => {
    // 2026-03-29 02:00 → 03:00 in Berlin: 02:30 does not exist.
    const { next } = ticksOf(
      berlin('0 30 2 * * *'),
      at('2026-03-28T12:00:00Z'),
      at('2026-03-28T12:00:00Z'),
    );
    expect(new Date(next).toISOString()).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
  });

  it('a fixed-time tick in the repeated hour fires once, at its first occurrence', () => {
    // 2026-10-25 03:00 → 02:00 in Berlin: 02:30 happens twice.
    const first = ticksOf(
      berlin('0 30 2 * * *'),
      at('2026-10-24T12:00:00Z'),
      at('2026-10-24T12:00:00Z'),
    );
    expect(new Date(first.next).toISOString()).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST
    const then = ticksOf(berlin('0 30 2 * * *'), first.next, first.next);
    expect(new Date(then.next).toISOString()).toBe('2026-10-26T01:30:00.000Z'); // next day, CET
  });

  it('an interval tick (wildcard or step) skips the gap and fires in both repeated hours', () => {
    const spring = ticksOf(
      berlin('0 */30 * * * *'),
      at('2026-03-29T00:45:00Z'),
      at('2026-03-29T00:45:00Z'),
    );
    expect(new Date(spring.next).toISOString()).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
    const ticks: string[] = [];
    let t = at('2026-10-25T00:15:00Z');
    for (let i = 0; i < 4; i++) {
      t = ticksOf(berlin('0 */30 * * * *'), t, t).next;
      ticks.push(new Date(t).toISOString());
    }
    // 02:30 CEST, 02:00 CET, 02:30 CET, 03:00 CET
    expect(ticks).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });
});
