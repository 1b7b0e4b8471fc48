/**
 * A WebSocket builds a fresh context for every operation: its token's role is checked again on
 * each (a read socket's mutation is FORBIDDEN on the socket it subscribed on), and a token
 * revoked after connect is refused on the next operation, with nothing changed in Redis. The
 * real yoga.ts and ws.ts, with an authenticator the test controls.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Role } from '../../src/context.js';
import { Ringmaster } from '../../src/lanes/index.js';
import { LiveFeed } from '../../src/pubsub/index.js';
import { Authenticator } from '../../src/server/auth.js';
import {
  ConnectionLimiter,
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
} from '../../src/server/connectionLimits.js';
import { createLogger } from '../../src/server/logger.js';
import { BrowserPolicy } from '../../src/server/plugins/browser.js';
import { attachWebSocket } from '../../src/server/ws.js';
import { createRingmasterYoga } from '../../src/server/yoga.js';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

/** An Authenticator whose tokens can be revoked while sockets are open. */
class RevocableAuthenticator extends Authenticator {
  readonly revoked = new Set<string>();
  override roleOf(authorization: unknown): Role | null {
    if (typeof authorization === 'string' && this.revoked.has(authorization)) return null;
    return super.roleOf(authorization);
  }
}

describe('a WebSocket builds a fresh context for every operation', () => {
  const READ_TOKEN = 'read-token-0123456789abcdef';
  const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
  const auth = new RevocableAuthenticator(
    new Map<string, Role>([
      [READ_TOKEN, 'read'],
      [ADMIN_TOKEN, 'admin'],
    ]),
  );
  let url = '';
  let stop: () => Promise<void> = async () => {};

  beforeAll(async () => {
    // The real yoga.ts and ws.ts, with an authenticator the test controls.
    const logger = createLogger('silent');
    const conn = hostile.redis.client();
    const engine = new Ringmaster(conn);
    const feed = new LiveFeed({
      engine,
      resyncIntervalMs: 5_000,
      pollIntervalMs: 1_000,
      logger,
    });
    await feed.start();
    const browser = new BrowserPolicy({ corsOrigins: [], loopbackHostsOnly: false });
    const connections = new ConnectionLimiter(DEFAULT_MAX_CONNECTIONS_PER_CLIENT);
    const yoga = createRingmasterYoga({
      engine,
      feed,
      auth,
      connections,
      logger,
      introspection: true,
      browser,
      ready: async () => ({ ok: true, detail: {} }),
    });
    const http = createServer(yoga);
    const ws = attachWebSocket(http, yoga, auth, browser, connections);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    stop = async () => {
      await ws.close();
      await feed.stop();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    };
  });
  afterAll(async () => {
    await stop();
  });

  /** One socket, connected with `token`; `run` sends one operation and waits for its answer. */
  async function socket(token: string) {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    // biome-ignore lint/suspicious/noExplicitAny: raw graphql-ws frames, read by each test
    const inbox: { id?: string; type: string; payload?: any }[] = [];
    const listeners: (() => void)[] = [];
    let closeCode: number | undefined;
    ws.on('message', (d) => {
      inbox.push(JSON.parse(d.toString()));
      for (const l of listeners.splice(0)) l();
    });
    ws.on('close', (code) => {
      closeCode = code;
      for (const l of listeners.splice(0)) l();
    });
    const next = async (pred: (m: (typeof inbox)[number]) => boolean) => {
      for (;;) {
        const i = inbox.findIndex(pred);
        if (i >= 0) return inbox.splice(i, 1)[0] as (typeof inbox)[number];
        if (closeCode !== undefined) throw new Error(`socket closed with ${closeCode}`);
        await new Promise<void>((resolve) => listeners.push(resolve));
      }
    };
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: token } }));
    await next((m) => m.type === 'connection_ack');
    let ids = 0;
    return {
      ws,
      async run(query: string) {
        ids += 1;
        const id = String(ids);
        ws.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
        return next((m) => m.id === id && (m.type === 'next' || m.type === 'error'));
      },
      next,
      get closeCode() {
        return closeCode;
      },
    };
  }

  it('a read socket may subscribe, but its mutation on the same socket is FORBIDDEN', async () => {
    const s = await socket(READ_TOKEN);
    const sub = await s.run('subscription { ringChanged(queue: "fresh") { ring reason } }');
    expect(sub).toMatchObject({
      type: 'next',
      payload: { data: { ringChanged: { reason: 'SNAPSHOT' } } },
    });
    const mutation = await expectRedisUnchanged(hostile.r, () =>
      s.run('mutation { setLimit(queue: "fresh", group: "g", limit: 1) { id } }'),
    );
    expect(mutation.type).toBe('next');
    expect(mutation.payload.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    s.ws.close();
  });

  it('a token revoked after connect is refused on the next operation (UNAUTHENTICATED)', async () => {
    const s = await socket(ADMIN_TOKEN);
    const before = await s.run('{ queues { name } }');
    expect(before).toMatchObject({
      type: 'next',
      payload: { data: { queues: expect.any(Array) } },
    });
    auth.revoked.add(ADMIN_TOKEN);
    try {
      for (const query of [
        '{ queues { name } }',
        'mutation { pauseGroup(queue: "fresh", group: "g") { id } }',
        'subscription { ringChanged(queue: "fresh") { ring } }',
      ]) {
        const refused = await expectRedisUnchanged(hostile.r, () => s.run(query));
        expect(refused.type).toBe('error');
        expect(refused.payload[0]?.extensions?.code).toBe('UNAUTHENTICATED');
        expectNoLeak(JSON.stringify(refused));
      }
      // A new socket with the revoked token is closed at connection_init (4403).
      await expect(socket(ADMIN_TOKEN)).rejects.toThrow(/4403/);
    } finally {
      auth.revoked.delete(ADMIN_TOKEN);
    }
    const again = await s.run('{ queues { name } }');
    expect(again.type).toBe('next');
    s.ws.close();
  });
});
