/**
 * Fault kind: Redis unreachable or not serving. A query used to answer
 * INTERNAL_SERVER_ERROR "Unexpected error." during an outage: a client could not tell a Redis
 * outage, which it should wait out, from a bug.
 *
 * What must hold:
 * - Redis stopped (SIGKILL): a GraphQL query or mutation answers REDIS_UNAVAILABLE with HTTP
 *   503 and `Retry-After` over HTTP, the same code in the payload over SSE and graphql-ws, and
 *   no Redis text; the engine rejects with RingmasterError REDIS_UNAVAILABLE (the ioredis error
 *   as its `cause`), with the offline queue on or off. After a restart everything works, with
 *   nothing restarted but Redis, and a job that was delayed when Redis stopped, due during the
 *   outage, is promoted to its lane by the server's reaper. A Worker whose lease extensions fail meanwhile reports them as
 *   `error` events with that code, keeps running its job (a failed call is not a lost lease)
 *   and completes it once Redis is back.
 * - A write sent to a read-only replica (what a client sees during a failover, before it follows
 *   the new primary): REDIS_UNAVAILABLE too, and the replica is unchanged.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import { findRedisServer, startRedisServer } from '../../src/server/redisProcess/index.js';
import { EnqueueDocument } from '../gql/graphql.js';
import { expectNoLeak, post, wsOperation } from '../support/api.js';
import { pollUntil, snapshot, uniqueQueueName } from '../support/lanes.js';
import { startTestRedis, type TestRedis, usingExternalRedis } from '../support/redis.js';
import { useScenario } from './support.js';

const OVERVIEW = `query ($name: String!) { queue(name: $name) { name ring counts { pending } } }`;

/** What a call rejected with, or null when it resolved. */
function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (error: unknown) => error,
  );
}

function expectUnavailable(error: unknown): void {
  expect(error).toBeInstanceOf(RingmasterError);
  expect(error).toMatchObject({ code: 'REDIS_UNAVAILABLE' });
  expect((error as Error).cause).toBeInstanceOf(Error);
}

describe.skipIf(usingExternalRedis())('Redis stopped, then restarted', () => {
  const { redis, server } = useScenario({ redis: { appendOnly: true }, server: {} });

  it('answers REDIS_UNAVAILABLE (HTTP 503) on every transport and the engine, then recovers', async () => {
    const name = uniqueQueueName('down');
    // Connected before the outage, as a library user's connection would be; one retry per
    // call so the test does not sit through ioredis' default twenty.
    const engine = new Ringmaster(redis.client({ maxRetriesPerRequest: 1 }));
    const noOfflineQueue = new Ringmaster(redis.client({ enableOfflineQueue: false }));
    await engine.queue(name).setLimit('a', 1);
    await engine.queue(name).enqueue('a', { n: 1 });
    // Due while Redis is down: only once it is back can a reaper promote it.
    const later = await engine.queue(name).enqueue('b', { n: 2 }, { delayMs: 300 });
    expect(later.state).toBe('DELAYED');
    await noOfflineQueue.checkServer();
    const overview = { query: OVERVIEW, variables: { name } };
    expect((await post(server.endpoint, overview)).json?.errors).toBeUndefined();

    await redis.kill('SIGKILL');

    const [http, mutation, sse, ws] = await Promise.all([
      fetch(server.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify(overview),
      }).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() })),
      server.request(EnqueueDocument, { queue: name, group: 'a' }),
      post(server.endpoint, overview, { accept: 'text/event-stream' }),
      wsOperation(server.endpoint, overview, {}, 20_000),
    ]);

    expect(http.status).toBe(503);
    expect(http.headers.get('retry-after')).toBe('1');
    const body = JSON.parse(http.text) as {
      data: unknown;
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(body.data).toBeNull();
    expect(body.errors.map((e) => e.extensions.code)).toEqual(['REDIS_UNAVAILABLE']);
    expect(body.errors[0]?.message).toMatch(/unavailable.*Retry later/);
    expectNoLeak(http.text);

    expect(mutation.status).toBe(503);
    expect(mutation.body.errors?.map((e) => e.extensions?.code)).toEqual(['REDIS_UNAVAILABLE']);

    expect(sse.json?.errors?.map((e) => e.extensions?.code)).toEqual(['REDIS_UNAVAILABLE']);
    expectNoLeak(sse.text);

    expect(ws.closeCode).toBeUndefined();
    expect(ws.results[0]?.errors?.map((e) => e.extensions?.code)).toEqual(['REDIS_UNAVAILABLE']);
    expectNoLeak(ws.frames.join('\n'));

    // The engine: reads, scripts and the registry, on a connection with the offline queue on
    // (the call waits for ioredis' retries, then fails) and off (it fails at once).
    const queue = engine.queue(name);
    expectUnavailable(await rejection(queue.counts()));
    expectUnavailable(await rejection(queue.enqueue('a')));
    expectUnavailable(await rejection(queue.enqueue('b', null, { delayMs: 100 })));
    expectUnavailable(await rejection(queue.promote(later.id)));
    expectUnavailable(await rejection(queue.setLimit('a', 2)));
    expectUnavailable(await rejection(engine.queues()));
    expectUnavailable(await rejection(noOfflineQueue.queue(name).ring()));
    expectUnavailable(await rejection(noOfflineQueue.checkServer()));

    await redis.restart();
    // The server's connection reconnects by itself; nothing else is restarted.
    await pollUntil(
      'the server to answer again',
      async () => (await post(server.endpoint, overview)).status === 200,
      15_000,
    );
    // The delayed job kept through the outage (appendonly), promoted by the server's reaper.
    await pollUntil(
      'the delayed job to be promoted',
      async () => (await queue.counts().catch(() => null))?.pending === 2,
      15_000,
    );
    const after = await post(server.endpoint, overview);
    expect(after.json?.errors).toBeUndefined();
    expect(after.json?.data).toEqual({ queue: { name, ring: ['a', 'b'], counts: { pending: 2 } } });
    const enqueued = await server.request(EnqueueDocument, { queue: name, group: 'a' });
    expect(enqueued.body.errors).toBeUndefined();
    await pollUntil(
      'the engine to answer again',
      async () => (await rejection(queue.counts())) === null,
      15_000,
    );
    expect(await queue.counts()).toMatchObject({ pending: 3, delayed: 0 });
    expect(await queue.job(later.id)).toMatchObject({ state: 'PENDING', group: 'b' });
  }, 60_000);

  it('a Worker keeps running its job through the outage: a failed lease extension is not a lost lease', async () => {
    const queue = new Ringmaster(redis.client({ maxRetriesPerRequest: 1 })).queue(
      uniqueQueueName('worker'),
    );
    const job = await queue.enqueue('a');
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let aborted = false;
    const worker = new Worker(
      queue,
      async (_job, signal) => {
        signal.addEventListener('abort', () => {
          aborted = true;
        });
        started();
        await released;
      },
      { leaseMs: 60_000, extendEveryMs: 100 },
    );
    const errors: unknown[] = [];
    const lost: string[] = [];
    const completed: string[] = [];
    worker.on('error', (error) => errors.push(error));
    worker.on('leaseLost', (j) => lost.push(j.id));
    worker.on('completed', (j) => completed.push(j.id));
    try {
      await running;
      await redis.kill('SIGKILL');
      await pollUntil(
        'an extension to fail (or the job to be given up)',
        async () => errors.length > 0 || aborted,
        15_000,
      );
      expect({ aborted, lost }).toEqual({ aborted: false, lost: [] });
      await redis.restart();
      release();
      await pollUntil('the job to complete', async () => completed.length > 0, 15_000);
      expect(completed).toEqual([job.id]);
      expect({ aborted, lost }).toEqual({ aborted: false, lost: [] });
      for (const error of errors) expectUnavailable(error);
    } finally {
      release();
      await worker.close({ timeoutMs: 1_000 });
    }
  }, 60_000);
});

describe.skipIf(usingExternalRedis() || findRedisServer() === null)(
  'a write sent to a read-only replica (a failover)',
  () => {
    let primary: TestRedis;
    let replica: Awaited<ReturnType<typeof startRedisServer>>;

    beforeAll(async () => {
      primary = await startTestRedis();
      // The snapshot at once, not after Redis' default 5 s wait for more replicas to share it.
      await primary.client().config('SET', 'repl-diskless-sync-delay', '0');
      const { hostname, port } = new URL(primary.url);
      replica = await startRedisServer({ extraArgs: ['--replicaof', hostname, port] });
    });

    afterAll(async () => {
      await replica?.stop();
      await primary?.stop();
    });

    it('is refused with REDIS_UNAVAILABLE and writes nothing; reads still work', async () => {
      const name = uniqueQueueName('replica');
      await new Ringmaster(primary.client()).queue(name).enqueue('a');
      const client = new Redis(replica.url);
      client.on('error', () => {});
      try {
        const queue = new Ringmaster(client).queue(name);
        await pollUntil(
          'the replica to hold the job',
          async () => (await queue.counts()).pending === 1,
          10_000,
        );
        const before = await snapshot(client);
        expectUnavailable(await rejection(queue.setLimit('a', 3)));
        expectUnavailable(await rejection(queue.enqueue('a')));
        expect(await snapshot(client)).toEqual(before);
        expect(await queue.ring()).toEqual(['a']);
      } finally {
        client.disconnect();
      }
    });
  },
);
