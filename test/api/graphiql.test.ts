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

// test/api/graphiql.e2e.test.ts shows it in a browser. Over graphql-ws GraphiQL sends no
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

// GraphiQL pre-fills its editor from `?query=`: a page of another site framing it could dress an
// operator's click up as something else (clickjacking). It refuses framing as the console's `/`
// does (src/server/pageHeaders.ts), on the page, its gzip and its 304.
it('refuses to be framed by another page (CSP frame-ancestors and X-Frame-Options)', async () => {
  const url = `${api.endpoint}?query=${encodeURIComponent('{ queues { name } }')}`;
  const plain = await fetch(url, {
    headers: { accept: 'text/html', 'accept-encoding': 'identity' },
  });
  const gzipped = await fetch(url, { headers: { accept: 'text/html', 'accept-encoding': 'gzip' } });
  const etag = plain.headers.get('etag') ?? '';
  const revalidated = await fetch(url, {
    headers: { accept: 'text/html', 'if-none-match': etag },
  });
  expect([plain.status, gzipped.status, revalidated.status]).toEqual([200, 200, 304]);
  for (const response of [plain, gzipped, revalidated]) {
    expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  }
});
