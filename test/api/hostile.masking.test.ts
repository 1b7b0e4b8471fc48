/**
 * Unexpected errors are masked with NODE_ENV unset, as in production: a Redis that answers
 * WRONGTYPE gives INTERNAL_SERVER_ERROR and "Unexpected error." over HTTP and WebSocket, and a
 * bad body's parser error is not echoed in extensions. (badInput.test.ts covers NODE_ENV set.)
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoLeak, post, wsOperation } from '../support/api.js';
import { expectServerUp, send } from '../support/hostile.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let r: Redis;
beforeAll(() => {
  r = redis.client();
});

describe('unexpected errors are masked with NODE_ENV unset', () => {
  const PREFIX = 'unset-env';
  let broken: TestServer;
  let savedEnv: string | undefined;
  beforeAll(async () => {
    savedEnv = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    broken = await startTestServer(redis.url, { KEY_PREFIX: PREFIX, REAP_INTERVAL_MS: '86400000' });
    await r.set(`${PREFIX}:{broken}:ring`, 'not a list');
    await r.set(`${PREFIX}:{broken}:glimit`, 'not a hash');
  });
  afterAll(async () => {
    await broken?.stop();
    if (savedEnv !== undefined) process.env.NODE_ENV = savedEnv;
  });

  it.each([
    ['a read', '{ queue(name: "broken") { ring } }'],
    ['a script', 'mutation { setLimit(queue: "broken", group: "g", limit: 1) { id } }'],
  ])('%s: INTERNAL_SERVER_ERROR and nothing else, over HTTP and WebSocket', async (_l, query) => {
    expect(process.env.NODE_ENV).toBeUndefined();
    const http = await post(broken.endpoint, { query });
    expectNoLeak(http.text);
    expect(http.json?.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      }),
    ]);
    const ws = await wsOperation(broken.endpoint, { query });
    for (const frame of ws.frames) expectNoLeak(frame);
    expect(ws.results[0]?.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      }),
    ]);
    await expectServerUp(broken, true);
  });

  it('a bad body’s parser error is not echoed in extensions', async () => {
    const response = await send({ body: '{"query": ' }, broken.endpoint);
    expect(response.status).toBe(400);
    expect(response.json?.errors?.[0]?.extensions).toEqual({ code: 'BAD_REQUEST' });
    expect(response.text).not.toMatch(/SyntaxError|originalError/);
  });
});
