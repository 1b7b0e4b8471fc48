/**
 * `jobChanged(queue, id)` emits EVERY state change of its job, in order, with the
 * fields of that moment (DESIGN.md §4.4), however fast the job moves. Each test subscribes, waits
 * for the first event (the watch is registered then), and then drives the job through several
 * states back to back, with no wait between the steps: a re-read of the hash alone would see
 * only where the job ended up (PENDING → COMPLETED), the per-job event list
 * (`P:{Q}:job:<id>:events`) gives every state it passed through. Over graphql-ws and SSE; two
 * servers watching one job both see all of it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaimDocument,
  CompleteDocument,
  EnqueueDocument,
  JobChangedDocument,
  type JobChangedSubscription,
  PromoteJobDocument,
  RemoveJobsDocument,
  RetryDocument,
  RetryWithErrorDocument,
  SetRetentionDocument,
} from '../gql/graphql.js';
import { dataOf, type LiveSubscription, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { startTestServer, type TestServer, useTestServer } from '../support/server.js';

type JobEvent = JobChangedSubscription['jobChanged'];
type Subscribe = (
  server: TestServer,
  variables: { queue: string; id: string },
) => LiveSubscription<JobChangedSubscription>;

const server = useTestServer(
  {
    RESYNC_INTERVAL_MS: '60000',
    REAP_INTERVAL_MS: '86400000',
  },
  { perTest: true },
);
let other: TestServer | undefined;

afterEach(async () => {
  await other?.stop();
  other = undefined;
});

async function enqueue(queue: string, maxAttempts = 3): Promise<string> {
  return (await server.ok(EnqueueDocument, { queue, group: 'g', maxAttempts })).enqueue
    ?.id as string;
}

async function claim(queue: string): Promise<string> {
  const job = (await server.ok(ClaimDocument, { queue, leaseMs: 60_000 })).claim;
  if (!job?.token) throw new Error('nothing claimed');
  return job.token;
}

async function next(sub: LiveSubscription<JobChangedSubscription>): Promise<JobEvent> {
  return dataOf(await sub.events.next()).jobChanged;
}

/** Every event up to the subscription's end (it completes after a final one). */
async function rest(sub: LiveSubscription<JobChangedSubscription>): Promise<JobEvent[]> {
  const events: JobEvent[] = [];
  for (;;) {
    await sub.events.until(
      'an event or the end',
      () => sub.events.untaken > 0 || sub.events.completed,
      5_000,
    );
    if (sub.events.untaken === 0) break;
    events.push(await next(sub));
  }
  expect(sub.events.error).toBeUndefined();
  return events;
}

const transports: [string, Subscribe][] = [
  ['graphql-ws', (s, v) => wsSubscribe(s.ws(), JobChangedDocument, v)],
  ['SSE', (s, v) => sseSubscribe(s.endpoint, JobChangedDocument, v)],
];

describe.each(transports)('jobChanged is exact over %s', (_name, subscribe) => {
  it('claim → complete back to back: PENDING, ACTIVE, COMPLETED', async () => {
    const q = queueName('exact');
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    expect(await next(sub)).toMatchObject({ id, state: 'PENDING', attempts: 0 });
    const token = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token });
    const events = await rest(sub);
    expect(events.map((e) => e?.state)).toEqual(['ACTIVE', 'COMPLETED']);
    expect(events[0]).toMatchObject({ attempts: 1, token: null, finishedAt: null });
    expect(events[0]?.leaseUntil).toEqual(expect.any(String));
    expect(events[1]).toMatchObject({ attempts: 1, leaseUntil: null });
    expect(events[1]?.finishedAt).toEqual(expect.any(String));
  });

  it('completed retention 0, claim → complete back to back: PENDING, ACTIVE, COMPLETED (not null)', async () => {
    const q = queueName('exact');
    await server.ok(SetRetentionDocument, { queue: q, completed: { count: 0 } });
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    // From the first event on, every change: the watch is registered before it is sent.
    expect(await next(sub)).toMatchObject({ id, state: 'PENDING', attempts: 0 });
    const token = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token });
    const events = await rest(sub);
    expect(events.map((e) => e?.state)).toEqual(['ACTIVE', 'COMPLETED']);
    expect(events[1]).toMatchObject({ id, group: 'g', attempts: 1, token: null, leaseUntil: null });
    expect(events[1]?.finishedAt).toEqual(expect.any(String));
  });

  it('acting before the first event: the events are the job from where it got to, in order, ending COMPLETED', async () => {
    const q = queueName('exact');
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    // No wait for the first event: the claim may land before the watch is registered, so what
    // is guaranteed is a tail of the job's life (DESIGN.md §4.4), never a state out of order.
    const token = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token });
    const states = (await rest(sub)).map((e) => e?.state);
    const life = ['PENDING', 'ACTIVE', 'COMPLETED'];
    expect(states.at(-1)).toBe('COMPLETED');
    expect(life.slice(life.length - states.length)).toEqual(states);
  });

  it('claim → retry → claim → complete: PENDING, ACTIVE, PENDING, ACTIVE, COMPLETED with the attempts of each moment', async () => {
    const q = queueName('exact');
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    expect(await next(sub)).toMatchObject({ state: 'PENDING', attempts: 0 });
    const first = await claim(q);
    await server.ok(RetryWithErrorDocument, { queue: q, id, token: first, error: 'boom' });
    const second = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token: second });
    const events = await rest(sub);
    expect(events.map((e) => [e?.state, e?.attempts, e?.lastError])).toEqual([
      ['ACTIVE', 1, null],
      ['PENDING', 1, 'boom'],
      ['ACTIVE', 2, 'boom'],
      ['COMPLETED', 2, 'boom'],
    ]);
    // The failed attempt shows from the moment it failed, not before.
    expect(events.map((e) => e?.errors.map((x) => x.message))).toEqual([
      [],
      ['boom'],
      ['boom'],
      ['boom'],
    ]);
  });

  it('a retry with a delay: DELAYED with its runAt, then PENDING once promoted', async () => {
    const q = queueName('exact');
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    expect(await next(sub)).toMatchObject({ state: 'PENDING' });
    const token = await claim(q);
    const later = { error: 'later', delayMs: 60_000 };
    await server.ok(RetryWithErrorDocument, { queue: q, id, token, ...later });
    await server.ok(PromoteJobDocument, { queue: q, id });
    const again = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token: again });
    const events = await rest(sub);
    expect(events.map((e) => e?.state)).toEqual([
      'ACTIVE',
      'DELAYED',
      'PENDING',
      'ACTIVE',
      'COMPLETED',
    ]);
    expect(events[1]?.runAt).toEqual(expect.any(String));
    expect(events[2]?.runAt).toBeNull();
  });

  it('removed right after a claim and a retry: ACTIVE, PENDING, then null', async () => {
    const q = queueName('exact');
    const id = await enqueue(q);
    const sub = subscribe(server, { queue: q, id });
    expect(await next(sub)).toMatchObject({ state: 'PENDING' });
    const token = await claim(q);
    await server.ok(RetryDocument, { queue: q, id, token });
    expect((await server.ok(RemoveJobsDocument, { queue: q, ids: [id] })).removeJobs?.count).toBe(
      1,
    );
    const events = await rest(sub);
    expect(events.map((e) => e?.state ?? null)).toEqual(['ACTIVE', 'PENDING', null]);
  });
});

describe('jobChanged is exact for every watcher', () => {
  it('two subscribers on two servers both see every state', async () => {
    other = await startTestServer(server.redis.url, {
      RESYNC_INTERVAL_MS: '60000',
      REAP_INTERVAL_MS: '86400000',
    });
    const q = queueName('exact');
    const id = await enqueue(q);
    const one = wsSubscribe(server.ws(), JobChangedDocument, { queue: q, id });
    const two = sseSubscribe(other.endpoint, JobChangedDocument, { queue: q, id });
    expect(await next(one)).toMatchObject({ state: 'PENDING' });
    expect(await next(two)).toMatchObject({ state: 'PENDING' });
    const first = await claim(q);
    await server.ok(RetryDocument, { queue: q, id, token: first });
    const second = await claim(q);
    await server.ok(CompleteDocument, { queue: q, id, token: second });
    const expected = ['ACTIVE', 'PENDING', 'ACTIVE', 'COMPLETED'];
    expect((await rest(one)).map((e) => e?.state)).toEqual(expected);
    expect((await rest(two)).map((e) => e?.state)).toEqual(expected);
  });
});
