/**
 * DESIGN.md §4 over HTTP: every query and mutation, sent with the typed documents of codegen to
 * the real server on a free port, and every answer checked against the engine's state — read
 * back with the engine (`server.engine.queue(q)`) and with plain Redis commands (`rawState`),
 * never only against what the API itself says.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  ClaimDocument,
  ClearLimitDocument,
  CompleteDocument,
  EnqueueDocument,
  ExtendLeaseDocument,
  GroupByIdDocument,
  GroupsPageDocument,
  type JobFieldsFragment,
  PauseGroupDocument,
  QueueOverviewDocument,
  QueuesDocument,
  ResumeGroupDocument,
  RetryDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { expectNoLeak, expectRedisUnchanged, post } from '../support/api.js';
import { rawState, redisNow, snapshot, statsOf, uniqueQueueName } from '../support/lanes.js';
import { type GraphQLResponse, ok, startTestServer, useTestServer } from '../support/server.js';

// The reaper stays out of the way: leases here are long, and no test waits for one to expire.
const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

/** The single error code of a refused call, after checking the body leaks nothing. */
function errorCode<T>(response: GraphQLResponse<T>): string | undefined {
  expectNoLeak(JSON.stringify(response.body));
  expect(response.body.errors).toHaveLength(1);
  return response.body.errors?.[0]?.extensions?.code;
}

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

/** `leaseUntil` (a DateTime: an ISO 8601 string on the wire) as ms since the epoch. */
function leaseMs(job: JobFieldsFragment): number {
  expect(typeof job.leaseUntil).toBe('string');
  const text = job.leaseUntil as string;
  expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  return Date.parse(text);
}

async function enqueue(
  queue: string,
  group: string,
  payload?: unknown,
  maxAttempts?: number,
): Promise<JobFieldsFragment> {
  const job = ok(
    await api.request(EnqueueDocument, {
      queue,
      group,
      payload,
      ...(maxAttempts === undefined ? {} : { maxAttempts }),
    }),
  ).enqueue;
  // Mutation fields are nullable (null only with an error, which `ok` has refused).
  expect(job).not.toBeNull();
  return job as JobFieldsFragment;
}

async function claim(queue: string, leaseMs?: number) {
  return ok(
    await api.request(ClaimDocument, { queue, ...(leaseMs === undefined ? {} : { leaseMs }) }),
  ).claim;
}

/** Claim, and fail the test when nothing was claimable. */
async function claimSome(queue: string, leaseMs = 3_600_000): Promise<JobFieldsFragment> {
  const job = await claim(queue, leaseMs);
  expect(job).not.toBeNull();
  return job as JobFieldsFragment;
}

describe('queries', () => {
  it('queues: every registered queue, sorted by name; reads register nothing', async () => {
    // A server of its own under another prefix, so the list holds exactly this test's queues.
    const own = await startTestServer(api.redis.url, {
      KEY_PREFIX: 'queues-test',
      REAP_INTERVAL_MS: '86400000',
    });
    try {
      expect(ok(await own.request(QueuesDocument)).queues).toEqual([]);
      // Each registering mutation, each on a queue of its own, in unsorted order.
      ok(await own.request(EnqueueDocument, { queue: 'm-q', group: 'g' }));
      ok(await own.request(SetLimitDocument, { queue: 'B-q', group: 'g', limit: 2 }));
      ok(await own.request(PauseGroupDocument, { queue: 'a.q', group: 'g' }));
      ok(await own.request(ClearLimitDocument, { queue: 'z:q', group: 'g' }));
      ok(await own.request(ResumeGroupDocument, { queue: 'k_q', group: 'g' }));
      // Reads and a claim that finds nothing on queues never steered: not registered.
      ok(await own.request(QueueOverviewDocument, { name: 'never-steered' }));
      ok(await own.request(GroupByIdDocument, { queue: 'never-read', id: 'g' }));
      ok(await own.request(GroupsPageDocument, { queue: 'never-paged' }));
      expect(ok(await own.request(ClaimDocument, { queue: 'never-claimed' })).claim).toBeNull();

      const names = ok(await own.request(QueuesDocument)).queues.map((q) => q?.name);
      expect(names).toEqual(['B-q', 'a.q', 'k_q', 'm-q', 'z:q']);
      expect(names).toEqual(await own.server.engine.queues());
      expect((await r.smembers('queues-test:queues')).sort()).toEqual(names);
    } finally {
      await own.stop();
    }
  });

  it('queue: ring, paused, counts and activeGroups are the stored state', async () => {
    const q = uniqueQueueName('overview');
    ok(await api.request(SetLimitDocument, { queue: q, group: 'a', limit: 1 }));
    await enqueue(q, 'a', { n: 1 });
    await enqueue(q, 'a', { n: 2 });
    await enqueue(q, 'b', { n: 3 });
    await enqueue(q, 'b', { n: 4 });
    await enqueue(q, 'c', { n: 5 });
    ok(await api.request(PauseGroupDocument, { queue: q, group: 'c' }));
    ok(await api.request(SetLimitDocument, { queue: q, group: 'd', limit: 5 }));
    await enqueue(q, 'e', { n: 6 }, 1);
    // Ring a, b, e. Claims: a (saturates, off), b (rotates to the tail), e (lane empty, off).
    expect((await claimSome(q)).group).toBe('a');
    expect((await claimSome(q)).group).toBe('b');
    const doomed = await claimSome(q);
    expect(doomed.group).toBe('e');
    ok(await api.request(RetryDocument, { queue: q, id: doomed.id, token: doomed.token ?? '' }));

    const raw = await rawState(engineQueue(q));
    const { queue } = ok(await api.request(QueueOverviewDocument, { name: q }));
    expect(queue.name).toBe(q);
    expect(queue.ring).toEqual(['b']);
    expect(queue.ring).toEqual(raw.ring);
    expect(queue.paused).toEqual(['c']);
    expect(queue.paused).toEqual(raw.paused);
    expect(queue.counts).toEqual({
      groups: 5,
      onRing: 1,
      paused: 1,
      saturated: 1,
      pending: 3,
      active: 2,
      dead: 1,
    });
    // Every count the API exposes is the engine's (which may count more: delayed, completed).
    expect(await engineQueue(q).counts()).toMatchObject(queue.counts);
    expect(queue.counts.groups).toBe(raw.groups.length);
    expect(queue.counts.active).toBe(raw.active.length);
    expect(queue.counts.dead).toBe(raw.dead.length);
    expect(queue.activeGroups).toEqual([
      {
        id: 'a',
        queue: q,
        limit: 1,
        active: 1,
        pending: 1,
        paused: false,
        onRing: false,
        state: 'SATURATED',
      },
      {
        id: 'b',
        queue: q,
        limit: null,
        active: 1,
        pending: 1,
        paused: false,
        onRing: true,
        state: 'READY',
      },
    ]);
    expect(await engineQueue(q).activeGroups()).toMatchObject(queue.activeGroups);
    expect(Object.keys(raw.gactive).sort()).toEqual(['a', 'b']);
  });

  it('queue.group: each state read as stored', async () => {
    const q = uniqueQueueName('group');
    ok(await api.request(SetLimitDocument, { queue: q, group: 'sat', limit: 1 }));
    await enqueue(q, 'sat');
    await claimSome(q);
    await enqueue(q, 'ready');
    await enqueue(q, 'paused');
    ok(await api.request(PauseGroupDocument, { queue: q, group: 'paused' }));
    ok(await api.request(SetLimitDocument, { queue: q, group: 'idle', limit: 7 }));

    const read = async (id: string) =>
      ok(await api.request(GroupByIdDocument, { queue: q, id })).queue.group;
    const expected = {
      sat: { limit: 1, active: 1, pending: 0, paused: false, onRing: false, state: 'SATURATED' },
      ready: { limit: null, active: 0, pending: 1, paused: false, onRing: true, state: 'READY' },
      paused: { limit: null, active: 0, pending: 1, paused: true, onRing: false, state: 'PAUSED' },
      idle: { limit: 7, active: 0, pending: 0, paused: false, onRing: false, state: 'IDLE' },
    } as const;
    const raw = await rawState(engineQueue(q));
    for (const [id, fields] of Object.entries(expected)) {
      const group = await read(id);
      expect(group).toEqual({ id, queue: q, ...fields });
      expect(await engineQueue(q).group(id)).toMatchObject(group);
      // And against Redis itself.
      expect(group.onRing).toBe(raw.ring.includes(id));
      expect(group.paused).toBe(raw.paused.includes(id));
      expect(group.pending).toBe(raw.lanes[id]?.length ?? 0);
      expect(group.limit).toBe(raw.glimit[id] === undefined ? null : Number(raw.glimit[id]));
    }
  });

  it('queue.group: an unknown id (and an unknown queue) reads empty and creates nothing', async () => {
    const q = uniqueQueueName('unknown');
    await enqueue(q, 'known');
    const empty = { limit: null, active: 0, pending: 0, paused: false, onRing: false };
    for (const [queue, id] of [
      [q, 'nobody'],
      [uniqueQueueName('never'), 'nobody'],
      [q, 'ünïcødé group: with spaces'],
    ] as const) {
      const before = await snapshot(r);
      const group = ok(await api.request(GroupByIdDocument, { queue, id })).queue.group;
      expect(group).toEqual({ id, queue, ...empty, state: 'IDLE' });
      expect(await snapshot(r)).toEqual(before);
    }
    // The overview of a queue never written reads as zeros, and creates nothing either.
    const ghost = uniqueQueueName('ghost');
    const overview = await expectRedisUnchanged(r, async () =>
      ok(await api.request(QueueOverviewDocument, { name: ghost })),
    );
    expect(overview.queue).toEqual({
      name: ghost,
      ring: [],
      paused: [],
      counts: { groups: 0, onRing: 0, paused: 0, saturated: 0, pending: 0, active: 0, dead: 0 },
      activeGroups: [],
    });
  });

  it('queue.groups: pages by id with opaque cursors, hasNextPage, endCursor, totalCount', async () => {
    const q = uniqueQueueName('paging');
    // Registered by different mutations, in no order; ids chosen so byte order is not obvious.
    const ids = ['delta', 'alpha', 'Zulu', '10', '9', 'charlie', 'bravo', 'a:b c'];
    for (const [i, id] of ids.entries()) {
      if (i % 3 === 0) await enqueue(q, id);
      else if (i % 3 === 1)
        ok(await api.request(SetLimitDocument, { queue: q, group: id, limit: i }));
      else ok(await api.request(PauseGroupDocument, { queue: q, group: id }));
    }
    const sorted = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(sorted).toEqual(['10', '9', 'Zulu', 'a:b c', 'alpha', 'bravo', 'charlie', 'delta']);

    const page = async (first?: number, after?: string | null) =>
      ok(
        await api.request(GroupsPageDocument, {
          queue: q,
          ...(first === undefined ? {} : { first }),
          ...(after === undefined ? {} : { after }),
        }),
      ).queue.groups;

    // Default page size (50): everything, no next page.
    const all = await page();
    expect(all.totalCount).toBe(8);
    expect(all.edges.map((e) => e.node.id)).toEqual(sorted);
    expect(all.pageInfo).toEqual({ hasNextPage: false, endCursor: all.edges.at(-1)?.cursor });
    for (const edge of all.edges) {
      expect(await engineQueue(q).group(edge.node.id)).toMatchObject(edge.node);
      // Opaque: the cursor is not the id, nor does it show it. Only for ids of 4 characters or
      // more: a cursor is base64 of a random listing tag too, where '9' or '10' turn up by chance.
      expect(edge.cursor).not.toBe(edge.node.id);
      if (edge.node.id.length >= 4) expect(edge.cursor).not.toContain(edge.node.id);
    }

    // Pages of 3, following endCursor.
    const seen: string[] = [];
    const more: boolean[] = [];
    let after: string | null = null;
    for (let i = 0; i < 3; i++) {
      const p = await page(3, after);
      expect(p.totalCount).toBe(8);
      expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor);
      seen.push(...p.edges.map((e) => e.node.id));
      more.push(p.pageInfo.hasNextPage);
      after = p.pageInfo.endCursor ?? null;
    }
    expect(seen).toEqual(sorted);
    expect(more).toEqual([true, true, false]);

    // After the last group: an empty page.
    const end = await page(3, after);
    expect(end).toEqual({
      totalCount: 8,
      edges: [],
      pageInfo: { hasNextPage: false, endCursor: null },
    });

    // A page that ends exactly at the last group says there is no next page.
    const bravo = all.edges[5];
    expect(bravo?.node.id).toBe('bravo');
    const exact = await page(2, bravo?.cursor);
    expect(exact.edges.map((e) => e.node.id)).toEqual(['charlie', 'delta']);
    expect(exact.pageInfo.hasNextPage).toBe(false);

    // Cursors are keys, not offsets: a group registered later lands in its place.
    await enqueue(q, 'bz');
    const afterBravo = await page(2, bravo?.cursor);
    expect(afterBravo.edges.map((e) => e.node.id)).toEqual(['bz', 'charlie']);
    expect(afterBravo.totalCount).toBe(9);
    expect(afterBravo.pageInfo.hasNextPage).toBe(true);
  });
});

describe('group mutations', () => {
  it('setLimit writes the limit, registers the group and settles the ring', async () => {
    const q = uniqueQueueName('setlimit');
    await enqueue(q, 'g');
    await enqueue(q, 'g');
    await enqueue(q, 'g');
    expect((await rawState(engineQueue(q))).ring).toEqual(['g']);

    // 0 parks it.
    const parked = ok(await api.request(SetLimitDocument, { queue: q, group: 'g', limit: 0 }));
    expect(parked.setLimit).toEqual({
      id: 'g',
      queue: q,
      limit: 0,
      active: 0,
      pending: 3,
      paused: false,
      onRing: false,
      state: 'SATURATED',
    });
    let raw = await rawState(engineQueue(q));
    expect(raw.glimit).toEqual({ g: '0' });
    expect(raw.ring).toEqual([]);
    expect(await claim(q)).toBeNull();

    // Raised: back on the ring (with a wake), claimable.
    const wakeBefore = raw.wake;
    const raised = ok(await api.request(SetLimitDocument, { queue: q, group: 'g', limit: 2 }));
    expect(raised.setLimit).toMatchObject({ limit: 2, onRing: true, state: 'READY' });
    raw = await rawState(engineQueue(q));
    expect(raw.glimit).toEqual({ g: '2' });
    expect(raw.ring).toEqual(['g']);
    expect(raw.wake).toBeGreaterThan(wakeBefore);
    await claimSome(q);

    // Lowered to the active count: saturated, de-ringed.
    const lowered = ok(await api.request(SetLimitDocument, { queue: q, group: 'g', limit: 1 }));
    expect(lowered.setLimit).toMatchObject({
      limit: 1,
      active: 1,
      pending: 2,
      onRing: false,
      state: 'SATURATED',
    });
    expect(await engineQueue(q).group('g')).toMatchObject(lowered.setLimit ?? {});
    raw = await rawState(engineQueue(q));
    expect(raw.ring).toEqual([]);
    expect(raw.glimit).toEqual({ g: '1' });

    // Registration: a group never enqueued to is registered by setLimit.
    ok(await api.request(SetLimitDocument, { queue: q, group: 'fresh', limit: 4 }));
    expect((await rawState(engineQueue(q))).groups).toEqual(['fresh', 'g']);
    expect(await r.sismember('emq:queues', q)).toBe(1);
  });

  it('clearLimit removes the limit and re-rings a serviceable group', async () => {
    const q = uniqueQueueName('clearlimit');
    ok(await api.request(SetLimitDocument, { queue: q, group: 'g', limit: 1 }));
    await enqueue(q, 'g');
    await enqueue(q, 'g');
    await claimSome(q);
    expect((await rawState(engineQueue(q))).ring).toEqual([]);

    const cleared = ok(await api.request(ClearLimitDocument, { queue: q, group: 'g' }));
    expect(cleared.clearLimit).toEqual({
      id: 'g',
      queue: q,
      limit: null,
      active: 1,
      pending: 1,
      paused: false,
      onRing: true,
      state: 'READY',
    });
    const raw = await rawState(engineQueue(q));
    expect(raw.glimit).toEqual({});
    expect(raw.ring).toEqual(['g']);
    expect(await engineQueue(q).group('g')).toMatchObject(cleared.clearLimit ?? {});
    // Clearing the limit of a group never seen registers it, as an idle group.
    const idle = ok(await api.request(ClearLimitDocument, { queue: q, group: 'other' }));
    expect(idle.clearLimit).toMatchObject({ limit: null, state: 'IDLE', onRing: false });
    expect((await rawState(engineQueue(q))).groups).toEqual(['g', 'other']);
  });

  it('pauseGroup and resumeGroup take a group off the ring and back, backlog untouched', async () => {
    const q = uniqueQueueName('pause');
    const a1 = await enqueue(q, 'a');
    await enqueue(q, 'a');
    await enqueue(q, 'b');
    const active = await claimSome(q);
    expect(active.id).toBe(a1.id);
    expect((await rawState(engineQueue(q))).ring).toEqual(['b', 'a']);

    const paused = ok(await api.request(PauseGroupDocument, { queue: q, group: 'a' }));
    expect(paused.pauseGroup).toEqual({
      id: 'a',
      queue: q,
      limit: null,
      active: 1,
      pending: 1,
      paused: true,
      onRing: false,
      state: 'PAUSED',
    });
    let raw = await rawState(engineQueue(q));
    expect(raw.ring).toEqual(['b']);
    expect(raw.paused).toEqual(['a']);
    expect(raw.lanes.a).toHaveLength(1);
    expect(raw.active).toEqual([active.id]);
    // Only b is served while a is paused.
    expect((await claimSome(q)).group).toBe('b');
    expect(await claim(q)).toBeNull();

    const resumed = ok(await api.request(ResumeGroupDocument, { queue: q, group: 'a' }));
    expect(resumed.resumeGroup).toMatchObject({ paused: false, onRing: true, state: 'READY' });
    raw = await rawState(engineQueue(q));
    expect(raw.ring).toEqual(['a']);
    expect(raw.paused).toEqual([]);
    expect(await engineQueue(q).group('a')).toMatchObject(resumed.resumeGroup ?? {});

    // Resuming a paused group with no work leaves it off the ring.
    ok(await api.request(PauseGroupDocument, { queue: q, group: 'idle' }));
    const idle = ok(await api.request(ResumeGroupDocument, { queue: q, group: 'idle' }));
    expect(idle.resumeGroup).toMatchObject({ paused: false, onRing: false, state: 'IDLE' });
    expect((await rawState(engineQueue(q))).ring).toEqual(['a']);
  });
});

describe('job mutations', () => {
  it('enqueue: payload JSON round-trips; the job is stored pending with maxAttempts 3', async () => {
    const q = uniqueQueueName('enqueue');
    const payloads: unknown[] = [
      { order: 42, items: [{ sku: 'a', qty: 2 }], meta: { nested: { deep: [true, null] } } },
      [1, 'two', null, { three: 3 }],
      'text with "quotes", \\ backslashes, newlines\n and ünïcödé 🎉',
      42,
      -3.5,
      true,
      false,
      {},
      [],
      '',
    ];
    let lastId = 0;
    for (const payload of payloads) {
      const job = await enqueue(q, 'g', payload);
      expect(job).toEqual({
        id: job.id,
        queue: q,
        group: 'g',
        payload,
        state: 'PENDING',
        attempts: 0,
        token: null,
        leaseUntil: null,
      });
      // Ids are decimal strings, increasing.
      expect(job.id).toMatch(/^[0-9]+$/);
      expect(Number(job.id)).toBeGreaterThan(lastId);
      lastId = Number(job.id);
      const hash = await r.hgetall(engineQueue(q).keys.job(job.id));
      // Beside the hash, in the queue's payloads (the job layout).
      const stored = await r.hget(engineQueue(q).keys.payloads, job.id);
      expect(JSON.parse(stored as string)).toEqual(payload);
      expect(hash).toMatchObject({ group: 'g', state: 'pending', maxAttempts: '3' });
      expect((await engineQueue(q).job(job.id))?.payload).toEqual(payload);
    }
    // No payload, or null: payload null.
    const none = await enqueue(q, 'g');
    const nulled = await enqueue(q, 'g', null);
    expect(none.payload).toBeNull();
    expect(nulled.payload).toBeNull();
    expect((await engineQueue(q).job(none.id))?.payload).toBeNull();

    // FIFO lane of the group, in enqueue order.
    const raw = await rawState(engineQueue(q));
    expect(raw.lanes.g).toHaveLength(payloads.length + 2);
    expect(raw.lanes.g?.at(-1)).toBe(nulled.id);
    expect(raw.ring).toEqual(['g']);

    // An explicit maxAttempts is stored.
    const seven = await enqueue(q, 'g', null, 7);
    expect(await r.hget(engineQueue(q).keys.job(seven.id), 'maxAttempts')).toBe('7');

    // A payload written inline in the document (a GraphQL literal, not a variable).
    const inline = await post(api.endpoint, {
      query: `mutation { enqueue(queue: "${q}", group: "lit", payload: { a: [1, "x", 2.5], b: { c: null, d: true } }) { id payload } }`,
    });
    expect(inline.status).toBe(200);
    const data = inline.json?.data as { enqueue: { id: string; payload: unknown } } | undefined;
    const inlined = data?.enqueue ?? { id: '', payload: undefined };
    expect(inlined.payload).toEqual({ a: [1, 'x', 2.5], b: { c: null, d: true } });
    expect((await engineQueue(q).job(inlined.id))?.payload).toEqual(inlined.payload);
  });

  it('enqueue: the default maxAttempts (3) is what retry counts against', async () => {
    const q = uniqueQueueName('attempts');
    const job = await enqueue(q, 'g', { try: 'me' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await claimSome(q);
      expect(claimed).toMatchObject({ id: job.id, attempts: attempt, state: 'ACTIVE' });
      const retried = ok(
        await api.request(RetryDocument, { queue: q, id: job.id, token: claimed.token ?? '' }),
      ).retry;
      expect(retried?.state).toBe(attempt < 3 ? 'PENDING' : 'DEAD');
    }
    expect(await claim(q)).toBeNull();
    expect((await rawState(engineQueue(q))).dead).toEqual([job.id]);
  });

  it('claim: null when nothing is serviceable', async () => {
    const q = uniqueQueueName('claim-none');
    // Nothing at all: null, and nothing written.
    await expectRedisUnchanged(r, async () => expect(await claim(q)).toBeNull());
    // Only a paused group, then only a saturated one.
    await enqueue(q, 'p');
    ok(await api.request(PauseGroupDocument, { queue: q, group: 'p' }));
    expect(await claim(q)).toBeNull();
    await enqueue(q, 's');
    ok(await api.request(SetLimitDocument, { queue: q, group: 's', limit: 1 }));
    await claimSome(q);
    expect(await claim(q)).toBeNull();
    expect((await rawState(engineQueue(q))).active).toHaveLength(1);
  });

  it('claim: the head group’s first job, leased under a token until a future DateTime', async () => {
    const q = uniqueQueueName('claim');
    const first = await enqueue(q, 'a', { n: 1 });
    const second = await enqueue(q, 'b', { n: 2 });

    const before = await redisNow(r);
    const job = await claimSome(q, 5_000);
    const after = await redisNow(r);
    expect(job).toMatchObject({
      id: first.id,
      queue: q,
      group: 'a',
      payload: { n: 1 },
      state: 'ACTIVE',
      attempts: 1,
    });
    expect(job.token).toEqual(expect.any(String));
    const until = leaseMs(job);
    expect(until).toBeGreaterThanOrEqual(before + 5_000);
    expect(until).toBeLessThanOrEqual(after + 5_000);
    // The lease as stored: active zset score, leases hash, token in the job hash.
    const keys = engineQueue(q).keys;
    expect(Number(await r.zscore(keys.active, job.id))).toBe(until);
    expect(await r.hget(keys.leases, job.id)).toBe('a');
    expect(await r.hget(keys.job(job.id), 'token')).toBe(job.token);
    expect(await r.hget(keys.gactive, 'a')).toBe('1');

    // Default lease: 30 s.
    const t0 = await redisNow(r);
    const next = (await claim(q)) as JobFieldsFragment;
    const t1 = await redisNow(r);
    expect(next.id).toBe(second.id);
    expect(leaseMs(next)).toBeGreaterThanOrEqual(t0 + 30_000);
    expect(leaseMs(next)).toBeLessThanOrEqual(t1 + 30_000);
    expect(next.token).not.toBe(job.token);
  });

  it('complete: the permit is released, the job kept as completed, the group re-ringed', async () => {
    const q = uniqueQueueName('complete');
    ok(await api.request(SetLimitDocument, { queue: q, group: 'g', limit: 1 }));
    await enqueue(q, 'g', { n: 1 });
    await enqueue(q, 'g', { n: 2 });
    const job = await claimSome(q);
    expect((await rawState(engineQueue(q))).ring).toEqual([]);

    const done = ok(
      await api.request(CompleteDocument, { queue: q, id: job.id, token: job.token ?? '' }),
    ).complete;
    expect(done).toMatchObject({
      id: job.id,
      queue: q,
      group: 'g',
      payload: { n: 1 },
      state: 'COMPLETED',
      attempts: 1,
    });
    const raw = await rawState(engineQueue(q));
    // Kept by the default completed retention: the lease is over, the job is COMPLETED.
    expect(await r.hmget(engineQueue(q).keys.job(job.id), 'state', 'token')).toEqual([
      'completed',
      null,
    ]);
    expect(raw.active).toEqual([]);
    expect(raw.leases).toEqual({});
    expect(raw.gactive).toEqual({});
    expect(raw.ring).toEqual(['g']);
    expect((await statsOf(engineQueue(q))).completed).toBe(1);
    // Completing it again: the job is kept, not active.
    const again = await api.request(CompleteDocument, {
      queue: q,
      id: job.id,
      token: job.token ?? '',
    });
    expect(errorCode(again)).toBe('LEASE_LOST');
  });

  it('retry: back to the front of its lane, or dead at maxAttempts', async () => {
    const q = uniqueQueueName('retry');
    const first = await enqueue(q, 'g', { n: 1 }, 2);
    const second = await enqueue(q, 'g', { n: 2 });
    const claimed = await claimSome(q);
    expect(claimed.id).toBe(first.id);

    const retried = ok(
      await api.request(RetryDocument, { queue: q, id: first.id, token: claimed.token ?? '' }),
    ).retry;
    expect(retried).toMatchObject({
      id: first.id,
      state: 'PENDING',
      attempts: 1,
      token: null,
      leaseUntil: null,
    });
    let raw = await rawState(engineQueue(q));
    expect(raw.lanes.g).toEqual([first.id, second.id]);
    expect(raw.active).toEqual([]);
    expect(raw.gactive).toEqual({});

    // Second claim of the same job reaches maxAttempts 2: retry makes it dead, hash kept.
    const again = await claimSome(q);
    expect(again).toMatchObject({ id: first.id, attempts: 2 });
    const dead = ok(
      await api.request(RetryDocument, { queue: q, id: first.id, token: again.token ?? '' }),
    ).retry;
    expect(dead).toMatchObject({ id: first.id, state: 'DEAD', attempts: 2 });
    raw = await rawState(engineQueue(q));
    expect(raw.dead).toEqual([first.id]);
    expect(raw.lanes.g).toEqual([second.id]);
    expect((await engineQueue(q).job(first.id))?.state).toBe('DEAD');
  });

  it('extendLease: pushes the deadline out under the same token', async () => {
    const q = uniqueQueueName('extend');
    await enqueue(q, 'g');
    const job = await claimSome(q, 2_000);
    const before = await redisNow(r);
    const extended = ok(
      await api.request(ExtendLeaseDocument, {
        queue: q,
        id: job.id,
        token: job.token ?? '',
        leaseMs: 600_000,
      }),
    ).extendLease;
    const after = await redisNow(r);
    expect(extended).toMatchObject({ id: job.id, state: 'ACTIVE', token: job.token, attempts: 1 });
    const until = leaseMs(extended as JobFieldsFragment);
    expect(until).toBeGreaterThanOrEqual(before + 600_000);
    expect(until).toBeLessThanOrEqual(after + 600_000);
    expect(until).toBeGreaterThan(leaseMs(job));
    expect(Number(await r.zscore(engineQueue(q).keys.active, job.id))).toBe(until);
  });

  it('JOB_NOT_FOUND for a job that does not exist, with nothing changed', async () => {
    const q = uniqueQueueName('notfound');
    await enqueue(q, 'g');
    const job = await claimSome(q);
    const token = job.token ?? '';
    for (const queue of [q, uniqueQueueName('nojobs')]) {
      for (const id of ['999999', String(Number(job.id) + 1)]) {
        await expectRedisUnchanged(r, async () => {
          expect(errorCode(await api.request(CompleteDocument, { queue, id, token }))).toBe(
            'JOB_NOT_FOUND',
          );
          expect(errorCode(await api.request(RetryDocument, { queue, id, token }))).toBe(
            'JOB_NOT_FOUND',
          );
          expect(
            errorCode(await api.request(ExtendLeaseDocument, { queue, id, token, leaseMs: 1000 })),
          ).toBe('JOB_NOT_FOUND');
        });
      }
    }
  });

  it('LEASE_LOST for a wrong or stale token, or a job that is not active, with nothing changed', async () => {
    const q = uniqueQueueName('leaselost');
    const pending = await enqueue(q, 'p');
    ok(await api.request(PauseGroupDocument, { queue: q, group: 'p' }));
    await enqueue(q, 'g');
    const first = await claimSome(q);
    // Retried and claimed again: the first token is stale.
    ok(await api.request(RetryDocument, { queue: q, id: first.id, token: first.token ?? '' }));
    const current = await claimSome(q);
    expect(current.id).toBe(first.id);
    const dead = await enqueue(q, 'd', null, 1);
    const doomed = await claimSome(q);
    expect(doomed.id).toBe(dead.id);
    ok(await api.request(RetryDocument, { queue: q, id: dead.id, token: doomed.token ?? '' }));

    const cases: [string, string][] = [
      [current.id, 'not-the-token'],
      [current.id, first.token ?? ''],
      [pending.id, 'any-token'],
      [dead.id, doomed.token ?? ''],
    ];
    for (const [id, token] of cases) {
      await expectRedisUnchanged(r, async () => {
        expect(errorCode(await api.request(CompleteDocument, { queue: q, id, token }))).toBe(
          'LEASE_LOST',
        );
        expect(errorCode(await api.request(RetryDocument, { queue: q, id, token }))).toBe(
          'LEASE_LOST',
        );
        const extend = await api.request(ExtendLeaseDocument, { queue: q, id, token, leaseMs: 5 });
        expect(errorCode(extend)).toBe('LEASE_LOST');
      });
    }
    // The current holder still can.
    const done = await api.request(CompleteDocument, {
      queue: q,
      id: current.id,
      token: current.token ?? '',
    });
    expect(ok(done).complete?.state).toBe('COMPLETED');
  });
});
