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
import { useTestServer } from '../support/server.js';

const api = useTestServer();
const RING = print(RingChangedDocument);

/** A raw graphql-transport-ws socket, acknowledged; `frames` collects what it receives. */
async function acked(): Promise<{ socket: WebSocket; frames: { id?: string; type: string }[] }> {
  const socket = new WebSocket(api.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const frames: { id?: string; type: string }[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () => socket.send('{"type":"connection_init"}'));
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

/** The live feed's listeners and watches, once they are `listeners` and `watches`. */
async function feedSettlesAt(listeners: number, watches: number): Promise<void> {
  await waitFor(`${listeners} listeners and ${watches} watches`, () => {
    const stats = api.server.feed.stats();
    return stats.listeners === listeners && stats.watches === watches;
  }).catch(() => undefined);
  expect(api.server.feed.stats()).toMatchObject({ listeners, watches });
}

describe('subscribe then complete, back to back', () => {
  it('2,000 pairs with one id and 2,000 with fresh ids each: nothing left, the last reused id live', async () => {
    const queue = queueName('reuse');
    const [reused, fresh] = [await acked(), await acked()];
    for (let i = 0; i < 2_000; i++) {
      reused.socket.send(subscribe('same', queue));
      reused.socket.send(complete('same'));
      fresh.socket.send(subscribe(`op-${i}`, queue));
      fresh.socket.send(complete(`op-${i}`));
    }
    // The id once more, kept: its operation is the one left, and it is live.
    reused.socket.send(subscribe('same', queue));
    await feedSettlesAt(1, 1);
    // Nothing ended it: no `complete` or `error` after its last subscribe was answered.
    await waitFor('its snapshot', () => reused.frames.length > 0);
    expect(reused.frames.filter((f) => f.type !== 'next')).toEqual([]);
    expect(fresh.frames.filter((f) => f.type !== 'next')).toEqual([]);

    await Promise.all([closed(reused.socket), closed(fresh.socket)]);
    await feedSettlesAt(0, 0);
  });
});
