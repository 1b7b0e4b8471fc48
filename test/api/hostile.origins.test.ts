/**
 * Browsers of other origins are kept out: no CORS headers unless CORS_ORIGINS lists the origin,
 * CSRF prevention on HTTP, the Origin of a WebSocket upgrade checked — while what real clients
 * send (curl's JSON, GraphiQL, a same-origin socket, SSE over POST, GET with a preflight header)
 * still works.
 */
import { describe, expect, it } from 'vitest';
import { CSRF_HEADERS } from '../../src/server/plugins/browser.js';
import { gql, QUEUE } from '../fixtures/hostile/documents.js';
import { ACK, INIT, RING, subscribe } from '../fixtures/hostile/ws.js';
import { post } from '../support/api.js';
import { playWs, send } from '../support/hostile.js';
import { useSeededServer } from '../support/seededServer.js';
import { startTestServer } from '../support/server.js';

const hostile = useSeededServer(QUEUE);

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
    const response = await preflight(hostile.api.endpoint, 'https://evil.example');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.status).toBeGreaterThanOrEqual(400);
    const simple = await send(
      {
        body: gql('{ queues { name } }'),
        headers: { origin: 'https://evil.example' },
      },
      hostile.api.endpoint,
    );
    expect(simple.status).toBe(200); // not a browser: nothing to protect it from
    const read = await fetch(hostile.api.endpoint, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body: gql('{ queues { name } }'),
    });
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS_ORIGINS lets exactly the listed origins in, over HTTP and WebSocket', async () => {
    const listed = 'https://admin.example';
    const cors = await startTestServer(hostile.redis.url, {
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
    const readme = await send(
      {
        body: gql('{ queue(name: "hostile") { ring } }'),
        headers: { accept: null },
      },
      hostile.api.endpoint,
    );
    expect(readme.status).toBe(200);
    expect(readme.json?.data).toBeDefined();
    const graphiql = await fetch(hostile.api.endpoint, { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(await graphiql.text()).toMatch(/GraphiQL|graphiql/);
    const origin = hostile.api.server.url;
    const sameOrigin = await playWs(
      {
        name: 'same origin',
        steps: [
          { send: INIT },
          ACK,
          { send: subscribe('1', '{ queues { name } }') },
          { await: 'next' },
        ],
        headers: { origin },
      },
      hostile.api.endpoint,
    );
    expect(sameOrigin.stillOpen).toBe(true);
    const sse = await post(hostile.api.endpoint, { query: RING }, { accept: 'text/event-stream' });
    expect(sse.status).toBe(200);
    expect(sse.json?.data).toEqual({
      ringChanged: { ring: await hostile.r.lrange(`emq:{${QUEUE}}:ring`, 0, -1) },
    });
    for (const header of CSRF_HEADERS) {
      const get = await send(
        {
          method: 'GET',
          path: `?query=${encodeURIComponent('{ queues { name } }')}`,
          headers: { 'content-type': null, [header]: '1' },
        },
        hostile.api.endpoint,
      );
      expect(get.status, header).toBe(200);
      expect(get.json?.data).toEqual({ queues: expect.any(Array) });
    }
  });
});
