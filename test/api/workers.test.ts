/**
 * The worker registry over GraphQL (DESIGN.md §4.9 "Workers"), on the real server over a real
 * Redis: `claim(workerId:)` registers the client and keeps its id on the job while ACTIVE
 * (`Job.workerId`), `Queue.workers` lists engine Workers and clients with what they said of
 * themselves (a fleet of 1,000 too), a bad workerId is refused with nothing written, and a
 * ready group's `reason` says when no worker is connected, and stops saying it once one is.
 */
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Queue, Worker } from '../../src/lanes/index.js';
import {
  ClaimAsWorkerDocument,
  JobWorkerChangedDocument,
  JobWorkerDocument,
  QueueWorkersDocument,
  WorkersReasonDocument,
} from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { pollUntil, redisNow, uniqueQueueName } from '../support/lanes.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;
const running: Worker[] = [];

beforeAll(() => {
  r = api.redis.client();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.close({ timeoutMs: 1 })));
});

const engineQueue = (): Queue => api.server.engine.queue(uniqueQueueName('workers'));

const workersOf = async (queue: string) =>
  ok(await api.request(QueueWorkersDocument, { queue })).queue.workers;

describe('Queue.workers and claim(workerId:)', () => {
  it('a client that claims with a workerId is listed, holds the job by id, and is counted by its leases', async () => {
    const q = engineQueue();
    const job = await q.enqueue('g', { n: 1 });
    await q.enqueue('h', { n: 2 });
    const before = await redisNow(r);
    const claimed = ok(
      await api.request(ClaimAsWorkerDocument, { queue: q.name, workerId: 'http-1' }),
    ).claim;
    expect(claimed).toMatchObject({ id: job.id, state: 'ACTIVE', workerId: 'http-1' });
    expect(await r.hget(q.keys.job(job.id), 'worker')).toBe('http-1');
    const read = ok(await api.request(JobWorkerDocument, { queue: q.name, id: job.id })).queue.job;
    expect(read).toEqual({ id: job.id, state: 'ACTIVE', workerId: 'http-1' });

    const [worker, ...rest] = await workersOf(q.name);
    expect(rest).toEqual([]);
    expect(worker).toMatchObject({
      id: 'http-1',
      hostname: null,
      pid: null,
      concurrency: null,
      active: 1,
      version: null,
      heartbeatMs: 5_000,
      client: true,
    });
    const lastSeen = Date.parse(worker?.lastSeenAt as string);
    expect(lastSeen).toBeGreaterThanOrEqual(before);
    expect(Date.parse(worker?.startedAt as string)).toBeLessThanOrEqual(lastSeen);
    // As stored: lapsing 3 heartbeats after the claim.
    expect(Number(await r.zscore(q.keys.workers, 'http-1'))).toBe(lastSeen + 15_000);

    // A second claim finds the other job: two leases. Its completion leaves one.
    const second = ok(
      await api.request(ClaimAsWorkerDocument, { queue: q.name, workerId: 'http-1' }),
    ).claim;
    expect((await workersOf(q.name))[0]?.active).toBe(2);
    await q.complete(second?.id as string, second?.token as string);
    expect((await workersOf(q.name))[0]?.active).toBe(1);
    // Completed: held by nobody.
    const done = ok(
      await api.request(JobWorkerDocument, { queue: q.name, id: second?.id as string }),
    ).queue.job;
    expect(done).toMatchObject({ state: 'COMPLETED', workerId: null });
    // A claim without a workerId registers nothing and names nobody.
    await q.enqueue('k');
    const anonymous = ok(await api.request(ClaimAsWorkerDocument, { queue: q.name })).claim;
    expect(anonymous?.workerId).toBeNull();
    expect((await workersOf(q.name)).map((w) => w.id)).toEqual(['http-1']);
  });

  it('an engine Worker is listed with its host, pid, concurrency and version, and its jobs name it', async () => {
    const q = engineQueue();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const job = await q.enqueue('g');
    const w = new Worker(q, () => held, { id: 'engine-1', concurrency: 2, heartbeatMs: 500 });
    running.push(w);
    await pollUntil('the job to be held', async () => (await workersOf(q.name))[0]?.active === 1);
    expect((await workersOf(q.name))[0]).toMatchObject({
      id: 'engine-1',
      hostname: hostname(),
      pid: process.pid,
      concurrency: 2,
      active: 1,
      heartbeatMs: 500,
      client: false,
    });
    expect((await workersOf(q.name))[0]?.version).toMatch(/^\d+\.\d+\.\d+/);
    const read = ok(await api.request(JobWorkerDocument, { queue: q.name, id: job.id })).queue.job;
    expect(read?.workerId).toBe('engine-1');
    release();
    await w.close();
    expect(await workersOf(q.name)).toEqual([]);
  });

  it('answers a fleet of 1,000', async () => {
    const q = engineQueue();
    await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        q.workerHeartbeat({
          id: `w-${String(i).padStart(4, '0')}`,
          hostname: 'box',
          pid: i + 1,
          concurrency: 8,
          active: 3,
          heartbeatMs: 60_000,
          fresh: true,
        }),
      ),
    );
    const listed = await workersOf(q.name);
    expect(listed).toHaveLength(1_000);
    expect(listed[999]).toMatchObject({ id: 'w-0999', pid: 1000, active: 3, hostname: 'box' });
  });

  it('a bad workerId is BAD_USER_INPUT `workerId`, nothing written', async () => {
    const q = engineQueue();
    await q.enqueue('g');
    for (const workerId of ['', 'x'.repeat(201), 'tab\there', '\u0007']) {
      const response = await expectRedisUnchanged(r, () =>
        api.request(ClaimAsWorkerDocument, { queue: q.name, workerId }),
      );
      expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'workerId' });
    }
  });
});

describe('jobChanged and Job.workerId', () => {
  it('each event names the worker holding the job while ACTIVE, none after', async () => {
    const q = engineQueue();
    const { id } = await q.enqueue('g');
    const sub = wsSubscribe(api.ws(), JobWorkerChangedDocument, { queue: q.name, id });
    const next = async () => dataOf(await sub.events.next()).jobChanged;
    expect(await next()).toEqual({ id, state: 'PENDING', workerId: null });
    const claimed = ok(
      await api.request(ClaimAsWorkerDocument, { queue: q.name, workerId: 'live-1' }),
    ).claim;
    expect(await next()).toEqual({ id, state: 'ACTIVE', workerId: 'live-1' });
    await q.complete(id, claimed?.token as string);
    expect(await next()).toEqual({ id, state: 'COMPLETED', workerId: null });
  });
});

describe('Group.reason with no worker connected', () => {
  it('a ready group says jobs are waiting and no worker is connected, until one is', async () => {
    const q = engineQueue();
    await q.enqueue('g');
    const reason = async () =>
      ok(await api.request(WorkersReasonDocument, { queue: q.name, group: 'g' })).queue.group
        .reason;
    expect(await reason()).toBe(
      'on the ring at position 1 of 1: next to be served; jobs are waiting and no worker is connected',
    );
    await q.workerHeartbeat({ id: 'someone', heartbeatMs: 60_000 });
    expect(await reason()).toBe('on the ring at position 1 of 1: next to be served');
    // Gone (closed): the clause is back.
    await q.removeWorker('someone');
    expect(await reason()).toMatch(/; jobs are waiting and no worker is connected$/);
    // A group with nothing waiting does not say it.
    await q.claim();
    expect(await reason()).not.toMatch(/no worker/);
  });
});
