/**
 * The demo's jobs (demo/jobs.ts), run as `npm run demo` runs them — its producer's
 * rounds and two Workers with its processor and options — against a real Redis for a few
 * seconds: jobs that fail once wait their EXPONENTIAL backoff in `delayed` with their error,
 * then complete on their second attempt; jobs that always fail end DEAD after 3 attempts with
 * the 3 errors a real processor's Error gives (message and stack), so the console's Delayed
 * and Dead views have something to show.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DemoPayload,
  FAILURES,
  processor,
  produceRound,
  WORKER_OPTIONS,
} from '../../demo/jobs.js';
import { type Job, Worker } from '../../src/lanes/index.js';
import { pollUntil, useEngine } from '../support/lanes.js';

const engine = useEngine();
const TENANTS = Array.from({ length: 35 }, (_, i) => `tenant-${String(i + 1).padStart(2, '0')}`);

/** Numbers in [0, 1) from a fixed seed (fast-check's generator): the same rounds every run. */
function seeded(seed: number): () => number {
  const values = fc.sample(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
    seed,
    numRuns: 20_000,
  });
  let i = 0;
  return () => values[i++ % values.length] as number;
}

const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 2_000 })));
});

describe('the demo producer and processor', () => {
  it('make jobs that retry after a backoff (seen delayed with their error) and jobs that end dead with errors', async () => {
    const queue = engine.queue();
    const rand = seeded(16);
    const made = new Map<string, DemoPayload>();
    const ofKind = (kind: 'always' | 'once') =>
      [...made].filter(([, p]) => p.fail === kind).map(([id]) => id);
    // Rounds until at least one job of each failing kind was made (~2 % and ~3 % of jobs).
    for (let round = 0; round < 20; round++) {
      for (const [id, payload] of await produceRound(queue, TENANTS, rand)) made.set(id, payload);
      if (ofKind('always').length > 0 && ofKind('once').length > 0) break;
    }
    const [always, once] = [ofKind('always'), ofKind('once')];
    expect(always.length).toBeGreaterThan(0);
    expect(once.length).toBeGreaterThan(0);

    for (let i = 0; i < 2; i++) workers.push(new Worker(queue, processor, WORKER_OPTIONS));
    const workerErrors: unknown[] = [];
    for (const w of workers) w.on('error', (e) => workerErrors.push(e));

    // A failed job waiting out its backoff, as the Delayed view lists it.
    let waiting: Job | undefined;
    await pollUntil(
      'a failed job waiting in delayed with its error',
      async () => {
        const page = await queue.jobs({ state: 'DELAYED', first: 500 });
        waiting = page.jobs.find((j) => j.lastError !== null);
        return waiting !== undefined;
      },
      15_000,
    );
    expect(waiting).toMatchObject({
      attempts: expect.any(Number),
      backoff: { type: 'EXPONENTIAL', delayMs: 500, maxDelayMs: 10_000 },
    });
    expect(FAILURES).toContain(waiting?.lastError);
    expect(waiting?.runAt).toBeGreaterThan(0);

    // Every always-failing job dead after 3 attempts; every fail-once job completed on its 2nd.
    await pollUntil(
      'the failing jobs to settle',
      async () => {
        const states = await Promise.all(
          [...always, ...once].map(async (id) => (await queue.job(id))?.state),
        );
        return states.every((s, i) => s === (i < always.length ? 'DEAD' : 'COMPLETED'));
      },
      20_000,
    );
    for (const id of always) {
      const job = (await queue.job(id)) as Job & { errors: { message: string; stack: string }[] };
      expect(job).toMatchObject({ state: 'DEAD', attempts: 3, maxAttempts: 3 });
      expect(job.lastError).toBe(made.get(id)?.why);
      expect(job.errors).toHaveLength(3);
      for (const error of job.errors) {
        expect(error.message).toBe(made.get(id)?.why);
        expect(error.stack).toMatch(/^Error: .*\n\s+at /);
      }
    }
    const dead = await queue.jobs({ state: 'DEAD', first: 500 });
    expect(dead.jobs.map((j) => j.id).sort()).toEqual([...always].sort());
    for (const id of once) {
      const job = await queue.job(id);
      expect(job).toMatchObject({ state: 'COMPLETED', attempts: 2 });
      expect(job?.errors).toHaveLength(1);
    }
    expect((await queue.stats()).retried).toBeGreaterThanOrEqual(2 * always.length + once.length);
    expect(workerErrors).toEqual([]);
  }, 40_000);
});
