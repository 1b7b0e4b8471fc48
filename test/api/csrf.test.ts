/**
 * CSRF prevention that lets a stock client in: a GET carrying a query needs no
 * preflight header — urql's default, a browser's address bar, `curl -G` — because a query
 * changes nothing and a page of another site cannot read its answer without CORS. What could
 * change state or hold the server open stays refused from a foreign page: a subscription over
 * GET without the header (what EventSource sends), a mutation over GET (405), and every
 * "simple" POST (test/api/hostile.http.test.ts has those). "Changes nothing" is checked here too:
 * every Query field, over GET, leaves Redis byte for byte as it was.
 */
import { describe, expect, it } from 'vitest';
import { expectRedisUnchanged, seedEveryKey } from '../support/api.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer();
const { redis } = api;

/** A GET as a browser sends it with no script involved: no content type, no custom header. */
async function get(
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; contentType: string | null }> {
  const url = new URL(api.endpoint);
  url.searchParams.set('query', query);
  if (variables) url.searchParams.set('variables', JSON.stringify(variables));
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  // An event stream that was accepted would never end: read what is there and hang up.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const stream = response.headers.get('content-type')?.includes('event-stream');
      if (stream && /\ndata: .*\n\n/.test(text)) break;
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
  return { status: response.status, text, contentType: response.headers.get('content-type') };
}

const GROUP =
  'query($q: String!, $g: String!) { queue(name: $q) { ring group(id: $g) { pending } } }';

describe('a GET without a preflight header', () => {
  it('runs a query, with variables, under either JSON media type', async () => {
    const queue = queueName('csrf');
    await api.server.engine.queue(queue).enqueue('acme', null);
    for (const accept of ['application/graphql-response+json', 'application/json']) {
      const response = await get(GROUP, { q: queue, g: 'acme' }, { accept });
      expect(response.status, response.text).toBe(200);
      expect(JSON.parse(response.text)).toEqual({
        data: { queue: { ring: ['acme'], group: { pending: 1 } } },
      });
    }
  });

  it('runs every Query field without writing anything to Redis, not even the queue registry', async () => {
    const queue = queueName('csrf-reads');
    await seedEveryKey(api.server.engine.queue(queue));
    const everything = `query($q: String!, $never: String!) {
      viewer { role }
      queues { name ring }
      unknown: queue(name: $never) { name ring paused counts { groups pending } }
      queue(name: $q) {
        name ring paused
        counts { groups onRing paused saturated pending active dead }
        stats { enqueued claimed completed }
        activeGroups { id active }
        group(id: "a") { id limit active pending paused onRing state reason blockedBy }
        groups(first: 10) { totalCount edges { cursor node { id state } } }
        groupsWithPrefix(prefix: "a", first: 10) { totalCount }
        audit { __typename }
      }
    }`;
    const response = await expectRedisUnchanged(redis.client(), () =>
      get(everything, { q: queue, never: queueName('never-used') }),
    );
    expect(response.status, response.text).toBe(200);
    const body = JSON.parse(response.text);
    expect(body.errors, response.text).toBeUndefined();
    expect(body.data.queue.ring).toEqual(['a', 'c']);
  });

  it('runs no subscription: not as EventSource sends it (text/event-stream), nor as JSON', async () => {
    const ring = 'subscription($q: String!) { ringChanged(queue: $q) { ring } }';
    for (const accept of ['text/event-stream', 'application/graphql-response+json']) {
      const response = await get(ring, { q: queueName('csrf') }, { accept });
      expect(response.status, `${accept}: ${response.text}`).toBe(403);
      expect(response.text).toMatch(/"code":"FORBIDDEN"/);
      expect(response.text).toMatch(/x-graphql-yoga-csrf/);
      expect(response.text).not.toMatch(/"data"/);
    }
    // With the header (a page can add it only after a preflight), the stream opens.
    const allowed = await get(
      ring,
      { q: queueName('csrf') },
      { accept: 'text/event-stream', 'x-graphql-yoga-csrf': '1' },
    );
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.text).toMatch(/"ringChanged"/);
  });

  it('runs no mutation, with or without the header (405), and changes nothing', async () => {
    const queue = queueName('csrf');
    const enqueue = `mutation { enqueue(queue: "${queue}", group: "acme") { id } }`;
    for (const headers of [{}, { 'x-graphql-yoga-csrf': '1' }]) {
      const response = await expectRedisUnchanged(redis.client(), () =>
        get(enqueue, undefined, { accept: 'application/graphql-response+json', ...headers }),
      );
      expect(response.status, response.text).toBe(405);
      expect(response.text).toMatch(/POST/);
    }
  });
});

describe('a POST a foreign page can send without a preflight', () => {
  const simple: [string, Record<string, string>][] = [
    ['text/plain', { 'content-type': 'text/plain;charset=UTF-8' }],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no content type', {}],
  ];
  it.each(simple)('is refused as %s, a query as much as a mutation', async (_name, headers) => {
    const queue = queueName('csrf');
    for (const query of [
      `mutation { enqueue(queue: "${queue}", group: "acme") { id } }`,
      '{ queues { name } }',
    ]) {
      const body =
        headers['content-type'] === 'application/x-www-form-urlencoded'
          ? `query=${encodeURIComponent(query)}`
          : JSON.stringify({ query });
      const response = await expectRedisUnchanged(redis.client(), () =>
        fetch(api.endpoint, {
          method: 'POST',
          // fetch gives a string body text/plain unless told; a Blob with no type sends none.
          body: headers['content-type'] ? body : new Blob([body]),
          headers,
        }),
      );
      expect(response.status).toBe(403);
      expect(await response.text()).toMatch(/CSRF/);
    }
  });
});
