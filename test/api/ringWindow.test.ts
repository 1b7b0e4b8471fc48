/**
 * `ringChanged` with a window (DESIGN.md §4.4): `ring(first)`, `size` and the counts over
 * graphql-ws and SSE against a real server and Redis. A subscriber that selects no whole list
 * is sent the head it asked for and what changed, whatever the ring's size; a negative `first`
 * is BAD_USER_INPUT at subscribe.
 */
import { describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import {
  EnqueueDocument,
  PauseGroupDocument,
  RingWindowDocument,
  SnapshotWindowDocument,
} from '../gql/graphql.js';
import { dataOf, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

const server = useTestServer({ RESYNC_INTERVAL_MS: '60000', KEY_PREFIX: 'rw' }, { perTest: true });

const transports = [
  [
    'graphql-ws',
    () => (v: { queue: string; first: number }) => wsSubscribe(server.ws(), RingWindowDocument, v),
  ],
  [
    'SSE',
    () => (v: { queue: string; first: number }) =>
      sseSubscribe(server.endpoint, RingWindowDocument, v),
  ],
] as const;

describe.each(transports)('ringChanged(first) over %s', (_name, transport) => {
  it('sends the head asked for, the size and what changed of a 5,000-group ring', async () => {
    const open = transport();
    const q = queueName('window');
    const engine = new Ringmaster(server.redis.client(), { prefix: 'rw' });
    const jobs = Array.from({ length: 1_000 }, (_, i) => ({ group: `g${i}` }));
    for (let i = 0; i < 5; i++) {
      await engine.queue(q).enqueueMany(jobs.map((j) => ({ group: `${i}-${j.group}` })));
    }
    const sub = open({ queue: q, first: 3 });
    const snapshot = dataOf(await sub.events.next()).ringChanged;
    expect(snapshot).toEqual({
      reason: 'SNAPSHOT',
      size: 5_000,
      ring: ['0-g0', '0-g1', '0-g2'],
      added: ['0-g0', '0-g1', '0-g2'],
      removed: [],
      addedCount: 5_000,
      removedCount: 0,
    });
    expect(JSON.stringify(snapshot).length).toBeLessThan(300);

    await server.ok(EnqueueDocument, { queue: q, group: 'late' });
    const change = dataOf(await sub.events.next()).ringChanged;
    expect(change).toEqual({
      reason: 'CHANGE',
      size: 5_001,
      ring: ['0-g0', '0-g1', '0-g2'],
      added: ['late'],
      removed: [],
      addedCount: 1,
      removedCount: 0,
    });
    await server.ok(PauseGroupDocument, { queue: q, group: '0-g1' });
    expect(dataOf(await sub.events.next()).ringChanged).toMatchObject({
      size: 5_000,
      ring: ['0-g0', '0-g2', '0-g3'],
      removed: ['0-g1'],
      removedCount: 1,
    });
    sub.close();
  });

  it('refuses a negative first with BAD_USER_INPUT', async () => {
    const sub = transport()({ queue: queueName('window'), first: -1 });
    const failed = await sub.events.next();
    expect(failed.data ?? null).toBeNull();
    expect(failed.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    sub.close();
  });
});

describe('snapshot(ringFirst)', () => {
  it('reads the head of the ring and its size; a READY group past the head says so', async () => {
    const q = queueName('window');
    const engine = new Ringmaster(server.redis.client(), { prefix: 'rw' });
    await engine
      .queue(q)
      .enqueueMany(Array.from({ length: 1_000 }, (_, i) => ({ group: `g${i}` })));
    const { body } = await server.request(SnapshotWindowDocument, {
      queue: q,
      ringFirst: 3,
      ids: ['g1', 'g500'],
    });
    expect(body.errors).toBeUndefined();
    expect(body.data?.queue.snapshot).toEqual({
      ring: ['g0', 'g1', 'g2'],
      ringSize: 1_000,
      counts: { onRing: 1_000 },
      picked: [
        {
          id: 'g1',
          state: 'READY',
          reason: 'on the ring at position 2 of 1000; jobs are waiting and no worker is connected',
        },
        {
          id: 'g500',
          state: 'READY',
          reason:
            'on the ring after position 3 of 1000; jobs are waiting and no worker is connected',
        },
      ],
    });
    const whole = await server.request(SnapshotWindowDocument, { queue: q, ids: [] });
    expect(whole.body.data?.queue.snapshot.ring).toHaveLength(1_000);
    expect(JSON.stringify(body).length).toBeLessThan(1_000);
  });

  it('refuses a negative ringFirst with BAD_USER_INPUT', async () => {
    const { body } = await server.request(SnapshotWindowDocument, {
      queue: queueName('window'),
      ringFirst: -1,
    });
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
  });
});
