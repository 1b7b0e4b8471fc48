/**
 * Fault: a worker process SIGKILLed in the middle of its jobs, holding every permit of four
 * limited groups — the classic leaked-permit crash. Healthy worker processes are parked (nothing
 * is serviceable) when it dies.
 *
 * What must hold: the dead worker's leases expire and the server's reaper gives each job back
 * with its permit, exactly once (stats.reaped = the leases it held); the groups re-join the ring
 * and the parked workers wake and finish everything, the reaped jobs on their second attempt; no
 * group ever holds more permits than its limit; gactive returns to empty (no leak) and I1–I5
 * hold with nothing lost. The same under the queue's cap (no group limit, a reserve): the dead
 * worker held every permit of the cap, the parked worker's claims were held back by it, and the
 * reaped leases give the permits back; the queue's jobs in flight never pass the cap.
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
/** The queue's cap of the capped scenario. */
const CAP = 6;

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

  it('under the queue cap: the reaped leases free its permits, a parked worker takes them, never over the cap', async () => {
    const conn = redis.client();
    const queue = new Queue(conn, `${QUEUE}-cap-${Date.now()}`);
    // No group limit: the cap alone holds the work back, and delta is owed a reserve.
    await queue.setQueueLimit(CAP);
    await queue.setReserve('delta', 2);
    const ledger = new Ledger();
    await produce(queue, workload(40, GROUPS, 0), ledger);

    // The doomed worker asks for more than the cap and gets the cap: every permit.
    const doomedLedger = new Ledger();
    const [doomed] = await startWorkers(
      1,
      {
        redisUrl: redis.url,
        queue: queue.name,
        concurrency: CAP + 2,
        leaseMs: LEASE_MS,
        hang: true,
        reaper: false,
      },
      doomedLedger,
    );
    await until('the doomed worker to hold every permit', () => doomedLedger.started >= CAP);
    const held = (doomed?.messages ?? []).filter((m) => m.type === 'started').map((m) => m.id);
    expect((await queue.cap()).active).toBe(CAP);
    expect((await queue.ring()).length).toBeGreaterThan(0);

    // A healthy worker finds the queue at its cap: its claims are held back and it parks.
    const healthy = await startWorkers(
      1,
      { redisUrl: redis.url, queue: queue.name, concurrency: 8, leaseMs: 5_000, reaper: false },
      ledger,
    );
    expect(ledger.started).toBe(0);

    // Sample the queue's jobs in flight until the end: never above the cap.
    const violations: number[] = [];
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const inFlight = await conn.zcard(queue.keys.active);
        samples++;
        if (inFlight > CAP) violations.push(inFlight);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();

    await doomed?.kill('SIGKILL');
    await until(
      `the reaper to take back the ${CAP} leases`,
      async () => (await queue.stats()).reaped >= CAP,
      { timeoutMs: 15_000, intervalMs: 10 },
    );
    await until('the workload to drain', () => drained(queue), {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
    sampling = false;
    await sampler;

    expect(violations).toEqual([]);
    expect((await queue.stats()).reaped).toBe(CAP);
    for (const id of held) expect(ledger.completedAttempts.get(id as string), `job ${id}`).toBe(2);
    await closeWorkers(healthy);
    // The cap and the reserve are as set, and the audit (I8 among the rest) is clean.
    expect(await queue.cap()).toMatchObject({ limit: CAP, active: 0, reserved: 2 });
    const accounting = await assertSound(queue, ledger, { exactIds: true });
    expect(accounting.reaped).toBe(CAP);
    expect(accounting.completed).toBe(40);
    report('worker-kill-cap', { cap: CAP, inFlightSamples: samples, ...accounting });
  }, 60_000);
});
