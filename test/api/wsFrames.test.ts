/**
 * What subscribers receive on the wire through the real server, now that a `next` payload is
 * serialized once per shared result (src/server/ws.ts, wsServer.ts): each graphql-ws socket gets
 * `{"id":<its id>,"type":"next","payload":…}` exactly as graphql-ws' JSON.stringify writes it,
 * ids that need escaping included, and the payload is the same text on every socket and the
 * same as SSE's `data:` for the same event.
 */
import { once } from 'node:events';
import { expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer();

const ringQuery = (queue: string) =>
  `subscription { ringChanged(queue: ${JSON.stringify(queue)}) { queue ring added removed reason } }`;

/** A raw graphql-transport-ws socket with one subscription; collects its `next` frames. */
async function rawSubscriber(id: string, query: string) {
  const socket = new WebSocket(api.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
  const frames: string[] = [];
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    const text = String(data);
    if (text.includes('"type":"connection_ack"')) {
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
      return;
    }
    frames.push(text);
    for (const wake of waiters.splice(0)) wake();
  });
  await once(socket, 'open');
  socket.send('{"type":"connection_init"}');
  const frame = async (n: number): Promise<string> => {
    while (frames.length <= n) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames[n] as string;
  };
  return { socket, frame };
}

/** The `data:` lines of an SSE subscription, as text. */
async function sseSubscriber(query: string) {
  const abort = new AbortController();
  const response = await fetch(api.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const data: string[] = [];
  let buffer = '';
  const event = async (n: number): Promise<string> => {
    while (data.length <= n) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the SSE stream ended');
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith('event: next\n')) data.push(block.slice('event: next\ndata: '.length));
        end = buffer.indexOf('\n\n');
      }
    }
    return data[n] as string;
  };
  return { close: () => abort.abort(), event };
}

it('sends each socket its own id around the same payload text, as SSE sends it', async () => {
  const queue = queueName('ws-frames');
  const query = ringQuery(queue);
  const ids = ['1', 'b "quoted" \\ \u2028 é 🎪', crypto.randomUUID()];
  const sockets = await Promise.all(ids.map((id) => rawSubscriber(id, query)));
  const sse = await sseSubscriber(query);
  // Everyone has the snapshot: the change below reaches all of them in one burst.
  await Promise.all([...sockets.map((s) => s.frame(0)), sse.event(0)]);

  await api.server.engine.queue(queue).enqueue('tenant-a', { n: 1 });
  const frames = await Promise.all(sockets.map((s) => s.frame(1)));
  const sseData = await sse.event(1);

  const payloads = frames.map((frame, i) => {
    const message = JSON.parse(frame) as { id: string; type: string; payload: unknown };
    // graphql-ws' own serialization of this message, byte for byte.
    expect(frame).toBe(JSON.stringify({ id: ids[i], type: 'next', payload: message.payload }));
    const prefix = `{"id":${JSON.stringify(ids[i])},"type":"next","payload":`;
    expect(frame.startsWith(prefix)).toBe(true);
    return frame.slice(prefix.length, -1);
  });
  expect(new Set(payloads).size).toBe(1);
  expect(payloads[0]).toBe(sseData);
  expect(JSON.parse(sseData)).toEqual({
    data: {
      ringChanged: {
        queue,
        ring: ['tenant-a'],
        added: ['tenant-a'],
        removed: [],
        reason: 'CHANGE',
      },
    },
  });

  sse.close();
  for (const s of sockets) s.socket.close();
});
