/**
 * `jobChanged(queue, id)` through the real server (DESIGN.md §4.4): over graphql-ws (and SSE),
 * mutations over HTTP. The job as it is first, then each change, every event equal to what
 * `Queue.job` reads; the subscription completes after COMPLETED or DEAD, or after null when the
 * job is gone; a job that never was is null at once; an id that is not a decimal string is
 * JOB_NOT_FOUND. Every event here is driven by keyspace notifications (the safety re-read is a
 * minute away); test/pubsub/jobFeed.test.ts heals a lost one.
 */
import { describe, expect, it } from 'vitest';
import {
  ClaimDocument,
  CompleteDocument,
  EnqueueDelayedDocument,
  EnqueueDocument,
  JobByIdDocument,
  JobChangedDocument,
  type JobChangedSubscription,
  JobLogsChangedDocument,
  JobProgressChangedDocument,
  PromoteJobDocument,
  PurgeGroupDocument,
  RemoveJobsDocument,
  RequeueDeadJobsDocument,
  RetryDocument,
  RetryWithErrorDocument,
  SetRetentionDocument,
  UpdateJobProgressDocument,
} from '../gql/graphql.js';
import { dataOf, type LiveSubscription, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

type JobEvent = JobChangedSubscription['jobChanged'];

const server = useTestServer(
  {
    RESYNC_INTERVAL_MS: '60000',
    REAP_INTERVAL_MS: '86400000',
  },
  { perTest: true },
);

/** The next event; checked equal to the job as `Queue.job` reads it now. */
async function nextJob(
  sub: LiveSubscription<JobChangedSubscription>,
  queue: string,
  id: string,
): Promise<JobEvent> {
  const event = dataOf(await sub.events.next()).jobChanged;
  expect((await server.ok(JobByIdDocument, { queue, id })).queue.job ?? null).toEqual(event);
  return event;
}

async function enqueue(queue: string, maxAttempts = 3): Promise<string> {
  const job = (await server.ok(EnqueueDocument, { queue, group: 'g', maxAttempts })).enqueue;
  return job?.id as string;
}

async function claim(queue: string) {
  const job = (await server.ok(ClaimDocument, { queue, leaseMs: 60_000 })).claim;
  if (!job?.token) throw new Error('nothing claimed');
  return { id: job.id, token: job.token };
}

/** The subscription completed (from the server's side) after the events taken. */
async function expectCompleted(sub: LiveSubscription<JobChangedSubscription>): Promise<void> {
  await sub.events.until('the subscription to complete', () => sub.events.completed, 3_000);
  expect(sub.events.error).toBeUndefined();
  expect(sub.events.untaken).toBe(0);
}

describe('jobChanged over graphql-ws', () => {
  it('enqueue → subscribe → claim → complete: PENDING, ACTIVE, COMPLETED (kept by retention), then it completes', async () => {
    const q = queueName('job');
    const id = await enqueue(q);
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ id, state: 'PENDING', attempts: 0 });
    const { token } = await claim(q);
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'ACTIVE', attempts: 1, token: null });
    await server.ok(CompleteDocument, { queue: q, id, token });
    const done = await nextJob(sub, q, id);
    expect(done).toMatchObject({ state: 'COMPLETED', token: null, leaseUntil: null });
    expect(done?.finishedAt).toEqual(expect.any(String));
    await expectCompleted(sub);
    expect(server.server.feed.stats()).toMatchObject({ listeners: 0, watches: 0 });
  });

  it('enqueue → subscribe → claim → retry at maxAttempts: PENDING, ACTIVE, DEAD, then it completes', async () => {
    const q = queueName('job');
    const id = await enqueue(q, 1);
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ id, queue: q, group: 'g', state: 'PENDING' });
    const { token } = await claim(q);
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'ACTIVE', attempts: 1, token: null });
    await server.ok(RetryDocument, { queue: q, id, token });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'DEAD', attempts: 1, token: null });
    await expectCompleted(sub);
    expect(server.server.feed.stats()).toMatchObject({ listeners: 0, watches: 0 });
  });

  it('each progress report is an event with it, in order; COMPLETED keeps the last', async () => {
    const q = queueName('job');
    const id = await enqueue(q);
    const { token } = await claim(q);
    const sub = wsSubscribe(server.ws(), JobProgressChangedDocument, { queue: q, id });
    const next = async () => dataOf(await sub.events.next()).jobChanged;
    expect(await next()).toEqual({ id, state: 'ACTIVE', progress: null });
    await server.ok(UpdateJobProgressDocument, { queue: q, id, token, progress: 30 });
    await server.ok(UpdateJobProgressDocument, { queue: q, id, token, progress: { stage: 'b' } });
    expect(await next()).toEqual({ id, state: 'ACTIVE', progress: 30 });
    expect(await next()).toEqual({ id, state: 'ACTIVE', progress: { stage: 'b' } });
    await server.ok(CompleteDocument, { queue: q, id, token });
    expect(await next()).toEqual({ id, state: 'COMPLETED', progress: { stage: 'b' } });
    await sub.events.until('the subscription to complete', () => sub.events.completed, 3_000);
  });

  it('a delayed job: DELAYED with its runAt, PENDING once promoted; a retry with a delay: DELAYED again', async () => {
    const q = queueName('job');
    const id = (
      await server.ok(EnqueueDelayedDocument, { queue: q, group: 'g', delayMs: 3_600_000 })
    ).enqueue?.id as string;
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    const delayed = await nextJob(sub, q, id);
    expect(delayed).toMatchObject({ state: 'DELAYED', runAt: expect.any(String) });
    await server.ok(PromoteJobDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'PENDING', runAt: null });
    const { token } = await claim(q);
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'ACTIVE' });
    await server.ok(RetryWithErrorDocument, {
      queue: q,
      id,
      token,
      error: 'later',
      delayMs: 60_000,
    });
    const again = await nextJob(sub, q, id);
    expect(again).toMatchObject({ state: 'DELAYED', lastError: 'later', attempts: 1 });
    expect(again?.errors.map((e) => e.message)).toEqual(['later']);
    sub.close();
  });

  it('a job completed without retention: PENDING, ACTIVE, COMPLETED (not null), then it completes', async () => {
    const q = queueName('job');
    await server.ok(SetRetentionDocument, { queue: q, completed: { count: 0 } });
    const id = await enqueue(q);
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'PENDING' });
    const { token } = await claim(q);
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'ACTIVE' });
    await server.ok(CompleteDocument, { queue: q, id, token });
    // The truth is that it completed; the hash is gone (Queue.job reads null), so the event
    // carries the fields the watch read before with the completion's.
    expect(dataOf(await sub.events.next()).jobChanged).toMatchObject({
      id,
      group: 'g',
      state: 'COMPLETED',
      attempts: 1,
      token: null,
      leaseUntil: null,
      finishedAt: expect.any(String),
    });
    expect((await server.ok(JobByIdDocument, { queue: q, id })).queue.job).toBeNull();
    await expectCompleted(sub);
  });

  it('a job removed by an operator (removeJobs) yields null and completes', async () => {
    const q = queueName('job');
    const id = await enqueue(q);
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'PENDING' });
    expect((await server.ok(RemoveJobsDocument, { queue: q, ids: [id] })).removeJobs?.count).toBe(
      1,
    );
    expect(await nextJob(sub, q, id)).toBeNull();
    await expectCompleted(sub);
  });

  it('a job purged with its group’s backlog yields null and completes', async () => {
    const q = queueName('job');
    const id = await enqueue(q);
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'PENDING' });
    await server.ok(PurgeGroupDocument, { queue: q, group: 'g' });
    expect(await nextJob(sub, q, id)).toBeNull();
    await expectCompleted(sub);
  });

  it('a dead job requeued is a new life: DEAD ends one subscription, a new one follows it back to PENDING', async () => {
    const q = queueName('job');
    const id = await enqueue(q, 1);
    const { token } = await claim(q);
    await server.ok(RetryDocument, { queue: q, id, token });
    const dead = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(dead, q, id)).toMatchObject({ state: 'DEAD' });
    await expectCompleted(dead);
    const again = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(again, q, id)).toMatchObject({ state: 'DEAD' });
    await expectCompleted(again);
    await server.ok(RequeueDeadJobsDocument, { queue: q, ids: [id] });
    const requeued = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    expect(await nextJob(requeued, q, id)).toMatchObject({ state: 'PENDING', attempts: 0 });
    requeued.close();
  });

  it('a job that never was: null at once, then it completes', async () => {
    const q = queueName('job');
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id: '987654321' });
    expect(dataOf(await sub.events.next()).jobChanged).toBeNull();
    await expectCompleted(sub);
  });

  it('a bad logs argument in the selection refuses the subscription once, nothing watched', async () => {
    const q = queueName('job');
    const id = await enqueue(q);
    for (const variables of [{ last: 0 }, { first: 2, last: 2 }, { first: 501 }]) {
      const sub = wsSubscribe(server.ws(), JobLogsChangedDocument, { queue: q, id, ...variables });
      const result = await sub.events.next();
      expect(result.data ?? null).toBeNull();
      expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
      await sub.events.until('the subscription to end', () => sub.events.completed, 3_000);
    }
    expect(server.server.feed.stats()).toMatchObject({ listeners: 0, watches: 0 });
    // A good one is served as before.
    const sub = wsSubscribe(server.ws(), JobLogsChangedDocument, { queue: q, id, last: 5 });
    expect(dataOf(await sub.events.next()).jobChanged).toEqual({ id, logs: { totalCount: 0 } });
  });

  it('an id that is not a decimal string is JOB_NOT_FOUND, nothing watched', async () => {
    const sub = wsSubscribe(server.ws(), JobChangedDocument, { queue: queueName('job'), id: 'x1' });
    const result = await sub.events.next();
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['JOB_NOT_FOUND']);
    expect(server.server.feed.stats()).toMatchObject({ listeners: 0, watches: 0 });
  });
});

describe('jobChanged over SSE', () => {
  it('PENDING, ACTIVE, DEAD, then the stream ends', async () => {
    const q = queueName('job');
    const id = await enqueue(q, 1);
    const sub = sseSubscribe(server.endpoint, JobChangedDocument, { queue: q, id });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'PENDING' });
    const { token } = await claim(q);
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'ACTIVE' });
    await server.ok(RetryDocument, { queue: q, id, token });
    expect(await nextJob(sub, q, id)).toMatchObject({ state: 'DEAD' });
    await expectCompleted(sub);
  });
});
