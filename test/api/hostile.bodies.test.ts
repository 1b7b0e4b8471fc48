/**
 * Request bodies over 1 MiB (DESIGN.md §5), sent whole or streamed in chunks, are refused (413,
 * or an error for the oversized variable), change nothing in Redis, and leave the server up.
 * Bodies that are malformed rather than big are rows of the HTTP table (hostile.http.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES } from '../../src/server/plugins/limits.js';
import { QUEUE } from '../fixtures/hostile/documents.js';
import { codes, expectNoLeak, expectRedisUnchanged, post } from '../support/api.js';
import { useSeededServer } from '../support/seededServer.js';

const hostile = useSeededServer(QUEUE);

describe('request bodies over 1 MiB', () => {
  const alive = async () => {
    const response = await post(hostile.api.endpoint, { query: '{ queues { name } }' });
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
      const response = await expectRedisUnchanged(hostile.r, () =>
        post(hostile.api.endpoint, body),
      );
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
    const response = await fetch(hostile.api.endpoint, {
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
});
