/**
 * `Queue.jobPlace` (DESIGN.md §4.1, "Where a job stands") against a real Redis: a pending job's
 * position is its ZRANK in its lane (priorities first), every other state has none, the
 * estimate is null without history, and on a steady workload run by a real Worker the estimated
 * start is within 50% of the wait measured.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Defaults } from '../../src/lanes/defaults.js';
import { Worker } from '../../src/lanes/index.js';
import { queueKeys } from '../../src/lanes/internal.js';
import { PLACE_MIN_SAMPLES } from '../../src/lanes/queue/place.js';
import { pollUntil, useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('Queue.jobPlace', () => {
  it('answers a pending job its ZRANK in its lane, priorities first', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', 1);
    const b = await q.enqueue('g', 2);
    const urgent = await q.enqueue('g', 3, { priority: 2 });
    const late = await q.enqueue('g', 4, { priority: 8 });
    const c = await q.enqueue('g', 5);
    const lane = queueKeys(Defaults.prefix, q.name).lane('g');
    const expected = [urgent, a, b, c, late];
    for (const [i, job] of expected.entries()) {
      const place = await q.jobPlace(job.id);
      expect(place?.position, `job ${job.id}`).toBe(i);
      expect(await engine.redis().zrank(lane, job.id)).toBe(i);
      expect(place?.group?.pending).toBe(5);
    }
  });

  it('answers no position and no estimate for a job that is not pending, and null for none', async () => {
    const q = engine.queue();
    const delayed = await q.enqueue('g', 1, { delayMs: 60_000 });
    await q.enqueue('g', 2);
    await q.enqueue('g', 3);
    const claimed = await q.claim();
    if (!claimed) throw new Error('nothing claimed');
    for (const id of [delayed.id, claimed.id]) {
      const place = await q.jobPlace(id);
      expect(place?.job.state).toMatch(/DELAYED|ACTIVE/);
      expect(place).toMatchObject({ position: null, group: null, estimatedStartAt: null });
    }
    await q.complete(claimed.id, claimed.token as string);
    expect(await q.jobPlace(claimed.id)).toMatchObject({
      job: { state: 'COMPLETED' },
      position: null,
      estimatedStartAt: null,
    });
    expect(await q.jobPlace('999999')).toBeNull();
    expect(await q.jobPlace('not an id')).toBeNull();
  });

  it('has no estimate until its group has retained enough completions', async () => {
    const q = engine.queue();
    for (let i = 0; i < PLACE_MIN_SAMPLES + 2; i++) await q.enqueue('g', i);
    const done = async () => {
      const job = await q.claim();
      if (!job) throw new Error('nothing claimed');
      await sleep(5);
      await q.complete(job.id, job.token as string);
    };
    for (let i = 0; i < PLACE_MIN_SAMPLES - 1; i++) await done();
    const last = (await q.jobs({ state: 'PENDING', group: 'g' })).jobs.at(-1);
    if (!last) throw new Error('no pending job');
    expect((await q.jobPlace(last.id))?.estimatedStartAt).toBeNull();
    await done();
    const place = await q.jobPlace(last.id);
    expect(place?.service?.samples).toBe(PLACE_MIN_SAMPLES);
    expect(place?.estimatedStartAt).toBeGreaterThanOrEqual(place?.now ?? Number.NaN);
    // Paused, nothing can say when it starts.
    await q.pause('g');
    expect((await q.jobPlace(last.id))?.estimatedStartAt).toBeNull();
  });

  it('jobPlaces answers each id in order, as jobPlace would, across groups and states', async () => {
    const q = engine.queue();
    const a1 = await q.enqueue('a', 1);
    const a2 = await q.enqueue('a', 2);
    const b1 = await q.enqueue('b', 3, { priority: 3 });
    const later = await q.enqueue('b', 4, { delayMs: 60_000 });
    const ids = [a2.id, 'nope', b1.id, later.id, a1.id, '424242'];
    const batch = await q.jobPlaces(ids);
    expect(batch.map((p) => p?.position ?? null)).toEqual([1, null, 0, null, 0, null]);
    expect(batch.map((p) => p?.job.id ?? null)).toEqual([
      a2.id,
      null,
      b1.id,
      later.id,
      a1.id,
      null,
    ]);
    for (const [i, id] of ids.entries()) {
      const one = await q.jobPlace(id);
      expect(batch[i] === null ? null : { ...batch[i], now: 0 }).toEqual(
        one === null ? null : { ...one, now: 0 },
      );
    }
    expect(await q.jobPlaces([])).toEqual([]);
    for (const bad of ['1', Array.from({ length: 501 }, () => '1')]) {
      const refusal = await q.jobPlaces(bad as unknown as string[]).catch((e: unknown) => e);
      expect(refusal).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'ids' });
    }
  });

  it('estimates the start within 50% on a steady workload run by a Worker', async () => {
    const q = engine.queue();
    // Long beside a claim's round trip, so a loaded host's slower claims do not pass for
    // service time (at 60 ms a run on a busy host took twice its estimate).
    const serviceMs = 200;
    await q.setLimit('g', 2);
    const jobs = await q.enqueueMany(
      Array.from({ length: 40 }, (_, i) => ({ group: 'g', payload: i })),
    );
    const worker = new Worker(q, () => sleep(serviceMs), { concurrency: 4 });
    try {
      const completed = queueKeys(Defaults.prefix, q.name).groupCompleted('g');
      await pollUntil('6 completions', async () => (await engine.redis().zcard(completed)) >= 6);
      const target = jobs.at(-14);
      if (!target) throw new Error('no target');
      const place = await q.jobPlace(target.id);
      if (!place || place.estimatedStartAt === null) throw new Error('no estimate');
      expect(place.position).toBeGreaterThan(5);
      await pollUntil(
        'the target claimed',
        async () => (await q.job(target.id))?.claimedAt != null,
      );
      const claimedAt = (await q.job(target.id))?.claimedAt as number;
      const actual = claimedAt - place.now;
      const estimated = place.estimatedStartAt - place.now;
      expect(
        Math.abs(estimated - actual),
        `estimated ${estimated} ms, took ${actual} ms`,
      ).toBeLessThanOrEqual(actual * 0.5);
    } finally {
      await worker.close();
    }
  });
});
