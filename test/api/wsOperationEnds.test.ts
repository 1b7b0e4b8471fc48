/**
 * Every path that ends a graphql-ws operation releases what it holds — the live feed's listener
 * and its watch: the client's `complete` (also while the operation's subscribe is still
 * pending), an id reused at once, the socket's close. Raw frames, so that thousands of
 * `subscribe`/`complete` pairs reach the server back to back.
 */
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RingChangedDocument } from '../gql/graphql.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { startTestServer, type TestServer, useTestServer } from '../support/server.js';

const api = useTestServer();
const RING = print(RingChangedDocument);

/** A raw graphql-transport-ws socket, acknowledged; `frames` collects what it receives. */
async function acked(
  endpoint = api.endpoint,
  token?: string,
): Promise<{ socket: WebSocket; frames: { id?: string; type: string }[] }> {
  const socket = new WebSocket(endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const frames: { id?: string; type: string }[] = [];
  const init = { type: 'connection_init', payload: token ? { authorization: token } : {} };
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send(JSON.stringify(init)));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: string; type: string };
      if (message.type === 'connection_ack') resolve();
      else frames.push(message);
    });
  });
  return { socket, frames };
}

/** The code and reason the socket closes with. */
function closing(socket: WebSocket): Promise<[number, string]> {
  return new Promise((resolve) => {
    socket.once('close', (code, reason) => resolve([code, String(reason)]));
  });
}

function closed(socket: WebSocket): Promise<[number, string]> {
  const done = closing(socket);
  socket.close();
  return done;
}

const subscribe = (id: string, queue: string) =>
  JSON.stringify({ id, type: 'subscribe', payload: { query: RING, variables: { queue } } });
const complete = (id: string) => JSON.stringify({ id, type: 'complete' });

/**
 * Resolves once the server has read every message sent before: its answer to a ping. (Generous:
 * a socket that reuses an id is read one operation at a time, on a machine that may be busy.)
 */
function barrier(client: { socket: WebSocket; frames: { type: string }[] }): Promise<void> {
  const pongs = client.frames.filter((f) => f.type === 'pong').length;
  client.socket.send('{"type":"ping"}');
  return waitFor('a pong', () => client.frames.filter((f) => f.type === 'pong').length > pongs, {
    timeoutMs: 60_000,
  }).then(() => undefined);
}

/** The live feed's listeners and watches, once they are `listeners` and `watches`. */
async function feedSettlesAt(
  listeners: number,
  watches: number,
  server: TestServer = api,
): Promise<void> {
  await waitFor(`${listeners} listeners and ${watches} watches`, () => {
    const stats = server.server.feed.stats();
    return stats.listeners === listeners && stats.watches === watches;
  }).catch(() => undefined);
  expect(server.server.feed.stats()).toMatchObject({ listeners, watches });
}

/** `pairs` subscribe/complete pairs on each socket, with one id or a fresh id each. */
function pairsOn(
  sockets: { socket: WebSocket }[],
  pairs: number,
  idOf: (socket: number, pair: number) => string,
  queue: string,
): void {
  for (let i = 0; i < pairs; i++) {
    for (const [n, { socket }] of sockets.entries()) {
      socket.send(subscribe(idOf(n, i), queue));
      socket.send(complete(idOf(n, i)));
    }
  }
}

/**
 * 1,000 pairs with one id on one socket and 1,000 with fresh ids on another, then the id once
 * more, kept: that operation is the one left, and live; once the sockets close, nothing is.
 */
async function reusedAndFresh(server: TestServer, token?: string): Promise<void> {
  const queue = queueName('reuse');
  const [reused, fresh] = [
    await acked(server.endpoint, token),
    await acked(server.endpoint, token),
  ];
  pairsOn([reused, fresh], 1_000, (n, i) => (n === 0 ? 'same' : `op-${i}`), queue);
  reused.socket.send(subscribe('same', queue));
  await Promise.all([barrier(reused), barrier(fresh)]);
  await feedSettlesAt(1, 1, server);
  const before = reused.frames.length;
  await server.server.engine.queue(queue).enqueue('g', null);
  await waitFor('the ring change', () =>
    reused.frames.slice(before).some((f) => f.type === 'next' && f.id === 'same'),
  );
  // Nothing was ended by the server: no `complete` or `error` on either socket.
  for (const { frames } of [reused, fresh]) {
    expect(frames.filter((f) => f.type !== 'next' && f.type !== 'pong')).toEqual([]);
  }
  await Promise.all([closed(reused.socket), closed(fresh.socket)]);
  await feedSettlesAt(0, 0, server);
}

describe('subscribe then complete, back to back, 1,000 times with one id and with fresh ids', () => {
  // Generous timeouts: a socket that reuses an id is read one operation at a time.
  it(
    'auth off: the operation kept is live, and nothing is left once the sockets close',
    {
      timeout: 120_000,
    },
    () => reusedAndFresh(api),
  );

  it('auth on, a read token: the same', { timeout: 120_000 }, async () => {
    const token = 'read-token-rrrrrrrrrrrr';
    const guarded = await startTestServer(api.redis.url, { AUTH_TOKENS: `read:${token}` });
    try {
      await reusedAndFresh(guarded, token);
    } finally {
      await guarded.stop();
    }
  });
});
