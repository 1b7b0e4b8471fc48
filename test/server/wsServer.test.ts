/**
 * `serveGraphqlWs` (src/server/wsServer.ts) against graphql-ws' own `useServer`: the same frames,
 * byte for byte, for the same operations — `next` with data, with errors, with extensions, ids
 * that need escaping, `error` and `complete` — when `onNext` hands over a pre-serialized
 * RawPayload; and its one keep-alive sweep terminates a socket that stops answering pings while
 * one that answers stays.
 */
import { once } from 'node:events';
import { buildSchema, type ExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RawPayload, serveGraphqlWs } from '../../src/server/wsServer.js';
import { framesFor, NEXT_RESULTS, useWsServers } from '../support/wsFrames.js';

const schema = buildSchema('type Query { a: Int } type Subscription { s: Int }');

/** What every subscription yields, whatever its document: each kind of `next` payload. */
const RESULTS = NEXT_RESULTS;

async function* results(): AsyncGenerator<ExecutionResult> {
  for (const result of RESULTS) yield result;
}

/** The same options for both servers (untyped by either's `extra`). */
const options = {
  schema,
  subscribe: () => results(),
  execute: () => ({ data: { a: 1 } }),
};

const { listen } = useWsServers();

describe('frames', () => {
  it('are byte for byte those of graphql-ws useServer, with the payload serialized once', async () => {
    const serialized: string[] = [];
    const payloads = new WeakMap<object, RawPayload>();
    const ours = await listen((wss) =>
      serveGraphqlWs(
        {
          ...options,
          onNext: (_ctx, _id, _payload, _args, result) => {
            let raw = payloads.get(result);
            if (raw === undefined) {
              // graphql-ws' own payload: the result without errors, then errors as JSON.
              const { errors, ...rest } = result;
              const payload = errors ? { ...rest, errors: errors.map((e) => e.toJSON()) } : rest;
              raw = new RawPayload(JSON.stringify(payload));
              serialized.push(raw.json);
              payloads.set(result, raw);
            }
            return raw as never;
          },
        },
        wss,
      ),
    );
    const theirs = await listen((wss) => useServer(options, wss));
    const operations = [
      { id: 'a', query: 'subscription { s }' },
      { id: 'b "quoted" \u2028 é', query: 'subscription { s }' },
      { id: 'c', query: 'subscription { nope }' },
      { id: 'd', query: '{ a }' },
    ];
    const [mine, expected] = await Promise.all([
      framesFor(ours, operations),
      framesFor(theirs, operations),
    ]);
    expect(mine.sort()).toEqual(expected.sort());
    // Two subscriptions, four results each, and an operation that is not a subscription.
    expect(mine.filter((frame) => frame.includes('"type":"next"'))).toHaveLength(9);
    // Each shared result was serialized once, for both subscriptions it went to.
    expect(serialized).toHaveLength(RESULTS.length + 1);
  });

  it('sends an ordinary payload unchanged when onNext returns none', async () => {
    const ours = await listen((wss) => serveGraphqlWs(options, wss));
    const theirs = await listen((wss) => useServer(options, wss));
    const operations = [{ id: 'x', query: 'subscription { s }' }];
    expect(await framesFor(ours, operations)).toEqual(await framesFor(theirs, operations));
  });
});

describe('keep-alive', () => {
  it('terminates a socket that stops answering pings, and keeps one that answers', async () => {
    // A 1 s period: a pong must come back within one, also on a loaded machine.
    const url = await listen((wss) => serveGraphqlWs(options, wss, 1_000));
    const answering = new WebSocket(url, 'graphql-transport-ws');
    const silent = new WebSocket(url, 'graphql-transport-ws', { autoPong: false });
    await Promise.all([once(answering, 'open'), once(silent, 'open')]);
    // Both initialised, so graphql-ws' own 3 s connection_init timeout (4408) closes neither.
    answering.send('{"type":"connection_init"}');
    silent.send('{"type":"connection_init"}');
    await Promise.all([once(answering, 'message'), once(silent, 'message')]);
    let pings = 0;
    answering.on('ping', () => {
      pings += 1;
    });
    const [code] = await once(silent, 'close');
    expect(code).toBe(1006); // terminated, no close frame
    // Pinged at every sweep, answered each time, and still open three sweeps later.
    const seen = pings;
    await new Promise<void>((resolve, reject) => {
      answering.once('close', () => reject(new Error('the answering socket was terminated')));
      answering.on('ping', () => {
        if (pings >= seen + 3) resolve();
      });
    });
    expect(answering.readyState).toBe(WebSocket.OPEN);
    answering.close();
  });
});

describe('ctx.extra', () => {
  it("holds the socket and the upgrade request's url and address, not the request nor its headers", async () => {
    const seen: unknown[] = [];
    const url = await listen((wss) =>
      serveGraphqlWs(
        {
          ...options,
          onConnect: (ctx) => {
            seen.push(ctx.extra.request);
            return ctx.extra.socket.readyState === WebSocket.OPEN;
          },
        },
        wss,
      ),
    );
    expect(await framesFor(`${url}/graphql?x=1`, [{ id: 'a', query: '{ a }' }])).toHaveLength(2);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: '/graphql?x=1', remoteAddress: '127.0.0.1' });
    expect(seen[0]).not.toHaveProperty('headers');
  });
});

describe('connection_init timeout', () => {
  it('closes a socket with no connection_init with 4408, as useServer does, and keeps one that sent it', async () => {
    // 300 ms instead of 3 s; the timer is ours, not makeServer's (wsServer.ts).
    const short = { ...options, connectionInitWaitTimeout: 300 };
    for (const url of [
      await listen((wss) => serveGraphqlWs(short, wss)),
      await listen((wss) => useServer(short, wss)),
    ]) {
      const silent = new WebSocket(url, 'graphql-transport-ws');
      const initialised = new WebSocket(url, 'graphql-transport-ws');
      await Promise.all([once(silent, 'open'), once(initialised, 'open')]);
      initialised.send('{"type":"connection_init"}');
      await once(initialised, 'message');
      const [code, reason] = await once(silent, 'close');
      expect([code, String(reason)]).toEqual([4408, 'Connection initialisation timeout']);
      // Well past the timeout, the initialised socket still answers.
      await new Promise((resolve) => setTimeout(resolve, 500));
      initialised.send('{"type":"ping"}');
      const [pong] = await once(initialised, 'message');
      expect(String(pong)).toBe('{"type":"pong"}');
      initialised.close();
    }
  });
});

describe('a failing message handler', () => {
  it('closes the socket with 4500 and logs, as useServer does', async () => {
    const failing = {
      ...options,
      onSubscribe: () => {
        throw new Error('hook failed');
      },
    };
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => {
      logged.push(args[0]);
    };
    try {
      // useServer puts the error's message in the reason unless NODE_ENV is production; ours
      // never does (wsServer.ts).
      for (const [url, expectedReason] of [
        [await listen((wss) => serveGraphqlWs(failing, wss)), 'Internal server error'],
        [await listen((wss) => useServer(failing, wss)), 'hook failed'],
      ] as const) {
        const socket = new WebSocket(url, 'graphql-transport-ws');
        await once(socket, 'open');
        socket.send('{"type":"connection_init"}');
        await once(socket, 'message');
        socket.send('{"id":"1","type":"subscribe","payload":{"query":"subscription { s }"}}');
        const [code, reason] = await once(socket, 'close');
        expect([code, String(reason)]).toEqual([4500, expectedReason]);
      }
    } finally {
      console.error = original;
    }
    expect(logged).toEqual([
      'Internal error occurred during message handling. Please check your implementation.',
      'Internal error occurred during message handling. Please check your implementation.',
    ]);
  });
});
