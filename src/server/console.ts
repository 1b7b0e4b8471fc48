/**
 * The admin console, served from `console/dist` (built by `npm run build:console`, or by
 * `npm start` first when console/ changed since the last build): `GET /` is its page, `GET /assets/<file>` its hashed bundle.
 * Every other request goes on to Yoga (`/graphql`, `/health`, `/ready`).
 *
 * Only two shapes of path are served, checked before the file system is touched: `/` (or
 * `/index.html`) and `/assets/` followed by one plain file name — no slash, no leading dot, no
 * percent-escape — so no request can reach a file outside `console/dist/assets`.
 */
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { Logger } from 'pino';
import { acceptsGzip } from './acceptEncoding.js';
import { antiFramingHeaders } from './pageHeaders.js';

/** `console/dist`, from `src/server` (tsx) and from `dist/server` (the compiled build) alike. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const ASSET = /^\/assets\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,200})$/;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.js', '.css', '.html', '.svg', '.json', '.map']);

// The page loads only its own files and talks only to its own origin (HTTP and WebSocket), and
// no other page may frame it (the anti-framing set GraphiQL's page sends too).
const PAGE_HEADERS = antiFramingHeaders([
  "default-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
]);

export interface ConsoleOptions {
  /** AUTH_TOKENS is set: the page asks for a token before anything else. */
  readonly authRequired: boolean;
  readonly logger: Logger;
  /** Where the built console is; default {@link CONSOLE_DIST}. */
  readonly dir?: string;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

interface Cached {
  mtimeMs: number;
  body: Buffer;
  gzipped: Buffer | null;
}

/**
 * Wrap `next` (Yoga) so the console's paths are answered here and everything else is passed on
 * untouched, synchronously, before any byte of the request is read.
 */
export function withConsole(next: Listener, options: ConsoleOptions): Listener {
  const dir = options.dir ?? CONSOLE_DIST;
  const assets = path.join(dir, 'assets');
  const cache = new Map<string, Cached>();

  /** The file, from memory while its mtime is unchanged (a rebuild is picked up). */
  const load = async (file: string, transform?: (text: string) => string): Promise<Cached> => {
    const info = await stat(file);
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === info.mtimeMs) return hit;
    let body = await readFile(file);
    if (transform) body = Buffer.from(transform(body.toString('utf8')));
    const ext = path.extname(file);
    const gzipped = COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body) : null;
    const entry = { mtimeMs: info.mtimeMs, body, gzipped };
    cache.set(file, entry);
    return entry;
  };

  const injectAuth = (html: string): string =>
    html.replace(
      /<meta name="ringmaster-auth" content="[^"]*"\s*\/?>/,
      `<meta name="ringmaster-auth" content="${options.authRequired ? 'on' : 'off'}" />`,
    );

  const send = (
    req: IncomingMessage,
    res: ServerResponse,
    file: Cached,
    headers: Record<string, string>,
  ): void => {
    const gzip = file.gzipped !== null && acceptsGzip(req.headers['accept-encoding']);
    const body = gzip ? (file.gzipped as Buffer) : file.body;
    res.writeHead(200, {
      ...headers,
      'content-length': String(body.length),
      'x-content-type-options': 'nosniff',
      ...(file.gzipped !== null ? { vary: 'accept-encoding' } : {}),
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const serve = async (req: IncomingMessage, res: ServerResponse, asset: string | null) => {
    try {
      if (asset === null) {
        const page = await load(path.join(dir, 'index.html'), injectAuth);
        send(req, res, page, {
          'content-type': TYPES['.html'] as string,
          'cache-control': 'no-cache',
          ...PAGE_HEADERS,
          'referrer-policy': 'no-referrer',
        });
        return;
      }
      const file = path.join(assets, asset);
      if (!file.startsWith(assets + path.sep)) throw Object.assign(new Error(), { code: 'ENOENT' });
      const ext = path.extname(asset);
      send(req, res, await load(file), {
        'content-type': TYPES[ext] ?? 'application/octet-stream',
        // Vite puts a content hash in every asset's name: a name never changes content.
        'cache-control': 'public, max-age=31536000, immutable',
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
        if (asset === null) {
          res.writeHead(503, { 'content-type': 'text/html; charset=utf-8' });
          res.end(NOT_BUILT);
        } else {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('not found\n');
        }
        return;
      }
      options.logger.error({ err: (error as Error).message }, 'console: cannot serve a file');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('internal error\n');
    }
  };

  return (req, res) => {
    const method = req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      const pathname = (req.url ?? '/').split('?', 1)[0] as string;
      if (pathname === '/' || pathname === '/index.html') {
        void serve(req, res, null);
        return;
      }
      const asset = ASSET.exec(pathname)?.[1];
      if (asset !== undefined) {
        void serve(req, res, asset);
        return;
      }
    }
    return next(req, res);
  };
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Ringmaster</title>
<body style="font:14px system-ui;max-width:40em;margin:4em auto">
<h1>The console is not built</h1>
<p>Run <code>npm run build:console</code> (or start the server with <code>npm start</code>, which
builds it first). The GraphQL API is at <a href="/graphql">/graphql</a>.</p>
`;
