/**
 * Fault: Redis SIGKILLed mid-workload and restarted from its append-only file (appendfsync
 * always), under three worker processes, a producer and a live `ringChanged` subscription on an
 * in-process server.
 *
 * What must hold: the workers and the server reconnect by themselves; the workload finishes; the
 * subscription (same socket) gets a RESYNC and ends on the final ring; I1–I5 hold; and every job
 * ended completed or dead exactly once in Redis — at-least-once means a job whose lease ran out
 * during the outage runs again, but its stale run can never complete it a second time.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { RingChangedDocument } from '../gql/graphql.js';
import { wsSubscribe } from '../support/live.js';
import { usingExternalRedis } from '../support/redis.js';
import {
  assertSound,
  closeWorkers,
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

const QUEUE = 'crash';
const JOBS = 1_500;
const LEASE_MS = 1_000;
/** Redis stays down this long: longer than a lease, so leases expire during the outage. */
const OUTAGE_MS = 1_500;

describe.skipIf(usingExternalRedis())('Redis SIGKILLed and restarted mid-workload', () => {
  const { redis, server } = useScenario({
    redis: { appendOnly: true },
    server: {
      REAP_INTERVAL_MS: '200',
      RESYNC_INTERVAL_MS: '1000',
    },
  });

  it('finishes the workload after the restart, resyncs the subscription and loses nothing', async () => {
    const queue = new Queue(redis.client(), QUEUE);
    const groups = Array.from({ length: 16 }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
    for (const [i, group] of groups.entries()) {
      if (i < 12) await queue.setLimit(group, (i % 4) + 1);
    }

    const sub = wsSubscribe(server.ws(), RingChangedDocument, { queue: QUEUE });
    expect((await sub.events.next(10_000)).data?.ringChanged.reason).toBe('SNAPSHOT');

    const ledger = new Ledger();
    const workers = await startWorkers(
      3,
      { redisUrl: redis.url, queue: QUEUE, concurrency: 4, leaseMs: LEASE_MS },
      ledger,
    );
    const producing = produce(queue, workload(JOBS, groups), ledger, {
      parallel: 2,
      paceMs: 4,
    });

    await until('a third of the jobs to complete', () => ledger.completed >= JOBS / 3);
    const atKill = { completed: ledger.completed, enqueued: ledger.enqueued.size };
    const eventsBefore = sub.events.items.length;
    await redis.kill('SIGKILL');
    await hold(OUTAGE_MS);
    await redis.restart();
    const restartedAt = Date.now();

    // Recovery: the first job completed after the restart, and the subscription's RESYNC.
    await ledger.nextCompletion(30_000);
    const firstCompletionMs = Date.now() - restartedAt;
    await sub.events.until(
      'a RESYNC after the restart',
      () =>
        sub.events.items.slice(eventsBefore).some((e) => e.data?.ringChanged.reason === 'RESYNC'),
      15_000,
    );
    const resyncMs = Date.now() - restartedAt;

    await producing;
    await until('the workload to drain', () => drained(queue), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    const drainedMs = Date.now() - restartedAt;

    const finalRing = await queue.ring();
    await sub.events.until(
      'the last ring event to equal the final ring',
      () => {
        const last = sub.events.items.at(-1)?.data?.ringChanged.ring;
        return JSON.stringify(last) === JSON.stringify(finalRing);
      },
      10_000,
    );
    expect(sub.events.error, 'the subscription ended with an error').toBeUndefined();
    expect(sub.events.completed, 'the subscription ended').toBe(false);
    sub.close();

    await closeWorkers(workers);
    const accounting = await assertSound(queue, ledger);
    // The fault really hit mid-workload: jobs were still being enqueued at the kill.
    expect(atKill.enqueued).toBeLessThan(JOBS);
    // Every 25th job always fails, so it is dead — and so is a duplicate of one, if an enqueue
    // whose reply the crash lost was sent again by the client (see docs/RELIABILITY.md).
    expect(accounting.dead).toBeGreaterThanOrEqual(JOBS / 25);
    expect(accounting.dead).toBeLessThanOrEqual(JOBS / 25 + accounting.unacknowledgedIds);

    report('redis-crash', {
      jobsPlanned: JOBS,
      outageMs: OUTAGE_MS,
      atKill,
      ...accounting,
      enqueueErrors: ledger.enqueueErrors,
      workerErrors: ledger.errors.length,
      leaseLost: ledger.leaseLost.size,
      ringEvents: sub.events.items.length,
      firstCompletionMs,
      resyncMs,
      drainedMs,
    });
  }, 120_000);
});
