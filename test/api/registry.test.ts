/**
 * The queue registry `P:queues` when it holds something Ringmaster did not write (DESIGN.md §2,
 * §4, §5): a member that is not a valid queue name (another writer, a hand edit) and a queue
 * whose keys have the wrong type. Neither may stop the reaper for the other queues nor break
 * `Query.queues`; each is warned about in the log once, not on every reaper tick.
 *
 * The real server on a free port, a reaper ticking every 50 ms, GraphQL over HTTP, and the log
 * captured from the server's own pino logger.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type ExecutionResult, parse, print } from 'graphql';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildServer, type RingmasterServer } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import {
  ClaimDocument,
  EnqueueDocument,
  QueueOverviewDocument,
  QueuesDocument,
} from '../gql/graphql.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
let r: Redis;
beforeAll(() => {
  r = redis.client();
});

const REAP_INTERVAL_MS = 50;

interface LogLine {
  level: number;
  msg: string;
  queue?: string;
  [field: string]: unknown;
}

/** A server under a prefix of its own, its log lines, and GraphQL over HTTP. */
interface Served {
  readonly server: RingmasterServer;
  readonly prefix: string;
  readonly logs: LogLine[];
  gql<T, V>(document: TypedDocumentNode<T, V>, variables?: V): Promise<ExecutionResult<T>>;
}

const running: RingmasterServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});

async function serve(): Promise<Served> {
  const prefix = queueName('registry');
  const logs: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const config = loadConfig({
    PORT: '0',
    REDIS_URL: redis.url,
    KEY_PREFIX: prefix,
    REAP_INTERVAL_MS: String(REAP_INTERVAL_MS),
  });
  const server = await buildServer(config, logger);
  running.push(server);
  await server.start();
  return {
    server,
    prefix,
    logs,
    async gql(document, variables) {
      const response = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({ query: print(document), variables }),
      });
      return (await response.json()) as ExecutionResult<never>;
    },
  };
}

function data<T>(result: ExecutionResult<T>): T {
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data as T;
}

/** Enqueue one job on `queue` and claim it with a 100 ms lease. */
async function claimShortLease(s: Served, queue: string): Promise<void> {
  data(await s.gql(EnqueueDocument, { queue, group: 'g' }));
  const { claim } = data(await s.gql(ClaimDocument, { queue, leaseMs: 100 }));
  expect(claim).toMatchObject({ queue, group: 'g', state: 'ACTIVE' });
}

/** Wait until the reaper has given `queue`'s job back (read over GraphQL and in Redis). */
async function expectReaped(s: Served, queue: string): Promise<void> {
  await waitFor(
    `the reaper to take back the job of ${queue}`,
    async () => {
      const { counts } = data(await s.gql(QueueOverviewDocument, { name: queue })).queue;
      return counts.active === 0 && counts.pending === 1;
    },
    { timeoutMs: 5_000, intervalMs: 25 },
  );
  expect(await r.zcard(`${s.prefix}:{${queue}}:active`)).toBe(0);
  expect(await r.hget(`${s.prefix}:{${queue}}:stats`, 'reaped')).toBe('1');
}

/** Let the reaper tick `n` more times. */
const ticks = (n: number) => new Promise((resolve) => setTimeout(resolve, n * REAP_INTERVAL_MS));

describe('P:queues holding a name that is not a valid queue name', () => {
  it('the reaper still reaps every valid queue, `queues` lists the valid ones sorted, and each bad name is warned about once', async () => {
    const s = await serve();
    const bad = ['a b', '', 'x{y}', 'q'.repeat(129), 'tab\there'];
    await r.sadd(`${s.prefix}:queues`, ...bad);
    await claimShortLease(s, 'q1');
    data(await s.gql(EnqueueDocument, { queue: 'b-queue', group: 'g' }));
    data(await s.gql(EnqueueDocument, { queue: 'A-queue', group: 'g' }));

    await expectReaped(s, 'q1');
    const { queues } = data(await s.gql(QueuesDocument));
    expect(queues.map((q) => q?.name)).toEqual(['A-queue', 'b-queue', 'q1']);
    // The bad names are still there: skipped, never removed or rewritten.
    expect((await r.smembers(`${s.prefix}:queues`)).sort()).toEqual(
      [...bad, 'q1', 'b-queue', 'A-queue'].sort(),
    );

    await ticks(6);
    data(await s.gql(QueuesDocument));
    const warned = s.logs.filter((line) => line.msg.includes('invalid queue name'));
    expect(warned.map((line) => line.queue).sort()).toEqual([...bad].sort());
    expect(warned.every((line) => line.level === 40)).toBe(true);
    expect(s.logs.filter((line) => line.msg.includes('reaper run failed'))).toEqual([]);
  });
});

describe('a refused enqueue registers nothing (DESIGN.md §2 Registration)', () => {
  it('a runAt out of range, over enqueue and enqueueJobs: BAD_USER_INPUT, the queue not in P:queues nor known', async () => {
    const s = await serve();
    const ask = (text: string) =>
      s.gql(parse(text) as TypedDocumentNode<Record<string, unknown>, Record<string, never>>);
    const one = await ask(
      'mutation { enqueue(queue: "refnever9", group: "a", runAt: "2000-01-01T00:00:00Z") { id } }',
    );
    expect(one.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'runAt',
    });
    const many = await ask(
      'mutation { enqueueJobs(queue: "refnever10", jobs: [{ group: "a" }, { group: "b", runAt: "2000-01-01T00:00:00Z" }]) { id } }',
    );
    expect(many.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'jobs[1].runAt',
    });

    expect(await r.smembers(`${s.prefix}:queues`)).toEqual([]);
    expect(await r.keys(`${s.prefix}:*`)).toEqual([]);
    const known = await ask(
      '{ a: queue(name: "refnever9") { known } b: queue(name: "refnever10") { known } }',
    );
    expect(known.data).toEqual({ a: { known: false }, b: { known: false } });
  });
});

describe('a queue whose reap Redis refuses', () => {
  it('does not stop the reaper from reaching the queues after it, and is warned about once', async () => {
    const s = await serve();
    // Sorted before `q1`, so reaped first: its active set is a string (WRONGTYPE).
    await r.set(`${s.prefix}:{aaa-broken}:active`, 'not a sorted set');
    await r.sadd(`${s.prefix}:queues`, 'aaa-broken');
    await claimShortLease(s, 'q1');

    await expectReaped(s, 'q1');
    await ticks(6);
    const failed = s.logs.filter((line) => line.msg === 'reaping this queue failed');
    expect(failed).toEqual([
      expect.objectContaining({
        level: 40,
        queue: 'aaa-broken',
        err: expect.stringMatching(/WRONGTYPE/),
      }),
    ]);
    const { queues } = data(await s.gql(QueuesDocument));
    expect(queues.map((q) => q?.name)).toEqual(['aaa-broken', 'q1']);

    // Mended, it is reaped again, and the log says so.
    await r.del(`${s.prefix}:{aaa-broken}:active`);
    await waitFor(
      'the reaper to say it reaps aaa-broken again',
      () =>
        s.logs.some(
          (line) => line.msg === 'reaping this queue again' && line.queue === 'aaa-broken',
        ),
      { timeoutMs: 5_000 },
    );
  });
});
