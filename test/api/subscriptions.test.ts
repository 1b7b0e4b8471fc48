/**
 * `ringChanged` and `groupChanged` through the real server (DESIGN.md §4): graphql-ws and SSE
 * clients on a free port, a real Redis, mutations over HTTP. SNAPSHOT first, then CHANGE events
 * with the right `added`/`removed`; nothing for an unchanged ring; bursts coalesced into a bounded
 * number of reads and events; independent operations on one socket; and nothing left behind —
 * no listener, no channel, no Redis subscription, no socket — when a client goes away.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { parse } from 'graphql';
import type { Redis } from 'ioredis';
import { beforeEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import {
  ClaimDocument,
  CompleteDocument,
  EnqueueDocument,
  GroupByIdDocument,
  GroupChangedDocument,
  type GroupChangedSubscription,
  PauseGroupDocument,
  PauseQueueDocument,
  QueueOverviewDocument,
  ResumeGroupDocument,
  ResumeQueueDocument,
  RingChangedDocument,
  type RingChangedSubscription,
  RingStateDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import {
  dataOf,
  type LiveSubscription,
  sseSubscribe,
  type WireResult,
  wsSubscribe,
} from '../support/live.js';
import { channelsOf, queueName, waitFor } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

type RingEvent = RingChangedSubscription['ringChanged'];
type GroupEvent = GroupChangedSubscription['groupChanged'];

// The safety re-read is a minute away: every event below is driven by keyspace notifications.
const server = useTestServer({ RESYNC_INTERVAL_MS: '60000' }, { perTest: true });
let admin: Redis;

beforeEach(() => {
  admin = server.redis.client();
});

/** The ring as `queue { ring }` reads it over HTTP. */
async function ringOverHttp(queue: string): Promise<string[]> {
  return (await server.ok(QueueOverviewDocument, { name: queue })).queue.ring;
}

async function nextRing(sub: LiveSubscription<RingChangedSubscription>): Promise<RingEvent> {
  return dataOf(await sub.events.next()).ringChanged;
}

async function nextGroup(sub: LiveSubscription<GroupChangedSubscription>): Promise<GroupEvent> {
  return dataOf(await sub.events.next()).groupChanged;
}

/** The next ring event, checked in full and against the ring read over HTTP. */
async function expectRing(
  sub: LiveSubscription<RingChangedSubscription>,
  queue: string,
  expected: Pick<RingEvent, 'ring' | 'added' | 'removed' | 'reason'>,
): Promise<void> {
  expect(await nextRing(sub)).toEqual({ queue, ...expected });
  expect(await ringOverHttp(queue)).toEqual(expected.ring);
}

type Open = <T, V>(document: TypedDocumentNode<T, V>, variables: V) => LiveSubscription<T>;

const transports: Array<[string, () => Open]> = [
  [
    'graphql-ws',
    () => {
      const client = server.ws();
      return (document, variables) => wsSubscribe(client, document, variables);
    },
  ],
  ['SSE', () => (document, variables) => sseSubscribe(server.endpoint, document, variables)],
];

describe.each(transports)('ringChanged over %s', (_name, transport) => {
  it('sends a SNAPSHOT, then a CHANGE with the right added/removed for every mutation that moves the ring', async () => {
    const open = transport();
    const q = queueName('ring');
    await server.ok(EnqueueDocument, { queue: q, group: 'a' });
    const sub = open(RingChangedDocument, { queue: q });
    await expectRing(sub, q, { ring: ['a'], added: ['a'], removed: [], reason: 'SNAPSHOT' });

    await server.ok(EnqueueDocument, { queue: q, group: 'b' });
    await expectRing(sub, q, { ring: ['a', 'b'], added: ['b'], removed: [], reason: 'CHANGE' });

    // A limit that changes nothing sends nothing: the next event is the next real change.
    await server.ok(SetLimitDocument, { queue: q, group: 'b', limit: 5 });
    await server.ok(EnqueueDocument, { queue: q, group: 'c' });
    await expectRing(sub, q, {
      ring: ['a', 'b', 'c'],
      added: ['c'],
      removed: [],
      reason: 'CHANGE',
    });

    // claim serves the head, whose lane is then empty: it leaves the ring.
    const job = (await server.ok(ClaimDocument, { queue: q })).claim;
    expect(job).toMatchObject({ group: 'a', state: 'ACTIVE' });
    await expectRing(sub, q, { ring: ['b', 'c'], added: [], removed: ['a'], reason: 'CHANGE' });

    // a at its limit with work waiting: still off the ring, so still nothing to send...
    await server.ok(SetLimitDocument, { queue: q, group: 'a', limit: 1 });
    await server.ok(EnqueueDocument, { queue: q, group: 'a' });
    // ...until complete frees the permit.
    await server.ok(CompleteDocument, { queue: q, id: job?.id ?? '', token: job?.token ?? '' });
    await expectRing(sub, q, {
      ring: ['b', 'c', 'a'],
      added: ['a'],
      removed: [],
      reason: 'CHANGE',
    });

    await server.ok(SetLimitDocument, { queue: q, group: 'b', limit: 0 });
    await expectRing(sub, q, { ring: ['c', 'a'], added: [], removed: ['b'], reason: 'CHANGE' });
    await server.ok(SetLimitDocument, { queue: q, group: 'b', limit: 2 });
    await expectRing(sub, q, {
      ring: ['c', 'a', 'b'],
      added: ['b'],
      removed: [],
      reason: 'CHANGE',
    });

    await server.ok(PauseGroupDocument, { queue: q, group: 'c' });
    await expectRing(sub, q, { ring: ['a', 'b'], added: [], removed: ['c'], reason: 'CHANGE' });
    // Pausing again and resuming a group that is not paused change nothing.
    await server.ok(PauseGroupDocument, { queue: q, group: 'c' });
    await server.ok(ResumeGroupDocument, { queue: q, group: 'a' });
    await server.ok(ResumeGroupDocument, { queue: q, group: 'c' });
    await expectRing(sub, q, {
      ring: ['a', 'b', 'c'],
      added: ['c'],
      removed: [],
      reason: 'CHANGE',
    });
    expect(sub.events.untaken).toBe(0);
    sub.close();
  });

  it('sends nothing when the ring is written but comes out the same', async () => {
    const open = transport();
    const q = queueName('same');
    await server.ok(EnqueueDocument, { queue: q, group: 'solo' });
    await server.ok(EnqueueDocument, { queue: q, group: 'solo' });
    const sub = open(RingChangedDocument, { queue: q });
    await expectRing(sub, q, { ring: ['solo'], added: ['solo'], removed: [], reason: 'SNAPSHOT' });

    // The only group, with work left, is popped from the head and pushed back to the tail: the
    // ring key is notified and re-read, and the ring is the same.
    const reads = server.server.feed.stats().ringReads;
    expect((await server.ok(ClaimDocument, { queue: q })).claim?.group).toBe('solo');
    await waitFor(
      'the re-read after the claim',
      () => server.server.feed.stats().ringReads > reads,
    );
    expect(await ringOverHttp(q)).toEqual(['solo']);

    await server.ok(EnqueueDocument, { queue: q, group: 'next' });
    await expectRing(sub, q, {
      ring: ['solo', 'next'],
      added: ['next'],
      removed: [],
      reason: 'CHANGE',
    });
    sub.close();
  });
});

describe('a burst of 10,000 ring changes', () => {
  it('is coalesced into a bounded number of reads and events, the last equal to the final ring', async () => {
    const q = queueName('burst');
    const engine = server.server.engine.queue(q);
    const groups = Array.from({ length: 7 }, (_, i) => `g${i}`);
    for (const group of groups) await engine.enqueue(group, null);
    const ws = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
    const sse = sseSubscribe(server.endpoint, RingChangedDocument, { queue: q });
    for (const sub of [ws, sse]) {
      expect(await nextRing(sub)).toMatchObject({ ring: groups, reason: 'SNAPSHOT' });
    }
    const before = server.server.feed.stats().ringReads;
    const started = performance.now();

    // 5,000 pause/resume pairs: each pause takes a group out, each resume puts it at the tail.
    // Sent in batches without waiting for each reply; one connection keeps them in order.
    const changes = 10_000;
    for (let batch = 0; batch < changes; batch += 1_000) {
      const calls: Promise<unknown>[] = [];
      for (let i = batch; i < batch + 1_000; i += 2) {
        const group = groups[(i / 2) % groups.length] as string;
        calls.push(engine.pause(group), engine.resume(group));
      }
      await Promise.all(calls);
    }
    const final = await engine.ring();
    // 5,000 rotations of 7 groups: a ring unlike the snapshot, so it must be sent.
    expect(final).toEqual([...groups.slice(5000 % 7), ...groups.slice(0, 5000 % 7)]);

    for (const sub of [ws, sse]) {
      await sub.events.until(
        'the final ring',
        () =>
          JSON.stringify(sub.events.items.at(-1)?.data?.ringChanged.ring) === JSON.stringify(final),
        10_000,
      );
    }
    const elapsed = performance.now() - started;
    const reads = server.server.feed.stats().ringReads - before;

    // One read per throttle window at most, shared by both subscribers: nowhere near one per
    // change. (The feed's window is 25 ms; the bound allows 10 ms, plus a few for the edges.)
    expect(reads).toBeGreaterThan(0);
    expect(reads).toBeLessThanOrEqual(Math.ceil(elapsed / 10) + 5);
    expect(reads).toBeLessThan(changes / 20);
    for (const sub of [ws, sse]) {
      const events = sub.events.items.slice(1).map((r) => dataOf(r).ringChanged);
      expect(events.length).toBeGreaterThan(0);
      expect(events.length).toBeLessThanOrEqual(reads);
      expect(events.every((e) => e.reason === 'CHANGE')).toBe(true);
    }

    // Nothing stale follows the final ring: the next event is against it.
    const lengths = [ws, sse].map((sub) => sub.events.items.length);
    await engine.enqueue('sentinel', null);
    for (const [i, sub] of [ws, sse].entries()) {
      await sub.events.until('the sentinel', () => sub.events.items.length > (lengths[i] ?? 0));
      expect(
        dataOf(sub.events.items[lengths[i] ?? 0] as WireResult<RingChangedSubscription>),
      ).toEqual({
        ringChanged: {
          queue: q,
          ring: [...final, 'sentinel'],
          added: ['sentinel'],
          removed: [],
          reason: 'CHANGE',
        },
      });
    }
    ws.close();
    sse.close();
  });
});

describe('groupChanged over graphql-ws', () => {
  it("sends the group's state first, then whenever a field of it changes", async () => {
    const q = queueName('group');
    await server.ok(EnqueueDocument, { queue: q, group: 'g' });
    const sub = wsSubscribe(server.ws(), GroupChangedDocument, { queue: q, group: 'g' });
    const expectGroup = async (fields: Partial<GroupEvent>) => {
      const event = await nextGroup(sub);
      expect(event).toMatchObject({ id: 'g', queue: q, ...fields });
      // The event is the group as a query reads it.
      expect((await server.ok(GroupByIdDocument, { queue: q, id: 'g' })).queue.group).toEqual(
        event,
      );
    };
    await expectGroup({
      limit: null,
      active: 0,
      pending: 1,
      paused: false,
      onRing: true,
      state: 'READY',
    });

    await server.ok(SetLimitDocument, { queue: q, group: 'g', limit: 1 });
    await expectGroup({ limit: 1, state: 'READY' });

    // Another group's limit is written to the same hash: g is re-read, unchanged, not sent.
    const reads = server.server.feed.stats().groupReads;
    await server.ok(SetLimitDocument, { queue: q, group: 'h', limit: 3 });
    await waitFor('the re-read of g', () => server.server.feed.stats().groupReads > reads);

    const job = (await server.ok(ClaimDocument, { queue: q })).claim;
    expect(job?.group).toBe('g');
    await expectGroup({ active: 1, pending: 0, onRing: false, state: 'SATURATED' });
    await server.ok(PauseGroupDocument, { queue: q, group: 'g' });
    await expectGroup({ paused: true, state: 'PAUSED' });
    await server.ok(ResumeGroupDocument, { queue: q, group: 'g' });
    await expectGroup({ paused: false, state: 'SATURATED' });
    await server.ok(CompleteDocument, { queue: q, id: job?.id ?? '', token: job?.token ?? '' });
    await expectGroup({ active: 0, pending: 0, onRing: false, state: 'IDLE' });
    await server.ok(EnqueueDocument, { queue: q, group: 'g' });
    await expectGroup({ active: 0, pending: 1, onRing: true, state: 'READY' });
    expect(sub.events.untaken).toBe(0);
    sub.close();
  });
});

describe('ringChanged and the queue state over graphql-ws', () => {
  it('pauseQueue and resumeQueue are CHANGEs of queueState with the ring standing', async () => {
    const q = queueName('state');
    await server.ok(EnqueueDocument, { queue: q, group: 'a' });
    const sub = wsSubscribe(server.ws(), RingStateDocument, { queue: q });
    const next = async () => dataOf(await sub.events.next()).ringChanged;
    expect(await next()).toEqual({
      ring: ['a'],
      added: ['a'],
      removed: [],
      queueState: 'RUNNING',
      reason: 'SNAPSHOT',
    });
    await server.ok(PauseQueueDocument, { queue: q });
    expect(await next()).toEqual({
      ring: ['a'],
      added: [],
      removed: [],
      queueState: 'PAUSED',
      reason: 'CHANGE',
    });
    // While paused the ring still moves with the groups; each event says PAUSED.
    await server.ok(EnqueueDocument, { queue: q, group: 'b' });
    expect(await next()).toMatchObject({ ring: ['a', 'b'], added: ['b'], queueState: 'PAUSED' });
    await server.ok(ResumeQueueDocument, { queue: q });
    expect(await next()).toEqual({
      ring: ['a', 'b'],
      added: [],
      removed: [],
      queueState: 'RUNNING',
      reason: 'CHANGE',
    });
    expect(sub.events.untaken).toBe(0);
    sub.close();
  });
});

describe('several subscriptions on one socket', () => {
  it('are independent, and an error in one closes neither the others nor the socket', async () => {
    const client = server.ws();
    let connects = 0;
    client.on('connected', () => connects++);
    const q1 = queueName('one');
    const q2 = queueName('two');
    const ring = wsSubscribe(client, RingChangedDocument, { queue: q1 });
    const group = wsSubscribe(client, GroupChangedDocument, { queue: q2, group: 'x' });
    expect(await nextRing(ring)).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    // An unknown group reads as empty.
    expect(await nextGroup(group)).toEqual({
      id: 'x',
      queue: q2,
      limit: null,
      active: 0,
      pending: 0,
      paused: false,
      onRing: false,
      state: 'IDLE',
    });

    // A change to one reaches only its own subscription.
    await server.ok(EnqueueDocument, { queue: q2, group: 'x' });
    expect(await nextGroup(group)).toMatchObject({ pending: 1, state: 'READY' });
    await server.ok(EnqueueDocument, { queue: q1, group: 'a' });
    expect(await nextRing(ring)).toMatchObject({ ring: ['a'], added: ['a'], reason: 'CHANGE' });
    expect(group.events.untaken).toBe(0);

    // A bad queue name fails that operation alone, with BAD_USER_INPUT.
    const bad = wsSubscribe(client, RingChangedDocument, { queue: 'no spaces allowed' });
    const failed = await bad.events.next();
    expect(failed.data ?? null).toBeNull();
    expect(failed.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    await bad.events.until('completion', () => bad.events.completed);
    // So does a document the schema rejects (graphql-ws answers it with an `error` message).
    const invalid = wsSubscribe(
      client,
      parse(`subscription { ringChanged(queue: "${q1}") { nope } }`) as TypedDocumentNode<
        unknown,
        Record<string, never>
      >,
      {},
    );
    await invalid.events.until('the error', () => invalid.events.completed);
    expect(invalid.events.items).toEqual([]);
    expect(JSON.stringify(invalid.events.error)).toMatch(/Cannot query field .*nope/);

    expect(ring.events.completed).toBe(false);
    expect(group.events.completed).toBe(false);
    await server.ok(EnqueueDocument, { queue: q1, group: 'b' });
    expect(await nextRing(ring)).toMatchObject({
      ring: ['a', 'b'],
      added: ['b'],
      reason: 'CHANGE',
    });
    await server.ok(PauseGroupDocument, { queue: q2, group: 'x' });
    expect(await nextGroup(group)).toMatchObject({ paused: true, state: 'PAUSED' });

    // Completing one leaves the other running.
    expect(server.server.feed.stats().listeners).toBe(2);
    ring.close();
    await waitFor('one listener', () => server.server.feed.stats().listeners === 1);
    await server.ok(ResumeGroupDocument, { queue: q2, group: 'x' });
    expect(await nextGroup(group)).toMatchObject({ paused: false, state: 'READY' });
    expect(server.server.sockets).toBe(1);
    expect(connects).toBe(1);
    group.close();
  });
});

describe('a client that goes away', () => {
  /** Everything the server holds for `queue`: listeners, channels, Redis subscriptions. */
  const holdings = async (queue: string) => ({
    ...server.server.feed.stats(),
    redisChannels: (await channelsOf(admin, queue)).length,
    sockets: server.server.sockets,
  });
  const nothingHeld = { listeners: 0, watchedQueues: 0, channels: 0, redisChannels: 0 };

  it.each([
    ['closes its socket', (client: { dispose(): void }) => client.dispose()],
    [
      'drops its connection without a close frame',
      (_: unknown, socket: WebSocket) => socket.terminate(),
    ],
  ] as const)('over graphql-ws (%s) leaves nothing behind', async (_how, leave) => {
    const q = queueName('gone');
    const client = server.ws();
    let socket: WebSocket | undefined;
    client.on('connected', (s) => {
      socket = s as WebSocket;
    });
    const ring = wsSubscribe(client, RingChangedDocument, { queue: q });
    const group = wsSubscribe(client, GroupChangedDocument, { queue: q, group: 'a' });
    await nextRing(ring);
    await nextGroup(group);
    // ring, levels and settings (the group's too: the queue's cap), and for the group: glimit,
    // gactive, paused, gweight, grate, ratelimited, goverride, greserve, gmaxpending, its lane.
    expect(await holdings(q)).toMatchObject({
      listeners: 2,
      watchedQueues: 1,
      channels: 13,
      redisChannels: 13,
      sockets: 1,
    });

    leave(client, socket as WebSocket);
    await waitFor('the server to let go', async () => {
      const now = await holdings(q);
      return (
        now.listeners === 0 && now.channels === 0 && now.redisChannels === 0 && now.sockets === 0
      );
    });
    expect(await holdings(q)).toMatchObject({ ...nothingHeld, sockets: 0 });
  });

  it('over SSE (aborts its request) leaves nothing behind', async () => {
    const q = queueName('sse');
    const ring = sseSubscribe(server.endpoint, RingChangedDocument, { queue: q });
    const group = sseSubscribe(server.endpoint, GroupChangedDocument, { queue: q, group: 'a' });
    await nextRing(ring);
    await nextGroup(group);
    expect(await holdings(q)).toMatchObject({ listeners: 2, channels: 13, redisChannels: 13 });

    // Each request is waiting on the server for its next event when it is aborted.
    ring.close();
    await waitFor('the ring listener to go', async () => {
      const now = await holdings(q);
      return now.listeners === 1 && now.redisChannels === 11;
    });
    expect(await holdings(q)).toMatchObject({ listeners: 1, watchedQueues: 1, channels: 11 });
    group.close();
    await waitFor('the server to let go', async () => {
      const now = await holdings(q);
      return now.listeners === 0 && now.channels === 0 && now.redisChannels === 0;
    });
    expect(await holdings(q)).toMatchObject(nothingHeld);
  });
});
