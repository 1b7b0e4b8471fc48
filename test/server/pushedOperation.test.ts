/**
 * `pushedOperation` (src/server/wsServer.ts): a subscription whose `next` frames are written as
 * its pulled stream's results come, not by graphql-ws' loop. Its frames are byte for byte
 * graphql-ws' `useServer`'s for the same results — payloads of every frame-length class (≤ 125,
 * ≤ 65,535 and more bytes), errors, ids that need escaping — then `complete`, or `error` when the
 * stream fails; each payload is encoded once however many sockets it goes to; and back-pressure
 * stays per socket: a reader that stops reading conflates (it gets fewer messages, the last one
 * the latest) while a reader that keeps up on the same stream of offers gets every one.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import {
  buildSchema,
  type ExecutionArgs,
  type ExecutionResult,
  parse as parseDocument,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { describe, expect, it } from 'vitest';
import { WebSocket, type WebSocketServer } from 'ws';
import { ConflatingStream, PULL, type Pullable, type PullSink } from '../../src/pubsub/conflate.js';
import {
  pushedOperation,
  RawPayload,
  type SocketExtra,
  serveGraphqlWs,
} from '../../src/server/wsServer.js';
import { waitFor } from '../support/pubsub.js';
import { framesFor, NEXT_RESULTS, useWsServers } from '../support/wsFrames.js';

const schema = buildSchema('type Query { a: Int } type Subscription { s: Int, fails: Int }');

/** Every kind of `next` payload, in each of a frame's three length encodings. */
const RESULTS: ExecutionResult[] = [
  ...NEXT_RESULTS,
  { data: { s: 4, text: 'x'.repeat(200) } },
  { data: { s: 5, text: 'é'.repeat(40_000) } },
  { data: { s: 6, text: 'y'.repeat(70_000) } },
];

/** graphql-ws' own payload of a result: the result without errors, then errors as JSON. */
function payloadJson(result: ExecutionResult): string {
  const { errors, ...rest } = result;
  return JSON.stringify(errors ? { ...rest, errors: errors.map((e) => e.toJSON()) } : rest);
}

/**
 * A pulled stream over `items` that hands each out at once, then ends (or fails, with `fail`):
 * the fastest source pushedOperation can have.
 */
class ListStream<T> implements AsyncGenerator<T, undefined, unknown>, Pullable<T> {
  private at = 0;
  returned = false;

  constructor(
    private readonly items: readonly T[],
    readonly fail?: Error,
  ) {}

  [PULL](sink: PullSink<T>): void {
    const item = this.returned ? undefined : this.items[this.at];
    this.at += 1;
    if (item !== undefined) sink.onEvent(item);
    else if (this.fail && !this.returned) sink.onError(this.fail);
    else sink.onEnd();
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    throw new Error('pushedOperation pulls');
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    this.returned = true;
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T, undefined>> {
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

async function* results(fail: boolean): AsyncGenerator<ExecutionResult> {
  for (const result of RESULTS) yield result;
  if (fail) throw new Error('source failed');
}

const isFails = (args: ExecutionArgs) => JSON.stringify(args.document).includes('"fails"');

const { listen } = useWsServers();

/**
 * serveGraphqlWs with every subscription pushed: `streamFor` makes each operation's stream, and
 * payloads are serialized through `payloadOf` (counted in `serialized`).
 */
function pushedServer(
  streamFor: (
    args: ExecutionArgs,
  ) => AsyncGenerator<ExecutionResult, unknown, unknown> & Pullable<ExecutionResult>,
  serialized: string[] = [],
) {
  const payloads = new WeakMap<object, RawPayload>();
  const payloadOf = (result: ExecutionResult): RawPayload => {
    let raw = payloads.get(result);
    if (raw === undefined) {
      raw = new RawPayload(payloadJson(result));
      serialized.push(raw.json);
      payloads.set(result, raw);
    }
    return raw;
  };
  return (wss: WebSocketServer) =>
    serveGraphqlWs(
      {
        schema,
        execute: () => ({ data: { a: 1 } }),
        // The operation's socket and id, for subscribe (graphql-ws hands it the args only).
        onSubscribe: (ctx, id, params) => ({
          schema,
          document: parseDocument(params.query),
          contextValue: { extra: ctx.extra, id },
        }),
        subscribe: (args) => {
          const { extra, id } = args.contextValue as { extra: SocketExtra; id: string };
          return pushedOperation(extra, id, streamFor(args), payloadOf);
        },
      },
      wss,
    );
}

describe('pushedOperation', () => {
  it("writes graphql-ws useServer's frames byte for byte, each payload encoded once", async () => {
    const serialized: string[] = [];
    const sources: ListStream<ExecutionResult>[] = [];
    const ours = await listen(
      pushedServer((args) => {
        const source = new ListStream(
          RESULTS,
          isFails(args) ? new Error('source failed') : undefined,
        );
        sources.push(source);
        return source;
      }, serialized),
    );
    const theirs = await listen((wss) =>
      useServer(
        {
          schema,
          execute: () => ({ data: { a: 1 } }),
          subscribe: (args: ExecutionArgs) => results(isFails(args)),
        },
        wss,
      ),
    );
    const operations = [
      { id: 'a', query: 'subscription { s }' },
      { id: 'b "quoted" \u2028 é 🎪', query: 'subscription { s }' },
      { id: 'f', query: 'subscription { fails }' },
    ];
    const [mine, expected] = await Promise.all([
      framesFor(ours, operations),
      framesFor(theirs, operations),
    ]);
    expect(mine.sort()).toEqual(expected.sort());
    expect(mine.filter((frame) => frame.includes('"type":"next"'))).toHaveLength(
      3 * RESULTS.length,
    );
    expect(mine.filter((frame) => frame.includes('"type":"complete"'))).toHaveLength(2);
    expect(mine.filter((frame) => frame.includes('"type":"error"'))).toHaveLength(1);
    // One serialization per result, for the three operations it went to.
    expect(serialized).toHaveLength(RESULTS.length);
    // The failed source was returned: graphql-ws forgets the operation once it sent `error`.
    expect(sources.filter((source) => source.fail !== undefined).map((s) => s.returned)).toEqual([
      true,
    ]);
  });

  it("ends the stream at once on the client's complete, and sends nothing after it", async () => {
    const streams: ConflatingStream<number, ExecutionResult>[] = [];
    const url = await listen(
      pushedServer(() => {
        const stream = new ConflatingStream<number, ExecutionResult>((n) => ({ data: { s: n } }));
        streams.push(stream);
        return stream;
      }),
    );
    const client = await rawClient(url, 'one');
    await waitFor('the first stream', () => streams.length === 1, { intervalMs: 2 });
    const [stream] = streams as [ConflatingStream<number, ExecutionResult>];
    stream.offer(1, false);
    expect(await client.frame(0)).toBe('{"id":"one","type":"next","payload":{"data":{"s":1}}}');
    client.socket.send('{"id":"one","type":"complete"}');
    await waitFor('the stream ended', () => stream.done, { intervalMs: 2 });
    stream.offer(2, false);
    // A query after it is answered: the socket is in order and sent nothing for `one` since.
    client.socket.send('{"id":"q","type":"subscribe","payload":{"query":"{ a }"}}');
    expect(await client.frame(1)).toBe('{"id":"q","type":"next","payload":{"data":{"a":1}}}');
    client.socket.close();
  });

  it('conflates for a reader that stops reading, while one that keeps up gets every state', async () => {
    const streams: ConflatingStream<number, ExecutionResult>[] = [];
    const url = await listen(
      pushedServer(() => {
        // A large event, so a stopped reader's socket buffers fill within a few of them.
        const stream = new ConflatingStream<number, ExecutionResult>((n) => ({
          data: { s: n, pad: 'p'.repeat(1024 * 1024) },
        }));
        streams.push(stream);
        return stream;
      }),
    );
    const fast = await rawClient(url, 'fast');
    const slow = await rawClient(url, 'slow');
    await waitFor('the second stream', () => streams.length === 2, { intervalMs: 2 });
    // The slow reader stops reading: its kernel buffers fill, then the server's socket queues.
    slow.tcp().pause();
    const states = 60;
    for (let n = 0; n < states; n += 1) {
      for (const stream of streams) stream.offer(n, false);
      // The next state only once the fast reader has this one: it must miss none.
      await fast.frame(n);
    }
    expect(fast.states()).toEqual([...Array(states).keys()]);
    slow.tcp().resume();
    await waitFor("the slow reader's last state", () => slow.states().at(-1) === states - 1, {
      intervalMs: 2,
    });
    const got = slow.states();
    // Fewer than offered, in order, ending on the latest.
    expect(got.length).toBeLessThan(states / 2);
    expect([...got].sort((a, b) => a - b)).toEqual(got);
    expect(new Set(got).size).toBe(got.length);
    fast.socket.close();
    slow.socket.close();
  });

  it('ends itself and returns its source when a result finds its socket closed', async () => {
    // An operation graphql-ws no longer knows (nothing will return it): only its own socket's
    // state can end it.
    const url = await listen(pushedServer(() => new ListStream<ExecutionResult>([])));
    const socket = new WebSocket(url, 'graphql-transport-ws');
    await once(socket, 'open');
    socket.close();
    await once(socket, 'close');
    const stream = new ConflatingStream<number, ExecutionResult>((n) => ({ data: { s: n } }));
    const operation = pushedOperation(
      { socket, request: { url: undefined, remoteAddress: undefined } },
      'orphan',
      stream,
      (result) => new RawPayload(payloadJson(result)),
    );
    const over = operation.next();
    stream.offer(1, false);
    await waitFor('the stream ended', () => stream.done, { intervalMs: 2 });
    expect(await over).toEqual({ value: undefined, done: true });
  });
});

/** Polls `check` until it holds (each poll a macrotask apart). */
/** A graphql-transport-ws socket with one subscription `id`; collects the frames after the ack. */
async function rawClient(url: string, id: string) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  const waiters: (() => void)[] = [];
  const acked = new Promise<void>((resolve) => {
    socket.on('message', (data) => {
      const text = String(data);
      if (text.includes('"type":"connection_ack"')) {
        socket.send(
          JSON.stringify({ id, type: 'subscribe', payload: { query: 'subscription { s }' } }),
        );
        resolve();
        return;
      }
      frames.push(text);
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await once(socket, 'open');
  socket.send('{"type":"connection_init"}');
  await acked;
  return {
    socket,
    /** the client's TCP socket (`ws`' own field) */
    tcp: () => (socket as unknown as { _socket: Socket })._socket,
    frame: async (n: number): Promise<string> => {
      while (frames.length <= n) await new Promise<void>((resolve) => waiters.push(resolve));
      return frames[n] as string;
    },
    /** the `s` of each next frame so far */
    states: () =>
      frames.map((f) => (JSON.parse(f) as { payload: { data: { s: number } } }).payload.data.s),
  };
}
