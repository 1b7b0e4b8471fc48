/**
 * What a web page the operator happens to visit may do to `/graphql`:
 * nothing, unless the page is served by Ringmaster itself or its origin is in `CORS_ORIGINS`.
 *
 * - **CORS**: Yoga's default answers every origin's preflight with that origin, which would let
 *   any site send JSON mutations (CSRF prevention is moot once preflights pass). Here only the
 *   origins in `CORS_ORIGINS` get CORS headers; by default none do (same-origin only).
 * - **CSRF**: a POST a browser sends cross-site without a preflight (a form, `text/plain` or
 *   no content type) is refused with 403 unless it carries one of {@link CSRF_HEADERS} — which
 *   a cross-site page cannot add without a preflight. `content-type: application/json` (curl,
 *   GraphiQL, every client) passes. A GET without such a header may run a **query** and
 *   nothing else: a query changes nothing (no read writes to Redis, not even the
 *   queue registry) and a foreign page cannot read its answer without CORS, so stock clients
 *   that send queries as GET (urql's default) need no configuration. A mutation over GET is
 *   refused by Yoga whatever the headers (405, as the GraphQL-over-HTTP spec requires); a
 *   subscription over GET without the header is refused with 403 here, so a foreign page
 *   cannot hold event streams open against the server (EventSource and no-cors fetches can
 *   send no header; SSE over POST and graphql-ws are the supported routes).
 * - **WebSocket**: browsers do not apply CORS to WebSocket upgrades, so an upgrade that carries
 *   an `Origin` (only browsers send one) must come from this server's own origin or from
 *   `CORS_ORIGINS`, or it is refused with 403 before graphql-ws sees it.
 * - **DNS rebinding**: with AUTH_TOKENS unset (loopback only) a page on `evil.example` whose DNS
 *   later points at 127.0.0.1 is "same-origin" to the browser. So, with auth off, requests and
 *   upgrades whose `Host` is not a loopback name are refused with 403.
 */
import type { IncomingMessage } from 'node:http';
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { GraphQLError, getOperationAST } from 'graphql';
import type { CORSOptions, Plugin, YogaInitialContext } from 'graphql-yoga';
import { isLoopback } from '../loopback.js';

/** Headers that force a preflight and so prove a request is not a cross-site "simple" one. */
export const CSRF_HEADERS = ['x-graphql-yoga-csrf', 'apollo-require-preflight'] as const;

export interface BrowserPolicyOptions {
  /** Origins (`https://admin.example.com`) allowed to call cross-origin. */
  readonly corsOrigins: readonly string[];
  /** Auth is off: accept only loopback `Host` names (DNS-rebinding guard). */
  readonly loopbackHostsOnly: boolean;
}

/** The authority (`host:port`) of an origin, or null when it is not an http(s) origin. */
function authorityOf(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : null;
  } catch {
    return null;
  }
}

export class BrowserPolicy {
  private readonly origins: ReadonlySet<string>;

  constructor(private readonly options: BrowserPolicyOptions) {
    this.origins = new Set(options.corsOrigins);
  }

  /** Yoga's `cors` option: the configured origins only, or no CORS headers at all. */
  get cors(): CORSOptions | false {
    if (this.origins.size === 0) return false;
    return {
      origin: [...this.origins],
      methods: ['GET', 'POST'],
      allowedHeaders: ['content-type', 'accept', 'authorization', ...CSRF_HEADERS],
      credentials: false,
      maxAge: 600,
    };
  }

  /** The Yoga plugins: the Host guard (when auth is off) and CSRF prevention. */
  plugins(): Plugin[] {
    const plugins: Plugin[] = [];
    if (this.options.loopbackHostsOnly) {
      plugins.push({
        onRequest({ request, endResponse, fetchAPI }) {
          if (isLoopback(request.headers.get('host'), 'authority')) return;
          endResponse(
            new fetchAPI.Response(
              JSON.stringify({
                errors: [
                  {
                    message:
                      'this server answers only to a loopback Host while AUTH_TOKENS is unset',
                    extensions: { code: 'FORBIDDEN' },
                  },
                ],
              }),
              { status: 403, headers: { 'content-type': 'application/json; charset=utf-8' } },
            ),
          );
        },
      });
    }
    plugins.push(useCsrfPrevention());
    return plugins;
  }

  /**
   * May this WebSocket upgrade proceed? No `Origin` (not a browser), the server's own origin, or
   * a configured one; and, with auth off, a loopback `Host`.
   */
  acceptsUpgrade(request: IncomingMessage): boolean {
    const host = request.headers.host;
    if (this.options.loopbackHostsOnly && !isLoopback(host, 'authority')) return false;
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    if (this.origins.has(origin)) return true;
    const authority = authorityOf(origin);
    return authority !== null && host !== undefined && authority === host.toLowerCase();
  }
}

/**
 * Yoga's CSRF prevention ({@link CSRF_HEADERS}), except that a GET without a preflight header
 * may carry a query: a GET request goes on to parsing, where anything but a query or a mutation
 * (which Yoga refuses over GET itself, 405) is refused with 403 FORBIDDEN. The plugin's own
 * judgement of what was preflighted is used unchanged; only its refusal of GET is deferred.
 */
function useCsrfPrevention(): Plugin {
  const csrf = useCSRFPrevention({ requestHeaders: [...CSRF_HEADERS] }) as Plugin;
  /** GETs the CSRF plugin would have refused: they may run queries only. */
  const queriesOnly = new WeakSet<Request>();
  return {
    async onRequestParse(payload) {
      try {
        await csrf.onRequestParse?.(payload);
      } catch (error) {
        if (payload.request.method !== 'GET') throw error;
        queriesOnly.add(payload.request);
      }
    },
    onParse() {
      return ({ result, context }) => {
        // WebSocket operations carry no `request` (ws.ts): an upgrade is checked by its Origin.
        const { request, params } = context as Partial<YogaInitialContext>;
        if (!request || !queriesOnly.has(request) || result instanceof Error) return;
        const operation = getOperationAST(result, params?.operationName);
        if (operation?.operation !== 'subscription') return;
        throw new GraphQLError(
          `a subscription over GET needs an ${CSRF_HEADERS[0]} header (a page of another site could otherwise hold it open); subscribe over POST with accept: text/event-stream, or over graphql-ws`,
          { extensions: { code: 'FORBIDDEN', http: { status: 403 } } },
        );
      };
    },
  };
}
