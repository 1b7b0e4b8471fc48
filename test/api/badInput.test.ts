/**
 * DESIGN.md §5 through the API: bad input on every argument of every field — queries and
 * mutations over HTTP, subscriptions over SSE and graphql-ws — is answered with the right
 * `extensions.code`, changes nothing in Redis (every key's DUMP and PTTL compared), and no
 * response body holds a stack, a file path or Redis' own text. An unexpected error (Redis
 * answering WRONGTYPE, or a script failing) is INTERNAL_SERVER_ERROR with nothing of the cause,
 * whatever NODE_ENV is. Bodies over 1 MiB are refused and the server stays up.
 */
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../../src/lanes/index.js';
import { MAX_REQUEST_BYTES } from '../../src/server/plugins/limits.js';
import {
  codes,
  expectNoLeak,
  expectRedisUnchanged,
  post,
  type RawRequest,
  type RawResponse,
  seedEveryKey,
  wsOperation,
} from '../support/api.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let api: TestServer;
let r: Redis;
const QUEUE = 'bad-input';
/** The fixture's jobs: one active (leased for an hour), its id and token. */
let active: Job;

beforeAll(async () => {
  api = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
  r = redis.client();
  active = await seedEveryKey(api.server.engine.queue(QUEUE));
  expect(active.group).toBe('a');
});
afterAll(async () => {
  await api?.stop();
});

// Bad values, by kind of argument ---------------------------------------------------------------

type Code = 'BAD_USER_INPUT' | 'JOB_NOT_FOUND';
type Case = readonly [label: string, value: unknown, code: Code];

/** A variable of the wrong type: refused while coercing variables, before anything runs. */
const wrongType = (values: readonly unknown[]): Case[] =>
  values.map((value) => [`wrong type ${JSON.stringify(value)}`, value, 'BAD_USER_INPUT'] as const);

const BAD_QUEUE_NAMES: Case[] = [
  ['empty', '', 'BAD_USER_INPUT'],
  ['129 characters', 'q'.repeat(129), 'BAD_USER_INPUT'],
  ['braces', '{q}', 'BAD_USER_INPUT'],
  ['an open brace', 'a{b', 'BAD_USER_INPUT'],
  ['a close brace', 'b}', 'BAD_USER_INPUT'],
  ['a space', 'has space', 'BAD_USER_INPUT'],
  ['a leading space', ' q', 'BAD_USER_INPUT'],
  ['a newline', 'q\n', 'BAD_USER_INPUT'],
  ['unicode', 'ünïcødé', 'BAD_USER_INPUT'],
  ['an emoji', 'q🎉', 'BAD_USER_INPUT'],
  ['a slash', 'a/b', 'BAD_USER_INPUT'],
  ['a glob star', 'q*', 'BAD_USER_INPUT'],
  ...wrongType([5, true, null, ['q'], { name: 'q' }]),
];

const BAD_GROUP_IDS: Case[] = [
  ['empty', '', 'BAD_USER_INPUT'],
  ['257 bytes', 'g'.repeat(257), 'BAD_USER_INPUT'],
  // 129 characters but 258 UTF-8 bytes: the rule counts bytes.
  ['258 bytes in 129 characters', 'é'.repeat(129), 'BAD_USER_INPUT'],
  ['260 bytes in 65 emoji', '🎉'.repeat(65), 'BAD_USER_INPUT'],
  ['NUL', 'a\u0000b', 'BAD_USER_INPUT'],
  ['a tab', 'a\tb', 'BAD_USER_INPUT'],
  ['a newline', 'a\nb', 'BAD_USER_INPUT'],
  ['ESC', '\u001b[31m', 'BAD_USER_INPUT'],
  ['DEL', 'a\u007f', 'BAD_USER_INPUT'],
  ['a C1 control', 'a\u0085', 'BAD_USER_INPUT'],
  // JSON can carry a lone surrogate as an escape (JSON.stringify writes "\ud800").
  ['a lone high surrogate', 'a\ud800', 'BAD_USER_INPUT'],
  ['a lone low surrogate', '\udc00b', 'BAD_USER_INPUT'],
  ...wrongType([7, false, null, ['g']]),
];

const intOutside = (min: number, max: number): Case[] => [
  [`${min - 1}`, min - 1, 'BAD_USER_INPUT'],
  [`${max + 1}`, max + 1, 'BAD_USER_INPUT'],
  ['-2147483648', -2147483648, 'BAD_USER_INPUT'],
  ...wrongType(['5', 1.5, true, 2 ** 31, { n: 1 }]),
];

const BAD_LIMITS = intOutside(0, 1_000_000);
const BAD_LEASES = intOutside(1, 86_400_000);
const BAD_MAX_ATTEMPTS = intOutside(1, 100);
const BAD_FIRST = intOutside(1, 500);

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const BAD_CURSORS: Case[] = [
  ['garbage', 'not a cursor!', 'BAD_USER_INPUT'],
  ['empty', '', 'BAD_USER_INPUT'],
  ['base64 of other text', b64('hello world'), 'BAD_USER_INPUT'],
  ['base64 of JSON', b64('{"offset":10}'), 'BAD_USER_INPUT'],
  ['base64 of a group id without its prefix', b64('alpha'), 'BAD_USER_INPUT'],
  ['a cursor of an empty id', b64('g:'), 'BAD_USER_INPUT'],
  ['a cursor of an id with a control character', b64('g:a\u0000'), 'BAD_USER_INPUT'],
  ['a cursor of an over-long id', b64(`g:${'x'.repeat(257)}`), 'BAD_USER_INPUT'],
  ['a padded cursor', `${b64('g:a')}==`, 'BAD_USER_INPUT'],
  ['standard base64 (+ and /)', Buffer.from('g:\u00fb\u00ff').toString('base64'), 'BAD_USER_INPUT'],
  ['a cursor truncated', b64('g:alpha').slice(0, -1), 'BAD_USER_INPUT'],
  ['too long', 'A'.repeat(5000), 'BAD_USER_INPUT'],
  ...wrongType([5, true, ['x']]),
];

const BAD_TOKENS: Case[] = [
  ['empty', '', 'BAD_USER_INPUT'],
  ['129 characters', 't'.repeat(129), 'BAD_USER_INPUT'],
  ...wrongType([5, null, ['t']]),
];

const BAD_JOB_IDS: Case[] = [
  ['letters', 'abc', 'JOB_NOT_FOUND'],
  ['negative', '-1', 'JOB_NOT_FOUND'],
  ['a fraction', '1.5', 'JOB_NOT_FOUND'],
  ['an exponent', '1e3', 'JOB_NOT_FOUND'],
  ['hex', '0x10', 'JOB_NOT_FOUND'],
  ['empty', '', 'JOB_NOT_FOUND'],
  ['padded', ' 1', 'JOB_NOT_FOUND'],
  ['fullwidth digits', '１２', 'JOB_NOT_FOUND'],
  ['a key pattern', '*', 'JOB_NOT_FOUND'],
  ['another queue’s key', `1}:x:{${QUEUE}`, 'JOB_NOT_FOUND'],
  ['21 digits', '9'.repeat(21), 'JOB_NOT_FOUND'],
  ['a decimal id that does not exist', '987654321', 'JOB_NOT_FOUND'],
  ...wrongType([true, 1.5, null, ['1']]),
];

// Payloads: the limit is on the JSON text, in UTF-8 bytes. A string's JSON text is itself + 2.
const PAYLOAD_LIMIT = 524_288;
const BAD_PAYLOADS: Case[] = [
  ['a string one byte over', 'x'.repeat(PAYLOAD_LIMIT - 1), 'BAD_USER_INPUT'],
  ['two-byte characters over', 'é'.repeat(PAYLOAD_LIMIT / 2), 'BAD_USER_INPUT'],
  [
    'an object over',
    { items: Array.from({ length: 2_000 }, (_, i) => ({ i, pad: 'p'.repeat(256) })) },
    'BAD_USER_INPUT',
  ],
];

// Fields ----------------------------------------------------------------------------------------

interface Field {
  readonly name: string;
  readonly kind: 'query' | 'mutation' | 'subscription';
  /** Variable definitions, the field with its arguments and a selection. */
  readonly document: string;
  /** Valid variables: a test replaces one of them with a bad value. */
  valid(): Record<string, unknown>;
  /** Each argument's bad values. */
  readonly bad: Record<string, readonly Case[]>;
}

const FIELDS: Field[] = [
  {
    name: 'Query.queue',
    kind: 'query',
    document: 'query($name: String!) { queue(name: $name) { name ring } }',
    valid: () => ({ name: QUEUE }),
    bad: { name: BAD_QUEUE_NAMES },
  },
  {
    name: 'Queue.group',
    kind: 'query',
    document:
      'query($queue: String!, $id: String!) { queue(name: $queue) { group(id: $id) { id state } } }',
    valid: () => ({ queue: QUEUE, id: 'a' }),
    bad: { queue: BAD_QUEUE_NAMES, id: BAD_GROUP_IDS },
  },
  {
    name: 'Queue.groups',
    kind: 'query',
    document:
      'query($queue: String!, $first: Int, $after: String) { queue(name: $queue) { groups(first: $first, after: $after) { totalCount edges { cursor } } } }',
    valid: () => ({ queue: QUEUE, first: 2, after: b64('g:a') }),
    bad: { queue: BAD_QUEUE_NAMES, first: BAD_FIRST, after: BAD_CURSORS },
  },
  {
    name: 'Mutation.setLimit',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $limit: Int!) { setLimit(queue: $queue, group: $group, limit: $limit) { id limit } }',
    valid: () => ({ queue: QUEUE, group: 'c', limit: 1 }),
    bad: {
      queue: BAD_QUEUE_NAMES,
      group: BAD_GROUP_IDS,
      limit: [...BAD_LIMITS, ...wrongType([null])],
    },
  },
  ...(['clearLimit', 'pauseGroup', 'resumeGroup'] as const).map(
    (name): Field => ({
      name: `Mutation.${name}`,
      kind: 'mutation',
      document: `mutation($queue: String!, $group: String!) { ${name}(queue: $queue, group: $group) { id } }`,
      valid: () => ({ queue: QUEUE, group: 'a' }),
      bad: { queue: BAD_QUEUE_NAMES, group: BAD_GROUP_IDS },
    }),
  ),
  {
    name: 'Mutation.enqueue',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $group: String!, $payload: JSON, $maxAttempts: Int) { enqueue(queue: $queue, group: $group, payload: $payload, maxAttempts: $maxAttempts) { id } }',
    valid: () => ({ queue: QUEUE, group: 'c', payload: { ok: true }, maxAttempts: 2 }),
    bad: {
      queue: BAD_QUEUE_NAMES,
      group: BAD_GROUP_IDS,
      payload: BAD_PAYLOADS,
      maxAttempts: BAD_MAX_ATTEMPTS,
    },
  },
  {
    name: 'Mutation.claim',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $leaseMs: Int) { claim(queue: $queue, leaseMs: $leaseMs) { id } }',
    valid: () => ({ queue: QUEUE, leaseMs: 1_000 }),
    bad: { queue: BAD_QUEUE_NAMES, leaseMs: BAD_LEASES },
  },
  ...(['complete', 'retry'] as const).map(
    (name): Field => ({
      name: `Mutation.${name}`,
      kind: 'mutation',
      document: `mutation($queue: String!, $id: ID!, $token: String!) { ${name}(queue: $queue, id: $id, token: $token) { id state } }`,
      valid: () => ({ queue: QUEUE, id: active.id, token: active.token }),
      bad: { queue: BAD_QUEUE_NAMES, id: BAD_JOB_IDS, token: BAD_TOKENS },
    }),
  ),
  {
    name: 'Mutation.extendLease',
    kind: 'mutation',
    document:
      'mutation($queue: String!, $id: ID!, $token: String!, $leaseMs: Int!) { extendLease(queue: $queue, id: $id, token: $token, leaseMs: $leaseMs) { id } }',
    valid: () => ({ queue: QUEUE, id: active.id, token: active.token, leaseMs: 60_000 }),
    bad: {
      queue: BAD_QUEUE_NAMES,
      id: BAD_JOB_IDS,
      token: BAD_TOKENS,
      leaseMs: [...BAD_LEASES, ...wrongType([null])],
    },
  },
  {
    name: 'Subscription.ringChanged',
    kind: 'subscription',
    document: 'subscription($queue: String!) { ringChanged(queue: $queue) { ring reason } }',
    valid: () => ({ queue: QUEUE }),
    bad: { queue: BAD_QUEUE_NAMES },
  },
  {
    name: 'Subscription.groupChanged',
    kind: 'subscription',
    document:
      'subscription($queue: String!, $group: String!) { groupChanged(queue: $queue, group: $group) { id state } }',
    valid: () => ({ queue: QUEUE, group: 'a' }),
    bad: { queue: BAD_QUEUE_NAMES, group: BAD_GROUP_IDS },
  },
];

/** A variable-coercion failure: nothing ran, so there is no `data` and HTTP says 400. */
const isCoercion = (label: string) => label.startsWith('wrong type');

/** The common checks on any refused answer: one error, the code, no leak. */
function expectRefusedWith(response: RawResponse, code: string): void {
  expectNoLeak(response.text);
  expect(codes(response.json), response.text.slice(0, 400)).toEqual([code]);
}

describe.each(FIELDS)('$name', (field) => {
  const cases = Object.entries(field.bad).flatMap(([argument, values]) =>
    values.map(([label, value, code]) => ({ argument, label, value, code })),
  );
  const transports = field.kind === 'subscription' ? (['sse', 'ws'] as const) : (['http'] as const);

  describe.each(transports)('over %s', (transport) => {
    it.each(cases)('$argument: $label → $code', async ({ argument, label, value, code }) => {
      const request: RawRequest = {
        query: field.document,
        variables: { ...field.valid(), [argument]: value },
      };
      await expectRedisUnchanged(r, async () => {
        if (transport === 'ws') {
          const outcome = await wsOperation(api.endpoint, request);
          for (const frame of outcome.frames) expectNoLeak(frame);
          expect(outcome.closeCode).toBeUndefined();
          expect(codes(outcome.results[0])).toEqual([code]);
          return;
        }
        const response = await post(
          api.endpoint,
          request,
          transport === 'sse' ? { accept: 'text/event-stream' } : {},
        );
        expectRefusedWith(response, code);
        if (isCoercion(label)) {
          expect(response.json?.data).toBeUndefined();
          if (transport === 'http') expect(response.status).toBe(400);
        } else {
          // A field error: the caller's mistake, never a server error.
          expect(response.status).toBe(200);
          // `data` is null, or holds the (nullable) field as null: nothing was answered.
          if (field.kind !== 'subscription') {
            expect(JSON.stringify(response.json?.data)).toMatch(/^(null|\{"\w+":null\})$/);
          }
        }
      });
    });
  });
});

describe('the same requests with valid values are accepted (the refusals above are not blanket)', () => {
  it.each(FIELDS.filter((f) => f.kind !== 'subscription'))('$name', async (field) => {
    // On a queue of its own, with a job of its own: the fixture's stays as it is.
    const queue = `accept-${field.name.replace(/\W/g, '-')}`;
    const q = api.server.engine.queue(queue);
    await q.enqueue('g', { n: 1 });
    const job = (await q.claim({ leaseMs: 3_600_000 })) as Job;
    await q.enqueue('g', { n: 2 });
    const variables: Record<string, unknown> = { ...field.valid(), queue, name: queue };
    if ('id' in field.valid() && 'token' in field.valid()) {
      Object.assign(variables, { id: job.id, token: job.token });
    }
    const response = await post(api.endpoint, { query: field.document, variables });
    expect(response.json?.errors, response.text).toBeUndefined();
    expect(response.status).toBe(200);
  });

  it('values at each bound are accepted', async () => {
    const q = 'bounds';
    const gql = (query: string, variables: Record<string, unknown>) =>
      post(api.endpoint, { query, variables });
    const okay = async (response: Promise<RawResponse>) => {
      const { text, json, status } = await response;
      expect(json?.errors, text.slice(0, 300)).toBeUndefined();
      expect(status).toBe(200);
      return json?.data as Record<string, Record<string, unknown>>;
    };
    const setLimit =
      'mutation($queue: String!, $group: String!, $limit: Int!) { setLimit(queue: $queue, group: $group, limit: $limit) { id limit } }';
    const longQueue = 'Q'.repeat(128);
    const longGroup = `${'é'.repeat(127)}xx`; // 256 bytes
    expect(Buffer.byteLength(longGroup)).toBe(256);
    await okay(gql(setLimit, { queue: longQueue, group: longGroup, limit: 1_000_000 }));
    await okay(gql(setLimit, { queue: `a.b_c:d-${q}`, group: 'ünïcødé 🎉 group', limit: 0 }));
    const enqueue =
      'mutation($queue: String!, $group: String!, $payload: JSON, $maxAttempts: Int) { enqueue(queue: $queue, group: $group, payload: $payload, maxAttempts: $maxAttempts) { id payload } }';
    // A payload whose JSON text is exactly the limit.
    const payload = 'é'.repeat(PAYLOAD_LIMIT / 2 - 1);
    expect(Buffer.byteLength(JSON.stringify(payload))).toBe(PAYLOAD_LIMIT);
    const big = await okay(gql(enqueue, { queue: q, group: 'g', payload, maxAttempts: 100 }));
    expect(big.enqueue?.payload).toBe(payload);
    await okay(gql(enqueue, { queue: q, group: 'g', maxAttempts: 1 }));
    const claim =
      'mutation($queue: String!, $leaseMs: Int) { claim(queue: $queue, leaseMs: $leaseMs) { id token } }';
    const one = (await okay(gql(claim, { queue: q, leaseMs: 86_400_000 }))).claim;
    await okay(gql(claim, { queue: q, leaseMs: 1 }));
    const extend =
      'mutation($queue: String!, $id: ID!, $token: String!, $leaseMs: Int!) { extendLease(queue: $queue, id: $id, token: $token, leaseMs: $leaseMs) { id } }';
    await okay(gql(extend, { queue: q, id: one?.id, token: one?.token, leaseMs: 86_400_000 }));
    await okay(gql(extend, { queue: q, id: one?.id, token: one?.token, leaseMs: 1 }));
    // A 128-character token is well-formed: it is simply not this job's (LEASE_LOST).
    const wrong = await gql(extend, { queue: q, id: one?.id, token: 't'.repeat(128), leaseMs: 5 });
    expect(codes(wrong.json)).toEqual(['LEASE_LOST']);
    // An ID given as a number is coerced to its decimal string.
    const numeric = await gql(extend, {
      queue: q,
      id: Number(one?.id),
      token: one?.token,
      leaseMs: 5,
    });
    expect(numeric.json?.errors).toBeUndefined();
    const groups =
      'query($queue: String!, $first: Int, $after: String) { queue(name: $queue) { groups(first: $first, after: $after) { edges { cursor } } } }';
    await okay(gql(groups, { queue: q, first: 1 }));
    await okay(gql(groups, { queue: q, first: 500, after: b64('g:a') }));
    // Explicit nulls for arguments with defaults mean the default.
    await okay(gql(groups, { queue: q, first: null, after: null }));
    await okay(gql(enqueue, { queue: q, group: 'g', payload: null, maxAttempts: null }));
    await okay(gql(claim, { queue: q, leaseMs: null }));
  });
});

describe('wrong literal types fail validation', () => {
  it.each([
    ['limit: "5"', '{ setLimit(queue: "q", group: "g", limit: "5") { id } }'],
    ['limit: 1.5', '{ setLimit(queue: "q", group: "g", limit: 1.5) { id } }'],
    ['limit: null', '{ setLimit(queue: "q", group: "g", limit: null) { id } }'],
    ['limit: 2^31', '{ setLimit(queue: "q", group: "g", limit: 2147483648) { id } }'],
    ['limit missing', '{ setLimit(queue: "q", group: "g") { id } }'],
    ['queue: 5', '{ pauseGroup(queue: 5, group: "g") { id } }'],
    ['group: [..]', '{ resumeGroup(queue: "q", group: ["g"]) { id } }'],
    ['maxAttempts: "3"', '{ enqueue(queue: "q", group: "g", maxAttempts: "3") { id } }'],
    ['leaseMs: true', '{ claim(queue: "q", leaseMs: true) { id } }'],
    ['id: 1.5', '{ complete(queue: "q", id: 1.5, token: "t") { id } }'],
    ['token: 5', '{ retry(queue: "q", id: "1", token: 5) { id } }'],
    ['an unknown argument', '{ claim(queue: "q", lease: 5) { id } }'],
  ])('mutation %s', async (_label, selection) => {
    const response = await expectRedisUnchanged(r, () =>
      post(api.endpoint, { query: `mutation ${selection}` }),
    );
    expectRefusedWith(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.status).toBe(400);
  });

  it.each([
    ['first: "10"', '{ queue(name: "q") { groups(first: "10") { totalCount } } }'],
    ['after: 5', '{ queue(name: "q") { groups(after: 5) { totalCount } } }'],
    ['name: null', '{ queue(name: null) { name } }'],
    ['id missing', '{ queue(name: "q") { group { id } } }'],
  ])('query %s', async (_label, query) => {
    const response = await post(api.endpoint, { query });
    expectRefusedWith(response, 'GRAPHQL_VALIDATION_FAILED');
    expect(response.status).toBe(400);
  });
});

describe('request bodies', () => {
  const alive = async () => {
    const response = await post(api.endpoint, { query: '{ queues { name } }' });
    expect(response.status).toBe(200);
    expect(response.json?.data).toBeDefined();
  };

  it.each([
    ['just over 1 MiB', MAX_REQUEST_BYTES + 1],
    ['8 MiB', 8 * MAX_REQUEST_BYTES],
  ])(
    'a body of %s is refused (413 or an error), changes nothing, and the server stays up',
    async (_label, size) => {
      const query =
        'mutation($queue: String!, $group: String!, $payload: JSON) { enqueue(queue: $queue, group: $group, payload: $payload) { id } }';
      const skeleton = JSON.stringify({
        query,
        variables: { queue: QUEUE, group: 'c', payload: '' },
      });
      const body = JSON.stringify({
        query,
        variables: { queue: QUEUE, group: 'c', payload: 'x'.repeat(size - skeleton.length) },
      });
      expect(body.length).toBe(size);
      const response = await expectRedisUnchanged(r, () => post(api.endpoint, body));
      expectNoLeak(response.text);
      expect([413, 200, 400]).toContain(response.status);
      if (response.status === 413) {
        expect(codes(response.json)).toEqual(['REQUEST_ENTITY_TOO_LARGE']);
      } else {
        expect(codes(response.json)).toEqual(['BAD_USER_INPUT']);
      }
      await alive();
    },
  );

  it('a streamed (chunked) body over 1 MiB is refused too', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new TextEncoder().encode('{"query":"{ queues { name } }","variables":{"pad":"'),
        );
      },
      pull(controller) {
        if (sent >= 2 * MAX_REQUEST_BYTES) {
          controller.enqueue(new TextEncoder().encode('"}}'));
          controller.close();
          return;
        }
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const response = await fetch(api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    const text = await response.text();
    expectNoLeak(text);
    expect(response.status).toBe(413);
    await alive();
  });

  it.each([
    ['invalid JSON', '{"query": '],
    ['JSON that is not an object', '[1, 2]'],
    ['no query', '{"variables": {}}'],
    ['a query that does not parse', '{"query": "mutation { setLimit("}'],
    ['variables that are not an object', '{"query": "{ queues { name } }", "variables": "x"}'],
  ])('%s: refused with 400, no leak, nothing changed', async (_label, body) => {
    const response = await expectRedisUnchanged(r, () => post(api.endpoint, body));
    expectNoLeak(response.text);
    expect(response.status).toBe(400);
    expect(response.json?.errors?.length).toBeGreaterThan(0);
    await alive();
  });
});

// Unexpected errors -------------------------------------------------------------------------------

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
