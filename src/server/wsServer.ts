/**
 * graphql-ws' server (`makeServer`) on `ws` sockets: what `graphql-ws/use/ws`'s `useServer` does,
 * with three costs per socket or per delivery taken out (PERFORMANCE.md §4, §5):
 *
 * - **One keep-alive timer for every socket**, not a `setInterval` per socket plus a `pong`
 *   listener added per ping. Every `keepAliveMs` each socket that answered the previous ping is
 *   pinged again and each that did not is terminated: a dead peer goes within one to two periods
 *   (useServer: within one to two as well, timed per socket).
 * - **A message is sent without a promise and a write callback** while the socket keeps up: the
 *   operation's loop waits for the write to finish only when earlier data is still queued in the
 *   socket, which is the back-pressure useServer's per-message promise gives (a slow reader
 *   holds up only its own subscriptions, whose streams conflate meanwhile).
 * - **A `next` payload can be serialized once for every socket** ({@link RawPayload}): `onNext`
 *   returns the same RawPayload to every subscriber of one shared result, and only the
 *   `{"id":…,"type":"next","payload":` envelope is stringified per socket. The bytes on the wire
 *   are exactly those graphql-ws' own `JSON.stringify` of the message would give.
 * - **A subscription can deliver without graphql-ws' loop** ({@link pushedOperation}): for a
 *   stream that can be pulled without a promise (the shared execution's over the live feed's),
 *   the subscribe hook hands graphql-ws an operation whose `next` messages are written as the
 *   stream's events come, within the feed's own loop over its subscribers: the payload encoded
 *   once per result, each socket's frame written by one call, no promise per delivery.
 *   graphql-ws still owns the operation's start, its `complete` and `error` messages and its
 *   end (the client's `complete`, the socket's close).
 *
 * - **An operation id is reused only once its earlier operation has wound down.** makeServer
 *   frees an id at the client's `complete` while the operation's `subscribe` may still be
 *   running (its hooks await); a `subscribe` that reuses the id then shares makeServer's entry
 *   with it, and the earlier one, once subscribed, takes the entry and is lost to every later
 *   `complete` and to the socket's close: its listener and watch were held for ever. Such a
 *   `subscribe` waits here, the socket paused, until the earlier one's handling is over
 *   (DESIGN.md §4.4, "Transports").
 * - **A server-to-client message from the client** (`next`, `error`, `connection_ack`) closes
 *   the socket with 4400, the protocol's answer to a message it does not allow; makeServer
 *   throws on them, which would close with 4500.
 *
 * Everything else — the protocol and its close codes — is makeServer's, unchanged. An internal
 * error never puts its message in a close reason (useServer's `isProd: true`, whatever NODE_ENV
 * says). A message is parsed once, here: makeServer's `parseMessage` takes a parsed message as
 * it is.
 */
import type { Duplex } from 'node:stream';
import {
  CloseCode,
  type Context,
  handleProtocols,
  makeServer,
  type ServerOptions,
} from 'graphql-ws';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { PULL, type Pullable, type PullSink } from '../pubsub/conflate.js';

/**
 * What graphql-ws' hooks find in `ctx.extra`: the socket, and of its upgrade request what an
 * operation may read. Not the IncomingMessage itself, which a socket would otherwise keep for
 * its lifetime (a readable stream, raw headers: ~0.9 KB per subscriber), nor its headers: auth
 * on a socket reads `connection_init`'s payload, and the Origin/Host check is done at the
 * upgrade (`verifyClient`), so nothing reads them later (~0.5 KB per subscriber,
 * PERFORMANCE.md §5).
 */
export interface SocketExtra {
  readonly socket: WebSocket;
  readonly request: UpgradeRequest;
}

/** The parts of a WebSocket's upgrade request kept for its operations. */
export interface UpgradeRequest {
  readonly url: string | undefined;
  readonly remoteAddress: string | undefined;
}

/**
 * A `next` payload already serialized: `json` is the JSON text of the payload object graphql-ws
 * would have stringified. Return one from `onNext`; make it once per result, not per socket.
 */
export class RawPayload {
  private encoded: Buffer | undefined = undefined;

  constructor(readonly json: string) {}

  /** `json` as UTF-8, encoded on first use and kept: one encoding for every socket. */
  get bytes(): Buffer {
    if (this.encoded === undefined) this.encoded = Buffer.from(this.json);
    return this.encoded;
  }
}

/** useServer's default: a ping every 12 s. */
export const DEFAULT_KEEP_ALIVE_MS = 12_000;

/**
 * The placeholder a RawPayload is stringified as. `JSON.stringify` writes U+0000 as `\u0000`, so
 * the placeholder's JSON text is `"\u0000"`; a message is spliced only when it ends with it.
 */
const PLACEHOLDER = '\u0000';
const PLACEHOLDER_TAIL = `${JSON.stringify(PLACEHOLDER)}}`;

/**
 * The RawPayload of the message being stringified. Set by the replacer and consumed by `send`
 * in the same synchronous step: makeServer calls `socket.send(stringifyMessage(message))`, with
 * nothing in between, so no other message can be stringified before this one is sent.
 */
let pendingRaw: string | undefined;

function replacer(this: unknown, key: string, value: unknown): unknown {
  if (key === 'payload' && value instanceof RawPayload) {
    pendingRaw = value.json;
    return PLACEHOLDER;
  }
  return value;
}

/** The text makeServer stringified, with a RawPayload's JSON put where its placeholder is. */
function spliced(data: string): string {
  const raw = pendingRaw;
  if (raw === undefined) return data;
  pendingRaw = undefined;
  if (!data.endsWith(PLACEHOLDER_TAIL)) return data;
  return `${data.slice(0, -PLACEHOLDER_TAIL.length)}${raw}}`;
}

/** graphql-ws' default: a socket has 3 s to send `connection_init`. */
export const DEFAULT_CONNECTION_INIT_WAIT_MS = 3_000;

/**
 * One socket as graphql-ws sees it (its `WebSocket` interface: `protocol`, `send`, `close`,
 * `onMessage`) and as its hooks see it (`ctx.extra`: `socket`, `request`), in one object with
 * the methods on the prototype. useServer made an object and three closures per socket, and
 * per message an async wrapper whose frame kept the message's Buffer for as long as the
 * operation lived: for a subscription, the socket's whole life (PERFORMANCE.md §5).
 */
class SocketLink implements SocketExtra {
  readonly protocol: string;
  /** graphql-ws' handler of this socket's messages, given by `onMessage` */
  private handler: ((data: string) => Promise<void>) | undefined = undefined;
  /** graphql-ws' end of this socket, called once it has closed */
  closed: ((code?: number, reason?: string) => Promise<void>) | undefined = undefined;
  /** a `connection_init` has arrived (graphql-ws' `connectionInitReceived`) */
  initialised = false;
  /** pinged by the last keep-alive sweep and not answered yet */
  awaitingPong = false;
  /** graphql-ws' context of this socket, from its `connection_init` on: the ids it has in use */
  context: Context<Record<string, unknown>, SocketExtra> | undefined = undefined;
  /** each operation's `subscribe` still being handled by graphql-ws, by id */
  private running: Map<string, Promise<void>> | undefined = undefined;
  /** messages that arrived while a reused id waits for its earlier operation (socket paused) */
  private held: unknown[] | undefined = undefined;

  constructor(
    readonly socket: WebSocket,
    readonly request: UpgradeRequest,
  ) {
    this.protocol = socket.protocol;
  }

  send(data: string): Promise<void> | undefined {
    const text = spliced(data);
    const socket = this.socket;
    if (socket.readyState !== socket.OPEN) return;
    // Nothing queued: the write goes to the kernel now, nothing to wait for.
    if (socket.bufferedAmount === 0) {
      socket.send(text);
      return;
    }
    return new Promise<void>((resolve, reject) => {
      socket.send(text, (error) => (error ? reject(error) : resolve()));
    });
  }

  close(code?: number, reason?: string): void {
    this.socket.close(code, reason);
  }

  onMessage(handler: (data: string) => Promise<void>): void {
    this.handler = handler;
    this.socket.on('message', onSocketMessage);
  }

  /** A message from the socket: parsed once, then {@link dispatch}ed. */
  received(data: RawData): void {
    const text = String(data);
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // graphql-ws closes the socket with 4400 for it.
      message = text;
    }
    this.dispatch(message);
  }

  /**
   * A message to graphql-ws, whose promise settles when the message's handling (for a
   * `subscribe`, the whole operation) is over; or held, in order, while an earlier operation of
   * a reused id winds down.
   */
  private dispatch(message: unknown): void {
    if (this.held !== undefined) {
      this.held.push(message);
      return;
    }
    const { type, id } = (typeof message === 'object' && message !== null ? message : {}) as {
      type?: unknown;
      id?: unknown;
    };
    if (type === 'next' || type === 'error' || type === 'connection_ack') {
      this.close(CloseCode.BadRequest, `Unexpected message of type ${type} received`);
      return;
    }
    if (type !== 'subscribe' || typeof id !== 'string') {
      this.deliver(message);
      return;
    }
    const earlier = this.running?.get(id);
    if (earlier !== undefined) {
      // In use still: graphql-ws closes the socket with 4409, as the protocol says.
      if (this.context !== undefined && id in this.context.subscriptions) {
        this.deliver(message);
        return;
      }
      // Freed by a `complete` (or by its end) and not yet wound down: wait for it.
      this.held = [message];
      this.socket.pause();
      earlier.then(this.release.bind(this));
      return;
    }
    const handled = this.deliver(message);
    this.running ??= new Map();
    const running = this.running;
    running.set(id, handled);
    handled.then(() => {
      if (running.get(id) === handled) running.delete(id);
    });
  }

  /** The held messages, in order, once the operation they waited for is over. */
  private release(): void {
    const held = this.held;
    this.held = undefined;
    // A closed socket's graphql-ws has ended its operations; nothing may start one again.
    if (held === undefined || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.resume();
    for (const message of held) this.dispatch(message);
  }

  /** `message` to graphql-ws (its `parseMessage` takes a parsed message as it is). */
  private deliver(message: unknown): Promise<void> {
    const handled = this.handler?.(message as string);
    if (handled === undefined) return Promise.resolve();
    return handled.then(undefined, failedMessage.bind(this));
  }
}

/** The link of each socket served, for the listeners below (shared by every socket). */
const links = new WeakMap<WebSocket, SocketLink>();

function onSocketMessage(this: WebSocket, data: RawData): void {
  links.get(this)?.received(data);
}

function failedMessage(this: SocketLink, error: unknown): void {
  console.error(
    'Internal error occurred during message handling. Please check your implementation.',
    error,
  );
  this.close(CloseCode.InternalServerError, 'Internal server error');
}

function onSocketPong(this: WebSocket): void {
  const link = links.get(this);
  if (link) link.awaitingPong = false;
}

/** Once, as useServer's `once('error')`: a second error finds no listener. */
function onSocketError(this: WebSocket, error: Error): void {
  this.removeListener('error', onSocketError);
  console.error(
    'Internal error emitted on a WebSocket socket. Please check your implementation.',
    error,
  );
  this.close(CloseCode.InternalServerError, 'Internal server error');
}

function onSocketClose(this: WebSocket, code: number, reason: Buffer): void {
  this.removeListener('close', onSocketClose);
  const link = links.get(this);
  links.delete(this);
  void link?.closed?.(code, String(reason));
}

/** graphql-ws' connection_init timeout, on a timer that keeps nothing once it has fired. */
function initTimedOut(link: SocketLink): void {
  if (!link.initialised) {
    link.close(CloseCode.ConnectionInitialisationTimeout, 'Connection initialisation timeout');
  }
}

/**
 * Serve graphql-ws on `wss`.
 * @param options makeServer's options; `jsonMessageReplacer` is this module's (a RawPayload
 *   returned by `onNext` needs it), so it cannot be given. `connectionInitWaitTimeout` (ms,
 *   default 3,000; 0 or Infinity: none) is kept here, not by makeServer, whose timer each socket
 *   would keep for its life: a socket that has not sent `connection_init` by then is closed
 *   with 4408, as graphql-ws does.
 * @param keepAliveMs ping period (ms); a socket that has not answered one ping by the next is
 *   terminated. 0 or Infinity: no pings.
 * @returns `dispose()`: close every socket with 1001 and close `wss`
 */
export function serveGraphqlWs(
  options: Omit<ServerOptions<Record<string, unknown>, SocketExtra>, 'jsonMessageReplacer'>,
  wss: WebSocketServer,
  keepAliveMs: number = DEFAULT_KEEP_ALIVE_MS,
): { dispose: () => Promise<void> } {
  const { connectionInitWaitTimeout: initWaitMs = DEFAULT_CONNECTION_INIT_WAIT_MS, onConnect } =
    options;
  const server = makeServer<Record<string, unknown>, SocketExtra>({
    ...options,
    connectionInitWaitTimeout: 0,
    // graphql-ws sets connectionInitReceived and calls onConnect in one step.
    onConnect: (ctx) => {
      const link = ctx.extra as SocketLink;
      link.initialised = true;
      link.context = ctx;
      return onConnect?.(ctx);
    },
    jsonMessageReplacer: replacer,
  });
  wss.options.handleProtocols = handleProtocols;

  wss.once('error', (error) => {
    console.error(
      'Internal error emitted on the WebSocket server. Please check your implementation.',
      error,
    );
    for (const client of wss.clients) {
      try {
        client.close(CloseCode.InternalServerError, 'Internal server error');
      } catch {
        // Closing the others matters more than this one's error.
      }
    }
  });

  const sweep =
    keepAliveMs > 0 && Number.isFinite(keepAliveMs)
      ? setInterval(() => {
          for (const socket of wss.clients) {
            const link = links.get(socket);
            if (socket.readyState !== socket.OPEN || link === undefined) continue;
            if (link.awaitingPong) {
              socket.terminate();
              continue;
            }
            link.awaitingPong = true;
            socket.ping();
          }
        }, keepAliveMs)
      : undefined;
  sweep?.unref();

  wss.on('connection', (socket, request) => {
    socket.on('error', onSocketError);
    socket.on('pong', onSocketPong);
    const link = new SocketLink(socket, {
      url: request.url,
      remoteAddress: request.socket.remoteAddress,
    });
    links.set(socket, link);
    link.closed = server.opened(link, link);
    // makeServer closes a socket of another subprotocol at once, and then starts no timer.
    if (initWaitMs > 0 && Number.isFinite(initWaitMs) && socket.readyState === socket.OPEN) {
      setTimeout(initTimedOut, initWaitMs, link).unref();
    }
    socket.on('close', onSocketClose);
  });

  return {
    dispose: async () => {
      if (sweep) clearInterval(sweep);
      for (const client of wss.clients) client.close(1001, 'Going away');
      wss.removeAllListeners();
      await new Promise<void>((resolve, reject) => {
        wss.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
}

/**
 * Close every socket of `wss` with 1001 ("going away", RFC 6455 §7.4.1), so its client sees
 * the end of a server it can reconnect to — graphql-ws' client retries as after any restart —
 * rather than an abnormal closure (1006); then cut the sockets whose peer has not completed the
 * closing handshake within `graceMs` (ms), so a peer that stopped reading holds a shutdown up
 * for that long at most, not for `ws`' own 30 s close timeout. Resolves once every socket is
 * closed or cut.
 */
export async function goingAway(wss: WebSocketServer, graceMs: number): Promise<void> {
  const sockets = [...wss.clients];
  if (sockets.length === 0) return;
  const closed = Promise.all(
    sockets.map((socket) =>
      socket.readyState === socket.CLOSED
        ? undefined
        : new Promise<void>((resolve) => socket.once('close', () => resolve())),
    ),
  );
  for (const socket of sockets) socket.close(1001, 'server shutting down');
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([closed, grace]);
  clearTimeout(timer);
  for (const socket of sockets) socket.terminate();
  await closed;
}

/** A WebSocket with what {@link tcpOf} reads of `ws`' internals. */
interface WsInternals {
  /** the TCP socket under the WebSocket (`ws`' own field, set once the upgrade is done) */
  readonly _socket?: Duplex | null;
}

/**
 * The TCP socket under `socket` when a frame may be written to it as it is: no extension
 * negotiated (this server offers none: no `perMessageDeflate`), so a final text frame is all
 * `ws` would write for a message. Undefined otherwise: such a socket's frames go through
 * `ws.send`.
 */
function tcpOf(socket: WebSocket): Duplex | undefined {
  const tcp = (socket as unknown as WsInternals)._socket;
  return tcp != null && socket.extensions === '' ? tcp : undefined;
}

const DONE: IteratorResult<never, undefined> = { value: undefined, done: true };
const NEXT_SUFFIX = Buffer.from('}');

/**
 * A `next` message's text — `head`, `body`, then `}` — as one unmasked, final text frame, the
 * frame `ws`' `send(text)` makes for it, written to `tcp` by one call: `ws`' own send would
 * measure and encode the whole text again and write a header and the data as two buffers (a
 * cork and a `writev`) for each socket. Without `tcp` ({@link tcpOf}) it goes through `ws.send`.
 * @param done called once the frame has left for the kernel (a write callback), if given
 */
function writeText(
  socket: WebSocket,
  tcp: Duplex | undefined,
  head: Buffer,
  body: Buffer,
  done?: (error?: Error | null) => void,
): void {
  const length = head.length + body.length + NEXT_SUFFIX.length;
  if (tcp === undefined) {
    socket.send(Buffer.concat([head, body, NEXT_SUFFIX], length), { binary: false }, done);
    return;
  }
  const headerLength = length > 0xffff ? 10 : length > 125 ? 4 : 2;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN, text
  if (headerLength === 2) {
    frame[1] = length;
  } else if (headerLength === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt16BE(0, 2);
    frame.writeUIntBE(length, 4, 6);
  }
  let at = headerLength + head.copy(frame, headerLength);
  at += body.copy(frame, at);
  NEXT_SUFFIX.copy(frame, at);
  tcp.write(frame, done);
}

/**
 * A subscription for graphql-ws whose `next` messages this module writes itself, as `source`'s
 * results come: return it from the `subscribe` hook in place of `source`.
 *
 * graphql-ws runs an operation as `for await (const result of stream) await emit.next(result)`:
 * per result and subscriber a promise for `next()`, one for `emit.next`, one for `onNext` and
 * the message stringified. Here graphql-ws' `next()` waits for the whole subscription instead,
 * and meanwhile each result is pulled from `source` ({@link Pullable}: for the live feed, within
 * its loop over the subscribers of a change) and written at once as `{"id":<id>,"type":"next",
 * "payload":<payload>}` — the bytes graphql-ws' own `JSON.stringify` gives, the payload encoded
 * once per result ({@link RawPayload.bytes}) and only the envelope kept per subscription.
 *
 * What graphql-ws does stays its own: `source` ending resolves that `next()` as done, and
 * graphql-ws sends `complete`; `source` failing (or a write failing) rejects it, `source` is
 * returned (graphql-ws forgets the operation then), and graphql-ws sends `error`; the client's `complete` and the socket's close reach `return()`, which ends
 * `source` at once. Back-pressure is the same as {@link SocketLink.send}'s: a result is pulled
 * again at once while the socket has nothing queued, and only after its last write has left for
 * the kernel when it had, so a slow reader holds up only its own subscriptions, whose streams
 * conflate meanwhile. A result for a socket no longer open ends the subscription: its source is
 * returned, even if graphql-ws has lost the operation.
 * @param extra the operation's socket (graphql-ws' `ctx.extra`)
 * @param id the operation's id, as the client sent it
 * @param source the results; its pull may call back before returning, at most once per pull
 * @param payloadOf a result's `next` payload, serialized (make it once per result)
 */
export function pushedOperation<R>(
  extra: SocketExtra,
  id: string,
  source: AsyncGenerator<R, unknown, unknown> & Pullable<R>,
  payloadOf: (result: R) => RawPayload,
): AsyncGenerator<never, undefined, unknown> {
  return new PushedOperation(extra.socket, id, source, payloadOf);
}

class PushedOperation<R> implements AsyncGenerator<never, undefined, unknown>, PullSink<R> {
  /** `{"id":<id>,"type":"next","payload":`, as graphql-ws' JSON.stringify writes it */
  private readonly head: Buffer;
  /** graphql-ws' pending `next()`, settled when the subscription is over */
  private over: Promise<IteratorResult<never, undefined>> | undefined = undefined;
  private resolveOver: ((result: IteratorResult<never, undefined>) => void) | undefined;
  private rejectOver: ((error: unknown) => void) | undefined;
  private finished = false;
  /** where frames are written directly ({@link tcpOf}) */
  private readonly tcp: Duplex | undefined;

  constructor(
    private readonly socket: WebSocket,
    id: string,
    private readonly source: AsyncGenerator<R, unknown, unknown> & Pullable<R>,
    private readonly payloadOf: (result: R) => RawPayload,
  ) {
    this.head = Buffer.from(`{"id":${JSON.stringify(id)},"type":"next","payload":`);
    this.tcp = tcpOf(socket);
  }

  /** graphql-ws' loop: the first call starts the deliveries and settles when they are over. */
  next(): Promise<IteratorResult<never, undefined>> {
    if (this.over !== undefined) return this.over;
    if (this.finished) return Promise.resolve(DONE);
    this.over = new Promise((resolve, reject) => {
      this.resolveOver = resolve;
      this.rejectOver = reject;
    });
    this.source[PULL](this);
    return this.over;
  }

  /**
   * A result: written, and the next one pulled. Called from the source's delivery (the feed's
   * loop over its subscribers), so it never throws: a payload that cannot be serialized ends
   * this subscription with graphql-ws' `error`, as a failing `onNext` would.
   */
  onEvent(result: R): void {
    if (this.finished) return;
    const socket = this.socket;
    // A closed socket's operation ends here, whether or not graphql-ws still knows it.
    if (socket.readyState !== socket.OPEN) {
      this.onEnd();
      void this.source.return(undefined).catch(() => undefined);
      return;
    }
    let body: Buffer;
    try {
      body = this.payloadOf(result).bytes;
    } catch (error) {
      this.failed(error);
      return;
    }
    // Nothing queued: the write goes to the kernel now, the next result may follow at once.
    if (socket.bufferedAmount === 0) {
      writeText(socket, this.tcp, this.head, body);
      this.source[PULL](this);
      return;
    }
    writeText(socket, this.tcp, this.head, body, (error) => {
      if (error) this.failed(error);
      else if (!this.finished) this.source[PULL](this);
    });
  }

  onEnd(): void {
    if (this.finish()) this.resolveOver?.(DONE);
  }

  /**
   * The source failed: graphql-ws sends `error` and forgets the operation, so nothing would
   * return the source later; it is returned here (a failing source has ended already; a result
   * that failed to execute has not).
   */
  onError(error: unknown): void {
    if (this.finish()) {
      this.rejectOver?.(error);
      void this.source.return(undefined).catch(() => undefined);
    }
  }

  /** A write failed: the stream ends here (as graphql-ws' loop returns it), then the error. */
  private failed(error: unknown): void {
    if (!this.finish()) return;
    this.source.return(undefined).then(
      () => this.rejectOver?.(error),
      () => this.rejectOver?.(error),
    );
  }

  /** Marks the subscription over; false when it already was. */
  private finish(): boolean {
    if (this.finished) return false;
    this.finished = true;
    return true;
  }

  async return(): Promise<IteratorResult<never, undefined>> {
    if (this.finish()) this.resolveOver?.(DONE);
    await this.source.return(undefined);
    return DONE;
  }

  async throw(error: unknown): Promise<IteratorResult<never, undefined>> {
    if (this.finish()) this.resolveOver?.(DONE);
    await this.source.return(undefined);
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
