/**
 * One WebSocket holds at most MAX_SUBSCRIPTIONS_PER_SOCKET open operations (src/server/ws.ts):
 * the next one is refused with BAD_USER_INPUT, the socket and its other subscriptions go on,
 * and a slot freed by completing one is usable again.
 */
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_SOCKET } from '../src/server/limits.js';
import { RingChangedDocument } from './gql/graphql.js';
import { useTestRedis } from './support/redis.js';
import { startTestServer, type TestServer } from './support/server.js';

const redis = useTestRedis();
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer(redis.url);
});
afterAll(async () => {
  await api?.stop();
});

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
    expect(JSON.stringify(refused)).toContain('BAD_USER_INPUT');
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
