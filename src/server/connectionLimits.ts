/**
 * WebSocket connections per client (one bound on what subscribers may make the server hold): at most
 * MAX_CONNECTIONS_PER_CLIENT open at once per client address where auth is off, per token where
 * it is on (behind a proxy every client may share one address; a token is who the caller is).
 * A socket past the bound is closed with {@link TOO_MANY_CONNECTIONS} and a reason naming it.
 */
import type { WebSocket } from 'ws';

/**
 * The close code for a socket past the bound: 1013 "Try Again Later" (RFC 6455, IANA registry).
 * graphql-ws clients retry it with their backoff, and get in once one of their other sockets
 * has closed.
 */
export const TOO_MANY_CONNECTIONS = 1013;

/** MAX_CONNECTIONS_PER_CLIENT's default: far above a console's few tabs, far below a runaway loop. */
export const DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 1_000;

export class ConnectionLimiter {
  private readonly open = new Map<string, number>();
  /** The key each admitted socket counts against, until it closes. */
  private readonly keys = new WeakMap<WebSocket, string>();
  /**
   * One `close` listener for every socket this limiter admitted, not a closure and a `once`
   * wrapper per socket (~0.2 KB each; PERFORMANCE.md §5). `this` is the socket.
   */
  private readonly onClose: (this: WebSocket) => void;

  /** @param max sockets per client key, at least 1 */
  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) {
      throw new RangeError(`ConnectionLimiter: max must be a whole number >= 1, got ${max}`);
    }
    const { open, keys } = this;
    this.onClose = function onClose(this: WebSocket) {
      this.removeListener('close', onClose);
      const key = keys.get(this);
      if (key === undefined) return;
      keys.delete(this);
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    };
  }

  /** The close reason sent past the bound (≤ 123 bytes, as a close frame allows). */
  get reason(): string {
    return `too many connections from this client: at most ${this.max} (MAX_CONNECTIONS_PER_CLIENT)`;
  }

  /**
   * Count `socket` against `key` until it closes, or close it (code {@link TOO_MANY_CONNECTIONS})
   * when `key` has `max` open already.
   * @returns whether the socket was admitted
   */
  admit(key: string, socket: WebSocket): boolean {
    const open = this.open.get(key) ?? 0;
    if (open >= this.max) {
      socket.close(TOO_MANY_CONNECTIONS, this.reason);
      return false;
    }
    this.open.set(key, open + 1);
    this.keys.set(socket, key);
    socket.on('close', this.onClose);
    return true;
  }
}
