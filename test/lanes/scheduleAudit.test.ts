/**
 * Queue.audit finds, and Queue.repair mends, a schedule's keys that disagree (DESIGN.md §4.5,
 * "Schedules"; finding kind SCHEDULE): a next tick without a definition, a definition without a
 * next tick or with one later than it allows, a last run of no schedule or not
 * `<lastRunAt>:<lastJobId>`, a definition that is not one. The damage is made with plain Redis
 * commands, as a hand edit or another writer would leave it. After a repair the audit is clean
 * and each schedule kept ticks exactly once per tick, however many tick at once.
 */
import { describe, expect, it } from 'vitest';
import type { Finding, Queue } from '../../src/lanes/internal.js';
import { queueSnapshot, redisNow, useEngine } from '../support/lanes.js';

const engine = useEngine();

const MINUTE = 60_000;

const schedulesOf = (findings: Finding[]) =>
  findings
    .filter((f) => f.kind === 'SCHEDULE')
    .map((f) => f.subject)
    .sort();

/** Audit (writes nothing), repair (changes what audit found), audit again (clean). */
async function auditRepairAudit(q: Queue, expected: string[]): Promise<Finding[]> {
  const before = await queueSnapshot(q);
  const audit = await q.audit();
  expect(schedulesOf(audit.findings)).toEqual([...expected].sort());
  expect(audit.findings.every((f) => f.kind === 'SCHEDULE')).toBe(true);
  expect(await queueSnapshot(q)).toEqual(before);
  const repair = await q.repair();
  // The same findings (an interval's next tick is computed from each call's now).
  const seen = (findings: Finding[]) => findings.map((f) => [f.kind, f.subject, f.found]);
  expect(seen(repair.findings)).toEqual(seen(audit.findings));
  expect((await q.audit()).findings).toEqual([]);
  return audit.findings;
}

/**
 * The schedules here tick at most every 10 s (a cron of every tenth second, or slower), each
 * next tick computed from when it fires: tickers that straddle a 10 s boundary rightly fire it
 * again. Wait until the Redis clock is clear of the next one.
 */
async function clearOfBoundary(q: Queue): Promise<void> {
  const into = (await redisNow(q.redis)) % 10_000;
  if (into > 8_000) await new Promise((resolve) => setTimeout(resolve, 10_050 - into));
}

/** Schedule `id` due now: three tickers at once fire one job of it, a fourth tick none. */
async function ticksOnce(q: Queue, id: string, group: string): Promise<void> {
  await clearOfBoundary(q);
  await q.redis.zadd(q.keys.schedules, (await redisNow(q.redis)) - 1, id);
  const jobsBefore = (await q.jobs({ state: 'PENDING', group, first: 500 })).jobs.length;
  const fired = await Promise.all([q.tickSchedules(), q.tickSchedules(), q.tickSchedules()]);
  expect(fired.reduce((a, b) => a + b, 0)).toBe(1);
  expect(await q.tickSchedules()).toBe(0);
  const jobs = (await q.jobs({ state: 'PENDING', group, first: 500 })).jobs;
  expect(jobs).toHaveLength(jobsBefore + 1);
  const s = (await q.schedules()).schedules.find((x) => x.id === id);
  expect(s?.lastJobId).toBe(jobs.at(-1)?.id);
}

describe('audit and repair of the schedules', () => {
  it('well-formed schedules audit clean, before and after their ticks', async () => {
    const q = engine.queue();
    await q.upsertSchedule({
      id: 'every',
      group: 'g',
      everyMs: MINUTE,
      payload: { n: [1, 'two'] },
      maxAttempts: 5,
      backoff: { type: 'EXPONENTIAL', delayMs: 100, maxDelayMs: 1_000, jitter: 0.5 },
      priority: 2,
    });
    await q.upsertSchedule({
      id: 'cron',
      group: 'h',
      cron: '0 30 2 * * *',
      timezone: 'Europe/Berlin',
    });
    await q.upsertSchedule({ id: 'plain', group: 'h', cron: '*/5 * * * *' });
    expect((await q.audit()).findings).toEqual([]);
    await ticksOnce(q, 'every', 'g');
    await ticksOnce(q, 'cron', 'h');
    const before = await queueSnapshot(q);
    expect((await q.repair()).findings).toEqual([]);
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('a next tick without a definition: found and dropped', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'real', group: 'g', everyMs: MINUTE });
    // 100 orphans due before it: a tick reads past them (DESIGN.md §3, "Schedules").
    const orphans: string[] = [];
    const now = await redisNow(q.redis);
    for (let i = 0; i < 100; i++) orphans.push(`orphan${i}`);
    await q.redis.zadd(q.keys.schedules, ...orphans.flatMap((id, i) => [now - 10_000 + i, id]));
    await q.redis.zadd(q.keys.schedules, now - 1, 'real');
    expect(await q.tickSchedules()).toBe(1);
    const findings = await auditRepairAudit(q, orphans);
    expect(findings[0]).toMatchObject({
      expected: 'no next tick (no definition: dropped)',
      found: `a next tick at ${now - 10_000} without a definition`,
    });
    expect(await q.redis.zrange(q.keys.schedules, 0, -1)).toEqual(['real']);
    await ticksOnce(q, 'real', 'g');
  });

  it('a definition without a next tick is given its next one after now, and ticks once', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'every', group: 'g', everyMs: MINUTE });
    await q.upsertSchedule({ id: 'cron', group: 'h', cron: '0 0 * * * *' });
    await ticksOnce(q, 'every', 'g');
    const [lastRunAt] = (await q.redis.hget(q.keys.scheduleRuns, 'every'))?.split(':') ?? [];
    await q.redis.zrem(q.keys.schedules, 'every', 'cron');
    const findings = await auditRepairAudit(q, ['cron', 'every']);
    expect(findings.map((f) => f.found)).toEqual([
      'no next tick: it would never fire',
      'no next tick: it would never fire',
    ]);
    const now = await redisNow(q.redis);
    // The interval keeps the phase of its last run; the cron is due at its next match.
    const every = Number(await q.redis.zscore(q.keys.schedules, 'every'));
    expect((every - Number(lastRunAt)) % MINUTE).toBe(0);
    expect(every).toBeGreaterThan(now - 5_000);
    expect(every).toBeLessThanOrEqual(now + MINUTE);
    const cron = Number(await q.redis.zscore(q.keys.schedules, 'cron'));
    expect(cron % (60 * MINUTE)).toBe(0);
    expect(cron).toBeGreaterThan(now - 5_000);
    expect(cron).toBeLessThanOrEqual(now + 60 * MINUTE);
    expect(findings.find((f) => f.subject === 'cron')?.expected).toBe(`a next tick at ${cron}`);
    await ticksOnce(q, 'every', 'g');
    await ticksOnce(q, 'cron', 'h');
  });

  it('a next tick later than its definition allows, or -inf, is moved to its next one', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'late', group: 'g', everyMs: MINUTE });
    await q.upsertSchedule({ id: 'ninf', group: 'g', cron: '*/10 * * * * *' });
    await q.upsertSchedule({ id: 'finished', group: 'g', cron: '*/10 * * * * *' });
    const now = await redisNow(q.redis);
    await q.redis.zadd(q.keys.schedules, now + 10 * 24 * 60 * MINUTE, 'late');
    await q.redis.zadd(q.keys.schedules, '-inf', 'ninf', '+inf', 'finished');
    const findings = await auditRepairAudit(q, ['finished', 'late', 'ninf']);
    expect(Object.fromEntries(findings.map((f) => [f.subject, f.found]))).toEqual({
      late: `a next tick at ${now + 10 * 24 * 60 * MINUTE}, later than its definition allows`,
      ninf: 'a next tick at -inf, not a time',
      finished: 'a next tick at inf, later than its definition allows',
    });
    const after = await redisNow(q.redis);
    for (const id of ['late', 'ninf', 'finished']) {
      const score = Number(await q.redis.zscore(q.keys.schedules, id));
      expect(score).toBeGreaterThan(now);
      expect(score).toBeLessThanOrEqual(after + MINUTE);
      await ticksOnce(q, id, 'g');
    }
  });

  it('a last run of no schedule, or not <lastRunAt>:<lastJobId>, is dropped', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 's', group: 'g', everyMs: MINUTE });
    await q.redis.hset(q.keys.scheduleRuns, 'gone', '1000:7', 's', 'yesterday:3');
    expect((await q.schedules()).schedules[0]?.lastRunAt).toBeNaN();
    const findings = await auditRepairAudit(q, ['gone', 's']);
    expect(findings.map((f) => [f.subject, f.found]).sort()).toEqual([
      ['gone', 'last run 1000:7'],
      ['s', 'last run yesterday:3'],
    ]);
    expect((await q.schedules()).schedules[0]).toMatchObject({ lastRunAt: null, lastJobId: null });
    // A new schedule of that id starts with no last run.
    expect(await q.upsertSchedule({ id: 'gone', group: 'g', everyMs: MINUTE })).toMatchObject({
      lastRunAt: null,
      lastJobId: null,
    });
    await ticksOnce(q, 's', 'g');
    await ticksOnce(q, 'gone', 'g');
  });

  it('a definition that is not one is removed, its text kept in the history', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'ok', group: 'g', everyMs: MINUTE, payload: { keep: true } });
    const good = JSON.parse((await q.redis.hget(q.keys.scheduleDefs, 'ok')) as string);
    const bad: Record<string, string> = {
      notJson: `{"group":"g","payload":"${'x'.repeat(200)}`,
      array: '[1,2]',
      noGroup: JSON.stringify({ ...good, group: undefined }),
      both: JSON.stringify({ ...good, cron: '* * * * *' }),
      defaulted: JSON.stringify({ ...good, maxAttempts: undefined }),
      payload: JSON.stringify({ ...good, payload: '{oops' }),
      priority: JSON.stringify({ ...good, priority: 12 }),
    };
    const now = await redisNow(q.redis);
    for (const [id, text] of Object.entries(bad)) {
      await q.redis.hset(q.keys.scheduleDefs, id, text);
      await q.redis.zadd(q.keys.schedules, now - 1_000, id);
      await q.redis.hset(q.keys.scheduleRuns, id, `${now - MINUTE}:1`);
    }
    // The listing names them, unlisted.
    expect(await q.schedules()).toMatchObject({
      schedules: [{ id: 'ok' }],
      unreadable: Object.keys(bad).sort(),
    });
    const findings = await auditRepairAudit(q, Object.keys(bad));
    for (const f of findings) {
      expect(f.expected).toBe('no schedule (its definition is not one: removed)');
      expect(f.found.startsWith('definition ')).toBe(true);
    }
    const found = Object.fromEntries(findings.map((f) => [f.subject, f.found]));
    expect(found.notJson).toBe(`definition ${bad.notJson?.slice(0, 100)}…: not JSON`);
    expect(found.both).toMatch(/exactly one of everyMs and cron/);
    expect(found.priority).toMatch(/priority/);
    for (const key of [q.keys.schedules, q.keys.scheduleDefs, q.keys.scheduleRuns]) {
      const type = await q.redis.type(key);
      const ids = type === 'zset' ? await q.redis.zrange(key, 0, -1) : await q.redis.hkeys(key);
      expect(ids.filter((id) => id !== 'ok')).toEqual([]);
    }
    // The whole text is in the repair's history entry.
    const entry = (await q.history({ first: 10 })).entries.find(
      (e) => e.action === 'repair' && e.group === '',
    );
    expect(entry).toMatchObject({ detail: { step: 'schedules', changes: 3 } });
    expect(entry?.before).toMatchObject({ 'schedule notJson': `definition ${bad.notJson}` });
    expect((await q.schedules()).schedules.map((s) => s.id)).toEqual(['ok']);
    await ticksOnce(q, 'ok', 'g');
  });

  it('a cron or time zone this engine does not read is reported, and left to the operator', async () => {
    const q = engine.queue();
    await q.upsertSchedule({ id: 'c', group: 'g', cron: '0 * * * *', timezone: 'Europe/Berlin' });
    const good = JSON.parse((await q.redis.hget(q.keys.scheduleDefs, 'c')) as string);
    const unread = {
      cron: JSON.stringify({ ...good, cron: 'every day' }),
      zone: JSON.stringify({ ...good, timezone: 'Mars/Olympus_Mons' }),
    };
    await q.redis.hset(q.keys.scheduleDefs, unread);
    await q.redis.zrem(q.keys.schedules, 'c');
    const before = await queueSnapshot(q);
    const audit = await q.audit();
    expect(schedulesOf(audit.findings)).toEqual(['c', 'cron', 'zone']);
    for (const f of audit.findings.filter((x) => x.subject !== 'c')) {
      expect(f.expected).toBe(
        'a cron and time zone this engine reads (not repaired: upsert or remove it)',
      );
    }
    // Reported again by the repair, which leaves them as they are and mends the well-formed one.
    const repair = await q.repair();
    expect(schedulesOf(repair.findings)).toEqual(['c', 'cron', 'zone']);
    expect(await q.redis.hget(q.keys.scheduleDefs, 'cron')).toBe(unread.cron);
    expect(await q.redis.hget(q.keys.scheduleDefs, 'zone')).toBe(unread.zone);
    expect(await queueSnapshot(q)).not.toEqual(before);
    expect(schedulesOf((await q.audit()).findings)).toEqual(['cron', 'zone']);
    await ticksOnce(q, 'c', 'g');
  });
});
