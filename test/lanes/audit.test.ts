/**
 * Queue.audit finds, and Queue.repair fixes, each kind of damage (DESIGN.md §3
 * I1–I3), created with plain Redis commands the way a crashed writer, a hand edit or another
 * implementation would leave it. After a repair the audit is clean and the queue works.
 */
import { describe, expect, it } from 'vitest';
import type { Finding, Queue } from '../../src/lanes/internal.js';
import { scriptCallsIn } from '../support/commandStats.js';
import { placeJob, placeJobs } from '../support/jobs.js';
import { rawState, snapshot, untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

const kinds = (findings: Finding[]) => findings.map((f) => `${f.kind} ${f.subject}`).sort();

/** Audit, check it reports `expected` and changed nothing; repair; audit again: clean. */
async function auditRepairAudit(queue: Queue, expected: string[]): Promise<Finding[]> {
  const before = await snapshot(engine.redis());
  const audit = await queue.audit();
  expect(kinds(audit.findings)).toEqual([...expected].sort());
  expect(await snapshot(engine.redis())).toEqual(before);
  // Repair changes what audit found, except a garbage limit: it reads as no limit and is left
  // for setLimit to overwrite, so audit keeps reporting it.
  const unfixable = audit.findings.filter((f) => f.kind === 'LIMIT');
  const repair = await queue.repair();
  expect(kinds(repair.findings)).toEqual(kinds(audit.findings.filter((f) => f.kind !== 'LIMIT')));
  const after = await queue.audit();
  expect(after.findings).toEqual(unfixable);
  return audit.findings;
}

describe('audit and repair', () => {
  it('a healthy queue audits clean, and repair changes nothing', async () => {
    const q = engine.queue();
    await q.setLimit('a', 1);
    await q.enqueue('a');
    await q.enqueue('a');
    await q.enqueue('b');
    await q.pause('c');
    await q.claim();
    const before = await snapshot(engine.redis());
    expect((await q.audit()).findings).toEqual([]);
    expect((await q.repair()).findings).toEqual([]);
    expect(await snapshot(engine.redis())).toEqual(before);
  });

  it('I3: an active count above the live leases (a leaked permit) is re-derived', async () => {
    const q = engine.queue();
    await q.setLimit('a', 2);
    await q.enqueue('a');
    await q.enqueue('a');
    await q.claim();
    // A crashed writer's increment: 3 active, 1 live lease; the group looks saturated.
    await engine.redis().hset(q.keys.gactive, 'a', '3');
    await engine.redis().lrem(q.keys.ring, 0, 'a');
    const findings = await auditRepairAudit(q, ['I3 a', 'I1 a']);
    expect(findings.find((f) => f.kind === 'I3')).toMatchObject({ expected: '1', found: '3' });
    const state = await rawState(q);
    expect(state.gactive).toEqual({ a: '1' });
    expect(state.ring).toEqual(['a']);
    expect(await q.claim()).not.toBeNull();
  });

  it('I3: a count with no live lease is removed; a negative count is reset', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await engine.redis().hset(q.keys.gactive, 'a', '2', 'b', '-4');
    await q.setLimit('b', 1);
    await auditRepairAudit(q, ['I3 a', 'I3 b']);
    expect((await rawState(q)).gactive).toEqual({});
  });

  it('I1: a serviceable group off the ring is put back, with a wake', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    await engine.redis().lrem(q.keys.ring, 0, 'b');
    await engine.redis().del(q.keys.wake);
    await auditRepairAudit(q, ['I1 b']);
    const state = await rawState(q);
    expect(state.ring).toEqual(['a', 'b']);
    expect(state.wake).toBe(1);
  });

  it('I1: a group on the ring while paused, saturated or empty is taken off', async () => {
    const q = engine.queue();
    await q.pause('p');
    await q.enqueue('p');
    await q.setLimit('s', 0);
    await q.enqueue('s');
    await q.enqueue('ok');
    await engine.redis().rpush(q.keys.ring, 'p', 's', 'empty');
    await engine.redis().zadd(q.keys.groups, 0, 'empty');
    await engine.redis().zadd(q.keys.seen, Date.now(), 'empty');
    await auditRepairAudit(q, ['I1 p', 'I1 s', 'I1 empty']);
    expect((await rawState(q)).ring).toEqual(['ok']);
  });

  it('I4: a payload whose job is gone (a leak) is deleted; those of live jobs are kept', async () => {
    const q = engine.queue();
    const kept = await q.enqueue('a', { keep: true });
    // Past one HSCAN step of RECONCILE_BATCH (200) fields, so the cursor is followed.
    const leaked = Array.from({ length: 250 }, (_, i) => String(1_000 + i));
    await engine.redis().hset(q.keys.payloads, ...leaked.flatMap((id) => [id, '{"left":1}']));
    const findings = await auditRepairAudit(
      q,
      leaked.map((id) => `I4 ${id}`),
    );
    expect(findings[0]).toMatchObject({
      expected: 'no payload (the job has no hash)',
      found: 'a payload in payloads',
    });
    expect(await engine.redis().hgetall(q.keys.payloads)).toEqual({ [kept.id]: '{"keep":true}' });
  });

  it('I4: a result whose job is gone is deleted; that of a kept completed job stays', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const job = await q.claim();
    await q.complete(job?.id as string, job?.token as string, { result: { kept: 1 } });
    await engine.redis().hset(q.keys.results, '999', '{"left":1}');
    const findings = await auditRepairAudit(q, ['I4 999']);
    expect(findings[0]).toMatchObject({
      expected: 'no result (the job has no hash)',
      found: 'a result in results',
    });
    expect(await engine.redis().hgetall(q.keys.results)).toEqual({
      [job?.id as string]: '{"kept":1}',
    });
  });

  it('I2: a group on the ring twice is left there once', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    await engine.redis().rpush(q.keys.ring, 'a');
    await auditRepairAudit(q, ['I2 a']);
    const ring = (await rawState(q)).ring;
    expect(ring.filter((g) => g === 'a')).toHaveLength(1);
    expect(ring).toHaveLength(2);
  });

  it('group rankings: a wrong, missing or stray entry is found and rewritten', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await q.enqueue('a');
    await q.enqueue('a');
    await q.enqueue('b');
    await q.enqueue('c');
    await q.claim();
    // a: pending 1 (after the claim), active 1; b: pending 1; c: pending 1.
    await r.zadd(q.keys.pendingRank, -5, 'a');
    await r.zrem(q.keys.pendingRank, 'b');
    await r.zadd(q.keys.activeRank, -3, 'c');
    await r.zrem(q.keys.activeRank, 'a');
    const findings = await auditRepairAudit(q, ['RANK a', 'RANK a', 'RANK b', 'RANK c']);
    expect(findings.map((f) => [f.subject, f.expected, f.found])).toEqual(
      expect.arrayContaining([
        ['a', 'pending 1', 'pending 5'],
        ['a', 'active 1', 'active 0'],
        ['b', 'pending 1', 'pending 0'],
        ['c', 'active 0', 'active 3'],
      ]),
    );
    expect(await r.zrange(q.keys.pendingRank, 0, -1, 'WITHSCORES')).toEqual([
      'a',
      '-1',
      'b',
      '-1',
      'c',
      '-1',
    ]);
    expect(await r.zrange(q.keys.activeRank, 0, -1, 'WITHSCORES')).toEqual(['a', '-1']);
    expect((await q.topGroups('ACTIVE')).map((g) => g.id)).toEqual(['a']);
  });

  it('leases: an orphan lease is dropped; an active job without one gets it back', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    const ja = await q.claim();
    await q.claim();
    await engine.redis().hset(q.keys.leases, '999', 'ghost');
    await engine.redis().hdel(q.keys.leases, ja?.id as string);
    await auditRepairAudit(q, ['LEASE 999', `LEASE ${ja?.id}`]);
    expect((await rawState(q)).leases).toEqual({ [ja?.id as string]: 'a', '2': 'b' });
  });

  it('state written by another implementation: groups registered, totals recounted', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await r.hset(q.keys.glimit, 'x', '1', 'y', 'lots');
    await r.hset(q.keys.gactive, 'x', '1');
    await r.zadd(q.keys.lane('x'), 1, 'j1', 2, 'j2');
    await r.zadd(q.keys.lane('y'), 3, 'j3');
    await r.rpush(q.keys.ring, 'y');
    const findings = await auditRepairAudit(q, [
      'REGISTRY x',
      'REGISTRY y',
      // x's count had no live lease behind it: once it is 0, x is serviceable.
      'I3 x',
      'I1 x',
      'LIMIT y',
      'TOTALS pending',
      // Lanes no Ringmaster write filled: not yet in the PENDING ranking.
      'RANK x',
      'RANK y',
    ]);
    expect(findings.find((f) => f.kind === 'LIMIT')).toMatchObject({ found: 'lots' });
    expect(await q.counts()).toMatchObject({ groups: 2, pending: 3, saturated: 0, onRing: 2 });
    // The garbage limit is reported, never changed: it reads as no limit.
    expect((await rawState(q)).glimit).toEqual({ x: '1', y: 'lots' });
  });

  it('works in bounded batches: 2,000 damaged groups take many small script calls', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const pipeline = r.pipeline();
    for (let i = 0; i < 2_000; i++) {
      const g = `g${String(i).padStart(4, '0')}`;
      pipeline.zadd(q.keys.lane(g), i, `j${i}`).zadd(q.keys.groups, 0, g);
    }
    await pipeline.exec();
    await r.config('RESETSTAT');
    const report = await q.repair();
    expect(report.groupsChecked).toBe(2_000);
    expect(report.findings.filter((f) => f.kind === 'I1')).toHaveLength(2_000);
    expect(scriptCallsIn(await r.info('commandstats'))).toBeGreaterThanOrEqual(10);
    expect((await q.ring()).length).toBe(2_000);
    expect((await q.audit()).findings).toEqual([]);
  });

  describe('I4: delayed, dead and completed jobs are in the queue’s index and their group’s', () => {
    const KINDS = [
      ['delayed', (q: Queue) => q.keys.delayed, (q: Queue, g: string) => q.keys.groupDelayed(g)],
      ['dead', (q: Queue) => q.keys.dead, (q: Queue, g: string) => q.keys.groupDead(g)],
      [
        'completed',
        (q: Queue) => q.keys.completed,
        (q: Queue, g: string) => q.keys.groupCompleted(g),
      ],
    ] as const;

    it.each(KINDS)(
      '%s: missing from the group’s index (or at another score): added there',
      async (kind, index, groupIndex) => {
        const q = engine.queue();
        const at = Date.now() + 60_000;
        const [lost, moved, fine] = await placeJobs(q, 'a', kind, 3, { at });
        await q.redis.zrem(groupIndex(q, 'a'), lost as string);
        await q.redis.zadd(groupIndex(q, 'a'), 5, moved as string);
        const findings = await auditRepairAudit(q, [`I4 ${lost}`, `I4 ${moved}`]);
        expect(findings.find((f) => f.subject === lost)).toMatchObject({
          expected: `in ${kind} of group a at ${at}`,
          found: `only in ${kind}`,
        });
        expect(await q.redis.zrange(groupIndex(q, 'a'), 0, -1, 'WITHSCORES')).toEqual([
          lost,
          String(at),
          moved,
          String(at + 1),
          fine,
          String(at + 2),
        ]);
        expect(await q.redis.zcard(index(q))).toBe(3);
      },
    );

    it.each(KINDS)(
      '%s: in the group’s index only, the job saying so: put back in the queue’s',
      async (kind, index, groupIndex) => {
        const q = engine.queue();
        const at = Date.now() + 60_000;
        const id = await placeJob(q, 'a', kind, { at });
        await q.redis.zrem(index(q), id);
        // As a writer that took it out of `delayed` would count it (the put-back recounts it).
        if (kind === 'delayed') await q.redis.hincrby(q.keys.stats, 'delayed', -1);
        await auditRepairAudit(
          q,
          kind === 'delayed' ? [`I4 ${id}`, 'TOTALS delayed'] : [`I4 ${id}`],
        );
        expect(await q.redis.zscore(index(q), id)).toBe(String(at));
        expect(await q.redis.zscore(groupIndex(q, 'a'), id)).toBe(String(at));
        if (kind === 'delayed') expect(await q.redis.hget(q.keys.stats, 'delayed')).toBe('1');
      },
    );

    it.each(KINDS)(
      '%s: strays in a group’s index (no job, another group’s, another state) are dropped',
      async (kind, index, groupIndex) => {
        const q = engine.queue();
        const mine = await placeJob(q, 'a', kind);
        const theirs = await placeJob(q, 'b', kind);
        const pending = await q.enqueue('a');
        await q.redis.zadd(groupIndex(q, 'a'), 1, 'ghost', 2, theirs, 3, pending.id);
        const findings = await auditRepairAudit(q, [
          'I4 ghost',
          `I4 ${theirs}`,
          `I4 ${pending.id}`,
        ]);
        expect(findings.find((f) => f.subject === 'ghost')?.expected).toMatch(/no job hash/);
        expect(await q.redis.zrange(groupIndex(q, 'a'), 0, -1)).toEqual([mine]);
        expect(await q.redis.zrange(groupIndex(q, 'b'), 0, -1)).toEqual([theirs]);
        expect((await q.redis.zrange(index(q), 0, -1)).sort()).toEqual([mine, theirs].sort());
      },
    );

    it('a member of delayed with no job hash is dropped, and the delayed total recounted', async () => {
      const q = engine.queue();
      const [gone, kept] = await placeJobs(q, 'a', 'delayed', 2, { at: Date.now() + 60_000 });
      await q.redis.del(q.keys.job(gone as string));
      await q.redis.zrem(q.keys.groupDelayed('a'), gone as string);
      await auditRepairAudit(q, [`I4 ${gone}`, 'TOTALS delayed']);
      expect(await q.redis.zrange(q.keys.delayed, 0, -1)).toEqual([kept]);
      expect(await q.redis.hget(q.keys.stats, 'delayed')).toBe('1');
    });

    it('a stray and a missing member in one group’s index (sizes that balance) are both found', async () => {
      const q = engine.queue();
      const [missing] = await placeJobs(q, 'a', 'dead', 2);
      await q.redis.zrem(q.keys.groupDead('a'), missing as string);
      await q.redis.zadd(q.keys.groupDead('a'), 1, 'stray');
      await auditRepairAudit(q, [`I4 ${missing}`, 'I4 stray']);
    });

    it('works in bounded steps: 1,000 delayed jobs missing from their group’s index', async () => {
      const q = engine.queue();
      const r = engine.redis();
      const at = Date.now() + 60_000;
      const pipeline = r.pipeline();
      for (let i = 0; i < 1_000; i++) {
        const id = String(i + 1);
        pipeline
          .hset(q.keys.job(id), 'group', `g${i % 10}`, 'state', 'delayed', 'score', id)
          .zadd(q.keys.delayed, at + i, id)
          .zadd(q.keys.groups, 0, `g${i % 10}`)
          .zadd(q.keys.seen, at, `g${i % 10}`);
      }
      pipeline.hset(q.keys.stats, 'delayed', 1_000);
      await pipeline.exec();
      await r.config('RESETSTAT');
      const report = await q.repair();
      expect(report.findings.filter((f) => f.kind === 'I4')).toHaveLength(1_000);
      expect(scriptCallsIn(await r.info('commandstats'))).toBeGreaterThanOrEqual(5);
      expect(await r.zcard(q.keys.groupDelayed('g3'))).toBe(100);
      expect((await q.audit()).findings).toEqual([]);
    });
  });
});

describe('timed overrides (I6): the deadline in `overrides` and the data in `goverride`', () => {
  /** A group with a limit of 5 set for an hour over its limit 2, and one paused for an hour. */
  async function overridden(q: Queue): Promise<{ until: number }> {
    await q.setLimit('a', 2);
    const { limitOverride } = await q.setLimit('a', 5, { forMs: 3_600_000 });
    await q.pause('b', { forMs: 3_600_000 });
    return { until: limitOverride?.until as number };
  }

  it('a healthy queue with pending overrides audits clean', async () => {
    const q = engine.queue();
    await overridden(q);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('data without its deadline (shown, never reverted) gets the deadline back at its until, and then reverts', async () => {
    const q = engine.queue();
    await overridden(q);
    const { limitOverride } = await q.setLimit('a', 7, { forMs: 1 });
    const until = limitOverride?.until as number;
    await q.redis.zrem(q.keys.overrides, 'limit:a');
    await untilRedisTimePasses(q.redis, until);
    // Due, and shown as due, but no pass reverts it: its deadline is gone.
    expect((await q.applyOverrides()).applied).toBe(0);
    expect(await q.group('a')).toMatchObject({ limit: 7, limitOverride: { until, revertTo: 2 } });
    const [finding] = await auditRepairAudit(q, ['OVERRIDE limit:a']);
    expect(finding).toEqual({
      kind: 'OVERRIDE',
      subject: 'limit:a',
      expected: `a deadline at ${until} (its until)`,
      found: 'no deadline: it would never revert',
    });
    expect(await q.redis.zscore(q.keys.overrides, 'limit:a')).toBe(String(until));
    expect((await q.applyOverrides()).applied).toBe(1);
    expect(await q.group('a')).toMatchObject({ limit: 2, limitOverride: null });
  });

  it('a deadline at another time than the data’s until is moved to it', async () => {
    const q = engine.queue();
    const { until } = await overridden(q);
    await q.redis.zadd(q.keys.overrides, until + 1_000, 'limit:a');
    const [finding] = await auditRepairAudit(q, ['OVERRIDE limit:a']);
    expect(finding?.found).toBe(`a deadline at ${until + 1_000}`);
    expect(await q.redis.zscore(q.keys.overrides, 'limit:a')).toBe(String(until));
  });

  it('a deadline without data (nothing to revert) is dropped; the group is unchanged', async () => {
    const q = engine.queue();
    await overridden(q);
    await q.redis.hdel(q.keys.overrideData, 'pause:b');
    await q.redis.zadd(q.keys.overrides, 42, 'limit:ghost');
    const findings = await auditRepairAudit(q, ['OVERRIDE pause:b', 'OVERRIDE limit:ghost']);
    expect(findings.find((f) => f.subject === 'limit:ghost')).toEqual({
      kind: 'OVERRIDE',
      subject: 'limit:ghost',
      expected: 'no deadline (no override data: nothing to revert)',
      found: 'a deadline at 42 without data',
    });
    expect(await q.redis.zrange(q.keys.overrides, 0, -1)).toEqual(['limit:a']);
    expect(await q.group('b')).toMatchObject({ paused: true, pauseOverride: null });
  });

  it('data that does not decode, of no kind or group, or without integer until and setAt is dropped, both halves', async () => {
    const q = engine.queue();
    const { until } = await overridden(q);
    const good = await q.redis.hget(q.keys.overrideData, 'limit:a');
    const bad: [string, string][] = [
      ['limit:c', 'not json'],
      ['limit:d', JSON.stringify({ until: until + 0.5, revertTo: 3, setAt: 1, actor: 'x' })],
      ['pause:e', JSON.stringify({ until, revertTo: true, actor: 'x' })],
      ['weight:f', good as string],
      ['limit:', good as string],
      ['pause:g', JSON.stringify({ until: 'soon', revertTo: true, setAt: 1, actor: 'x' })],
    ];
    for (const [member, data] of bad) {
      await q.redis.hset(q.keys.overrideData, member, data);
      await q.redis.zadd(q.keys.overrides, until, member);
    }
    const findings = await auditRepairAudit(
      q,
      bad.map(([member]) => `OVERRIDE ${member}`),
    );
    expect(findings.find((f) => f.subject === 'limit:c')).toEqual({
      kind: 'OVERRIDE',
      subject: 'limit:c',
      expected: 'no override (not a valid timed override: dropped)',
      found: 'override data not json',
    });
    expect(await q.redis.zrange(q.keys.overrides, 0, -1)).toEqual(['limit:a', 'pause:b']);
    expect(Object.keys(await q.redis.hgetall(q.keys.overrideData)).sort()).toEqual([
      'limit:a',
      'pause:b',
    ]);
  });

  it('a long found value is cut after 100 bytes on a character boundary, not within a UTF-8 sequence', async () => {
    const q = engine.queue();
    // 'x' then 2-byte 'é's: byte 100 is the first of an 'é', so a cut at byte 100 would split it.
    const raw = `x${'é'.repeat(60)}`;
    await q.redis.hset(q.keys.overrideData, 'limit:u', raw);
    const [finding] = (await q.audit()).findings;
    expect(finding).toMatchObject({
      subject: 'limit:u',
      found: `override data x${'é'.repeat(49)}…`,
    });
    expect(finding?.found).not.toContain('\uFFFD');
  });

  it('a revertTo not of its kind is kept as the reads show it and the revert applies it (limit: none, pause: resume), then reverted', async () => {
    const q = engine.queue();
    await q.setLimit('d', 3);
    await q.pause('e');
    // Due at once (until 1000: an integer in the past), with a revertTo the revert reads as
    // no limit ('ten') and as resume (none).
    const odd: [string, string][] = [
      ['limit:d', JSON.stringify({ until: 1000, revertTo: 'ten', setAt: 1, actor: 'x' })],
      ['pause:e', JSON.stringify({ until: 1000, setAt: 1, actor: 'x' })],
    ];
    for (const [member, data] of odd) {
      await q.redis.hset(q.keys.overrideData, member, data);
      await q.redis.zadd(q.keys.overrides, 1000, member);
    }
    const shown = {
      d: { limitOverride: { until: 1000, revertTo: null, setAt: 1, actor: 'x' } },
      e: { pauseOverride: { until: 1000, revertTo: false, setAt: 1, actor: 'x' } },
    };
    expect(await q.group('d')).toMatchObject(shown.d);
    expect(await q.group('e')).toMatchObject(shown.e);
    const findings = await auditRepairAudit(q, ['OVERRIDE limit:d', 'OVERRIDE pause:e']);
    expect(findings).toEqual([
      {
        kind: 'OVERRIDE',
        subject: 'limit:d',
        expected:
          'override data {"until":1000,"revertTo":null,"setAt":1,"actor":"x"} (revertTo as its revert applies it)',
        found: `override data ${odd[0]?.[1]}`,
      },
      {
        kind: 'OVERRIDE',
        subject: 'pause:e',
        expected:
          'override data {"until":1000,"revertTo":false,"setAt":1,"actor":"x"} (revertTo as its revert applies it)',
        found: `override data ${odd[1]?.[1]}`,
      },
    ]);
    // Kept, both halves, shown as before.
    expect((await q.redis.zrange(q.keys.overrides, 0, -1)).sort()).toEqual(['limit:d', 'pause:e']);
    expect(await q.group('d')).toMatchObject({ limit: 3, ...shown.d });
    expect(await q.group('e')).toMatchObject({ paused: true, ...shown.e });
    // And reverted at the deadline as shown: the limit cleared, the group resumed.
    expect((await q.applyOverrides()).applied).toBe(2);
    expect(await q.group('d')).toMatchObject({ limit: null, limitOverride: null });
    expect(await q.group('e')).toMatchObject({ paused: false, pauseOverride: null });
  });

  it('a repair records what it changed in the group’s history (step overrides)', async () => {
    const q = engine.queue();
    const { until } = await overridden(q);
    await q.redis.zrem(q.keys.overrides, 'limit:a');
    await q.repair({ actor: 'erin' });
    const [entry] = (await q.history({ group: 'a', first: 1 })).entries;
    expect(entry).toMatchObject({
      action: 'repair',
      actor: 'erin',
      before: { 'override limit:a': 'no deadline: it would never revert' },
      after: { 'override limit:a': `a deadline at ${until} (its until)` },
      detail: { step: 'overrides', changes: 1 },
    });
  });

  it('1,000 overrides without deadlines (HSCAN steps of 200) are all found and given theirs', async () => {
    const q = engine.queue();
    const data = JSON.stringify({ until: 5_000, revertTo: null, setAt: 1, actor: 'x' });
    const fields: string[] = [];
    for (let i = 0; i < 1_000; i++) fields.push(`limit:g${i}`, data);
    await q.redis.hset(q.keys.overrideData, ...fields);
    const audit = await q.audit();
    expect(audit.findings.filter((f) => f.kind === 'OVERRIDE')).toHaveLength(1_000);
    await q.repair();
    expect(await q.redis.zcard(q.keys.overrides)).toBe(1_000);
    expect((await q.audit()).findings).toEqual([]);
  });
});
