/** GraphiQL at /graphql is served from the installed package: no CDN, so it works offline. */
import { expect, it } from 'vitest';
import { startTestServer, useTestServer } from '../support/server.js';

const api = useTestServer();
const { redis } = api;

it('serves GraphiQL with its code inline, loading nothing from another host', async () => {
  const response = await fetch(api.endpoint, { headers: { accept: 'text/html' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/html');
  const html = await response.text();
  expect(html).toContain('Ringmaster');
  expect(html).not.toMatch(/<script[^>]+src=["']https?:/);
  expect(html).not.toMatch(/<link[^>]+href=["']https?:/);
  expect(html).not.toContain('unpkg.com');
});

// Issue 13; test/api/graphiql.e2e.test.ts shows it in a browser. Over graphql-ws GraphiQL sends no
// Headers-tab token; over GET no CSRF header (a GET subscription without one is refused).
it('has GraphiQL send subscriptions as SSE over POST, which carries the Headers tab', async () => {
  const response = await fetch(api.endpoint, { headers: { accept: 'text/html' } });
  const html = await response.text();
  const options =
    /renderYogaGraphiQL\(\s*window\.document\.querySelector\('#root'\),\s*(\{.*\}),\s*\);/.exec(
      html,
    );
  expect(options, 'GraphiQL options in the page').not.toBeNull();
  expect(JSON.parse(options?.[1] as string)).toMatchObject({
    subscriptionsProtocol: 'SSE',
    method: 'POST',
  });
});

// GraphiQL's package is imported on the first request for it (src/server/graphiql.ts), not at
// start: requests that arrive together before it is loaded all get the page, the same page.
it('serves the same page to requests made together on a fresh server, and after', async () => {
  const fresh = await startTestServer(redis.url);
  try {
    const get = async () => {
      const response = await fetch(fresh.endpoint, { headers: { accept: 'text/html' } });
      expect(response.status).toBe(200);
      return response.text();
    };
    const pages = await Promise.all([get(), get(), get()]);
    pages.push(await get());
    expect(pages[0]).toContain('renderYogaGraphiQL');
    expect(new Set(pages).size).toBe(1);
  } finally {
    await fresh.stop();
  }
});
