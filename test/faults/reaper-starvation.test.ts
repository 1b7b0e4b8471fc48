/**
 * Fault: reapers of one queue configured differently. A reaper with a long interval (an engine
 * `Reaper` at an hour, as a library Worker's `reaper: { intervalMs: 3_600_000 }` or one started
 * while the API server was down) reaps the queue first; then the API server reaps every 100 ms.
 *
 * What must hold: the long interval holds back nobody. A crashed worker's 300 ms lease is taken
 * back, and a `setLimit(g, 0, { forMs: 300 })` reverted, within a few of the server's passes —
 * not an hour later, as when the queue's lock lived its taker's interval and the long reaper
 * retook it as it lapsed. The long reaper still skips the queue meanwhile (the server reaped
 * it less than an hour ago), and the lease is reaped exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Queue, Reaper } from '../../src/lanes/index.js';
import { redisNow } from '../support/lanes.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { report, until, useScenario } from './support.js';

const HOUR_MS = 3_600_000;
const SERVER_INTERVAL_MS = 100;
/** How long each revert may take: many of the server's passes, far below the long interval. */
const BOUND_MS = 5_000;

describe('a reaper with a long interval beside the server reaper', () => {
  const { redis } = useScenario();
  let server: TestServer | undefined;
  let long: Reaper | undefined;

  afterAll(async () => {
    await long?.close();
    await server?.stop();
  });

  it('takes a lease back and applies a due override at the server pace, not the long one', async () => {
    const queue = new Queue(redis.client(), 'starved');
    await queue.enqueue('g'); // registers the queue, which the server reaps
    const longReaped: number[] = [];
    long = new Reaper(queue, { intervalMs: HOUR_MS, onReaped: (_q, n) => longReaped.push(n) });
    await long.reapOnce(); // its first pass: the queue is its until the pass ends, no longer
    long.start();
    server = await startTestServer(redis.url, { REAP_INTERVAL_MS: String(SERVER_INTERVAL_MS) });

    // A worker claims with a 300 ms lease and dies.
    const job = await queue.claim({ leaseMs: 300 });
    const leaseUntil = job?.leaseUntil as number;
    await until('the lease to be reaped', async () => (await queue.stats()).reaped === 1, {
      timeoutMs: BOUND_MS,
    });
    const leaseReapedAfterMs = (await redisNow(queue.redis)) - leaseUntil;
    expect(await queue.counts()).toMatchObject({ active: 0, pending: 1 });

    // A timed limit of 0 for 300 ms reverts to no limit.
    await queue.setLimit('g', 0, { forMs: 300 });
    const { limitOverride } = await queue.group('g');
    await until(
      'the override to revert',
      async () => (await queue.group('g')).limitOverride === null,
      { timeoutMs: BOUND_MS },
    );
    const revertedAfterMs = (await redisNow(queue.redis)) - (limitOverride?.until as number);
    expect((await queue.group('g')).limit).toBeNull();

    // The long reaper took no pass since its first: the server reaped within its hour.
    expect(longReaped).toEqual([]);
    expect((await queue.stats()).reaped).toBe(1);
    report('reaper-starvation', { leaseReapedAfterMs, revertedAfterMs });
  }, 30_000);
});
