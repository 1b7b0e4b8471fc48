/**
 * The real server when Redis misbehaves (DESIGN.md §4, §6): the redis-server process is killed
 * under a live graphql-ws subscription and started again on the same port — the server's
 * subscriber reconnects by itself, sets the notification flags again, and the client gets a RESYNC
 * on the socket it already had; and a Redis that refuses CONFIG, where the server starts anyway,
 * says in `/ready` what its keyspace canary found (notifications where Redis publishes them all
 * the same, polling where it does not), and still delivers ring changes; and the server's subscriber
 * connection killed and kept out while Redis itself answers — `/ready` is 503 until the
 * subscriber is back and subscribed (notifications mode), and stays 200 when polling; and a
 * user whose scripts are taken away under a running server gets REDIS_NOT_PERMITTED.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { missingFlags, NEEDED_FLAGS } from '../../src/pubsub/notifyConfig.js';
import {
  findRedisServer,
  type RedisProcess,
  startRedisServer,
} from '../../src/server/redisProcess/index.js';
import {
  EnqueueDocument,
  PauseGroupDocument,
  QueueOverviewDocument,
  RingChangedDocument,
  type RingChangedSubscription,
} from '../gql/graphql.js';
import { dataOf, type LiveSubscription, sseSubscribe, wsSubscribe } from '../support/live.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { startTestRedis, type TestRedis, usingExternalRedis } from '../support/redis.js';
import { READY, startTestServer, type TestServer } from '../support/server.js';

const noRedisBinary = findRedisServer() === null;

/** A server and the Redis connections a test opened, stopped after it (servers first). */
const servers: TestServer[] = [];
const redises: Array<{ stop(): Promise<void> }> = [];
const clients: Redis[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  for (const client of clients.splice(0)) client.disconnect();
  for (const redis of redises.splice(0)) await redis.stop();
});

async function serve(redisUrl: string, env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer(redisUrl, env);
  servers.push(server);
  return server;
}

/** A redis-server of the test's own (stopped after it) and an admin connection to it. */
async function ownRedis(): Promise<{ redis: RedisProcess; admin: Redis }> {
  const redis = await startRedisServer({});
  redises.push(redis);
  const admin = new Redis(redis.url);
  admin.on('error', () => {});
  clients.push(admin);
  return { redis, admin };
}

async function mustOk<T>(
  promise: Promise<{ status: number; body: { data?: T | null; errors?: unknown } }>,
) {
  const { status, body } = await promise;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  return body.data as T;
}

/** GET `/health` or `/ready`: status and JSON body (or null when the body is not JSON). */
async function probe(server: TestServer, path: '/health' | '/ready') {
  const response = await fetch(`${server.server.url}${path}`);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // /health answers with an empty or plain body
  }
  return { status: response.status, body };
}

async function nextRing(sub: LiveSubscription<RingChangedSubscription>, timeoutMs?: number) {
  return dataOf(await sub.events.next(timeoutMs)).ringChanged;
}

describe.skipIf(noRedisBinary)('Redis restarted under a live graphql-ws subscription', () => {
  let redis: RedisProcess;
  let admin: Redis;
  const flags = async () =>
    ((await admin.config('GET', 'notify-keyspace-events')) as string[])[1] ?? '';

  beforeEach(async () => {
    // A Redis started with no notification flags, as every restart of it will be: only the
    // server can turn them on. Append-only with fsync always, so the ring survives a SIGKILL
    // (the RESYNC is then of an unchanged ring, and must be sent all the same).
    redis = await startRedisServer({ appendOnly: true, extraArgs: ['--appendfsync', 'always'] });
    redises.push(redis);
    admin = new Redis(redis.url);
    admin.on('error', () => {});
    clients.push(admin);
  });

  it.each(['SIGKILL', 'SIGTERM'] as const)(
    'after %s: the subscriber reconnects, sets the flags again, and the client gets a RESYNC with the right ring',
    async (signal) => {
      expect(await flags()).toBe('');
      // No safety re-read and no polling within the test: only notifications can deliver.
      const server = await serve(redis.url, {
        RESYNC_INTERVAL_MS: '600000',
        POLL_INTERVAL_MS: '600000',
      });
      expect(missingFlags(await flags(), NEEDED_FLAGS)).toBe('');
      expect(await probe(server, '/ready')).toEqual({
        status: 200,
        body: READY,
      });

      const q = queueName('restart');
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'b' }));
      const client = server.ws();
      let connects = 0;
      let closes = 0;
      client.on('connected', () => connects++);
      client.on('closed', () => closes++);
      const sub = wsSubscribe(client, RingChangedDocument, { queue: q });
      expect(await nextRing(sub)).toMatchObject({ ring: ['a', 'b'], reason: 'SNAPSHOT' });

      await redis.kill(signal);
      // What Redis last said is not shown as current while it does not answer.
      expect(await probe(server, '/ready')).toMatchObject({
        status: 503,
        body: {
          ready: false,
          redis: 'down',
          notifications: 'unknown',
          eviction: 'unknown',
          lastKnown: { notifications: 'notifications', eviction: 'noeviction' },
        },
      });
      // The new process starts with no flags again (same command line as the first, checked
      // above); only the server can set them.
      await redis.restart();

      expect(await nextRing(sub, 15_000)).toEqual({
        queue: q,
        ring: ['a', 'b'],
        added: [],
        removed: [],
        reason: 'RESYNC',
      });
      // The server, having reconnected, has set them again before it resynced.
      const after = await flags();
      expect(after).toContain('K');
      expect(after).toContain('l');
      expect(missingFlags(after, NEEDED_FLAGS)).toBe('');

      // Subscribed again: a change after the restart arrives by notification.
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'c' }));
      expect(await nextRing(sub)).toEqual({
        queue: q,
        ring: ['a', 'b', 'c'],
        added: ['c'],
        removed: [],
        reason: 'CHANGE',
      });
      // The client did nothing: same socket, never closed, never reconnected.
      expect({ connects, closes, sockets: server.server.sockets }).toEqual({
        connects: 1,
        closes: 0,
        sockets: 1,
      });
      // ring, levels, settings
      expect(server.server.feed.stats()).toMatchObject({ listeners: 1, channels: 3 });
      expect(await probe(server, '/ready')).toMatchObject({
        status: 200,
        body: { ready: true, notifications: 'notifications' },
      });
      sub.close();
    },
  );
});

describe.skipIf(usingExternalRedis())('a Redis that refuses CONFIG', () => {
  let redis: TestRedis;
  beforeEach(async () => {
    // The harness Redis with CONFIG renamed away (it has notifications on, as a managed Redis
    // configured by its operator would).
    redis = await startTestRedis({ renameConfig: true });
    redises.push(redis);
  });

  it('starts, says in /ready that notifications arrive (the canary is heard), and delivers ring changes', async () => {
    // Nothing polls or re-reads within the test: notifications deliver every change below.
    const server = await serve(redis.url, {
      POLL_INTERVAL_MS: '600000',
      RESYNC_INTERVAL_MS: '600000',
    });
    expect(server.server.feed.mode).toBe('notifications');
    expect(await probe(server, '/health')).toMatchObject({ status: 200 });
    const ready = await probe(server, '/ready');
    expect(ready).toEqual({
      status: 200,
      body: READY,
    });

    const q = queueName('refused');
    const ws = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
    const sse = sseSubscribe(server.endpoint, RingChangedDocument, { queue: q });
    for (const sub of [ws, sse]) {
      expect(await nextRing(sub)).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    }
    await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
    for (const sub of [ws, sse]) {
      expect(await nextRing(sub)).toMatchObject({ ring: ['a'], added: ['a'], reason: 'CHANGE' });
    }
    await mustOk(server.request(PauseGroupDocument, { queue: q, group: 'a' }));
    for (const sub of [ws, sse]) {
      expect(await nextRing(sub)).toMatchObject({ ring: [], removed: ['a'], reason: 'CHANGE' });
    }
    ws.close();
    sse.close();
  });
});

describe.skipIf(noRedisBinary)('a Redis that refuses CONFIG and publishes no notifications', () => {
  it('delivers ring changes by polling every POLL_INTERVAL_MS', async () => {
    const redis = await startRedisServer({ extraArgs: ['--rename-command', 'CONFIG', ''] });
    redises.push(redis);
    const server = await serve(redis.url, {
      POLL_INTERVAL_MS: '100',
      RESYNC_INTERVAL_MS: '600000',
    });
    expect(await probe(server, '/ready')).toMatchObject({
      status: 200,
      body: { notifications: 'polling' },
    });
    const q = queueName('silent');
    const sub = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
    expect(await nextRing(sub)).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
    await mustOk(server.request(EnqueueDocument, { queue: q, group: 'b' }));
    // Either one poll saw both, or two polls saw one each: the last event is the ring.
    const seen = await nextRing(sub);
    const last = seen.ring.length === 2 ? seen : await nextRing(sub);
    expect(last).toMatchObject({ ring: ['a', 'b'], reason: 'CHANGE' });
    const { queue } = await mustOk(server.request(QueueOverviewDocument, { name: q }));
    expect(queue.ring).toEqual(last.ring);
    sub.close();
  });
});

describe.skipIf(noRedisBinary)('a Redis whose user may not SUBSCRIBE to keyspace channels', () => {
  it('falls back to polling once a SUBSCRIBE is refused, says so in /ready, and still delivers', async () => {
    const { redis, admin } = await ownRedis();
    // Every command and key, no pub/sub channel (Redis 7's default for a new user, spelled out).
    await admin.call(
      'ACL',
      'SETUSER',
      'app',
      'on',
      '>app-password',
      '~*',
      'resetchannels',
      '+@all',
    );
    const server = await serve(redis.url.replace('redis://', 'redis://app:app-password@'), {
      POLL_INTERVAL_MS: '100',
      RESYNC_INTERVAL_MS: '600000',
    });
    const q = queueName('acl');
    const sub = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
    expect(await nextRing(sub)).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    await waitFor('the feed to poll', () => server.server.feed.mode === 'polling');
    expect(await probe(server, '/ready')).toEqual({
      status: 200,
      body: { ...READY, notifications: 'polling', subscriber: 'down' },
    });
    // No notification can come and the safety re-read is 10 minutes away: only a poll delivers.
    await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
    expect(await nextRing(sub)).toMatchObject({ ring: ['a'], reason: 'CHANGE' });
    sub.close();
  });
});

describe.skipIf(noRedisBinary)('a Redis whose user loses the scripts while the server runs', () => {
  it('answers REDIS_NOT_PERMITTED naming what to grant, HTTP 500, not "Unexpected error."', async () => {
    const { redis, admin } = await ownRedis();
    await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-password', '~*', '&*', '+@all');
    const server = await serve(redis.url.replace('redis://', 'redis://app:app-password@'), {});
    const q = queueName('noperm');
    await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
    // An operator takes the scripts away under a running server (checkServer passed at start).
    await admin.call('ACL', 'SETUSER', 'app', '-eval', '-evalsha', '-script', '-fcall');
    const { status, body } = await server.request(EnqueueDocument, { queue: q, group: 'a' });
    expect(status).toBe(500);
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(
          /^Redis refused the EVAL(SHA)? command to this connection's user \(NOPERM\): grant its ACL user .*\+@scripting/,
        ),
        extensions: expect.objectContaining({ code: 'REDIS_NOT_PERMITTED', queue: q }),
      }),
    ]);
  });
});

/**
 * Kill the server's subscriber connection (the only one in pub/sub mode: a subscription is
 * open) and keep it from reconnecting: `maxclients` is lowered to the connections left, so
 * Redis refuses every new one. Returns a function that lets it back in.
 */
async function killSubscriber(admin: Redis, config: string): Promise<() => Promise<void>> {
  const [, before] = (await admin.call(config, 'GET', 'maxclients')) as string[];
  const pubsub = (await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
  expect(pubsub.trim().split('\n')).toHaveLength(1);
  const connected = Number(/connected_clients:(\d+)/.exec(await admin.info('clients'))?.[1]);
  await admin.call(config, 'SET', 'maxclients', String(connected - 1));
  expect(await admin.client('KILL', 'TYPE', 'pubsub')).toBe(1);
  return async () => {
    await admin.call(config, 'SET', 'maxclients', String(before));
  };
}

describe.skipIf(noRedisBinary)(
  "the server's subscriber connection down while Redis answers",
  () => {
    it('notifications mode: /ready is 503 until the subscriber has reconnected and resubscribed', async () => {
      const redis = await startRedisServer({});
      redises.push(redis);
      const admin = new Redis(redis.url);
      admin.on('error', () => {});
      clients.push(admin);
      const server = await serve(redis.url, {
        RESYNC_INTERVAL_MS: '600000',
        POLL_INTERVAL_MS: '600000',
      });
      const q = queueName('subscriber');
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
      const sub = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
      expect(await nextRing(sub)).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
      expect(await probe(server, '/ready')).toEqual({
        status: 200,
        body: READY,
      });

      const letBackIn = await killSubscriber(admin, 'CONFIG');
      await waitFor(
        '/ready to answer 503',
        async () => (await probe(server, '/ready')).status === 503,
      );
      // Kept out for a while (ioredis retries every ≤ 2 s): still 503, and Redis itself is up.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(await probe(server, '/ready')).toEqual({
        status: 503,
        body: {
          ready: false,
          redis: 'up',
          notifications: 'notifications',
          subscriber: 'down',
          eviction: 'noeviction',
        },
      });

      await letBackIn();
      expect(await nextRing(sub, 15_000)).toMatchObject({ ring: ['a'], reason: 'RESYNC' });
      await waitFor(
        '/ready to answer 200',
        async () => (await probe(server, '/ready')).status === 200,
      );
      expect(await probe(server, '/ready')).toEqual({
        status: 200,
        body: READY,
      });
      // Subscribed again: a change arrives by notification (no re-read or poll in this test).
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'b' }));
      expect(await nextRing(sub)).toMatchObject({ ring: ['a', 'b'], reason: 'CHANGE' });
      sub.close();
    });

    it('polling mode: /ready stays 200 while the subscriber is down, since Redis answers', async () => {
      // CONFIG renamed, not removed: the server is refused it (so it polls); the test is not.
      const config = 'CONFIG-renamed-for-the-test';
      const redis = await startRedisServer({ extraArgs: ['--rename-command', 'CONFIG', config] });
      redises.push(redis);
      const admin = new Redis(redis.url);
      admin.on('error', () => {});
      clients.push(admin);
      const server = await serve(redis.url, { POLL_INTERVAL_MS: '100' });
      expect(server.server.feed.mode).toBe('polling');
      const q = queueName('polled');
      const sub = wsSubscribe(server.ws(), RingChangedDocument, { queue: q });
      expect(await nextRing(sub)).toMatchObject({ ring: [], reason: 'SNAPSHOT' });

      const letBackIn = await killSubscriber(admin, config);
      await waitFor('the subscriber to be down', () => !server.server.feed.subscribed);
      expect(await probe(server, '/ready')).toEqual({
        status: 200,
        body: { ...READY, notifications: 'polling', subscriber: 'down' },
      });
      // Polling still delivers.
      await mustOk(server.request(EnqueueDocument, { queue: q, group: 'a' }));
      expect(await nextRing(sub)).toMatchObject({ ring: ['a'], reason: 'CHANGE' });
      await letBackIn();
      await waitFor('the subscriber to be back', () => server.server.feed.subscribed, {
        timeoutMs: 15_000,
      });
      sub.close();
    });
  },
);
