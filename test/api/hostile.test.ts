/**
 * Issue 4, "Bad input, adversarially" and "Hardening": requests written to hurt, each answered
 * with a clear error (an HTTP status, a GraphQL `extensions.code`, or a WebSocket close code),
 * with the server still up afterwards (a health probe and a real query after every one) and
 * Redis unchanged (every key's DUMP and PTTL compared before and after).
 *
 * - the hostile table: malformed and oversized bodies, wrong types, batches, bad methods and
 *   content types (CSRF), documents over the depth / alias / token / directive / cost limits,
 *   fragment bombs, bad cursors, unknown operations — over HTTP; and frames that break the
 *   graphql-ws protocol, over WebSocket;
 * - group ids full of emoji, bidi marks, braces, colons, glob and Lua metacharacters are valid
 *   (DESIGN.md §5) and must work end to end, touching no other group's keys;
 * - the limits let every real operation through (test/operations, the README, GraphiQL);
 * - introspection can be switched off on every transport; browsers of other origins are kept
 *   out (CORS, CSRF, WebSocket Origin, DNS rebinding); a WebSocket's token is checked again on
 *   every operation; unexpected errors are masked with NODE_ENV unset.
 *
 * Not repeated here: every argument's bad values (badInput.test.ts) and the role matrix
 * (auth.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getIntrospectionQuery, type OperationDefinitionNode, parse, print } from 'graphql';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Role } from '../../src/context.js';
import { type Job, Ringmaster } from '../../src/lanes/index.js';
import { LiveFeed } from '../../src/pubsub/index.js';
import { Authenticator } from '../../src/server/auth.js';
import { createLogger } from '../../src/server/logger.js';
import { BrowserPolicy, CSRF_HEADERS } from '../../src/server/plugins/browser.js';
import { MAX_REQUEST_BYTES, QUERY_LIMITS } from '../../src/server/plugins/limits.js';
import { attachWebSocket } from '../../src/server/ws.js';
import { createRingmasterYoga } from '../../src/server/yoga.js';
import {
  codes,
  expectNoLeak,
  expectRedisUnchanged,
  post,
  type RawResponse,
  seedEveryKey,
  wsOperation,
} from '../support/api.js';
import { snapshot } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let api: TestServer;
let r: Redis;
const QUEUE = 'hostile';
/** The fixture's active job (leased for an hour). */
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

// Probes ------------------------------------------------------------------------------------------

/** The server is up: /health answers, a query over HTTP answers, and (optionally) over WebSocket. */
async function expectServerUp(server: TestServer = api, overWebSocket = false): Promise<void> {
  const health = await fetch(`${server.server.url}/health`);
  expect(health.status, '/health').toBe(200);
  const query = await post(server.endpoint, { query: '{ queues { name } }' });
  expect(query.status, query.text).toBe(200);
  expect(query.json?.data).toEqual({ queues: expect.any(Array) });
  if (overWebSocket) {
    const outcome = await wsOperation(server.endpoint, { query: '{ queues { name } }' });
    expect(outcome.results[0]?.data).toEqual({ queues: expect.any(Array) });
  }
}

interface Sent {
  method?: string;
  /** Merged over `content-type: application/json` and a GraphQL accept; null removes one. */
  headers?: Record<string, string | null>;
  body?: string | Buffer;
  path?: string;
}

/**
 * One raw HTTP request with node:http, so every byte and header is the test's own (fetch adds a
 * content-type to string bodies and will not send a Host of our choosing).
 */
function send(sent: Sent, endpoint = api.endpoint): Promise<RawResponse> {
  const url = new URL(sent.path ?? '', endpoint);
  const headers: Record<string, string> = {};
  const merged: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json',
    ...sent.headers,
  };
  for (const [name, value] of Object.entries(merged)) if (value !== null) headers[name] = value;
  if (sent.body !== undefined) headers['content-length'] = String(Buffer.byteLength(sent.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: sent.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: RawResponse['json'];
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

const gql = (query: string, variables?: Record<string, unknown>, extra: object = {}): string =>
  JSON.stringify({ query, variables, ...extra });

// Builders for the documents of the table ---------------------------------------------------------

const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const aliases = (n: number) => `{ ${times(n, (i) => `a${i}: queues { name }`).join(' ')} }`;
/** `n` inline fragments, each with one directive (no aliases, no repeated directive). */
const directives = (n: number) =>
  `{ queues { ${times(n, () => '... @include(if: true) { name }').join(' ')} } }`;
/** `__type` with `ofType` nested `n` times: valid, and n + 4 fields deep. */
const ofTypeChain = (n: number) =>
  `{ __type(name: "Queue") { fields { type { ${'ofType { '.repeat(n)}name${' }'.repeat(n)} } } } }`;
/** Fragment F0 spreads F1 twice, F1 spreads F2 twice … : 2^levels copies of one field. */
const fragmentFanOut = (levels: number) =>
  `{ queues { ...F0 } } ${times(levels, (i) => `fragment F${i} on Queue { name ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F${levels} on Queue { name }`;
const deepJson = (levels: number, open: string, close: string, leaf = '1') =>
  `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
/** GroupsPage with `first: 500` written inline: cost ≈ 40,000 (limits.ts). */
const GROUPS_INLINE_500 =
  'queue(name: "hostile") { groups(first: 500) { totalCount edges { cursor node { id queue limit active pending paused onRing state } } pageInfo { hasNextPage endCursor } } }';

const ENQUEUE =
  'mutation($queue: String!, $group: String!, $payload: JSON) { enqueue(queue: $queue, group: $group, payload: $payload) { id } }';
const GROUPS =
  'query($after: String) { queue(name: "hostile") { groups(after: $after) { totalCount } } }';

// The hostile table: HTTP -------------------------------------------------------------------------

interface HttpCase {
  readonly name: string;
  readonly sent: Sent;
  readonly status: number;
  /** `extensions.code` of the first error; null: a body that is no GraphQL result (406, 415). */
  readonly code: string | null;
  /** What the first error's message says. */
  readonly message?: RegExp;
}

const body = (text: string | Buffer, headers: Sent['headers'] = {}): Sent => ({
  body: text,
  headers,
});

const HTTP_CASES: HttpCase[] = [
  // Malformed JSON.
  {
    name: 'truncated JSON',
    sent: body('{"query": "{ queues { name } }"'),
    status: 400,
    code: 'BAD_REQUEST',
    message: /invalid JSON/,
  },
  {
    name: 'garbage after the JSON',
    sent: body(`${gql('{ queues { name } }')} trailing`),
    status: 400,
    code: 'BAD_REQUEST',
  },
  { name: 'an empty body', sent: body(''), status: 400, code: 'BAD_REQUEST' },
  { name: 'JSON null', sent: body('null'), status: 400, code: 'BAD_REQUEST' },
  { name: 'a JSON string', sent: body('"{ queues { name } }"'), status: 400, code: 'BAD_REQUEST' },
  { name: 'a JSON number', sent: body('42'), status: 400, code: 'BAD_REQUEST' },
  {
    name: 'single-quoted pseudo-JSON',
    sent: body("{'query': '{ queues { name } }'}"),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'NaN in the variables',
    sent: body('{"query":"{ queues { name } }","variables":{"x":NaN}}'),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a byte-order mark before the JSON',
    sent: body(`\ufeff${gql('{ queues { name } }')}`),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'invalid UTF-8 inside the query',
    sent: body(
      Buffer.concat([
        Buffer.from('{"query":"{ queues { na'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('me } }"}'),
      ]),
    ),
    // Refused as bytes, before parsing (src/server/plugins/utf8.ts); test/api/utf8.test.ts has the rest.
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: '300,000 nested arrays as the body',
    sent: body(deepJson(300_000, '[', ']')),
    status: 400,
    code: 'BAD_REQUEST',
  },
  // Wrong types in the request's own fields.
  { name: 'query is a number', sent: body('{"query": 5}'), status: 400, code: 'BAD_REQUEST' },
  {
    name: 'query is a list of strings',
    sent: body('{"query": ["{ queues { name } }"]}'),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'query is an object',
    sent: body('{"query": {"kind": "Document"}}'),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'variables is a list',
    sent: body('{"query": "{ queues { name } }", "variables": [1]}'),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'operationName is a number',
    sent: body('{"query": "{ queues { name } }", "operationName": 7}'),
    status: 400,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    name: 'variables smuggled in __proto__',
    sent: body(
      '{"query":"mutation($queue: String!) { claim(queue: $queue) { id } }","variables":{"__proto__":{"queue":"hostile"}}}',
    ),
    status: 400,
    code: 'BAD_USER_INPUT',
    message: /was not provided/,
  },
  // Batches: batching is off.
  {
    name: 'a batch of 1,000 operations',
    sent: body(JSON.stringify(times(1_000, () => ({ query: '{ queues { name } }' })))),
    status: 400,
    code: 'BAD_REQUEST',
    message: /Batching is not supported/,
  },
  {
    name: 'a batch of one mutation',
    sent: body(JSON.stringify([{ query: 'mutation { claim(queue: "hostile") { id } }' }])),
    status: 400,
    code: 'BAD_REQUEST',
  },
  // Unknown or ambiguous operations.
  {
    name: 'an unknown operationName',
    sent: body(gql('query A { queues { name } }', undefined, { operationName: 'B' })),
    status: 400,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    name: 'two operations and no operationName',
    sent: body(gql('query A { queues { name } } mutation B { claim(queue: "hostile") { id } }')),
    status: 400,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    name: 'operationName naming a fragment',
    sent: body(
      gql('query A { queues { ...F } } fragment F on Queue { name }', undefined, {
        operationName: 'F',
      }),
    ),
    status: 400,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    name: 'two anonymous operations',
    sent: body(gql('{ queues { name } } { queues { ring } }')),
    status: 400,
    code: 'OPERATION_RESOLUTION_FAILURE',
  },
  {
    name: 'an unknown field',
    sent: body(gql('{ flushall }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'an unknown mutation',
    sent: body(gql('mutation { deleteQueue(queue: "hostile") }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'an unknown type condition',
    sent: body(gql('{ queues { ... on Kernel { name } } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  // Documents that do not parse.
  { name: 'an empty document', sent: body(gql('')), status: 400, code: 'GRAPHQL_PARSE_FAILED' },
  {
    name: 'only a comment',
    sent: body(gql('# { queues { name } }')),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'a NUL in the document',
    sent: body(gql('{ queues\u0000 { name } }')),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'an unterminated string',
    sent: body(gql('{ queue(name: "hostile) { name } }')),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'a lone surrogate in the document',
    sent: body('{"query":"{ queues { name } } \\ud800"}'),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
  },
  // Limits (src/server/plugins/limits.ts).
  {
    name: `a document of ${QUERY_LIMITS.tokens + 1} tokens`,
    sent: body(gql(`{ ${'queues { name } '.repeat(Math.ceil(QUERY_LIMITS.tokens / 4))}}`)),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
    message: /Token limit/,
  },
  {
    name: 'nesting 100,000 deep',
    sent: body(gql(`${'{ a '.repeat(100_000)}${'}'.repeat(100_000)}`)),
    status: 400,
    code: 'GRAPHQL_PARSE_FAILED',
    message: /Token limit/,
  },
  {
    name: `depth ${QUERY_LIMITS.depth + 1} (an ofType chain)`,
    sent: body(gql(ofTypeChain(QUERY_LIMITS.depth - 1))),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /depth limit of 10/,
  },
  {
    name: 'introspection that cycles (types → fields → type → fields …)',
    sent: body(
      gql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }'),
    ),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /introspection depth/,
  },
  {
    name: `an alias bomb of ${QUERY_LIMITS.aliases + 1}`,
    sent: body(gql(aliases(QUERY_LIMITS.aliases + 1))),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Aliases limit of 20/,
  },
  {
    name: 'aliases hidden in a fragment used twice',
    sent: body(
      gql(
        `{ p: queues { ...A } q: queues { ...A } } fragment A on Queue { ${times(11, (i) => `x${i}: name`).join(' ')} }`,
      ),
    ),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Aliases limit of 20 exceeded, found 24/,
  },
  {
    name: 'a fragment bomb: 2^30 copies of a field',
    sent: body(gql(fragmentFanOut(30))),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Cost limit/,
  },
  {
    name: 'a fragment cycle A → B → A',
    sent: body(
      gql(
        '{ queues { ...A } } fragment A on Queue { name ...B } fragment B on Queue { ring ...A }',
      ),
    ),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Cannot spread fragment/,
  },
  {
    name: 'a fragment spreading itself',
    sent: body(gql('{ queues { ...A } } fragment A on Queue { name ...A }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'an unknown fragment',
    sent: body(gql('{ queues { ...Nowhere } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'an unused fragment',
    sent: body(gql('{ queues { name } } fragment F on Queue { ring }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: `a flood of ${QUERY_LIMITS.directives + 1} directives`,
    sent: body(gql(directives(QUERY_LIMITS.directives + 1))),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Directives limit/,
  },
  {
    name: 'one directive repeated on a field',
    sent: body(gql('{ queues @skip(if: false) @skip(if: false) { name } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'an unknown directive',
    sent: body(gql('{ queues @exec(cmd: "FLUSHALL") { name } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'three pages of 500 written inline (cost)',
    sent: body(gql(`{ ${times(3, (i) => `p${i}: ${GROUPS_INLINE_500}`).join(' ')} }`)),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
    message: /Cost limit of 100000/,
  },
  // Wrong types and sizes in literals and variables.
  {
    name: 'an Int literal beyond 32 bits',
    sent: body(
      gql(
        'mutation { setLimit(queue: "hostile", group: "a", limit: 99999999999999999999) { id } }',
      ),
    ),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a Float literal of 1e400 for an Int',
    sent: body(gql('mutation { claim(queue: "hostile", leaseMs: 1e400) { id } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a variable used but not declared',
    sent: body(gql('{ queue(name: $name) { name } }')),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a variable of an unknown type',
    sent: body(gql('query($n: Nope!) { queue(name: $n) { name } }', { n: 'hostile' })),
    status: 400,
    code: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a list of 100,000 strings for a String!',
    sent: body(gql(ENQUEUE, { queue: QUEUE, group: times(100_000, String), payload: 1 })),
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'an object of 50,000 keys for an Int',
    sent: body(
      gql('mutation($l: Int!) { setLimit(queue: "hostile", group: "a", limit: $l) { id } }', {
        l: Object.fromEntries(times(50_000, (i) => [`k${i}`, i])),
      }),
    ),
    status: 400,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a group id of 300,000 characters',
    sent: body(gql(ENQUEUE, { queue: QUEUE, group: 'g'.repeat(300_000) })),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a group id with an escaped NUL in a literal',
    sent: body(gql('mutation { pauseGroup(queue: "hostile", group: "a\\u0000b") { id } }')),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a group id with a newline escape in a literal',
    sent: body(gql('mutation { setLimit(queue: "hostile", group: "a\\nb", limit: 1) { id } }')),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a queue name that is a key pattern',
    sent: body(gql('mutation { enqueue(queue: "*", group: "a") { id } }')),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a queue name that closes the hash tag',
    sent: body(gql('mutation { enqueue(queue: "hostile}:ring", group: "a") { id } }')),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a 600 KB payload written inline',
    sent: body(
      gql(
        `mutation { enqueue(queue: "hostile", group: "a", payload: "${'x'.repeat(600_000)}") { id } }`,
      ),
    ),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a payload nested 100,000 deep',
    sent: body(
      `{"query":${JSON.stringify(ENQUEUE)},"variables":{"queue":"hostile","group":"a","payload":${deepJson(100_000, '{"a":', '}')}}}`,
    ),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a Lua-looking job id',
    sent: body(
      gql('mutation { complete(queue: "hostile", id: "1 end return 1 --", token: "t") { id } }'),
    ),
    status: 200,
    code: 'JOB_NOT_FOUND',
  },
  {
    name: 'a job id naming another queue’s key',
    sent: body(gql('mutation { retry(queue: "hostile", id: "1}:job:{other", token: "t") { id } }')),
    status: 200,
    code: 'JOB_NOT_FOUND',
  },
  // Bad cursors (beyond badInput.test.ts's).
  {
    name: 'a cursor with a trailing newline',
    sent: body(gql(GROUPS, { after: `${b64('g:a')}\n` })),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a percent-encoded cursor',
    sent: body(gql(GROUPS, { after: encodeURIComponent(`${b64('g:a')}=`) })),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a cursor of 900 KB',
    sent: body(gql(GROUPS, { after: 'Z'.repeat(900_000) })),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  {
    name: 'a cursor of bytes that are not UTF-8',
    sent: body(
      gql(GROUPS, { after: Buffer.from([0x67, 0x3a, 0x61, 0xc3, 0x28]).toString('base64url') }),
    ),
    status: 200,
    code: 'BAD_USER_INPUT',
  },
  // Methods and content types (CSRF prevention).
  {
    name: 'a mutation over GET',
    sent: {
      method: 'GET',
      path: `?query=${encodeURIComponent('mutation { claim(queue: "hostile") { id } }')}`,
      headers: { 'content-type': null, 'x-graphql-yoga-csrf': '1' },
    },
    status: 405,
    code: 'BAD_REQUEST',
    message: /POST/,
  },
  {
    name: 'a mutation over GET without a CSRF header',
    sent: {
      method: 'GET',
      path: `?query=${encodeURIComponent('mutation { claim(queue: "hostile") { id } }')}`,
      headers: { 'content-type': null },
    },
    status: 405,
    code: 'BAD_REQUEST',
    message: /POST/,
  },
  {
    // A GET query without the header is served (test/api/csrf.test.ts); a subscription is not.
    name: 'a subscription over GET without a CSRF header',
    sent: {
      method: 'GET',
      path: `?query=${encodeURIComponent('subscription { ringChanged(queue: "hostile") { ring } }')}`,
      headers: { 'content-type': null },
    },
    status: 403,
    code: 'FORBIDDEN',
    message: /x-graphql-yoga-csrf/,
  },
  {
    name: 'PUT',
    sent: { method: 'PUT', body: gql('{ queues { name } }') },
    status: 405,
    code: 'BAD_REQUEST',
  },
  {
    name: 'DELETE',
    sent: { method: 'DELETE', body: gql('mutation { claim(queue: "hostile") { id } }') },
    status: 405,
    code: 'BAD_REQUEST',
  },
  {
    name: 'PATCH',
    sent: { method: 'PATCH', body: gql('mutation { claim(queue: "hostile") { id } }') },
    status: 405,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a mutation as text/plain (a cross-site form)',
    sent: body(gql('mutation { claim(queue: "hostile") { id } }'), {
      'content-type': 'text/plain;charset=UTF-8',
    }),
    status: 403,
    code: null,
    message: /CSRF/,
  },
  {
    name: 'a mutation as x-www-form-urlencoded',
    sent: body(`query=${encodeURIComponent('mutation { claim(queue: "hostile") { id } }')}`, {
      'content-type': 'application/x-www-form-urlencoded',
    }),
    status: 403,
    code: null,
    message: /CSRF/,
  },
  {
    name: 'a mutation as multipart/form-data',
    sent: body(
      '--x\r\nContent-Disposition: form-data; name="query"\r\n\r\nmutation { claim(queue: "hostile") { id } }\r\n--x--\r\n',
      { 'content-type': 'multipart/form-data; boundary=x' },
    ),
    status: 403,
    code: null,
    message: /CSRF/,
  },
  {
    name: 'a mutation with no content-type',
    sent: body(gql('mutation { claim(queue: "hostile") { id } }'), { 'content-type': null }),
    status: 403,
    code: null,
    message: /CSRF/,
  },
  {
    name: 'TEXT/PLAIN in capitals',
    sent: body(gql('mutation { claim(queue: "hostile") { id } }'), {
      'content-type': 'TEXT/PLAIN',
    }),
    status: 403,
    code: null,
    message: /CSRF/,
  },
  {
    name: 'a content-type of application/xml',
    sent: body('<query>{ queues { name } }</query>', { 'content-type': 'application/xml' }),
    status: 415,
    code: null,
  },
  {
    name: 'JSON in UTF-16',
    sent: body(Buffer.from(gql('{ queues { name } }'), 'utf16le'), {
      'content-type': 'application/json; charset=utf-16',
    }),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a subscription over POST asking for JSON',
    sent: body(gql('subscription { ringChanged(queue: "hostile") { ring } }')),
    status: 406,
    code: null,
  },
  // DNS rebinding: auth is off here, so only loopback Host names are served.
  {
    name: 'a Host that is not loopback (DNS rebinding)',
    sent: body(gql('mutation { claim(queue: "hostile") { id } }'), { host: 'evil.example:4000' }),
    status: 403,
    code: 'FORBIDDEN',
    message: /loopback Host/,
  },
  {
    name: 'a Host of 127.0.0.1.evil.example',
    sent: body(gql('{ queues { name } }'), { host: '127.0.0.1.evil.example' }),
    status: 403,
    code: 'FORBIDDEN',
  },
];

describe('the hostile table over HTTP', () => {
  it('has at least 60 requests with distinct names', () => {
    expect(new Set(HTTP_CASES.map((c) => c.name)).size).toBe(HTTP_CASES.length);
    expect(HTTP_CASES.length + WS_CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HTTP_CASES)('$name → $status $code', async ({ sent, status, code, message }) => {
    const response = await expectRedisUnchanged(r, () => send(sent));
    expectNoLeak(response.text);
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    if (code === null) {
      // A refusal before GraphQL: no data, never a partial result.
      expect(response.json?.data).toBeUndefined();
    } else {
      expect(codes(response.json)[0], response.text.slice(0, 300)).toBe(code);
      expect(response.json?.data ?? null, 'nothing was answered').toSatisfy(
        (data: unknown) => data === null || Object.values(data as object).every((v) => v === null),
      );
    }
    if (message) expect(response.json?.errors?.[0]?.message).toMatch(message);
    await expectServerUp();
  });
});

// The hostile table: WebSocket --------------------------------------------------------------------

type WsStep =
  | { readonly send: string }
  | { readonly sendBytes: Buffer; readonly binary: boolean }
  | { readonly await: string };

interface WsCase {
  readonly name: string;
  readonly steps: readonly WsStep[];
  readonly protocol?: string | string[];
  readonly headers?: Record<string, string>;
  /** The server closes the socket with this code … */
  readonly close?: number;
  /** … or refuses the upgrade with this HTTP status … */
  readonly upgradeStatus?: number;
  /** … or answers the operation with an `error` message of this code and keeps the socket; */
  readonly errorCode?: string;
  /** with none of the three, the socket must still be open (a ping answered) after the steps. */
}

/** Subscriptions whose root field is conditional: label, document, variables. */
const CONDITIONAL_ROOTS: readonly [string, string, Record<string, unknown>][] = [
  [
    'included if false',
    'subscription { groupChanged(queue: "hostile", group: "g") @include(if: false) { id } }',
    {},
  ],
  [
    'skipped by a variable',
    'subscription($s: Boolean!) { ringChanged(queue: "hostile") @skip(if: $s) { ring } }',
    { s: true },
  ],
  [
    'skipped inside a fragment',
    'subscription { ...F } fragment F on Subscription { ringChanged(queue: "hostile") @skip(if: false) { ring } }',
    {},
  ],
];

const INIT = JSON.stringify({ type: 'connection_init', payload: {} });
const subscribe = (id: string, query: string) =>
  JSON.stringify({ id, type: 'subscribe', payload: { query } });
const RING = 'subscription { ringChanged(queue: "hostile") { ring } }';
const ACK = { await: 'connection_ack' } as const;

const WS_CASES: WsCase[] = [
  {
    name: 'a frame that is not JSON, before connection_init',
    steps: [{ send: 'hello' }],
    close: 4400,
  },
  {
    name: 'a frame that is not JSON, after the ack',
    steps: [{ send: INIT }, ACK, { send: '{"type": "subscribe", ' }],
    close: 4400,
  },
  { name: 'a JSON list', steps: [{ send: INIT }, ACK, { send: '[1, 2]' }], close: 4400 },
  { name: 'JSON null', steps: [{ send: 'null' }], close: 4400 },
  {
    name: 'an unknown message type',
    steps: [{ send: INIT }, ACK, { send: '{"type": "flushall"}' }],
    close: 4400,
  },
  {
    name: 'a message without a type',
    steps: [{ send: INIT }, ACK, { send: '{"id": "1", "payload": {}}' }],
    close: 4400,
  },
  {
    name: 'subscribe before connection_init',
    steps: [{ send: subscribe('1', '{ queues { name } }') }],
    close: 4401,
  },
  { name: 'a second connection_init', steps: [{ send: INIT }, ACK, { send: INIT }], close: 4429 },
  {
    name: 'a duplicate subscription id',
    steps: [
      { send: INIT },
      ACK,
      { send: subscribe('1', RING) },
      { await: 'next' },
      { send: subscribe('1', RING) },
    ],
    close: 4409,
  },
  {
    name: 'connection_init with a string payload',
    steps: [{ send: '{"type": "connection_init", "payload": "admin"}' }],
    close: 4400,
  },
  {
    name: 'subscribe without a payload',
    steps: [{ send: INIT }, ACK, { send: '{"id": "1", "type": "subscribe"}' }],
    close: 4400,
  },
  {
    name: 'subscribe with a numeric query',
    steps: [
      { send: INIT },
      ACK,
      { send: '{"id": "1", "type": "subscribe", "payload": {"query": 5}}' },
    ],
    close: 4400,
  },
  {
    name: 'subscribe with an empty id',
    steps: [{ send: INIT }, ACK, { send: subscribe('', '{ queues { name } }') }],
    close: 4400,
  },
  {
    name: 'subscribe with an object id',
    steps: [
      { send: INIT },
      ACK,
      { send: '{"id": {}, "type": "subscribe", "payload": {"query": "{ queues { name } }"}}' },
    ],
    close: 4400,
  },
  {
    name: 'a ping with a string payload',
    steps: [{ send: INIT }, ACK, { send: '{"type": "ping", "payload": "x"}' }],
    close: 4400,
  },
  {
    name: 'a binary frame of random bytes',
    steps: [{ sendBytes: Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x9c]), binary: true }],
    // Not UTF-8: closed as a text frame would be (src/server/plugins/utf8.ts), not read lossily.
    close: 1007,
  },
  {
    name: 'a binary frame of UTF-8 that is not JSON',
    steps: [{ sendBytes: Buffer.from('{ not json'), binary: true }],
    close: 4400,
  },
  {
    name: 'a text frame of invalid UTF-8',
    steps: [{ sendBytes: Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), binary: false }],
    close: 1007,
  },
  {
    name: 'a 2 MiB frame',
    steps: [
      { send: `{"type":"connection_init","payload":{"x":"${'x'.repeat(2 * MAX_REQUEST_BYTES)}"}}` },
    ],
    close: 1009,
  },
  { name: 'no connection_init at all', steps: [], close: 4408 },
  { name: 'no subprotocol', steps: [{ send: INIT }], protocol: [], close: 4406 },
  {
    name: 'an upgrade from a foreign Origin (cross-site WebSocket hijacking)',
    steps: [],
    headers: { origin: 'https://evil.example' },
    upgradeStatus: 403,
  },
  {
    name: 'an upgrade with a non-loopback Host (DNS rebinding)',
    steps: [],
    headers: { host: 'evil.example:4000', origin: 'http://evil.example:4000' },
    upgradeStatus: 403,
  },
  {
    name: 'an alias bomb over the socket',
    steps: [{ send: INIT }, ACK, { send: subscribe('1', aliases(QUERY_LIMITS.aliases + 1)) }],
    errorCode: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a token bomb over the socket',
    steps: [{ send: INIT }, ACK, { send: subscribe('1', `{ ${'queues { name } '.repeat(300)}}`) }],
    errorCode: 'GRAPHQL_PARSE_FAILED',
  },
  {
    name: 'a fragment bomb over the socket',
    steps: [{ send: INIT }, ACK, { send: subscribe('1', fragmentFanOut(30)) }],
    errorCode: 'GRAPHQL_VALIDATION_FAILED',
  },
  {
    name: 'a mutation with a NUL in the group id over the socket',
    steps: [
      { send: INIT },
      ACK,
      {
        send: subscribe('1', 'mutation { pauseGroup(queue: "hostile", group: "a\\u0000") { id } }'),
      },
    ],
    errorCode: 'BAD_USER_INPUT',
  },
  // A subscription's root field may not be conditional (subscriptionRoot.ts): each of these once
  // made graphql-js throw instead of answer, and the first closed the whole socket (4500).
  ...CONDITIONAL_ROOTS.map(
    ([label, query, variables]): WsCase => ({
      name: `a subscription whose root field is ${label}, over the socket`,
      steps: [
        { send: INIT },
        ACK,
        { send: JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }) },
      ],
      errorCode: 'GRAPHQL_VALIDATION_FAILED',
    }),
  ),
];

interface WsResult {
  closeCode?: number;
  closeReason?: string;
  upgradeStatus?: number;
  frames: string[];
  /** Set when the socket is still open at the end: a ping was answered with a pong. */
  stillOpen: boolean;
}

/** Open a raw socket, play `steps`, and report how the server ended it (bounded, no sleeps). */
function playWs(c: WsCase, endpoint = api.endpoint): Promise<WsResult> {
  const socket = new WebSocket(
    endpoint.replace(/^http/, 'ws'),
    c.protocol ?? 'graphql-transport-ws',
    {
      headers: c.headers,
    },
  );
  const result: WsResult = { frames: [], stillOpen: false };
  const waiters: { type: string; resolve: () => void }[] = [];
  const seen = (type: string) => {
    const i = waiters.findIndex((w) => w.type === type);
    if (i >= 0) waiters.splice(i, 1)[0]?.resolve();
  };
  return new Promise<WsResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`${c.name}: no outcome within 10 s; frames: ${result.frames.join(' | ')}`));
    }, 10_000);
    const done = () => {
      clearTimeout(timer);
      resolve(result);
    };
    socket.on('unexpected-response', (_req, res) => {
      result.upgradeStatus = res.statusCode ?? 0;
      res.resume();
      done();
    });
    socket.on('error', (error) => {
      if (result.upgradeStatus === undefined) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', (code, reason) => {
      result.closeCode = code;
      result.closeReason = reason.toString();
      done();
    });
    socket.on('message', (data) => {
      const text = data.toString();
      result.frames.push(text);
      try {
        const type = (JSON.parse(text) as { type?: string }).type;
        if (type) seen(type);
      } catch {
        // not JSON: kept in frames for the leak check
      }
    });
    socket.on('open', async () => {
      try {
        for (const step of c.steps) {
          if ('await' in step) {
            await new Promise<void>((res) => waiters.push({ type: step.await, resolve: res }));
          } else if ('sendBytes' in step) {
            socket.send(step.sendBytes, { binary: step.binary });
          } else {
            socket.send(step.send);
          }
        }
        if (c.close === undefined && c.upgradeStatus === undefined) {
          // The operation's error, if one is expected; then proof that the socket is usable.
          if (c.errorCode !== undefined) {
            // An `error` message (refused before it ran) or a `next` with errors (a field error).
            await new Promise<void>((res) => {
              waiters.push({ type: 'error', resolve: res }, { type: 'next', resolve: res });
            });
          }
          const pong = new Promise<void>((res) => waiters.push({ type: 'pong', resolve: res }));
          socket.send(JSON.stringify({ type: 'ping' }));
          await pong;
          result.stillOpen = true;
          socket.close(1000);
        }
      } catch (error) {
        reject(error);
      }
    });
  });
}

describe('the hostile table over WebSocket', () => {
  it.each(WS_CASES)('$name', async (c) => {
    const result = await expectRedisUnchanged(r, () => playWs(c));
    for (const frame of result.frames) expectNoLeak(frame);
    expectNoLeak(result.closeReason ?? '');
    if (c.upgradeStatus !== undefined) {
      expect(result.upgradeStatus).toBe(c.upgradeStatus);
      expect(result.frames).toEqual([]);
    } else if (c.errorCode !== undefined) {
      expect(result.stillOpen, 'the socket stays open after a refused operation').toBe(true);
      type Coded = { extensions?: { code?: string } };
      const answer = result.frames
        .map((f) => JSON.parse(f) as { type: string; payload?: unknown })
        .find((m) => m.type === 'error' || m.type === 'next');
      // `error`: refused before it ran; `next`: a field error, with nothing answered (`data`
      // null, or — a mutation field being nullable — each of its fields null).
      const errors =
        answer?.type === 'error'
          ? (answer.payload as Coded[])
          : (answer?.payload as { data: unknown; errors?: Coded[] } | undefined)?.errors;
      if (answer?.type === 'next') {
        const data = (answer.payload as { data: Record<string, unknown> | null }).data;
        expect(Object.values(data ?? {}).filter((v) => v !== null)).toEqual([]);
      }
      expect(errors?.[0]?.extensions?.code).toBe(c.errorCode);
    } else {
      expect(result.closeCode, result.frames.join(' | ')).toBe(c.close);
    }
    await expectServerUp(api, true);
  });
});

describe('subscription refusals on both transports', () => {
  it.each(CONDITIONAL_ROOTS)(
    'a root field %s is refused over SSE with GRAPHQL_VALIDATION_FAILED',
    async (_label, query, variables) => {
      const response = await post(
        api.endpoint,
        { query, variables },
        { accept: 'text/event-stream' },
      );
      expect(codes(response.json), response.text).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    },
  );

  it('a variable that does not coerce is BAD_USER_INPUT over the socket, without HTTP details', async () => {
    const query = 'subscription($q: String!) { ringChanged(queue: $q) { ring } }';
    const result = await playWs({
      name: 'uncoercible variable',
      steps: [
        { send: INIT },
        ACK,
        {
          send: JSON.stringify({
            id: '1',
            type: 'subscribe',
            payload: { query, variables: { q: 5 } },
          }),
        },
        { await: 'complete' },
      ],
    });
    const next = result.frames
      .map((f) => JSON.parse(f) as { type: string; payload?: { errors?: unknown[] } })
      .find((m) => m.type === 'next');
    expect(next?.payload?.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }),
    ]);
    expect(result.stillOpen).toBe(true);
  });
});

// Group ids that look dangerous are valid, and work end to end ----------------------------------

/** Valid ids (DESIGN.md §5: no control characters, at most 256 UTF-8 bytes). */
const NASTY_IDS: readonly [label: string, id: string][] = [
  ['an emoji', '🎪'],
  ['an emoji ZWJ sequence', '👩‍👩‍👧‍👦'],
  ['64 emoji (256 bytes)', '🎉'.repeat(64)],
  ['a right-to-left mark', 'a\u200fb'],
  ['a right-to-left override', '\u202egnp.exe'],
  ['Hebrew and Arabic', 'שלום مرحبا'],
  ['a zero-width space', 'a\u200bb'],
  ['a line separator (not a control character)', 'a\u2028b'],
  ['combining marks', 'e\u0301\u0301\u0301'],
  ['an open brace', '{'],
  ['a close brace', '}'],
  ['braces around a name', '{a}'],
  ['a brace pair that reopens the hash tag', '}:g:{a'],
  ['a colon', ':'],
  ['a colon between names', 'a:b'],
  ['a lane-key suffix', 'a:pending'],
  ['another key’s name', 'emq:{hostile}:ring'],
  ['a glob star', '*'],
  ['a glob question mark', '?'],
  ['a glob class', '[a-z]*'],
  ['an open bracket', '['],
  ['a close bracket', ']'],
  ['a Lua pattern', '%s+%d*.-'],
  ['a percent', '%'],
  ['dot dot', '..'],
  ['a path', '../../etc/passwd'],
  ['a single quote', "'"],
  ['a double quote', '"'],
  ['a backslash', '\\'],
  ['a Lua long bracket', ']]--[['],
  ['Lua code', "'); redis.call('FLUSHALL') --"],
  ['a lex-range minus', '-'],
  ['a lex-range plus', '+'],
  ['a lex-range open paren', '(a'],
  ['a space', ' '],
  ['leading and trailing spaces', ' a '],
  ['HTML', '<script>alert(1)</script>'],
  ['nil', 'nil'],
  ['a number', '0'],
  ['__proto__', '__proto__'],
  ['the byte 0xff as a character', 'ÿ'],
  ['a non-BMP letter', '𝕏'],
];

const MUTATE = {
  setLimit:
    'mutation($q: String!, $g: String!, $n: Int!) { setLimit(queue: $q, group: $g, limit: $n) { id limit state } }',
  enqueue:
    'mutation($q: String!, $g: String!, $p: JSON) { enqueue(queue: $q, group: $g, payload: $p) { id group payload } }',
  pause:
    'mutation($q: String!, $g: String!) { pauseGroup(queue: $q, group: $g) { id paused onRing } }',
  resume:
    'mutation($q: String!, $g: String!) { resumeGroup(queue: $q, group: $g) { id paused onRing } }',
  claim: 'mutation($q: String!) { claim(queue: $q, leaseMs: 3600000) { id group token payload } }',
  complete:
    'mutation($q: String!, $id: ID!, $t: String!) { complete(queue: $q, id: $id, token: $t) { id state } }',
} as const;
const READ = {
  queue:
    'query($q: String!, $g: String!) { queue(name: $q) { ring paused group(id: $g) { id limit active pending paused onRing state } } }',
  groups:
    'query($q: String!, $after: String) { queue(name: $q) { groups(first: 500, after: $after) { edges { cursor node { id } } } } }',
  prefix:
    'query($q: String!, $p: String!) { queue(name: $q) { groupsWithPrefix(prefix: $p) { totalCount edges { node { id } } } } }',
} as const;

/** Run an operation that must succeed; its data. */
// biome-ignore lint/suspicious/noExplicitAny: the JSON answer of a document written in the test
async function must(query: string, variables: Record<string, unknown>): Promise<any> {
  const response = await post(api.endpoint, { query, variables });
  expect(response.json?.errors, response.text.slice(0, 300)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.json?.data;
}

/** Everything stored about group `g` of queue `q`, read raw, in a comparable form. */
async function groupFootprint(q: string, g: string): Promise<Record<string, unknown>> {
  const base = `emq:{${q}}:`;
  const lane = await r.zrange(`${base}g:${g}:pending`, 0, -1, 'WITHSCORES');
  const leases = Object.entries(await r.hgetall(`${base}leases`)).filter(([, grp]) => grp === g);
  const jobs: Record<string, string | null> = {};
  for (const id of [...lane.filter((_, i) => i % 2 === 0), ...leases.map(([id]) => id)]) {
    jobs[id] = (await r.dumpBuffer(`${base}job:${id}`))?.toString('hex') ?? null;
  }
  return {
    lane,
    laneDump: (await r.dumpBuffer(`${base}g:${g}:pending`))?.toString('hex') ?? null,
    limit: await r.hget(`${base}glimit`, g),
    active: await r.hget(`${base}gactive`, g),
    paused: await r.sismember(`${base}paused`, g),
    onRing: await r.lpos(`${base}ring`, g),
    registered: await r.zscore(`${base}groups`, g),
    leases,
    leaseDeadlines: await Promise.all(leases.map(([id]) => r.zscore(`${base}active`, id))),
    jobs,
  };
}

describe('group ids with metacharacters work end to end and stay isolated', () => {
  let n = 0;
  it.each(NASTY_IDS)('%s', async (_label, id) => {
    n += 1;
    const q = `ids-${n}`;
    // A neighbour with something in every one of its keys: paused, a limit, a backlog, a lease.
    const neighbour = api.server.engine.queue(q);
    await neighbour.setLimit('a', 5);
    for (let i = 0; i < 3; i++) await neighbour.enqueue('a', { i });
    await neighbour.claim({ leaseMs: 3_600_000 });
    await neighbour.pause('a');
    const neighbourBefore = await groupFootprint(q, 'a');
    const before = await snapshot(r);

    expect((await must(MUTATE.setLimit, { q, g: id, n: 1 })).setLimit).toEqual({
      id,
      limit: 1,
      state: 'IDLE',
    });
    const first = (await must(MUTATE.enqueue, { q, g: id, p: { id } })).enqueue;
    expect(first).toMatchObject({ group: id, payload: { id } });
    const second = (await must(MUTATE.enqueue, { q, g: id, p: { id, n: 2 } })).enqueue;
    // The lane key is exactly P:{Q}:g:<id>:pending, with both jobs in FIFO order.
    expect(await r.zrange(`emq:{${q}}:g:${id}:pending`, 0, -1)).toEqual([first.id, second.id]);
    expect((await must(READ.queue, { q, g: id })).queue.ring).toEqual([id]);

    expect((await must(MUTATE.pause, { q, g: id })).pauseGroup).toEqual({
      id,
      paused: true,
      onRing: false,
    });
    const whilePaused = (await must(READ.queue, { q, g: id })).queue;
    expect(whilePaused.ring).toEqual([]);
    expect([...whilePaused.paused].sort()).toEqual(['a', id].sort());
    expect((await must(MUTATE.resume, { q, g: id })).resumeGroup.onRing).toBe(true);

    // Only this group is serviceable, so the claim is its first job; at limit 1 it leaves the ring.
    const claimed = (await must(MUTATE.claim, { q })).claim;
    expect(claimed).toMatchObject({ id: first.id, group: id, payload: { id } });
    expect((await must(READ.queue, { q, g: id })).queue).toMatchObject({
      ring: [],
      group: { id, limit: 1, active: 1, pending: 1, state: 'SATURATED', onRing: false },
    });
    expect((await must(MUTATE.complete, { q, id: claimed.id, t: claimed.token })).complete).toEqual(
      { id: first.id, state: 'COMPLETED' },
    );
    expect((await must(READ.queue, { q, g: id })).queue).toMatchObject({
      ring: [id],
      group: { id, limit: 1, active: 0, pending: 1, paused: false, onRing: true, state: 'READY' },
    });

    // Paging: the id appears once, and its cursor pages past it.
    const edges: { cursor: string; node: { id: string } }[] = (await must(READ.groups, { q })).queue
      .groups.edges;
    expect(edges.map((e) => e.node.id).sort()).toEqual(['a', id].sort());
    const mine = edges.find((e) => e.node.id === id) as { cursor: string };
    const after: { node: { id: string } }[] = (await must(READ.groups, { q, after: mine.cursor }))
      .queue.groups.edges;
    expect(after.map((e) => e.node.id)).not.toContain(id);
    // Prefix search treats the id as bytes, not as a pattern or a lex-range operator.
    expect((await must(READ.prefix, { q, p: id })).queue.groupsWithPrefix).toEqual({
      totalCount: 1,
      edges: [{ node: { id } }],
    });

    // Isolation: the neighbour is exactly as it was, and only this queue's keys were written.
    expect(await groupFootprint(q, 'a')).toEqual(neighbourBefore);
    const after_ = await snapshot(r);
    const base = `emq:{${q}}:`;
    const allowed = new Set([
      ...[
        'glimit',
        'gactive',
        'ring',
        'paused',
        'wake',
        'groups',
        'active',
        'leases',
        'stats',
        'seq',
      ].map((k) => `${base}${k}`),
      `${base}g:${id}:pending`,
      `${base}job:${second.id}`,
      'emq:queues',
    ]);
    const changed = [...new Set([...before.keys(), ...after_.keys()])].filter(
      (key) => before.get(key) !== after_.get(key),
    );
    expect(changed.filter((key) => !allowed.has(key))).toEqual([]);
    expect(changed).toContain(`${base}g:${id}:pending`);
  });
});

// The limits let the real operations through ------------------------------------------------------

describe('the query limits let every real operation through', () => {
  // Every operation a real client sends: the API tests' and the console's (when it is there),
  // each as its client sends it: with the fragments it uses, transitively, from its own folder.
  const operations = ['test/operations', 'console/src/operations']
    .filter((dir) => existsSync(dir))
    .flatMap((dir) => {
      const source = readdirSync(dir)
        .filter((f) => f.endsWith('.graphql'))
        .map((f) => readFileSync(`${dir}/${f}`, 'utf8'))
        .join('\n');
      const definitions = parse(source).definitions;
      const fragments = new Map(
        definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d]] : [])),
      );
      return definitions
        .filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')
        .map((operation) => {
          const texts = [print(operation)];
          const used = new Set<string>();
          for (let k = 0; k < texts.length; k++) {
            for (const [, name] of (texts[k] as string).matchAll(/\.\.\.([_A-Za-z]\w*)/g)) {
              const fragment = fragments.get(name as string);
              if (fragment && !used.has(name as string)) {
                used.add(name as string);
                texts.push(print(fragment));
              }
            }
          }
          return [`${dir}: ${operation.name?.value ?? 'anonymous'}`, texts.join('\n')] as const;
        });
    });
  const README = readFileSync('README.md', 'utf8');
  const readmeQueries = [...README.matchAll(/"query": "((?:[^"\\]|\\.)*)"/g)].map((m) =>
    JSON.parse(`"${m[1]}"`),
  );

  it('there are operations to check (test/operations, the console’s, the README’s curl examples)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    expect(readmeQueries.length).toBeGreaterThanOrEqual(2);
  });

  const validateOnServer = (source: string) => {
    const { parse: p, validate, schema } = api.server.yoga.getEnveloped({});
    return validate(schema, p(source)).map((e: { message: string }) => e.message);
  };

  it.each(operations)('%s', (_name, source) => {
    expect(validateOnServer(source)).toEqual([]);
  });

  it('the README’s curl examples, GraphiQL’s introspection, and a page of 500 written inline', () => {
    for (const query of readmeQueries) expect(validateOnServer(query)).toEqual([]);
    const introspection = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    expect(validateOnServer(introspection)).toEqual([]);
    expect(validateOnServer(`{ ${GROUPS_INLINE_500} }`)).toEqual([]);
    expect(validateOnServer(`{ p1: ${GROUPS_INLINE_500} p2: ${GROUPS_INLINE_500} }`)).toEqual([]);
  });

  it('each limit is exactly where limits.ts puts it: n passes, n + 1 is refused', () => {
    expect(validateOnServer(aliases(QUERY_LIMITS.aliases))).toEqual([]);
    expect(validateOnServer(aliases(QUERY_LIMITS.aliases + 1))).toEqual([
      `Aliases limit of ${QUERY_LIMITS.aliases} exceeded, found ${QUERY_LIMITS.aliases + 1}.`,
    ]);
    expect(validateOnServer(directives(QUERY_LIMITS.directives))).toEqual([]);
    expect(validateOnServer(directives(QUERY_LIMITS.directives + 1))).toEqual([
      `Directives limit of ${QUERY_LIMITS.directives} exceeded, found ${QUERY_LIMITS.directives + 1}.`,
    ]);
    // ofTypeChain(n) is n + 4 fields deep: __type, fields, type, n × ofType, name.
    expect(validateOnServer(ofTypeChain(QUERY_LIMITS.depth - 4))).toEqual([]);
    expect(validateOnServer(ofTypeChain(QUERY_LIMITS.depth - 3))).toEqual([
      `Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 1}.`,
    ]);
    // Exactly k tokens: `{ queues { name }` (5), k - 6 × `__typename`, `}`.
    const tokens = (k: number) => `{ queues { name } ${'__typename '.repeat(k - 6)}}`;
    const { parse: p } = api.server.yoga.getEnveloped({});
    expect(() => p(tokens(QUERY_LIMITS.tokens))).not.toThrow();
    expect(() => p(tokens(QUERY_LIMITS.tokens + 1))).toThrow(/Token limit/);
  });
});

// Introspection -----------------------------------------------------------------------------------

describe('INTROSPECTION=false', () => {
  let closed: TestServer;
  beforeAll(async () => {
    closed = await startTestServer(redis.url, { INTROSPECTION: 'false' });
  });
  afterAll(async () => {
    await closed?.stop();
  });

  const QUERIES = [
    ['__schema', '{ __schema { queryType { name } } }'],
    ['__type', '{ __type(name: "Queue") { fields { name } } }'],
    ['__schema in a fragment', '{ ...F } fragment F on Query { __schema { types { name } } }'],
    ['GraphiQL’s introspection query', getIntrospectionQuery()],
  ] as const;

  it.each(QUERIES)('%s is refused over HTTP, SSE and WebSocket', async (_label, query) => {
    const http = await post(closed.endpoint, { query });
    expect(http.status).toBe(400);
    expect(codes(http.json)[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(http.json?.errors?.[0]?.message).toMatch(/introspection has been disabled/);
    const sse = await post(closed.endpoint, { query }, { accept: 'text/event-stream' });
    expect(codes(sse.json)[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    const ws = await wsOperation(closed.endpoint, { query });
    expect(ws.closeCode).toBeUndefined();
    expect(codes(ws.results[0])[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(ws.results[0]?.errors?.[0]?.message).toMatch(/introspection has been disabled/);
  });

  it('errors suggest no names ("Did you mean …?" would spell the schema out)', async () => {
    for (const query of [
      '{ queus { name } }',
      '{ queue(nam: "x") { name } }',
      'query($x: Strin) { queues { name } }',
    ]) {
      const http = await post(closed.endpoint, { query });
      expect(http.status).toBe(400);
      expect(http.text).not.toMatch(/Did you mean/);
      const ws = await wsOperation(closed.endpoint, { query });
      expect(JSON.stringify(ws.results)).not.toMatch(/Did you mean/);
      expect(codes(ws.results[0])[0]).toBe('GRAPHQL_VALIDATION_FAILED');
    }
  });

  it('__typename and ordinary operations still work; with introspection on, it is answered', async () => {
    const response = await post(closed.endpoint, { query: '{ __typename queues { name } }' });
    expect(response.json).toEqual({ data: { __typename: 'Query', queues: expect.any(Array) } });
    const open = await post(api.endpoint, { query: getIntrospectionQuery() });
    expect(open.status).toBe(200);
    expect(open.json?.errors).toBeUndefined();
    const suggestion = await post(api.endpoint, { query: '{ queus { name } }' });
    expect(suggestion.text).toMatch(/Did you mean/);
  });
});

// Browsers of other origins -----------------------------------------------------------------------

describe('CORS, CSRF and WebSocket origins', () => {
  const preflight = (endpoint: string, origin: string) =>
    fetch(endpoint, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, authorization',
      },
    });

  it('no origin gets CORS headers by default: a foreign page can neither preflight nor read', async () => {
    const response = await preflight(api.endpoint, 'https://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.status).toBeGreaterThanOrEqual(400);
    const simple = await send({
      body: gql('{ queues { name } }'),
      headers: { origin: 'https://evil.example' },
    });
    expect(simple.status).toBe(200); // not a browser: nothing to protect it from
    const read = await fetch(api.endpoint, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: gql('{ queues { name } }'),
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS_ORIGINS lets exactly the listed origins in, over HTTP and WebSocket', async () => {
    const listed = 'https://admin.example';
    const cors = await startTestServer(redis.url, {
      CORS_ORIGINS: `${listed},http://localhost:5173`,
    });
    try {
      const ok = await preflight(cors.endpoint, listed);
      expect(ok.status).toBe(204);
      expect(ok.headers.get('access-control-allow-origin')).toBe(listed);
      expect(ok.headers.get('access-control-allow-headers')).toMatch(/authorization/);
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
      const other = await preflight(cors.endpoint, 'https://evil.example');
      expect(other.headers.get('access-control-allow-origin')).not.toBe('https://evil.example');
      const listedWs = await playWs(
        { name: 'listed origin', steps: [{ send: INIT }, ACK], headers: { origin: listed } },
        cors.endpoint,
      );
      expect(listedWs.stillOpen).toBe(true);
      const refused = await playWs(
        { name: 'foreign origin', steps: [], headers: { origin: 'https://evil.example' } },
        cors.endpoint,
      );
      expect(refused.upgradeStatus).toBe(403);
    } finally {
      await cors.stop();
    }
  });

  it('what real clients send still works: curl’s JSON, GraphiQL, a same-origin socket, SSE over POST, GET with a preflight header', async () => {
    const readme = await send({
      body: gql('{ queue(name: "hostile") { ring } }'),
      headers: { accept: null },
    });
    expect(readme.status).toBe(200);
    expect(readme.json?.data).toBeDefined();
    const graphiql = await fetch(api.endpoint, { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(await graphiql.text()).toMatch(/GraphiQL|graphiql/);
    const origin = api.server.url;
    const sameOrigin = await playWs({
      name: 'same origin',
      steps: [
        { send: INIT },
        ACK,
        { send: subscribe('1', '{ queues { name } }') },
        { await: 'next' },
      ],
      headers: { origin },
    });
    expect(sameOrigin.stillOpen).toBe(true);
    const sse = await post(api.endpoint, { query: RING }, { accept: 'text/event-stream' });
    expect(sse.status).toBe(200);
    expect(sse.json?.data).toEqual({
      ringChanged: { ring: await r.lrange(`emq:{${QUEUE}}:ring`, 0, -1) },
    });
    for (const header of CSRF_HEADERS) {
      const get = await send({
        method: 'GET',
        path: `?query=${encodeURIComponent('{ queues { name } }')}`,
        headers: { 'content-type': null, [header]: '1' },
      });
      expect(get.status, header).toBe(200);
      expect(get.json?.data).toEqual({ queues: expect.any(Array) });
    }
  });
});

// Auth: a WebSocket's token is checked on every operation ---------------------------------------

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
    const conn = redis.client();
    const engine = new Ringmaster(conn);
    const feed = new LiveFeed({
      engine,
      resyncIntervalMs: 5_000,
      pollIntervalMs: 1_000,
      logger,
    });
    await feed.start();
    const browser = new BrowserPolicy({ corsOrigins: [], loopbackHostsOnly: false });
    const yoga = createRingmasterYoga({
      engine,
      feed,
      auth,
      logger,
      introspection: true,
      browser,
      ready: async () => ({ ok: true, detail: {} }),
    });
    const http = createServer(yoga);
    const ws = attachWebSocket(http, yoga, auth, browser);
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
    const mutation = await expectRedisUnchanged(r, () =>
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
        const refused = await expectRedisUnchanged(r, () => s.run(query));
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

// Masking with NODE_ENV unset ---------------------------------------------------------------------

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
