/**
 * Job reads over HTTP (DESIGN.md §4.2, issue 16): every field of `Job` — maxAttempts, the times
 * as DateTimes, lastError, errors, backoff — through `Queue.job(id)` and through the jobs the
 * mutations answer, checked against what the engine and plain Redis commands read; null for a
 * job that is not there, and nothing written by a read.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { ClaimDetailDocument, JobByIdDocument, type JobDetailFragment } from '../gql/graphql.js';
import { expectRedisUnchanged } from '../support/api.js';
import { redisNow, uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import type { GraphQLResponse } from '../support/server.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let api: TestServer;
let r: Redis;

beforeAll(async () => {
  api = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
  r = redis.client();
});
afterAll(async () => {
  await api?.stop();
});

function ok<T>(response: GraphQLResponse<T>): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data as T;
}

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

async function jobById(queue: string, id: string): Promise<JobDetailFragment | null> {
  return ok(await api.request(JobByIdDocument, { queue, id })).queue.job ?? null;
}

/** A DateTime on the wire (ISO 8601, UTC) as ms since the epoch. */
function ms(text: unknown): number {
  expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  return Date.parse(text as string);
}

describe('Queue.job', () => {
  it('a pending job: every field as stored, times as DateTimes on the Redis clock', async () => {
    const q = uniqueQueueName('job');
    const before = await redisNow(r);
    const enqueued = await engineQueue(q).enqueue('g', { n: 1 }, { maxAttempts: 4 });
    const after = await redisNow(r);
    const job = await jobById(q, enqueued.id);
    expect(job).toEqual({
      id: enqueued.id,
      queue: q,
      group: 'g',
      payload: { n: 1 },
      state: 'PENDING',
      attempts: 0,
      maxAttempts: 4,
      token: null,
      leaseUntil: null,
      enqueuedAt: expect.any(String),
      runAt: null,
      claimedAt: null,
      finishedAt: null,
      lastError: null,
      errors: [],
      backoff: null,
    });
    const at = ms(job?.enqueuedAt);
    expect(at).toBe(Number(await r.hget(engineQueue(q).keys.job(enqueued.id), 'enqueuedAt')));
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
  });

  it('an active job: its token, lease deadline and claim time as stored', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g');
    const claimed = await engineQueue(q).claim({ leaseMs: 60_000 });
    const job = await jobById(q, id);
    const hash = await r.hgetall(engineQueue(q).keys.job(id));
    expect(job).toMatchObject({ state: 'ACTIVE', attempts: 1, token: claimed?.token });
    expect(ms(job?.leaseUntil)).toBe(Number(hash.leaseUntil));
    expect(ms(job?.claimedAt)).toBe(Number(hash.claimedAt));
    expect(ms(job?.leaseUntil) - ms(job?.claimedAt)).toBe(60_000);
  });

  it('a dead job: DEAD with its lastError', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g', null, { maxAttempts: 1 });
    const claimed = await engineQueue(q).claim();
    await engineQueue(q).retry(id, claimed?.token as string, 'it broke');
    expect(await jobById(q, id)).toMatchObject({
      state: 'DEAD',
      attempts: 1,
      token: null,
      leaseUntil: null,
      lastError: 'it broke',
    });
  });

  it('null for a job that is not there (never was, completed, another queue, not an id), writing nothing', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g');
    const claimed = await engineQueue(q).claim();
    await engineQueue(q).complete(id, claimed?.token as string);
    await engineQueue(q).enqueue('g');
    await expectRedisUnchanged(r, async () => {
      for (const [queue, jobId] of [
        [q, id],
        [q, '987654321'],
        [uniqueQueueName('none'), '1'],
        [q, 'abc'],
        [q, `1}:x:{${q}`],
      ] as const) {
        expect(await jobById(queue, jobId), `${queue} ${jobId}`).toBeNull();
      }
    });
  });

  it('a backoff policy stored on the job is read, by id for a claimed job (the claim script does not return it)', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g');
    // Written as the delayed-enqueue script stores it (DESIGN.md §2, job hash fields).
    await r.hset(engineQueue(q).keys.job(id), {
      backoff: 'EXPONENTIAL',
      backoffDelayMs: '1000',
      // 30 days: past GraphQL's Int (2^31 − 1 ms), so the ms fields are SafeInts.
      backoffMaxDelayMs: '2592000000',
      backoffJitter: '0.25',
    });
    const policy = { type: 'EXPONENTIAL', delayMs: 1000, maxDelayMs: 2_592_000_000, jitter: 0.25 };
    expect((await jobById(q, id))?.backoff).toEqual(policy);
    const claimed = ok(await api.request(ClaimDetailDocument, { queue: q })).claim;
    expect(claimed).toMatchObject({ id, state: 'ACTIVE', backoff: policy, errors: [] });
  });
});
