/**
 * Fault: Redis frozen (SIGSTOP) for several seconds mid-workload, then continued (SIGCONT) —
 * a stalled host, a long fork, a paused VM. Nothing is disconnected; every call just gets no
 * answer. The server runs as its own process (`src/server/main.ts`), with two worker processes,
 * a producer and a live `ringChanged` subscription.
 *
 * What must hold: the server stays up and `/health` answers 200 all through the freeze, while
 * `/ready` answers 503 within its 1 s PING bound (it used to hang until SIGCONT); a
 * GraphQL call made during the freeze waits (or fails with a coded error), and is answered once
 * Redis runs again; no job completes while Redis is frozen; everything recovers without a
 * restart of anything, the subscription goes on, I1–I5 hold and nothing is lost.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { EnqueueDocument, QueueOverviewDocument, RingChangedDocument } from '../gql/graphql.js';
import { wsSubscribe } from '../support/live.js';
import { usingExternalRedis } from '../support/redis.js';
import {
  assertSound,
  closeWorkers,
  drained,
  Ledger,
  post,
  produce,
  report,
  type ServerProcess,
  startServerProcess,
  startWorkers,
  until,
  useScenario,
  workload,
  wsClient,
} from './support.js';

const QUEUE = 'freeze';
const JOBS = 800;
const FREEZE_MS = 4_000;

/** GET `url`, bounded: its status, or 'timeout'; and how long it took (ms). */
async function probe(url: string, timeoutMs: number) {
  const started = Date.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return { status: response.status as number | 'timeout', ms: Date.now() - started };
  } catch {
    return { status: 'timeout' as const, ms: Date.now() - started };
  }
}

describe.skipIf(usingExternalRedis())('Redis frozen by SIGSTOP, then continued', () => {
  const { redis } = useScenario();
  let server: ServerProcess;

  beforeAll(async () => {
    server = await startServerProcess(redis.url, {
      REAP_INTERVAL_MS: '200',
      RESYNC_INTERVAL_MS: '1000',
    });
  });

  afterAll(async () => {
    // Never leave Redis stopped: its own stop() continues it, but a failed test may be mid-freeze.
    await redis?.kill('SIGCONT').catch(() => undefined);
  });

  it('keeps the server up, answers held calls after SIGCONT and loses nothing', async () => {
    const queue = new Queue(redis.client(), QUEUE);
    const groups = Array.from({ length: 8 }, (_, i) => `org-${i}`);
    for (const [i, group] of groups.entries()) await queue.setLimit(group, (i % 3) + 1);

    const sub = wsSubscribe(wsClient(server.endpoint), RingChangedDocument, { queue: QUEUE });
    expect((await sub.events.next(10_000)).data?.ringChanged.reason).toBe('SNAPSHOT');

    const ledger = new Ledger();
    const workers = await startWorkers(
      2,
      { redisUrl: redis.url, queue: QUEUE, concurrency: 4, leaseMs: 1_000 },
      ledger,
    );
    const producing = produce(queue, workload(JOBS, groups), ledger, { parallel: 2, paceMs: 5 });
    await until('a quarter of the jobs to complete', () => ledger.completed >= JOBS / 4);

    await redis.kill('SIGSTOP');
    const frozenAt = Date.now();
    // Replies Redis sent just before it stopped may still be on their way to the workers (and
    // their reports to us): count completions only from a moment into the freeze.
    let completedAtFreeze: number | undefined;
    // Calls made while Redis is frozen: a read, a mutation, and the readiness probe.
    const heldRead = post(server.endpoint, QueueOverviewDocument, { name: QUEUE }).then((r) => ({
      ...r,
      at: Date.now(),
    }));
    const heldEnqueue = post(server.endpoint, EnqueueDocument, {
      queue: QUEUE,
      group: 'org-0',
      payload: { ms: 1, n: -1 },
    }).then((r) => ({ ...r, at: Date.now() }));
    const readyDuringFreeze = probe(`${server.url}/ready`, 5_000);
    const health: Array<{ status: number | 'timeout'; ms: number }> = [];
    while (Date.now() - frozenAt < FREEZE_MS) {
      if (completedAtFreeze === undefined && Date.now() - frozenAt >= 500) {
        completedAtFreeze = ledger.completed;
      }
      health.push(await probe(`${server.url}/health`, 2_000));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const completedDuringFreeze = ledger.completed - (completedAtFreeze ?? Number.NaN);
    expect(server.child.alive, `the server died during the freeze\n${server.child.tail()}`).toBe(
      true,
    );

    await redis.kill('SIGCONT');
    const continuedAt = Date.now();
    await ledger.nextCompletion(20_000);
    const firstCompletionMs = Date.now() - continuedAt;

    // The held calls are answered once Redis runs again: data, or an error that has a code.
    const read = await heldRead;
    const enqueue = await heldEnqueue;
    for (const { body } of [read, enqueue]) {
      for (const error of body.errors ?? []) expect(error.extensions?.code).toBeTruthy();
    }
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data?.queue.name).toBe(QUEUE);
    expect(read.at).toBeGreaterThanOrEqual(continuedAt);
    const enqueued = enqueue.body.data?.enqueue?.id;
    expect(enqueued, JSON.stringify(enqueue.body)).toBeTruthy();
    ledger.enqueued.add(enqueued as string);

    await producing;
    await until('the workload to drain', () => drained(queue), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const drainedMs = Date.now() - continuedAt;
    const readyAfter = await probe(`${server.url}/ready`, 5_000);
    const finalRing = await queue.ring();
    await sub.events.until(
      'the last ring event to equal the final ring',
      () =>
        JSON.stringify(sub.events.items.at(-1)?.data?.ringChanged.ring) ===
        JSON.stringify(finalRing),
      10_000,
    );
    expect(sub.events.completed, 'the subscription ended').toBe(false);

    // The freeze was real (nothing completed while Redis was stopped), the server never failed
    // its liveness probe, and is ready again.
    expect(completedDuringFreeze).toBe(0);
    expect(health.length).toBeGreaterThanOrEqual(5);
    expect(health.filter((h) => h.status !== 200)).toEqual([]);
    expect(readyAfter.status).toBe(200);
    // Readiness says so, in bounded time, while Redis is frozen (a 1 s PING timeout).
    const ready = await readyDuringFreeze;
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(4_000);
    expect(server.child.alive).toBe(true);

    await closeWorkers(workers);
    const accounting = await assertSound(queue, ledger);
    report('redis-freeze', {
      freezeMs: FREEZE_MS,
      completedAtFreeze,
      completedDuringFreeze,
      healthProbes: health.length,
      healthMaxMs: Math.max(...health.map((h) => h.ms)),
      readyDuringFreeze: ready.status,
      readyDuringFreezeMs: ready.ms,
      heldReadAnsweredAfterContMs: read.at - continuedAt,
      heldEnqueueAnsweredAfterContMs: enqueue.at - continuedAt,
      firstCompletionMs,
      drainedMs,
      ...accounting,
      leaseLost: ledger.leaseLost.size,
      workerErrors: ledger.errors.length,
      serverWarnings: server.child.logs().filter((l) => Number(l.level) >= 40).length,
    });
  }, 120_000);
});
