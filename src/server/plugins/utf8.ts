/**
 * Text that is not UTF-8 is refused on every transport, never decoded lossily.
 * A decoder that is not fatal turns each invalid byte sequence into U+FFFD, so raw bytes
 * `FF FE C3` in a group id became group `u\uFFFD\uFFFD\uFFFD` — and two different invalid
 * inputs named one group.
 *
 * - HTTP and SSE (Yoga's transport, `yoga.ts`): {@link useStrictUtf8} reads a request body once,
 *   checks its bytes (`buffer.isUtf8`) and hands the same bytes to Yoga's own parser; it checks
 *   too that percent-escapes (a GET's query string, a form body) decode to UTF-8. Otherwise:
 *   BAD_USER_INPUT, HTTP 400, before anything is parsed.
 * - WebSocket (`ws.ts`): the `ws` library checks a text frame itself and closes the socket with
 *   1007. A binary frame it hands on as bytes, which graphql-ws turns into text with
 *   `String(data)` — lossily; {@link Utf8WebSocket} closes the socket with 1007 for a binary frame
 *   that is not UTF-8 before graphql-ws sees it.
 */
import { isUtf8 } from 'node:buffer';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { WebSocket } from 'ws';

/** Close code for a message that is not UTF-8 (RFC 6455 §7.4.1, as `ws` uses for text frames). */
export const INVALID_UTF8_CLOSE = 1007;

const invalid = (what: string): GraphQLError =>
  new GraphQLError(`${what} is not valid UTF-8`, {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } },
  });

/**
 * Whether the percent-escapes of `text` (an `application/x-www-form-urlencoded` string: a query
 * string or a form body) decode to UTF-8. `URLSearchParams` decodes them lossily; the built-in
 * `decodeURIComponent` throws URIError on exactly the escapes that are not UTF-8 — and on a `%`
 * that starts no escape, which `URLSearchParams` keeps as it is, so those are escaped first.
 */
export function percentEscapesAreUtf8(text: string): boolean {
  try {
    decodeURIComponent(text.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
    return true;
  } catch {
    return false;
  }
}

const isForm = (request: Request): boolean =>
  /^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers.get('content-type') ?? '');

/** The Yoga plugin for HTTP and SSE. */
export function useStrictUtf8(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      // Only GET reads parameters from the URL. (A raw byte ≥ 0x80 in the request target never
      // gets here: Node's HTTP parser answers 400 for it.)
      const query = request.url.indexOf('?');
      if (request.method === 'GET' && query >= 0) {
        if (!percentEscapesAreUtf8(request.url.slice(query + 1))) {
          throw invalid('the query string');
        }
      }
      if (requestParser == null || request.body == null) return;
      const parse = requestParser;
      setRequestParser(async (received) => {
        // Once: the bytes are checked here and the parser reads these same bytes. The body is
        // bounded by `maxRequestBodySize` (Yoga's limit wraps this parser).
        const bytes = new Uint8Array(await received.arrayBuffer());
        if (!isUtf8(bytes)) throw invalid('the request body');
        if (isForm(received) && !percentEscapesAreUtf8(new TextDecoder().decode(bytes))) {
          throw invalid('a percent-escape in the request body');
        }
        return parse(
          new fetchAPI.Request(received.url, {
            method: received.method,
            headers: received.headers,
            body: bytes,
            signal: received.signal,
          }),
        );
      });
    },
  };
}

/**
 * `ws`' WebSocket, passed to the WebSocketServer as its `WebSocket` class: a binary message whose
 * bytes are not UTF-8 closes the socket (1007) and reaches no listener — graphql-ws would read it
 * as text with U+FFFD in place of each invalid sequence. A binary message that is UTF-8 is passed
 * on (graphql-ws reads text from either kind), and so is every text message (`ws` has checked
 * it). Nothing is passed on once the socket is closing.
 *
 * A frame that breaks the protocol (a text frame that is not UTF-8, one over `maxPayload`, …)
 * `ws` answers by closing the socket with the RFC's code (1007, 1009, 1002) and then an `error`
 * event whose `code` starts with `WS_ERR_`; graphql-ws printed each to stderr as "Internal error
 * … Please check your implementation". It is the client's mistake, answered already: not passed on.
 */
export class Utf8WebSocket extends WebSocket {
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error' && String((args[0] as { code?: unknown })?.code).startsWith('WS_ERR_')) {
      return true;
    }
    if (event === 'message') {
      if (this.readyState !== WebSocket.OPEN) return false;
      const [data, isBinary] = args as [Buffer | ArrayBuffer | Buffer[], boolean];
      if (isBinary && !isUtf8(Array.isArray(data) ? Buffer.concat(data) : data)) {
        this.close(INVALID_UTF8_CLOSE, 'a binary frame that is not UTF-8');
        return false;
      }
    }
    return super.emit(event, ...args);
  }
}
