/**
 * Job reads over HTTP (DESIGN.md §4.2): every field of `Job` — maxAttempts, the times
 * as DateTimes, lastError, errors, backoff — through `Queue.job(id)` and through the jobs the
 * mutations answer, checked against what the engine and plain Redis commands read; null for a
 * job that is not there, and nothing written by a read. And a job's result: `complete`'s
 * `result` kept with the completed job, `Job.result` reading it, a bad one refused.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  AddJobLogDocument,
  ClaimDetailDocument,
  CompleteWithResultDocument,
  EnqueueDelayedDocument,
  JobByIdDocument,
  type JobDetailFragment,
  JobProgressAndLogsDocument,
  JobResultDocument,
  PromoteJobDocument,
  RetryWithErrorDocument,
  UpdateJobProgressDocument,
} from '../gql/graphql.js';
import { codes, expectRedisUnchanged, post, refusal } from '../support/api.js';
import { redisNow, uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

async function jobById(queue: string, id: string): Promise<JobDetailFragment | null> {
  return ok(await api.request(JobByIdDocument, { queue, id })).queue.job ?? null;
}

/** Claim over HTTP with every Job field; fails the test when nothing is claimable. */
async function claimDetail(queue: string): Promise<JobDetailFragment> {
  const job = ok(await api.request(ClaimDetailDocument, { queue, leaseMs: 60_000 })).claim;
  expect(job).not.toBeNull();
  return job as JobDetailFragment;
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

  it('an active job: its lease deadline and claim time as stored, never its lease token', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g');
    const claimed = await engineQueue(q).claim({ leaseMs: 60_000 });
    const job = await jobById(q, id);
    const hash = await r.hgetall(engineQueue(q).keys.job(id));
    // The token is the claiming worker's lease: a read shows none (any worker could use it).
    expect(claimed?.token).toBeTruthy();
    expect(job).toMatchObject({ state: 'ACTIVE', attempts: 1, token: null });
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

  it('a completed job kept by the retention: COMPLETED, finishedAt as in the completed index, no lease', async () => {
    const q = uniqueQueueName('job');
    const { id } = await engineQueue(q).enqueue('g');
    const claimed = await engineQueue(q).claim();
    await engineQueue(q).complete(id, claimed?.token as string);
    const job = await jobById(q, id);
    expect(job).toMatchObject({ state: 'COMPLETED', attempts: 1, token: null, leaseUntil: null });
    expect(ms(job?.finishedAt)).toBe(Number(await r.zscore(engineQueue(q).keys.completed, id)));
  });

  it('null for a job that is not there (never was, completed without retention, another queue, not an id), writing nothing', async () => {
    const q = uniqueQueueName('job');
    // Completed without retention: its hash is deleted at once.
    await engineQueue(q).setRetention({ completed: { count: 0 } });
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

describe('enqueue with a delay and a backoff policy', () => {
  it('delayMs: DELAYED until now + delayMs on the Redis clock, in the delayed indexes, not pending', async () => {
    const q = uniqueQueueName('delay');
    const before = await redisNow(r);
    // 30 days, past GraphQL's Int: the ms arguments are SafeInts.
    const job = ok(
      await api.request(EnqueueDelayedDocument, { queue: q, group: 'g', delayMs: 2_592_000_000 }),
    ).enqueue as JobDetailFragment;
    const after = await redisNow(r);
    expect(job).toMatchObject({ state: 'DELAYED', attempts: 0, errors: [], backoff: null });
    const runAt = ms(job.runAt);
    expect(runAt).toBeGreaterThanOrEqual(before + 2_592_000_000);
    expect(runAt).toBeLessThanOrEqual(after + 2_592_000_000);
    const k = engineQueue(q).keys;
    expect(Number(await r.zscore(k.delayed, job.id))).toBe(runAt);
    expect(Number(await r.zscore(k.groupDelayed('g'), job.id))).toBe(runAt);
    expect(await r.zcard(k.lane('g'))).toBe(0);
    expect(await jobById(q, job.id)).toEqual(job);
  });

  it('runAt: DELAYED until exactly that time; a time past runs at once', async () => {
    const q = uniqueQueueName('delay');
    const at = (await redisNow(r)) + 3_600_000;
    const job = ok(
      await api.request(EnqueueDelayedDocument, {
        queue: q,
        group: 'g',
        runAt: new Date(at).toISOString(),
      }),
    ).enqueue;
    expect(job?.state).toBe('DELAYED');
    expect(ms(job?.runAt)).toBe(at);
    const past = ok(
      await api.request(EnqueueDelayedDocument, {
        queue: q,
        group: 'g',
        runAt: new Date(at - 7_200_000).toISOString(),
      }),
    ).enqueue;
    expect(past).toMatchObject({ state: 'PENDING', runAt: null });
  });

  it('delayMs with runAt, or a runAt more than 30 days away, is BAD_USER_INPUT runAt, writing nothing', async () => {
    const q = uniqueQueueName('delay');
    await engineQueue(q).enqueue('g');
    const now = await redisNow(r);
    await expectRedisUnchanged(r, async () => {
      for (const variables of [
        { delayMs: 1_000, runAt: new Date(now + 60_000).toISOString() },
        { runAt: new Date(now + 31 * 86_400_000).toISOString() },
        { runAt: new Date(now - 31 * 86_400_000).toISOString() },
      ]) {
        const response = await api.request(EnqueueDelayedDocument, {
          queue: q,
          group: 'g',
          ...variables,
        });
        expect(refusal(response), JSON.stringify(variables)).toEqual({
          code: 'BAD_USER_INPUT',
          argument: 'runAt',
        });
      }
    });
  });

  it('backoff: stored with the job, read back on every Job, and applied by retry', async () => {
    const q = uniqueQueueName('backoff');
    const backoff = { type: 'FIXED' as const, delayMs: 60_000 };
    const job = ok(await api.request(EnqueueDelayedDocument, { queue: q, group: 'g', backoff }))
      .enqueue as JobDetailFragment;
    const policy = { ...backoff, maxDelayMs: null, jitter: 0 };
    expect(job.backoff).toEqual(policy);
    expect((await jobById(q, job.id))?.backoff).toEqual(policy);
    const claimed = await claimDetail(q);
    expect(claimed.backoff).toEqual(policy);
    const before = await redisNow(r);
    const retried = ok(
      await api.request(RetryWithErrorDocument, {
        queue: q,
        id: job.id,
        token: claimed.token as string,
        error: 'boom',
      }),
    ).retry as JobDetailFragment;
    // The policy's wait: DELAYED for delayMs.
    expect(retried).toMatchObject({ state: 'DELAYED', attempts: 1, lastError: 'boom' });
    expect(ms(retried.runAt)).toBeGreaterThanOrEqual(before + 60_000);
    expect(ms(retried.runAt)).toBeLessThanOrEqual((await redisNow(r)) + 60_000);
  });

  it('a bad backoff is BAD_USER_INPUT backoff, writing nothing', async () => {
    const q = uniqueQueueName('backoff');
    await engineQueue(q).enqueue('g');
    await expectRedisUnchanged(r, async () => {
      for (const backoff of [
        { type: 'FIXED' as const, delayMs: 2_592_000_001 },
        { type: 'FIXED' as const, delayMs: -1 },
        { type: 'EXPONENTIAL' as const, delayMs: 1_000, maxDelayMs: 999 },
        { type: 'EXPONENTIAL' as const, delayMs: 1_000, jitter: 1.5 },
      ]) {
        const response = await api.request(EnqueueDelayedDocument, {
          queue: q,
          group: 'g',
          backoff,
        });
        expect(refusal(response), JSON.stringify(backoff)).toEqual({
          code: 'BAD_USER_INPUT',
          argument: 'backoff',
        });
      }
    });
  });
});

describe('retry with an error, a stack and a delay', () => {
  it('records each failed attempt in errors (newest first) and lastError; DEAD at maxAttempts', async () => {
    const q = uniqueQueueName('errors');
    const { id } = await engineQueue(q).enqueue('g', null, { maxAttempts: 2 });
    let claimed = await claimDetail(q);
    const before = await redisNow(r);
    const first = ok(
      await api.request(RetryWithErrorDocument, {
        queue: q,
        id,
        token: claimed.token as string,
        error: 'first',
        stack: 'Error: first\n    at work (job.js:1:1)',
      }),
    ).retry as JobDetailFragment;
    expect(first).toMatchObject({ state: 'PENDING', lastError: 'first' });
    expect(first.errors).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        message: 'first',
        stack: expect.stringContaining('at work'),
      },
    ]);
    expect(ms(first.errors[0]?.at)).toBeGreaterThanOrEqual(before);

    claimed = await claimDetail(q);
    // The claim script returns no errors: they are read by id for this field.
    expect(claimed.errors).toEqual(first.errors);
    const dead = ok(
      await api.request(RetryWithErrorDocument, {
        queue: q,
        id,
        token: claimed.token as string,
        error: 'x'.repeat(5_000),
      }),
    ).retry as JobDetailFragment;
    expect(dead).toMatchObject({ state: 'DEAD', attempts: 2 });
    expect(ms(dead.finishedAt)).toBeGreaterThanOrEqual(ms(first.errors[0]?.at));
    expect(dead.errors.map((e) => [e.attempt, e.message.length, e.stack])).toEqual([
      [2, 1_024, null],
      [1, 5, expect.any(String)],
    ]);
    expect(await jobById(q, id)).toEqual(dead);
  });

  it('delayMs overrides the policy: DELAYED for that long, or at once with 0', async () => {
    const q = uniqueQueueName('errors');
    const { id } = await engineQueue(q).enqueue('g', null, {
      backoff: { type: 'FIXED', delayMs: 3_600_000 },
    });
    let claimed = await claimDetail(q);
    const retried = ok(
      await api.request(RetryWithErrorDocument, {
        queue: q,
        id,
        token: claimed.token as string,
        delayMs: 0,
      }),
    ).retry;
    expect(retried).toMatchObject({ state: 'PENDING', runAt: null });
    claimed = await claimDetail(q);
    const before = await redisNow(r);
    const delayed = ok(
      await api.request(RetryWithErrorDocument, {
        queue: q,
        id,
        token: claimed.token as string,
        delayMs: 5_000,
      }),
    ).retry;
    expect(delayed?.state).toBe('DELAYED');
    expect(ms(delayed?.runAt) - before).toBeGreaterThanOrEqual(5_000);
    expect(ms(delayed?.runAt) - before).toBeLessThan(3_600_000);
  });
});

describe('promoteJob', () => {
  it('runs a DELAYED job now; answers any other job unchanged; JOB_NOT_FOUND for none', async () => {
    const q = uniqueQueueName('promote');
    const { id } = await engineQueue(q).enqueue('g', { n: 1 }, { delayMs: 3_600_000 });
    const promoted = ok(await api.request(PromoteJobDocument, { queue: q, id })).promoteJob;
    expect(promoted).toMatchObject({ id, state: 'PENDING', runAt: null, payload: { n: 1 } });
    const k = engineQueue(q).keys;
    expect(await r.zrange(k.lane('g'), 0, -1)).toEqual([id]);
    expect(await r.zcard(k.delayed)).toBe(0);
    expect(await r.lrange(k.ring, 0, -1)).toEqual(['g']);

    await expectRedisUnchanged(r, async () => {
      const again = ok(await api.request(PromoteJobDocument, { queue: q, id })).promoteJob;
      expect(again).toEqual(promoted);
      const missing = await api.request(PromoteJobDocument, { queue: q, id: '987654321' });
      expect(codes(missing.body as never)).toEqual(['JOB_NOT_FOUND']);
      expect(missing.body.data).toEqual({ promoteJob: null });
    });
  });
});

// A job's result (DESIGN.md §4.3 `complete`'s `result`, §4.2 `Job.result`).
async function active(q: string): Promise<{ id: string; token: string }> {
  await engineQueue(q).enqueue('g', { n: 1 });
  const job = await engineQueue(q).claim({ leaseMs: 60_000 });
  if (job === null) throw new Error('nothing claimed');
  return { id: job.id, token: job.token as string };
}

describe('complete(result) and Job.result', () => {
  it('keeps the result with the completed job and reads it back', async () => {
    const q = uniqueQueueName('res');
    const { id, token } = await active(q);
    const result = { total: 42, lines: ['a', 'b'] };
    const done = ok(await api.request(CompleteWithResultDocument, { queue: q, id, token, result }));
    expect(done.complete).toEqual({ id, state: 'COMPLETED', result });
    const read = ok(await api.request(JobResultDocument, { queue: q, id }));
    expect(read.queue.job).toEqual({ id, state: 'COMPLETED', result });
  });

  it('without a result, or null, Job.result is null', async () => {
    const q = uniqueQueueName('res');
    const a = await active(q);
    const b = await active(q);
    ok(await api.request(CompleteWithResultDocument, { queue: q, ...a }));
    ok(await api.request(CompleteWithResultDocument, { queue: q, ...b, result: null }));
    for (const { id } of [a, b]) {
      const read = ok(await api.request(JobResultDocument, { queue: q, id }));
      expect(read.queue.job?.result).toBeNull();
    }
  });

  it('a result past a double is refused, BAD_USER_INPUT result, writing nothing', async () => {
    const q = uniqueQueueName('res');
    const { id, token } = await active(q);
    const body = `{"query":"mutation($q: String!, $id: ID!, $t: String!, $r: JSON) { complete(queue: $q, id: $id, token: $t, result: $r) { id } }","variables":{"q":"${q}","id":"${id}","t":"${token}","r":{"n":1e400}}}`;
    const response = await expectRedisUnchanged(r, () => post(api.endpoint, body));
    expect(codes(response.json)).toEqual(['BAD_USER_INPUT']);
    const error = response.json?.errors?.[0];
    expect(error?.extensions?.argument).toBe('result');
    expect(error?.message).toMatch(/^result: result\.n is Infinity/);
  });
});

// A job's progress and log (DESIGN.md §3 "Progress and logs", §4.2 `Job.progress`, `Job.logs`).
describe('updateJobProgress, addJobLog, Job.progress and Job.logs', () => {
  it('reports under the lease and reads back: progress, then the log oldest first, paged', async () => {
    const q = uniqueQueueName('prog');
    const { id, token } = await active(q);
    const reported = ok(
      await api.request(UpdateJobProgressDocument, { queue: q, id, token, progress: { done: 2 } }),
    );
    expect(reported.updateJobProgress).toEqual({ id, state: 'ACTIVE', progress: { done: 2 } });
    const before = await redisNow(r);
    const lines = ['one', 'two', 'three'];
    for (const line of lines) {
      const added = ok(await api.request(AddJobLogDocument, { queue: q, id, token, line }));
      expect(added.addJobLog?.line).toBe(line);
      expect(ms(added.addJobLog?.at)).toBeGreaterThanOrEqual(before);
    }
    const first = ok(await api.request(JobProgressAndLogsDocument, { queue: q, id, first: 2 }));
    const job = first.queue.job;
    expect(job?.progress).toEqual({ done: 2 });
    expect(job?.logs.edges.map((e) => e.node.line)).toEqual(['one', 'two']);
    expect(job?.logs.totalCount).toBe(3);
    expect(job?.logs.pageInfo.hasNextPage).toBe(true);
    const after = job?.logs.pageInfo.endCursor;
    const next = ok(await api.request(JobProgressAndLogsDocument, { queue: q, id, after }));
    expect(next.queue.job?.logs.edges.map((e) => e.node.line)).toEqual(['three']);
    expect(next.queue.job?.logs.pageInfo.hasNextPage).toBe(false);
    const end = ok(await api.request(JobProgressAndLogsDocument, { queue: q, id, last: 2 }));
    expect(end.queue.job?.logs.edges.map((e) => e.node.line)).toEqual(['two', 'three']);
    // `first` beside `last` is refused, as the engine refuses it, not ignored.
    const both = await api.request(JobProgressAndLogsDocument, { queue: q, id, first: 7, last: 1 });
    expect(refusal(both)).toEqual({ code: 'BAD_USER_INPUT', argument: 'last' });
  });

  it('a wrong token is LEASE_LOST, writing nothing; a cursor of another job is BAD_USER_INPUT after', async () => {
    const q = uniqueQueueName('prog');
    const a = await active(q);
    const b = await active(q);
    ok(await api.request(AddJobLogDocument, { queue: q, ...b, line: 'x' }));
    const stale = { queue: q, id: a.id, token: 'not-the-token' };
    const progress = await expectRedisUnchanged(r, () =>
      api.request(UpdateJobProgressDocument, { ...stale, progress: 5 }),
    );
    expect(refusal(progress).code).toBe('LEASE_LOST');
    const log = await expectRedisUnchanged(r, () =>
      api.request(AddJobLogDocument, { ...stale, line: 'x' }),
    );
    expect(refusal(log).code).toBe('LEASE_LOST');
    const foreign = ok(await api.request(JobProgressAndLogsDocument, { queue: q, id: b.id }));
    const after = foreign.queue.job?.logs.pageInfo.endCursor;
    const response = await api.request(JobProgressAndLogsDocument, { queue: q, id: a.id, after });
    expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'after' });
  });
});
