/**
 * INTROSPECTION=false turns introspection off on every transport (HTTP, SSE, WebSocket), and
 * with it the "Did you mean …?" suggestions that would spell the schema out; __typename and
 * ordinary operations still work.
 */
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { codes, post, wsOperation } from '../support/api.js';
import { useSeededServer } from '../support/seededServer.js';
import { useTestServer } from '../support/server.js';

const hostile = useSeededServer(QUEUE);

describe('INTROSPECTION=false', () => {
  const closed = useTestServer({ INTROSPECTION: 'false' }, { redis: hostile.redis });

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
    const open = await post(hostile.api.endpoint, { query: getIntrospectionQuery() });
    expect(open.status).toBe(200);
    expect(open.json?.errors).toBeUndefined();
    const suggestion = await post(hostile.api.endpoint, { query: '{ queus { name } }' });
    expect(suggestion.text).toMatch(/Did you mean/);
  });
});
