/**
 * Fault: poison pills among ordinary jobs, run by worker processes with Node's default settings
 * (no `unhandledRejection` handler, `--unhandled-rejections=throw`). Every kind of
 * test/fixtures/poison.ts — values `String()` cannot convert, a Proxy that throws on every trap,
 * Errors whose getters throw or answer no string, a synchronous throw, a rejected thenable — is
 * enqueued once in each of four groups at limit 1, between the shared workload's jobs.
 *
 * What must hold: no worker process dies (before, the first such pill ended its process with
 * `TypeError: Cannot convert object to primitive value`, and the next worker to claim the job
 * died too until its attempts ran out); no worker reports `error`; each pill ends DEAD after its
 * two attempts with its readable text as lastError (not "lease expired": the lease is long and
 * nothing is reaped); every other job completes; the workers close on request and exit 0; and
 * I1–I5 hold with nothing lost.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { POISONS, type Poison, type PoisonKind } from '../fixtures/poison.js';
import {
  assertSound,
  closeWorkers,
  drained,
  type JobSpec,
  Ledger,
  produce,
  report,
  startWorkers,
  until,
  useScenario,
  workload,
} from './support.js';

const QUEUE = 'poisonpill';
const GROUPS = ['alpha', 'bravo', 'charlie', 'delta'];
/** Far longer than the scenario: a pill's job is never rescued by a reap. */
const LEASE_MS = 60_000;

describe('poison pills among ordinary jobs, workers with Node defaults', () => {
  const { redis } = useScenario();

  it('fail as readable text, free their permits, and no worker dies or reports an error', async () => {
    const conn = redis.client();
    const queue = new Queue(conn, `${QUEUE}-${Date.now()}`);
    for (const group of GROUPS) await queue.setLimit(group, 1);
    const kinds = Object.keys(POISONS) as PoisonKind[];
    const ordinary = workload(120, GROUPS);
    // One pill of each kind per group, spread through the ordinary jobs.
    const pills: JobSpec[] = GROUPS.flatMap((group, g) =>
      kinds.map((poison, k) => ({
        group,
        payload: { ms: 0, poison, n: 1_000 + g * kinds.length + k },
        maxAttempts: 2,
      })),
    );
    const jobs: JobSpec[] = [];
    ordinary.forEach((spec, i) => {
      jobs.push(spec);
      if (i % 2 === 0 && pills.length > 0) jobs.push(pills.shift() as JobSpec);
    });
    jobs.push(...pills.splice(0));

    const ledger = new Ledger();
    const workers = await startWorkers(
      2,
      { redisUrl: redis.url, queue: queue.name, concurrency: 4, leaseMs: LEASE_MS },
      ledger,
    );
    const startedAt = Date.now();
    await produce(queue, jobs, ledger, { parallel: 2 });
    await until(
      'the workload to drain',
      () => {
        // A dead worker is the fault: say so at once, with its last words.
        const dead = workers.find((w) => !w.alive);
        if (dead) throw new Error(`${dead.name} died:\n${dead.tail(10)}`);
        return drained(queue);
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    );
    const drainedMs = Date.now() - startedAt;

    for (const worker of workers)
      expect(worker.alive, `${worker.name}\n${worker.tail()}`).toBe(true);
    expect(ledger.errors, 'Worker error events').toEqual([]);

    // Each pill is dead with its text; no job was reaped.
    const byText = new Map<string, number>();
    let pillsDead = 0;
    const stats = await queue.stats();
    expect(stats.reaped, 'jobs reaped (a pill must not wait for its lease)').toBe(0);
    for (const id of ledger.enqueued) {
      const job = await queue.job(id);
      if (job === null) continue;
      const { poison } = (job.payload ?? {}) as { poison?: PoisonKind };
      if (poison === undefined) continue;
      const { text } = POISONS[poison] as Poison;
      expect([job.state, job.lastError], `pill ${poison} (job ${id})`).toEqual(['DEAD', text]);
      byText.set(text, (byText.get(text) ?? 0) + 1);
      pillsDead++;
    }
    expect(pillsDead, 'pills dead with their text').toBe(GROUPS.length * kinds.length);

    const accounting = await assertSound(queue, ledger, { exactIds: true });
    await closeWorkers(workers);
    for (const worker of workers) expect((await worker.exited).code, worker.tail()).toBe(0);

    report('poison-pill', {
      ...accounting,
      kinds: kinds.length,
      pills: pillsDead,
      workerErrors: ledger.errors.length,
      workersAlive: workers.length,
      drainedMs,
    });
  });
});
