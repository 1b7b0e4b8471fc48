/**
 * Fault: a worker process SIGKILLed in the middle of its jobs, holding every permit of four
 * limited groups — the classic leaked-permit crash. Healthy worker processes are parked (nothing
 * is serviceable) when it dies.
 *
 * What must hold: the dead worker's leases expire and the server's reaper gives each job back
 * with its permit, exactly once (stats.reaped = the leases it held); the groups re-join the ring
 * and the parked workers wake and finish everything, the reaped jobs on their second attempt; no
 * group ever holds more permits than its limit; gactive returns to empty (no leak) and I1–I5
 * hold with nothing lost.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import {
  assertSound,
  closeWorkers,
  drained,
  Ledger,
  produce,
  report,
  startWorkers,
  until,
  useScenario,
  workload,
} from './support.js';

const QUEUE = 'workerkill';
const LIMIT = 2;
const GROUPS = ['alpha', 'bravo', 'charlie', 'delta'];
const LEASE_MS = 800;

describe('a worker process SIGKILLed mid-job', () => {
  // The server's reaper is the only one running here: the workers' own are off
  // (worker-kill-no-server.test.ts has the workers reap without a server).
  const { redis } = useScenario({ server: { REAP_INTERVAL_MS: '100' } });

  it('gets its jobs and permits back through the reaper, exactly once', async () => {
    const conn = redis.client();
    const queue = new Queue(conn, `${QUEUE}-${Date.now()}`);
    for (const group of GROUPS) await queue.setLimit(group, LIMIT);
    const ledger = new Ledger();
    await produce(queue, workload(120, GROUPS, 0), ledger);

    // The doomed worker takes every permit (2 per group) and hangs on each job.
    const doomedLedger = new Ledger();
    const [doomed] = await startWorkers(
      1,
      {
        redisUrl: redis.url,
        queue: queue.name,
        concurrency: 8,
        leaseMs: LEASE_MS,
        hang: true,
        reaper: false,
      },
      doomedLedger,
    );
    await until('the doomed worker to hold every permit', () => doomedLedger.started === 8);
    const held = (doomed?.messages ?? []).filter((m) => m.type === 'started').map((m) => m.id);
    expect(await conn.hgetall(queue.keys.gactive)).toEqual(
      Object.fromEntries(GROUPS.map((g) => [g, String(LIMIT)])),
    );
    expect(await queue.ring()).toEqual([]);

    // Healthy workers start while nothing is serviceable: they park on the wake list.
    const healthy = await startWorkers(
      2,
      { redisUrl: redis.url, queue: queue.name, concurrency: 4, leaseMs: 5_000, reaper: false },
      ledger,
    );
    expect(ledger.started).toBe(0);

    // Sample every group's permits until the end: never above the limit, never 0 or below.
    const violations: string[] = [];
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const active = await conn.hgetall(queue.keys.gactive);
        samples++;
        for (const [group, n] of Object.entries(active)) {
          if (Number(n) > LIMIT || Number(n) <= 0) violations.push(`${group}=${n}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    await doomed?.kill('SIGKILL');
    const killedAt = Date.now();
    await until(
      'the reaper to take back the 8 leases',
      async () => (await queue.stats()).reaped >= 8,
      {
        timeoutMs: 15_000,
        intervalMs: 10,
      },
    );
    const reapedMs = Date.now() - killedAt;
    await until('the workload to drain', () => drained(queue), {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    const drainedMs = Date.now() - killedAt;
    sampling = false;
    await sampler;

    expect(violations).toEqual([]);
    expect((await queue.stats()).reaped).toBe(8);
    // The reaped jobs ran again, to completion, on their second attempt.
    for (const id of held) expect(ledger.completedAttempts.get(id as string), `job ${id}`).toBe(2);

    await closeWorkers(healthy);
    const accounting = await assertSound(queue, ledger, { exactIds: true });
    expect(accounting.reaped).toBe(8);
    expect(accounting.completed).toBe(120);

    report('worker-kill', {
      permitsHeldByKilledWorker: held.length,
      leaseMs: LEASE_MS,
      reapedMs,
      drainedMs,
      gactiveSamples: samples,
      ...accounting,
    });
  }, 60_000);
});
