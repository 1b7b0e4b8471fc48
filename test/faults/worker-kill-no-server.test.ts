/**
 * Fault: a worker process SIGKILLed holding every permit of four limited groups, in a deployment
 * of workers alone — no API server, so no server reaper.
 *
 * What must hold: a second, plain `Worker` (default options) takes the dead worker's leases back
 * once they expire, exactly once (stats.reaped = the leases it held), through the reaper every
 * Worker runs of its own queue, and then finishes every job, the reaped ones on their second
 * attempt; no group ever holds more permits than its limit; I1–I5 hold with nothing lost.
 *
 * And that many workers do not each reap every tick: four Workers reaping one queue every
 * 100 ms, watched with MONITOR, all try the queue's reaper lock, yet the reap script runs at most
 * once per 100 ms of Redis time between them.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/lanes/index.js';
import type { RedisClient } from '../../src/lanes/redis/client.js';
import { callsScript, monitorCommands } from '../support/commandStats.js';
import {
  assertSound,
  drained,
  hold,
  Ledger,
  produce,
  report,
  startWorkers,
  until,
  useScenario,
  workload,
} from './support.js';

const LIMIT = 2;
const GROUPS = ['alpha', 'bravo', 'charlie', 'delta'];
const LEASE_MS = 800;

async function redisMs(redis: RedisClient): Promise<number> {
  const [sec, usec] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

describe('workers alone, no API server', () => {
  const { redis } = useScenario();
  const workers: Worker[] = [];

  afterAll(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 5_000 })));
  });

  it('a worker SIGKILLed holding leases: a plain Worker gets the permits back and finishes the jobs', async () => {
    const conn = redis.client();
    const queue = new Queue(conn, `noserver-${Date.now()}`);
    for (const group of GROUPS) await queue.setLimit(group, LIMIT);
    const ledger = new Ledger();
    await produce(queue, workload(60, GROUPS, 0), ledger);

    // The doomed worker takes every permit (2 per group) and hangs on each job.
    const doomedLedger = new Ledger();
    const [doomed] = await startWorkers(
      1,
      { redisUrl: redis.url, queue: queue.name, concurrency: 8, leaseMs: LEASE_MS, hang: true },
      doomedLedger,
    );
    await until('the doomed worker to hold every permit', () => doomedLedger.started === 8);
    const held = (doomed?.messages ?? []).filter((m) => m.type === 'started').map((m) => m.id);
    expect(await queue.ring()).toEqual([]);

    // A plain Worker of this process, on a connection of its own; nothing is serviceable yet.
    const plain = new Worker(new Queue(redis.client(), queue.name), async (job) => {
      await sleep((job.payload as { ms: number }).ms);
    });
    workers.push(plain);
    ledger.watch(plain);
    let reapedEvents = 0;
    plain.on('reaped', (count) => {
      reapedEvents += count;
    });

    const violations: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const [group, n] of Object.entries(await conn.hgetall(queue.keys.gactive))) {
          if (Number(n) > LIMIT || Number(n) <= 0) violations.push(`${group}=${n}`);
        }
        await hold(10);
      }
    })();

    await doomed?.kill('SIGKILL');
    const killedAt = Date.now();
    try {
      await until(
        'the plain Worker to reap the 8 leases',
        async () => (await queue.stats()).reaped >= 8,
        {
          timeoutMs: 15_000,
          intervalMs: 10,
        },
      );
      await until('the workload to drain', () => drained(queue), { timeoutMs: 30_000 });
    } finally {
      sampling = false;
      await sampler;
    }
    const drainedMs = Date.now() - killedAt;

    expect(violations).toEqual([]);
    expect((await queue.stats()).reaped).toBe(8);
    expect(reapedEvents, "the plain Worker's own reaper took them back").toBe(8);
    for (const id of held) expect(ledger.completedAttempts.get(id as string), `job ${id}`).toBe(2);
    expect(ledger.errors).toEqual([]);

    await plain.close();
    const accounting = await assertSound(queue, ledger, { exactIds: true });
    expect(accounting.reaped).toBe(8);
    expect(accounting.completed).toBe(60);
    report('worker-kill-no-server', { leaseMs: LEASE_MS, drainedMs, ...accounting });
  }, 60_000);

  it('four Workers on one queue reap it at most once per interval between them', async () => {
    const INTERVAL_MS = 100;
    const name = `noserver-lock-${Date.now()}`;
    const base = new Queue(redis.client(), name);

    // Every reap call of this queue and every try at its lock, as Redis saw them.
    const reaps: number[] = [];
    const lockTries = new Set<string>();
    const monitor = await monitorCommands(redis.client(), (time, args, source) => {
      const texts = args.map(String);
      const firstKey = texts[3];
      if (callsScript(texts, 'reap') && firstKey === base.keys.glimit) {
        reaps.push(Number(time) * 1000);
      }
      if (callsScript(texts, 'reaperLock') && firstKey === base.keys.reaper) lockTries.add(source);
    });

    const four = Array.from(
      { length: 4 },
      () =>
        new Worker(new Queue(redis.client(), name), async () => {}, {
          reaper: { intervalMs: INTERVAL_MS },
        }),
    );
    workers.push(...four);
    await until('the queue to be reaped', () => reaps.length > 0, { timeoutMs: 10_000 });
    const from = await redisMs(base.redis);
    await hold(20 * INTERVAL_MS);
    const to = await redisMs(base.redis);
    await Promise.all(four.map((w) => w.close()));
    await monitor.stop();

    const inWindow = reaps.filter((t) => t >= from && t <= to);
    // A reaper skips the queue while its last pass, by anyone, began less than INTERVAL_MS ago
    // (Redis clock): two reaps of the queue are at least that far apart, whoever runs them.
    // Without it, each of the four would reap on every tick.
    expect(inWindow.length).toBeGreaterThan(0);
    expect(inWindow.length).toBeLessThanOrEqual(Math.floor((to - from) / INTERVAL_MS) + 1);
    // And all four really took part: each tried the lock.
    expect(lockTries.size).toBe(4);
    report('reaper-lock', {
      workers: 4,
      intervalMs: INTERVAL_MS,
      windowMs: to - from,
      reapCalls: inWindow.length,
      lockHolders: lockTries.size,
    });
  }, 60_000);
});
