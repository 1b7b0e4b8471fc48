/**
 * Fault kind: an ioredis error reaching a caller, an event or a log unmapped (a new user's
 * finding: a Worker, concurrency 8, with Redis killed for ~14 s emitted 6 RingmasterError
 * REDIS_UNAVAILABLE and 3 raw `MaxRetriesPerRequestError`s, code undefined — its reaper's lock
 * was taken with a pipeline of its own, outside the engine's classifier).
 *
 * What must hold, with a real redis-server killed and restarted: every `error` a Worker emits
 * (its claims and completions, its lease extensions, its park on the wake list, its reaper) and
 * every error a Reaper of the engine reports is a RingmasterError with a DESIGN.md §5 code and
 * the ioredis error as its `cause`; its message does not repeat the cause's, so a logger that
 * appends causes (pino) prints it once; once Redis is back the worker completes its jobs. The
 * server's logs — its live feed's re-reads, job watch registrations and keyspace subscriber, and
 * its reaper — name the code of every Redis failure they log, and its reason once.
 */
import { stdSerializers } from 'pino';
import { describe, expect, it } from 'vitest';
import { Reaper, Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import { LiveFeed } from '../../src/pubsub/index.js';
import { serverReaper } from '../../src/server/reaper.js';
import { pollUntil, uniqueQueueName } from '../support/lanes.js';
import { captureLogger, Reader } from '../support/pubsub.js';
import { usingExternalRedis } from '../support/redis.js';
import { useScenario } from './support.js';

/** Each error is coded, carries its cause, and says the cause's message once. */
function expectMapped(errors: readonly unknown[]): void {
  const kinds = errors.map(
    (e) => `${(e as Error).constructor.name} ${(e as { code?: string }).code}`,
  );
  expect(new Set(kinds)).toEqual(new Set(['RingmasterError REDIS_UNAVAILABLE']));
  for (const error of errors) {
    expect(error, String(error)).toBeInstanceOf(RingmasterError);
    const coded = error as RingmasterError;
    expect(coded.code).toBe('REDIS_UNAVAILABLE');
    expect(coded.cause).toBeInstanceOf(Error);
    const cause = (coded.cause as Error).message;
    // pino's `err` serializer appends the cause's message (`message: cause`).
    const logged = stdSerializers.err(coded).message;
    expect(logged.split(cause).length - 1, logged).toBe(1);
  }
}

describe.skipIf(usingExternalRedis())('Redis killed under a busy Worker and a Reaper', () => {
  const { redis } = useScenario({ redis: { appendOnly: true } });

  it('every error event and reaper report is a RingmasterError with a code, its cause said once', async () => {
    const name = uniqueQueueName('mapped');
    // ioredis' defaults but fewer retries per request, so MaxRetriesPerRequestError comes soon.
    const engine = new Ringmaster(redis.client({ maxRetriesPerRequest: 1 }));
    const queue = engine.queue(name);
    for (let i = 0; i < 40; i += 1) await queue.enqueue(`g${i % 8}`, { i });
    const workerErrors: unknown[] = [];
    const reaperErrors: unknown[] = [];
    const completed = new Set<string>();
    let hold = true;
    const worker = new Worker(
      queue,
      async () => {
        while (hold) await new Promise((resolve) => setTimeout(resolve, 20));
      },
      { concurrency: 8, leaseMs: 60_000, extendEveryMs: 100, reaper: { intervalMs: 100 } },
    );
    worker.on('error', (error) => workerErrors.push(error));
    worker.on('completed', (job) => completed.add(job.id));
    const reaper = new Reaper(engine, {
      intervalMs: 100,
      onError: (error) => reaperErrors.push(error),
    });
    reaper.start();
    // Parked on the wake list (its BLPOP fails when Redis goes).
    const idle = new Worker(engine.queue(uniqueQueueName('idle')), async () => {}, {
      reaper: false,
    });
    const idleErrors: unknown[] = [];
    idle.on('error', (error) => idleErrors.push(error));
    try {
      await pollUntil('8 jobs running', async () => worker.active === 8, 10_000);
      await redis.kill('SIGKILL');
      // Jobs finish during the outage: their completions fail too.
      hold = false;
      await pollUntil(
        'errors from the worker, its reaper and the engine reaper',
        async () => workerErrors.length >= 6 && reaperErrors.length >= 3 && idleErrors.length > 0,
        20_000,
      );
      await redis.restart();
      await pollUntil('all 40 jobs to complete', async () => completed.size === 40, 30_000);
      expectMapped(workerErrors);
      expectMapped(reaperErrors);
      expectMapped(idleErrors);
    } finally {
      hold = false;
      await idle.close({ timeoutMs: 1_000 });
      await reaper.close();
      await worker.close({ timeoutMs: 1_000 });
    }
  }, 90_000);

  it("the server's feed and reaper log every Redis failure with its code, the reason once", async () => {
    const name = uniqueQueueName('logged');
    const engine = new Ringmaster(redis.client({ maxRetriesPerRequest: 1 }));
    const job = await engine.queue(name).enqueue('a', { n: 1 });
    const { logger, lines } = captureLogger();
    const feed = new LiveFeed({ engine, resyncIntervalMs: 100, pollIntervalMs: 100, logger });
    const reaper = serverReaper(engine, 100, logger.child({ component: 'reaper' }));
    await feed.start();
    const ring = new Reader(feed.ringChanges(name));
    const watched = new Reader(feed.jobChanges(name, job.id));
    try {
      await ring.next();
      await watched.next();
      reaper.start();
      await redis.kill('SIGKILL');
      const said = (msg: string) => lines.some((line) => line.msg === msg);
      await pollUntil(
        'the feed and the reaper to log failures',
        async () => said('re-read failed; retrying') && lines.some((l) => l.component === 'reaper'),
        20_000,
      );
      await redis.restart();
      await pollUntil(
        'the feed to read again',
        async () => said('re-read succeeded again'),
        20_000,
      );
      const failures = lines.filter((line) => line.err !== undefined);
      expect(failures.length).toBeGreaterThan(0);
      for (const line of failures) {
        const err = line.err as string | { message: string; code?: string };
        // A string (the feed's lines, errorLine) or pino's serialized error (the reaper's pass).
        const text = typeof err === 'string' ? err : `${err.message} [${err.code}]`;
        expect(text, JSON.stringify(line)).toMatch(/ \[REDIS_UNAVAILABLE\]$/);
        expect(text.match(/Redis is unavailable/g), JSON.stringify(line)).toHaveLength(1);
      }
    } finally {
      ring.iterator.return(undefined);
      watched.iterator.return(undefined);
      await reaper.close();
      await feed.stop();
    }
  }, 90_000);
});
