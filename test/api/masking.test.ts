/**
 * Errors that are not the caller's are masked (DESIGN.md §5): a Redis that answers WRONGTYPE, or
 * a script that fails, gives INTERNAL_SERVER_ERROR and "Unexpected error." with nothing of the
 * cause, on HTTP and WebSocket, whatever NODE_ENV is — production, development, test or unset —
 * and a bad body's parser error is not echoed in extensions. Each server of its own writes under
 * its own key prefix, so its broken keys touch nothing else.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  codes,
  expectNoLeak,
  post,
  type RawResponse,
  type WsOutcome,
  wsOperation,
} from '../support/api.js';
import { expectServerUp, send } from '../support/hostile.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let r: Redis;
beforeAll(() => {
  r = redis.client();
});

/** The common checks on any refused answer: one error, the code, no leak. */
function expectRefusedWith(response: RawResponse, code: string): void {
  expectNoLeak(response.text);
  expect(codes(response.json), response.text.slice(0, 400)).toEqual([code]);
}

describe.each(['production', 'development', 'test'])('unexpected errors, NODE_ENV=%s', (env) => {
  const PREFIX = `broken-${env}`;
  let broken: TestServer;
  let savedEnv: string | undefined;

  beforeAll(async () => {
    savedEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = env;
    // A server of its own under its own prefix, so its broken keys touch nothing else.
    broken = await startTestServer(redis.url, {
      KEY_PREFIX: PREFIX,
      REAP_INTERVAL_MS: '86400000',
    });
    // Redis answers WRONGTYPE: keys of the wrong type written by hand.
    const k = (key: string) => `${PREFIX}:{broken}:${key}`;
    await r.set(k('ring'), 'not a list');
    await r.set(k('paused'), 'not a set');
    await r.set(k('stats'), 'not a hash');
    await r.set(k('gactive'), 'not a hash');
    await r.set(k('glimit'), 'not a hash');
    await r.set(k('groups'), 'not a zset');
    await r.set(k('active'), 'not a zset');
    await r.hset(k('seq'), 'not', 'a string');
    await r.set(k('g:x:pending'), 'not a zset');
    // A job hash, so complete/retry/extendLease get past "no such job" to the broken `active`.
    await r.hset(k('job:1'), { group: 'g', state: 'active', token: 't', attempts: '1' });
    await r.sadd(`${PREFIX}:queues`, 'broken');
  });
  afterAll(async () => {
    await broken?.stop();
    if (savedEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = savedEnv;
  });

  it.each([
    ['ring', '{ queue(name: "broken") { ring } }'],
    ['paused', '{ queue(name: "broken") { paused } }'],
    ['counts', '{ queue(name: "broken") { counts { pending saturated } } }'],
    ['activeGroups', '{ queue(name: "broken") { activeGroups { id } } }'],
    ['group', '{ queue(name: "broken") { group(id: "x") { id limit pending } } }'],
    ['groups', '{ queue(name: "broken") { groups { totalCount } } }'],
    ['setLimit (a script)', 'mutation { setLimit(queue: "broken", group: "g", limit: 1) { id } }'],
    ['clearLimit', 'mutation { clearLimit(queue: "broken", group: "g") { id } }'],
    ['pauseGroup', 'mutation { pauseGroup(queue: "broken", group: "g") { id } }'],
    ['resumeGroup', 'mutation { resumeGroup(queue: "broken", group: "g") { id } }'],
    [
      'setRateLimit',
      'mutation { setRateLimit(queue: "broken", group: "g", max: 1, windowMs: 1000) { id } }',
    ],
    ['clearRateLimit', 'mutation { clearRateLimit(queue: "broken", group: "g") { id } }'],
    ['enqueue', 'mutation { enqueue(queue: "broken", group: "g") { id } }'],
    ['claim', 'mutation { claim(queue: "broken") { id } }'],
    ['complete', 'mutation { complete(queue: "broken", id: "1", token: "t") { id } }'],
    ['retry', 'mutation { retry(queue: "broken", id: "1", token: "t") { id } }'],
    [
      'extendLease',
      'mutation { extendLease(queue: "broken", id: "1", token: "t", leaseMs: 5) { id } }',
    ],
  ])(
    '%s: INTERNAL_SERVER_ERROR with nothing of the cause, on HTTP and WebSocket',
    async (_label, query) => {
      const response = await post(broken.endpoint, { query });
      expectRefusedWith(response, 'INTERNAL_SERVER_ERROR');
      expect(response.json?.errors?.[0]?.message).toBe('Unexpected error.');
      expect(Object.keys(response.json?.errors?.[0]?.extensions ?? {})).toEqual(['code']);

      const outcome = await wsOperation(broken.endpoint, { query });
      for (const frame of outcome.frames) expectNoLeak(frame);
      expect(codes(outcome.results[0])).toEqual(['INTERNAL_SERVER_ERROR']);
    },
  );

  it('queues: a registry of the wrong type', async () => {
    await r.del(`${PREFIX}:queues`);
    await r.set(`${PREFIX}:queues`, 'not a set');
    try {
      const response = await post(broken.endpoint, { query: '{ queues { name } }' });
      expectRefusedWith(response, 'INTERNAL_SERVER_ERROR');
    } finally {
      await r.del(`${PREFIX}:queues`);
      await r.sadd(`${PREFIX}:queues`, 'broken');
    }
  });

  it('the broken keys were never what the error said: the same call on a sound queue works', async () => {
    const response = await post(broken.endpoint, { query: '{ queue(name: "sound") { ring } }' });
    expect(response.json).toEqual({ data: { queue: { ring: [] } } });
  });
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

  it('an operationName that names no operation is 400 OPERATION_RESOLUTION_FAILURE (docs/errors.md, "Error codes")', async () => {
    for (const body of [
      { query: 'query A { __typename } query B { __typename }', operationName: 'C' },
      { query: 'query A { __typename } query B { __typename }' },
    ]) {
      const response = await send({ body: JSON.stringify(body) }, broken.endpoint);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json?.errors?.[0]?.extensions).toEqual({
        code: 'OPERATION_RESOLUTION_FAILURE',
      });
      expect(response.json?.data).toBeUndefined();
    }
  });
});

describe('an unexpected error in a subscription event', () => {
  const PREFIX = 'broken-event';
  let broken: TestServer;
  // Group.jobs reads the group's dead index, broken here; the group's own watch does not.
  const subscription = {
    query:
      'subscription { groupChanged(queue: "q", group: "g") { id jobs(state: DEAD) { totalCount } } }',
  };
  beforeAll(async () => {
    broken = await startTestServer(redis.url, { KEY_PREFIX: PREFIX, REAP_INTERVAL_MS: '86400000' });
    await r.set(`${PREFIX}:{q}:g:g:dead`, 'not a zset');
  });
  afterAll(async () => {
    await broken?.stop();
  });

  // The WebSocket transport masks a shared result itself (ws.ts): it skips envelop's hooks.
  it('is masked over WebSocket: INTERNAL_SERVER_ERROR and nothing of the cause', async () => {
    const ws = await wsOperation(broken.endpoint, subscription);
    for (const frame of ws.frames) expectNoLeak(frame);
    expect(ws.results[0]).toEqual({
      data: null,
      errors: [
        expect.objectContaining({
          message: 'Unexpected error.',
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        }),
      ],
    });
    await expectServerUp(broken, true);
  });

  it('is masked over SSE the same way', async () => {
    const event = await firstSseEvent(broken.endpoint, subscription);
    expectNoLeak(event);
    const payload = JSON.parse(event) as WsOutcome['results'][number];
    expect(payload.errors).toEqual([
      expect.objectContaining({
        message: 'Unexpected error.',
        extensions: { code: 'INTERNAL_SERVER_ERROR' },
      }),
    ]);
  });
});

/** The data of the first `next` event of a subscription over SSE (Yoga's own transport). */
async function firstSseEvent(endpoint: string, body: object): Promise<string> {
  const aborter = new AbortController();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
    signal: aborter.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`SSE ended before an event: ${text}`);
      text += decoder.decode(value, { stream: true });
      const event = /event: next\ndata: ([^\n]*)\n/.exec(text);
      if (event) return event[1] as string;
    }
  } finally {
    aborter.abort();
  }
}
