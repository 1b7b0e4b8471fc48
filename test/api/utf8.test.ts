/**
 * Text that is not UTF-8 is refused, never decoded with U+FFFD. Raw bytes
 * `FF FE C3` inside a group id once created group `u\uFFFD\uFFFD\uFFFD`, and two different
 * invalid inputs named one group. Now: HTTP 400 with BAD_USER_INPUT (HTTP and SSE), or the socket
 * closed with 1007 (WebSocket), and Redis unchanged byte for byte — on a JSON body, a GraphQL
 * body, a form body, a GET query string (percent-escaped or raw), SSE over POST, and WebSocket
 * text and binary frames. The same group id written as real UTF-8 (U+FFFD included) still works.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { codes, expectNoLeak, expectRedisUnchanged, type RawResponse } from '../support/api.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;
const QUEUE = 'utf8';

beforeAll(async () => {
  r = api.redis.client();
  // State to compare against: a group, a job, the registry, `seq`.
  await api.server.engine.queue(QUEUE).enqueue('seeded');
});

/** Byte sequences that are not UTF-8, each inside a group id. */
const INVALID: [string, number[]][] = [
  ['FF FE C3 (the issue)', [0xff, 0xfe, 0xc3]],
  ['FF alone', [0xff]],
  ['a lone continuation byte', [0x80]],
  ['a truncated sequence before ASCII', [0xc3, 0x41]],
  ['an overlong "/"', [0xc0, 0xaf]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
];

const ENQUEUE =
  'mutation E($q: String!, $g: String!) { enqueue(queue: $q, group: $g) { id group } }';
const bytes = (...parts: (string | number[])[]): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
/** A JSON body whose group id variable is `u`, `bad`, `x`. */
const jsonBody = (bad: number[]): Buffer =>
  bytes(`{"query":${JSON.stringify(ENQUEUE)},"variables":{"q":"${QUEUE}","g":"u`, bad, 'x"}}');
const percent = (bad: number[]): string =>
  bad.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** One raw request with node:http (the body's bytes exactly as given). */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawResponse> {
  const url = new URL(path, api.endpoint);
  const all: Record<string, string> = { accept: 'application/graphql-response+json', ...headers };
  if (body) all['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: RawResponse['json'];
        try {
          json = JSON.parse(
            text.startsWith('event:') ? (/data: (.*)/.exec(text)?.[1] ?? '') : text,
          );
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What every refusal over HTTP looks like. */
function expectRefused(response: RawResponse): void {
  expectNoLeak(response.text);
  expect(response.status, response.text).toBe(400);
  expect(codes(response.json)).toEqual(['BAD_USER_INPUT']);
  expect(response.json?.errors?.[0]?.message).toMatch(/is not valid UTF-8/);
}

describe('over HTTP and SSE', () => {
  it.each(INVALID)('a JSON body with %s in a variable: 400, nothing written', async (_l, bad) => {
    const response = await expectRedisUnchanged(r, () =>
      send('POST', '', { 'content-type': 'application/json' }, jsonBody(bad)),
    );
    expectRefused(response);
  });

  it('the same bytes inside the document, not a variable: 400, nothing written', async () => {
    const body = bytes(
      `{"query":"mutation { enqueue(queue: \\"${QUEUE}\\", group: \\"u`,
      [0xff, 0xfe, 0xc3],
      '\\") { id } }"}',
    );
    const response = await expectRedisUnchanged(r, () =>
      send('POST', '', { 'content-type': 'application/json' }, body),
    );
    expectRefused(response);
  });

  it('an application/graphql body: 400, nothing written', async () => {
    const body = bytes(`mutation { enqueue(queue: "${QUEUE}", group: "u`, [0xff], '") { id } }');
    const response = await expectRedisUnchanged(r, () =>
      send('POST', '', { 'content-type': 'application/graphql', 'x-graphql-yoga-csrf': '1' }, body),
    );
    expectRefused(response);
  });

  it.each(INVALID)('a form body with %s percent-escaped: 400, nothing written', async (_l, bad) => {
    const variables = `{"q":"${QUEUE}","g":"u${percent(bad)}"}`;
    const body = Buffer.from(
      `query=${encodeURIComponent(ENQUEUE)}&variables=${variables.replace(/[{}":,]/g, encodeURIComponent)}`,
    );
    const response = await expectRedisUnchanged(r, () =>
      send(
        'POST',
        '',
        { 'content-type': 'application/x-www-form-urlencoded', 'x-graphql-yoga-csrf': '1' },
        body,
      ),
    );
    expectRefused(response);
  });

  it.each(INVALID)('a GET query string with %s percent-escaped: 400', async (_l, bad) => {
    const query = `{ queue(name: "${QUEUE}") { group(id: "u${percent(bad)}") { id } } }`;
    const path = `?query=${query.replace(/[{}"():\s]/g, encodeURIComponent)}`;
    const response = await expectRedisUnchanged(r, () =>
      send('GET', path, { 'x-graphql-yoga-csrf': '1' }),
    );
    expectRefused(response);
  });

  it("a GET whose request target holds a raw byte FF: 400 (from Node's HTTP parser)", async () => {
    // node:http will not send a raw byte in a path: write the request by hand. Node's parser
    // refuses it before Yoga (this guards that it stays so, e.g. no insecureHTTPParser).
    const { port } = new URL(api.endpoint);
    const head = bytes(
      'GET /graphql?query=%7B%20queue(name%3A%20%22utf8%22)%20%7B%20group(id%3A%20%22u',
      [0xff],
      '%22)%20%7B%20id%20%7D%20%7D%20%7D HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      'x-graphql-yoga-csrf: 1\r\naccept: application/graphql-response+json\r\n',
      'connection: close\r\n\r\n',
    );
    const text = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end(head));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expectNoLeak(text);
  });

  it.each(INVALID)('SSE over POST with %s in a variable: 400, nothing written', async (_l, bad) => {
    const response = await expectRedisUnchanged(r, () =>
      send(
        'POST',
        '',
        { 'content-type': 'application/json', accept: 'text/event-stream' },
        jsonBody(bad),
      ),
    );
    expectNoLeak(response.text);
    expect(response.status, response.text).toBe(400);
    expect(response.text).toMatch(/BAD_USER_INPUT/);
  });

  it('the id as real UTF-8 — U+FFFD included — is a group like any other', async () => {
    const sent = bytes(
      `{"query":${JSON.stringify(ENQUEUE)},"variables":{"q":"${QUEUE}","g":"u`,
      Buffer.from('\uFFFD\u00e9', 'utf8').toJSON().data,
      'x"}}',
    );
    const response = await send('POST', '', { 'content-type': 'application/json' }, sent);
    expect(response.status, response.text).toBe(200);
    const data = response.json?.data as { enqueue: { id: string; group: string } };
    expect(data.enqueue.group).toBe('u\uFFFD\u00e9x');
    expect(await r.zscore(api.server.engine.queue(QUEUE).keys.groups, 'u\uFFFD\u00e9x')).toBe('0');
  });
});

/**
 * A graphql-ws exchange at the frame level: connection_init, then a subscribe frame made of
 * `frame`'s bytes sent as a text or a binary frame. Resolves with the close code, or with the
 * first result when the socket stays open.
 */
function wsExchange(
  frame: Buffer,
  binary: boolean,
): Promise<{ closeCode?: number; closeReason?: string; result?: unknown }> {
  const socket = new WebSocket(api.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no outcome within 5 s')), 5_000);
    const done = (outcome: { closeCode?: number; closeReason?: string; result?: unknown }) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: {} })));
    socket.on('message', (raw) => {
      const message = JSON.parse(raw.toString()) as { type: string; payload?: unknown };
      if (message.type === 'connection_ack') socket.send(frame, { binary });
      else if (message.type === 'next' || message.type === 'error') {
        socket.close(1000);
        done({ result: message.payload });
      }
    });
    socket.on('close', (code, reason) => done({ closeCode: code, closeReason: reason.toString() }));
    socket.on('error', reject);
  });
}

/** A subscribe frame for the enqueue, with `bad` inside the group id. */
const subscribeFrame = (bad: number[]): Buffer =>
  bytes(
    `{"id":"1","type":"subscribe","payload":{"query":${JSON.stringify(ENQUEUE)},"variables":{"q":"${QUEUE}","g":"u`,
    bad,
    'x"}}}',
  );

describe('over WebSocket', () => {
  it.each(INVALID)(
    'a text frame with %s: closed with 1007 (ws), nothing written',
    async (_l, bad) => {
      const outcome = await expectRedisUnchanged(r, () => wsExchange(subscribeFrame(bad), false));
      expect(outcome.closeCode).toBe(1007);
    },
  );

  it.each(INVALID)('a binary frame with %s: closed with 1007, nothing written', async (_l, bad) => {
    const outcome = await expectRedisUnchanged(r, () => wsExchange(subscribeFrame(bad), true));
    expect(outcome.closeCode).toBe(1007);
    expect(outcome.closeReason).toBe('a binary frame that is not UTF-8');
  });

  it('a binary frame that is UTF-8 is read as the text it is', async () => {
    const outcome = await wsExchange(subscribeFrame([0xc3, 0xa9]), true);
    expect(outcome.closeCode).toBeUndefined();
    expect(outcome.result).toMatchObject({ data: { enqueue: { group: 'u\u00e9x' } } });
  });
});
