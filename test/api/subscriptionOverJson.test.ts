/**
 * A subscription asked over plain HTTP for JSON: 406 with a GraphQL error (BAD_REQUEST) saying
 * to use SSE or graphql-ws, in the media type asked for — it was a 406 with an empty body.
 */
import { expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

it.each([
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
  [
    'application/graphql-response+json, application/json;q=0.9',
    'application/graphql-response+json',
  ],
])(
  'accept: %s → 406, a BAD_REQUEST error naming SSE and graphql-ws, as %s',
  async (accept, type) => {
    const response = await fetch(api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query: 'subscription { ringChanged(queue: "json-only") { ring } }' }),
    });
    expect(response.status).toBe(406);
    expect(response.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
    const body = (await response.json()) as {
      data?: unknown;
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]?.extensions.code).toBe('BAD_REQUEST');
    expect(body.errors[0]?.message).toMatch(/accept: text\/event-stream.*graphql-ws/);
  },
);

it('the same subscription with accept: text/event-stream is served (SSE)', async () => {
  const controller = new AbortController();
  const response = await fetch(api.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { ringChanged(queue: "json-only") { ring } }' }),
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  controller.abort();
});
