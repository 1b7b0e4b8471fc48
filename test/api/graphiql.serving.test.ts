/**
 * GraphiQL's ~9 MB page is rendered once per options and kept, and sent gzipped (precomputed
 * once) to a client that accepts gzip: Yoga's hook rendered it afresh on every request,
 * uncompressed (server RSS 87 → 270 MB after 16 loads).
 */
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '../../src/server/acceptEncoding.js';
import { graphiQLPage } from '../../src/server/graphiql.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** GET /graphql as a browser asks for a page, with exactly `headers` (no implicit gzip). */
function get(headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(
      api.endpoint,
      { headers: { accept: 'text/html,application/xhtml+xml', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('GraphiQL page', () => {
  it('without accept-encoding: the page as is, with vary and a cache header', async () => {
    const plain = await get({});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(plain.headers.etag).toMatch(/^".+"$/);
    expect(plain.body.toString('utf8')).toContain('renderYogaGraphiQL');
  });

  it('with gzip accepted: the same page gzipped, a fraction of its size', async () => {
    const plain = await get({});
    const zipped = await get({ 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.headers.etag).toBe(plain.headers.etag);
  });

  it('gzip refused with q=0: the page as is', async () => {
    const plain = await get({ 'accept-encoding': 'gzip;q=0, identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString('utf8')).toContain('renderYogaGraphiQL');
  });

  it('a revalidation with the ETag gets 304 and no body', async () => {
    const first = await get({});
    const again = await get({ 'if-none-match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('is rendered once per options: requests get the same page, the cache the same object', async () => {
    const [a, b] = await Promise.all([get({}), get({})]);
    expect(a.body.equals(b.body)).toBe(true);
    const options = { title: 'cache check' };
    const first = graphiQLPage(options);
    expect(graphiQLPage({ ...options })).toBe(first);
    expect(await graphiQLPage({ title: 'cache check' })).toBe(await first);
    expect(await graphiQLPage({ title: 'another' })).not.toBe(await first);
  });
});

describe('acceptsGzip', () => {
  it.each([
    ['gzip', true],
    ['gzip, deflate, br', true],
    ['br;q=1.0, gzip;q=0.8', true],
    ['GZIP', true],
    ['*', true],
    ['gzip;q=0', false],
    ['*;q=0', false],
    ['br', false],
    ['identity', false],
    ['*, gzip;q=0', false],
    ['gzip;q=0, *', false],
  ])('%s → %s', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
  it('no header: no', () => expect(acceptsGzip(null)).toBe(false));
});
