/**
 * Serving the built console (src/server/console.ts): `/` and `/assets/<file>` from a dist
 * folder with the right types, caching and compression, the auth flag written into the page,
 * nothing outside `assets/` reachable, every other request passed on untouched.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withConsole } from '../../src/server/console.js';

const PAGE = `<!doctype html><html><head>
<meta name="ringmaster-auth" content="off" />
<script type="module" src="/assets/app-1234.js"></script></head><body></body></html>`;
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4_000))});`;

let dir: string;
const servers: Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-console-'));
  mkdirSync(path.join(dir, 'dist', 'assets'), { recursive: true });
  writeFileSync(path.join(dir, 'dist', 'index.html'), PAGE);
  writeFileSync(path.join(dir, 'dist', 'assets', 'app-1234.js'), SCRIPT);
  writeFileSync(path.join(dir, 'dist', 'assets', 'app-1234.css'), 'body{color:red}');
  // A file beside dist that no request may reach.
  writeFileSync(path.join(dir, 'secret.txt'), 'TOP-SECRET-CONTENT');
  writeFileSync(path.join(dir, 'dist', 'secret.txt'), 'TOP-SECRET-CONTENT');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(dir, { recursive: true, force: true });
});

/** A server whose fallback answers 418 with the path, so a pass-through is visible. */
async function serve(options: { authRequired?: boolean; dist?: string } = {}): Promise<string> {
  const server = createServer(
    withConsole(
      (req, res) => {
        res.writeHead(418, { 'content-type': 'text/plain' });
        res.end(`next:${req.method} ${req.url}`);
      },
      {
        authRequired: options.authRequired ?? false,
        logger: pino({ level: 'silent' }),
        dir: options.dist ?? path.join(dir, 'dist'),
      },
    ),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw GET (no URL normalisation: `..` and `%2e` reach the server as written). */
function raw(
  base: string,
  pathname: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: pathname, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console at /', () => {
  it('serves the page, uncached, with the auth flag off or on', async () => {
    const off = await raw(await serve(), '/');
    expect(off.status).toBe(200);
    expect(off.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(off.headers['cache-control']).toBe('no-cache');
    expect(off.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(off.headers['x-content-type-options']).toBe('nosniff');
    expect(off.body.toString()).toContain('<meta name="ringmaster-auth" content="off" />');

    const on = await raw(await serve({ authRequired: true }), '/index.html');
    expect(on.body.toString()).toContain('<meta name="ringmaster-auth" content="on" />');
  });

  it('serves hashed assets with their type, cached for ever, gzipped when asked', async () => {
    const base = await serve();
    const js = await raw(base, '/assets/app-1234.js');
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(js.body.toString()).toBe(SCRIPT);

    const gz = await raw(base, '/assets/app-1234.js', { 'accept-encoding': 'gzip, br' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.body.length).toBeLessThan(SCRIPT.length / 4);
    // The same negotiation as GraphiQL's page (src/server/acceptEncoding.ts): q=0 refuses.
    for (const refused of ['gzip;q=0, identity', '*, gzip;q=0', 'br']) {
      const plain = await raw(base, '/assets/app-1234.js', { 'accept-encoding': refused });
      expect(plain.headers['content-encoding'], refused).toBeUndefined();
      expect(plain.body.toString()).toBe(SCRIPT);
    }
    const star = await raw(base, '/assets/app-1234.js', { 'accept-encoding': '*' });
    expect(star.headers['content-encoding']).toBe('gzip');

    const css = await raw(base, '/assets/app-1234.css?v=1');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');

    const head = await raw(base, '/assets/app-1234.js', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it('reaches nothing outside assets/, whatever the path says', async () => {
    const base = await serve();
    for (const pathname of [
      '/assets/../secret.txt',
      '/assets/..%2fsecret.txt',
      '/assets/%2e%2e/secret.txt',
      '/assets/..',
      '/assets/.hidden',
      '/assets/a/b.js',
      '/assets/',
      '/assets/missing-1.js',
    ]) {
      const response = await raw(base, pathname);
      expect(response.body.toString(), pathname).not.toContain('TOP-SECRET-CONTENT');
      // Either a plain 404 from here or a pass-through to the next handler (Yoga's 404).
      expect([404, 418], pathname).toContain(response.status);
    }
    expect((await raw(base, '/secret.txt')).status).toBe(418);
  });

  it('passes every other request on untouched', async () => {
    const base = await serve();
    for (const [method, pathname] of [
      ['GET', '/graphql?query=%7B__typename%7D'],
      ['POST', '/'],
      ['GET', '/health'],
      ['GET', '/favicon.ico'],
    ] as const) {
      const response = await raw(base, pathname, {}, method);
      expect(response.status).toBe(418);
      expect(response.body.toString()).toBe(`next:${method} ${pathname}`);
    }
  });

  it('says how to build the console when it is not built', async () => {
    const base = await serve({ dist: path.join(dir, 'nowhere') });
    const page = await raw(base, '/');
    expect(page.status).toBe(503);
    expect(page.body.toString()).toContain('npm run build:console');
    expect((await raw(base, '/assets/app-1234.js')).status).toBe(404);
  });
});
