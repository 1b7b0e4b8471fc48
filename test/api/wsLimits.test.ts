/**
 * Bounds on what subscribers make the server hold (src/server/ws.ts, connectionLimits.ts): one
 * WebSocket holds at most MAX_SUBSCRIPTIONS_PER_SOCKET open operations; the server watches at
 * most MAX_WATCHES distinct rings, groups and jobs; a client holds at most
 * MAX_CONNECTIONS_PER_CLIENT WebSockets and SSE streams together (per address with auth off,
 * per token with auth on). Past
 * each: LIMIT_EXCEEDED (a socket: close code 1013 with a reason), the rest goes on, and a slot
 * freed is usable again.
 */
import { print } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { TOO_MANY_CONNECTIONS } from '../../src/server/connectionLimits.js';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../src/server/plugins/limits.js';
import { GroupChangedDocument, RingChangedDocument } from '../gql/graphql.js';
import { dataOf, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { startTestServer, type TestServer, useTestServer } from '../support/server.js';

const api = useTestServer();
const { redis } = api;

describe('subscriptions per socket', () => {
  it(`refuses operation ${MAX_SUBSCRIPTIONS_PER_SOCKET + 1} on one socket, and frees slots`, async () => {
    const client = api.ws();
    const query = print(RingChangedDocument);
    const snapshots: Promise<void>[] = [];
    const unsubscribes: (() => void)[] = [];
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_SOCKET; i++) {
      snapshots.push(
        new Promise((resolve, reject) => {
          unsubscribes.push(
            client.subscribe(
              { query, variables: { queue: `q${i}` } },
              { next: () => resolve(), error: reject, complete: () => {} },
            ),
          );
        }),
      );
    }
    await Promise.all(snapshots);

    const refused = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query, variables: { queue: 'one-too-many' } },
        { next: (r) => resolve(r), error: (e) => resolve(e), complete: () => {} },
      );
    });
    expect(JSON.stringify(refused)).toContain('LIMIT_EXCEEDED');
    expect(api.server.sockets).toBe(1);

    unsubscribes[0]?.();
    await new Promise<void>((resolve, reject) => {
      client.subscribe(
        { query, variables: { queue: 'after-a-slot-freed' } },
        { next: () => resolve(), error: reject, complete: () => {} },
      );
    });
    for (const unsubscribe of unsubscribes) unsubscribe();
  });
});

describe('distinct watches, server-wide (MAX_WATCHES)', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer(redis.url, { MAX_WATCHES: '3' });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it('refuses one more distinct ring or group with LIMIT_EXCEEDED, on WebSocket and SSE, and frees slots', async () => {
    const [q1, q2, q3] = [queueName('w'), queueName('w'), queueName('w')];
    const client = limited.ws();
    // Three distinct watches: two rings and a group.
    const r1 = wsSubscribe(client, RingChangedDocument, { queue: q1 });
    const r2 = wsSubscribe(client, RingChangedDocument, { queue: q2 });
    const g1 = wsSubscribe(client, GroupChangedDocument, { queue: q1, group: 'a' });
    for (const sub of [r1, r2]) dataOf(await sub.events.next());
    dataOf(await g1.events.next());
    expect(limited.server.feed.stats()).toMatchObject({ watches: 3 });

    // A fourth, over graphql-ws and over SSE: refused, nothing held for it.
    const ring3 = wsSubscribe(client, RingChangedDocument, { queue: q3 });
    const group3 = sseSubscribe(limited.endpoint, GroupChangedDocument, { queue: q1, group: 'b' });
    const refusals = [
      await ring3.events.next().catch(() => ring3.events.error),
      await group3.events.next().catch(() => group3.events.error),
    ];
    for (const refusal of refusals) {
      expect(JSON.stringify(refusal)).toContain('LIMIT_EXCEEDED');
      expect(JSON.stringify(refusal)).toMatch(/3 distinct rings, groups and jobs/);
    }
    expect(limited.server.feed.stats()).toMatchObject({ watches: 3, listeners: 3 });

    // One more subscriber of a watched ring costs no watch: allowed.
    const again = wsSubscribe(limited.ws(), RingChangedDocument, { queue: q1 });
    expect(dataOf(await again.events.next()).ringChanged).toMatchObject({ reason: 'SNAPSHOT' });

    // A watch released frees its slot.
    r2.close();
    await r2.events.until('completion', () => r2.events.completed).catch(() => {});
    const freed = wsSubscribe(client, RingChangedDocument, { queue: q3 });
    expect(dataOf(await freed.events.next()).ringChanged).toMatchObject({ reason: 'SNAPSHOT' });
    expect(limited.server.feed.stats()).toMatchObject({ watches: 3 });
    for (const sub of [r1, g1, again, freed]) sub.close();
  });
});

/** A graphql-ws socket: acknowledged, or closed with this code and reason. */
function connect(
  url: string,
  token?: string,
): Promise<{ socket: WebSocket; acked: boolean; code?: number; reason?: string }> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => {
      socket.send(
        JSON.stringify({
          type: 'connection_init',
          payload: token ? { authorization: token } : {},
        }),
      );
    });
    socket.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'connection_ack') resolve({ socket, acked: true });
    });
    socket.once('close', (code, reason) =>
      resolve({ socket, acked: false, code, reason: reason.toString() }),
    );
  });
}

describe('sockets per client (MAX_CONNECTIONS_PER_CLIENT)', () => {
  const sockets: WebSocket[] = [];
  let limited: TestServer | undefined;
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    await limited?.stop();
    limited = undefined;
  });
  const open = async (token?: string) => {
    const result = await connect((limited as TestServer).endpoint, token);
    sockets.push(result.socket);
    return result;
  };
  const closed = (socket: WebSocket) =>
    new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close();
    });

  it('auth off: per address — the next socket is closed with 1013 and a reason, until one closes', async () => {
    limited = await startTestServer(redis.url, { MAX_CONNECTIONS_PER_CLIENT: '2' });
    const first = await open();
    const second = await open();
    expect([first.acked, second.acked]).toEqual([true, true]);
    const third = await open();
    expect(third).toMatchObject({ acked: false, code: TOO_MANY_CONNECTIONS });
    expect(third.reason).toMatch(/at most 2 \(MAX_CONNECTIONS_PER_CLIENT\)/);
    // Closed at the upgrade: graphql-ws never saw it, and it is soon gone.
    await waitFor('the refused socket to go', () => limited?.server.sockets === 2);

    await closed(first.socket);
    expect((await open()).acked).toBe(true);
  });

  it('auth on: per token — another token is not held back by the first', async () => {
    const [a, b] = ['read-token-aaaaaaaaaaaa', 'read-token-bbbbbbbbbbbb'];
    limited = await startTestServer(redis.url, {
      MAX_CONNECTIONS_PER_CLIENT: '1',
      AUTH_TOKENS: `read:${a},read:${b}`,
    });
    expect((await open(a)).acked).toBe(true);
    expect(await open(a)).toMatchObject({ acked: false, code: TOO_MANY_CONNECTIONS });
    expect((await open(b)).acked).toBe(true);
    // An unknown token is refused as before (4403), and counts for no one.
    expect(await open('not-a-token-at-all-xx')).toMatchObject({ acked: false, code: 4403 });
  });
});

describe('connections per client over every transport: WebSockets and SSE streams together', () => {
  const sockets: WebSocket[] = [];
  const streams: { close(): void }[] = [];
  let limited: TestServer | undefined;
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.terminate();
    for (const stream of streams.splice(0)) stream.close();
    await limited?.stop();
    limited = undefined;
  });
  const endpoint = () => (limited as TestServer).endpoint;
  /** An SSE ring subscription, its first event taken: SNAPSHOT, or the refusal. */
  const sse = async (queue: string, token?: string) => {
    const stream = sseSubscribe(endpoint(), RingChangedDocument, { queue }, token ? { token } : {});
    streams.push(stream);
    // Generous: many streams open at once on a busy machine.
    return { stream, first: await stream.events.next(30_000) };
  };
  const refusedWith = (first: unknown, max: number) => {
    expect(JSON.stringify(first)).toContain('LIMIT_EXCEEDED');
    expect(JSON.stringify(first)).toContain(`at most ${max} (MAX_CONNECTIONS_PER_CLIENT)`);
  };

  it('auth off: sockets and streams of one address share the bound; a stream closed frees its slot', async () => {
    limited = await startTestServer(redis.url, { MAX_CONNECTIONS_PER_CLIENT: '3' });
    const q = queueName('conn');
    const first = await connect(endpoint());
    sockets.push(first.socket);
    expect(first.acked).toBe(true);
    const a = await sse(q);
    const b = await sse(q);
    for (const { first: event } of [a, b]) {
      expect(dataOf(event).ringChanged).toMatchObject({ reason: 'SNAPSHOT' });
    }
    // Three open: one more stream is refused before it subscribes, one more socket closed.
    refusedWith((await sse(queueName('conn'))).first, 3);
    const fourth = await connect(endpoint());
    sockets.push(fourth.socket);
    expect(fourth).toMatchObject({ acked: false, code: TOO_MANY_CONNECTIONS });
    expect(limited.server.feed.stats()).toMatchObject({ watches: 1, listeners: 2 });

    a.stream.close();
    await waitFor(
      'the closed stream to be let go',
      () => limited?.server.feed.stats().listeners === 1,
    );
    const again = await sse(q);
    expect(dataOf(again.first).ringChanged).toMatchObject({ reason: 'SNAPSHOT' });
  });

  it('auth on: one token cannot take every watch; another token still subscribes', async () => {
    const [a, b] = ['read-token-aaaaaaaaaaaa', 'read-token-bbbbbbbbbbbb'];
    limited = await startTestServer(redis.url, {
      MAX_CONNECTIONS_PER_CLIENT: '3',
      MAX_WATCHES: '4',
      AUTH_TOKENS: `read:${a},read:${b}`,
    });
    for (let i = 0; i < 3; i++) {
      expect(dataOf((await sse(queueName('take'), a)).first).ringChanged).toMatchObject({
        reason: 'SNAPSHOT',
      });
    }
    refusedWith((await sse(queueName('take'), a)).first, 3);
    expect(await connect(endpoint(), a)).toMatchObject({
      acked: false,
      code: TOO_MANY_CONNECTIONS,
    });
    expect(dataOf((await sse(queueName('other'), b)).first).ringChanged).toMatchObject({
      reason: 'SNAPSHOT',
    });
  });

  it('100 streams opened and closed leave no listener, no watch and no count behind', async () => {
    limited = await startTestServer(redis.url, { MAX_CONNECTIONS_PER_CLIENT: '100' });
    const queues = Array.from({ length: 20 }, () => queueName('many'));
    const opened = await Promise.all(
      Array.from({ length: 100 }, (_, i) => sse(queues[i % 20] as string)),
    );
    for (const { first } of opened) expect(dataOf(first).ringChanged.reason).toBe('SNAPSHOT');
    expect(limited.server.feed.stats()).toMatchObject({ listeners: 100, watches: 20 });
    for (const { stream } of opened) stream.close();
    await waitFor('every stream let go', () => {
      const stats = limited?.server.feed.stats();
      return stats?.listeners === 0 && stats.watches === 0;
    });
    // Every slot is free again: as many streams as before are admitted.
    const reopened = await Promise.all(
      Array.from({ length: 100 }, (_, i) => sse(queues[i % 20] as string)),
    );
    for (const { first } of reopened) expect(dataOf(first).ringChanged.reason).toBe('SNAPSHOT');
  });
});

describe('configuration of the bounds', () => {
  it.each([
    ['MAX_WATCHES', '0'],
    ['MAX_WATCHES', 'many'],
    ['MAX_REREADS_PER_SECOND', '2.5'],
    ['MAX_CONNECTIONS_PER_CLIENT', '-1'],
    ['MAX_CONNECTIONS_PER_CLIENT', '1000001'],
  ])('%s=%j is refused with a message naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(
      new RegExp(`${name}=.*: must be a whole number from 1 to 1000000`),
    );
  });

  it('has defaults: 10,000 watches, 500 re-reads a second, 1,000 sockets a client', () => {
    expect(loadConfig({})).toMatchObject({
      maxWatches: 10_000,
      maxRereadsPerSecond: 500,
      maxConnectionsPerClient: 1_000,
    });
  });
});
