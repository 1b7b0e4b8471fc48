/**
 * Through the real server over a real Redis: `Queue.known` and `RingChange.known` tell
 * a queue never used from an empty one (and a limit set before the first job makes a queue
 * known); `Queue.snapshot` is one moment of a queue — its ring, totals, counters and groups
 * agree with each other even while workers claim and complete.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type Queue, Worker } from '../../src/lanes/index.js';
import {
  QueueKnownDocument,
  QueueSnapshotDocument,
  type QueueSnapshotQuery,
  type QueueSnapshotQueryVariables,
  RingKnownDocument,
  type RingKnownSubscription,
} from '../gql/graphql.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

type Snapshot = QueueSnapshotQuery['queue']['snapshot'];

const server = useTestServer();

const engineQueue = (stem = 'snap'): Queue => server.server.engine.queue(queueName(stem));

async function snapshot(
  variables: QueueSnapshotQueryVariables,
): Promise<Snapshot & { errors?: undefined }> {
  const { status, body } = await server.request(QueueSnapshotDocument, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return (body.data as QueueSnapshotQuery).queue.snapshot;
}

describe('Queue.known and RingChange.known', () => {
  it('a queue never used reads as zeros but is not known; reading it registers nothing', async () => {
    const name = queueName('ordrs');
    for (let i = 0; i < 2; i += 1) {
      const { body } = await server.request(QueueKnownDocument, { queue: name });
      expect(body.data?.queue).toEqual({
        known: false,
        counts: { groups: 0, pending: 0, active: 0 },
        stats: { enqueued: 0 },
      });
    }
    expect(await server.server.engine.queues()).not.toContain(name);
  });

  it('a limit set before the first job makes the queue known, with no job in it', async () => {
    const queue = engineQueue('orders');
    await queue.setLimit('acme', 2);
    const { body } = await server.request(QueueKnownDocument, { queue: queue.name });
    expect(body.data?.queue).toEqual({
      known: true,
      counts: { groups: 1, pending: 0, active: 0 },
      stats: { enqueued: 0 },
    });
  });

  it("ringChanged's SNAPSHOT says whether the queue is known, and a first job says it is", async () => {
    type Event = RingKnownSubscription['ringChanged'];
    const unknown = engineQueue('ordrs');
    const configured = engineQueue('orders');
    await configured.setLimit('acme', 1);
    const client = server.ws();
    const a = wsSubscribe(client, RingKnownDocument, { queue: unknown.name });
    const b = wsSubscribe(client, RingKnownDocument, { queue: configured.name });
    const next = async (sub: typeof a): Promise<Event> =>
      dataOf(await sub.events.next()).ringChanged;
    try {
      expect(await next(a)).toEqual({ ring: [], reason: 'SNAPSHOT', known: false });
      expect(await next(b)).toEqual({ ring: [], reason: 'SNAPSHOT', known: true });
      await unknown.enqueue('first', null);
      expect(await next(a)).toEqual({ ring: ['first'], reason: 'CHANGE', known: true });
    } finally {
      a.close();
      b.close();
    }
  });
});

describe('Queue.snapshot', () => {
  it('answers what the separate reads answer while nothing moves, paging like `groups`', async () => {
    const queue = engineQueue();
    for (const id of ['a', 'b', 'c']) await queue.enqueue(id, null);
    await queue.enqueue('p', null);
    await queue.pause('p');
    await queue.setLimit('z', 0);
    const s = await snapshot({ queue: queue.name, first: 3, ids: ['z', 'c', 'nobody'] });
    expect(s.ring).toEqual(await queue.ring());
    // Every count the API exposes is the engine's (which may count more: delayed, completed).
    expect(await queue.counts()).toMatchObject(s.counts);
    expect(s.stats).toMatchObject({ enqueued: 4, claimed: 0, completed: 0 });
    expect(Math.abs(Date.parse(String(s.at)) - Date.now())).toBeLessThan(60_000);
    const page = await queue.groups({ first: 3 });
    expect(s.groups.totalCount).toBe(5);
    expect(s.groups.pageInfo).toEqual({ hasNextPage: true, endCursor: page.endCursor });
    expect(s.groups.edges.map((e) => e.node.id)).toEqual(['a', 'b', 'c']);
    expect(s.groups.edges[1]?.node).toMatchObject({
      state: 'READY',
      onRing: true,
      reason: 'on the ring at position 2 of 3; jobs are waiting and no worker is connected',
    });
    expect(s.picked.map((g) => [g.id, g.state])).toEqual([
      ['z', 'SATURATED'],
      ['c', 'READY'],
      ['nobody', 'IDLE'],
    ]);
    expect(s.picked[1]?.reason).toBe(
      'on the ring at position 3 of 3; jobs are waiting and no worker is connected',
    );

    const rest = await snapshot({
      queue: queue.name,
      first: 3,
      after: s.groups.pageInfo.endCursor,
    });
    expect(rest.groups.edges.map((e) => [e.node.id, e.node.blockedBy])).toEqual([
      ['p', 'PAUSED'],
      ['z', 'PARKED'],
    ]);
    expect(rest.groups.pageInfo.hasNextPage).toBe(false);

    const byPrefix = await snapshot({ queue: queue.name, prefix: 'b' });
    expect(byPrefix.groups.totalCount).toBe(1);
    expect(byPrefix.groups.edges.map((e) => e.node.id)).toEqual(['b']);
  });

  it('agrees with itself at every moment while workers claim and complete', async () => {
    // Each read of a snapshot is one script: the ring, the totals and each group's fields are of
    // one moment. Read apart, a claim between two reads would show a group READY and off the
    // ring, or totals that are not the sum of the groups.
    const queue = engineQueue('busy');
    const groups = Array.from({ length: 8 }, (_, i) => `g${i}`);
    for (const [i, id] of groups.entries()) {
      if (i % 2 === 0) await queue.setLimit(id, 1 + (i % 3));
      for (let j = 0; j < 40; j += 1) await queue.enqueue(id, { j });
    }
    const worker = new Worker(queue, () => sleep(1 + Math.floor(Math.random() * 4)), {
      concurrency: 6,
      leaseMs: 30_000,
    });
    const seen = { moving: 0, checked: 0 };
    let previous: Snapshot | null = null;
    try {
      for (let i = 0; i < 60; i += 1) {
        const s = await snapshot({ queue: queue.name, first: 50, ids: ['g0', 'g3'] });
        const nodes = s.groups.edges.map((e) => e.node);
        const onRing = new Set(s.ring);
        expect(s.counts.onRing).toBe(s.ring.length);
        for (const g of [...nodes, ...s.picked]) {
          // I1 in one moment: serviceable exactly when on the ring.
          expect({ id: g.id, onRing: onRing.has(g.id) }).toEqual({ id: g.id, onRing: g.onRing });
          expect(g.state === 'READY').toBe(g.onRing);
        }
        expect(nodes.reduce((sum, g) => sum + g.active, 0)).toBe(s.counts.active);
        expect(nodes.reduce((sum, g) => sum + g.pending, 0)).toBe(s.counts.pending);
        for (const picked of s.picked) {
          expect(nodes.find((g) => g.id === picked.id)).toMatchObject(picked);
        }
        if (previous && previous.stats.claimed !== s.stats.claimed) seen.moving += 1;
        seen.checked += 1;
        previous = s;
        if (s.counts.pending === 0 && s.counts.active === 0) break;
      }
    } finally {
      await worker.close();
    }
    // The check ran while the queue was moving, not only before or after.
    expect(seen.moving).toBeGreaterThan(5);
  });

  it('refuses bad input with BAD_USER_INPUT and reads nothing', async () => {
    const queue = engineQueue();
    const cases: QueueSnapshotQueryVariables[] = [
      { queue: queue.name, first: 0 },
      { queue: queue.name, after: 'not-a-cursor' },
      { queue: queue.name, prefix: '' },
      { queue: queue.name, ids: Array.from({ length: 21 }, (_, i) => `g${i}`) },
      { queue: queue.name, ids: [''] },
    ];
    for (const variables of cases) {
      const { body } = await server.request(QueueSnapshotDocument, variables);
      expect(body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).toBe('BAD_USER_INPUT');
    }
    expect(await queue.known()).toBe(false);
  });
});
