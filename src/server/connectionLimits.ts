/**
 * Connections per client (one bound on what subscribers may make the server hold, DESIGN.md
 * §4.4 "Bounds"): WebSockets and SSE streams counted together, at most
 * MAX_CONNECTIONS_PER_CLIENT open at once per client — its address where auth is off, its token
 * where it is on (behind a proxy every client may share one address; a token is who the caller
 * is). A socket past the bound is closed with {@link TOO_MANY_CONNECTIONS} and {@link
 * ConnectionLimiter.reason}; an SSE subscription past it is answered LIMIT_EXCEEDED
 * (`plugins/streamLimit.ts`).
 */
import type { EventEmitter } from 'node:events';

/**
 * The close code for a socket past the bound: 1013 "Try Again Later" (RFC 6455, IANA registry).
 * graphql-ws clients retry it with their backoff, and get in once one of their other sockets
 * has closed.
 */
export const TOO_MANY_CONNECTIONS = 1013;

/** MAX_CONNECTIONS_PER_CLIENT's default: far above a console's few tabs, far below a runaway loop. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 1_000;

/**
 * What is counted: open until it emits `close` — a `ws` WebSocket, or the `http`
 * ServerResponse of an SSE stream (emitted once the response has ended or its connection gone).
 */
export type Connection = Pick<EventEmitter, 'on' | 'removeListener'>;

/**
 * The key a client's connections count against: `token:<n>` (its place in AUTH_TOKENS) where
 * auth is on, `address:<remote address>` where it is off.
 * @param tokenKey the caller's token key (`Authenticator.tokenKey`), null when auth is off
 */
export function clientKey(tokenKey: string | null, remoteAddress: string | undefined): string {
  return tokenKey ?? `address:${remoteAddress ?? 'unknown'}`;
}

export class ConnectionLimiter {
  private readonly open = new Map<string, number>();
  /** The key each admitted connection counts against, until it closes. */
  private readonly keys = new WeakMap<Connection, string>();
  /**
   * One `close` listener for every connection this limiter admitted, not a closure and a `once`
   * wrapper per connection (~0.2 KB each; PERFORMANCE.md §5). `this` is the connection.
   */
  private readonly onClose: (this: Connection) => void;

  /** @param max connections per client key, at least 1 */
  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) {
      throw new RangeError(`ConnectionLimiter: max must be a whole number >= 1, got ${max}`);
    }
    const { open, keys } = this;
    this.onClose = function onClose(this: Connection) {
      this.removeListener('close', onClose);
      const key = keys.get(this);
      if (key === undefined) return;
      keys.delete(this);
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    };
  }

  /** The refusal's message, also a socket's close reason (≤ 123 bytes, as a close frame allows). */
  get reason(): string {
    return `too many connections (WebSockets and SSE streams) from this client: at most ${this.max} (MAX_CONNECTIONS_PER_CLIENT)`;
  }

  /**
   * Count `connection` against `key` until it emits `close`; refuse it (the caller closes or
   * answers it) when `key` has `max` open already.
   * @returns whether the connection was admitted
   */
  admit(key: string, connection: Connection): boolean {
    const open = this.open.get(key) ?? 0;
    if (open >= this.max) return false;
    this.open.set(key, open + 1);
    this.keys.set(connection, key);
    connection.on('close', this.onClose);
    return true;
  }
}
