/**
 * GraphiQL's page at `GET /graphql` (a browser's `accept: text/html`), served here rather than by
 * Yoga's own plugin so it is rendered once and sent compressed. `@graphql-yoga/render-graphiql`
 * inlines GraphiQL's whole bundle as one ~9 MB string: importing it at start cost ~33 MiB of the
 * server's idle RSS and ~32 MiB of its heap (PERFORMANCE.md §5), so it is imported on the first
 * request for it; and Yoga's hook renders it on every request, a fresh 9 MB string and response
 * each time (RSS 87 → 270 MB after 16 loads), so the page is rendered once per options and kept,
 * with its gzip (~2.4 MB), computed once, sent to a client that accepts gzip.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { acceptsGzip } from './acceptEncoding.js';
import { antiFramingHeaders } from './pageHeaders.js';

const gzipAsync = promisify(gzip);

/** A rendered page: its HTML, that HTML gzipped, and an entity tag for both (quoted). */
export interface GraphiQLPage {
  readonly html: Buffer;
  readonly gzipped: Buffer;
  readonly etag: string;
}

let renderer: Promise<(options: GraphiQLOptions) => string> | undefined;
/** Pages by their options (JSON); a failed render is forgotten, so the next request retries. */
const pages = new Map<string, Promise<GraphiQLPage>>();

/**
 * The page for `options`, rendered and compressed on the first call (a few hundred ms, more on a
 * loaded machine) and the same object on every later one; calls made meanwhile share the work.
 * GraphiQL comes from the installed package (no CDN, so it works offline).
 * @throws whatever the import throws (the package missing); the next call tries again
 */
export function graphiQLPage(options: GraphiQLOptions): Promise<GraphiQLPage> {
  const key = JSON.stringify(options);
  let page = pages.get(key);
  if (page === undefined) {
    page = render(options);
    pages.set(key, page);
    page.catch(() => pages.delete(key));
  }
  return page;
}

async function render(options: GraphiQLOptions): Promise<GraphiQLPage> {
  renderer ??= import('@graphql-yoga/render-graphiql').then(
    (module) => module.renderGraphiQL,
    (error: unknown) => {
      renderer = undefined;
      throw error;
    },
  );
  const html = Buffer.from((await renderer)(options));
  const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;
  return { html, gzipped: await gzipAsync(html), etag };
}

/**
 * Serve GraphiQL for `GET endpoint` (or `endpoint/`) asked with `accept: text/html`, as Yoga's
 * own plugin decides (Yoga's `graphiql` is then off). The answer: 200 with the page, gzipped when
 * the request accepts gzip, `vary: accept-encoding`, `cache-control: no-cache`, the anti-framing
 * headers of the console's page (`antiFramingHeaders`) and an ETag (the
 * page changes only with the server's version, so a browser revalidates and gets 304 for a
 * matching `if-none-match`).
 */
export function useGraphiQLPage(endpoint: string, options: GraphiQLOptions): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' || !request.headers.get('accept')?.includes('text/html')) return;
      if (url.pathname !== endpoint && url.pathname !== `${endpoint}/`) return;
      return graphiQLPage(options).then((page) => {
        const headers: Record<string, string> = {
          'content-type': 'text/html; charset=utf-8',
          'x-content-type-options': 'nosniff',
          vary: 'accept-encoding',
          'cache-control': 'no-cache',
          etag: page.etag,
          // It pre-fills its editor from `?query=`: no other site may frame it (as the console).
          ...antiFramingHeaders(),
        };
        if (request.headers.get('if-none-match') === page.etag) {
          endResponse(new fetchAPI.Response(null, { status: 304, headers }));
          return;
        }
        const gzipped = acceptsGzip(request.headers.get('accept-encoding'));
        const body = gzipped ? page.gzipped : page.html;
        if (gzipped) headers['content-encoding'] = 'gzip';
        headers['content-length'] = String(body.length);
        // A view, not a copy, of the kept bytes.
        const view = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
        endResponse(new fetchAPI.Response(view, { status: 200, headers }));
      });
    },
  };
}
