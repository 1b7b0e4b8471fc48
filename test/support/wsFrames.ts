/**
 * Helpers for the WebSocket transport's frame tests (test/server/wsServer.test.ts,
 * test/server/pushedOperation.test.ts): graphql-ws servers on free ports, stopped after each
 * test, and a client that collects every text frame of its operations.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ExecutionResult, GraphQLError } from 'graphql';
import { afterEach } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';

/**
 * Every kind of `next` payload a subscription test sends: plain data, text JSON must escape, an
 * error (graphql-ws writes it with toJSON) and extensions.
 */
export const NEXT_RESULTS: readonly ExecutionResult[] = [
  { data: { s: 1 } },
  { data: { s: 2, text: 'é "quoted" \u2028 \u0000 \ud83c\udfaa' } },
  {
    data: null,
    errors: [
      new GraphQLError('boom', { path: ['s'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }),
    ],
  },
  { data: { s: 3 }, extensions: { cost: 1 } },
];

/**
 * Call at a test file's top level: registers an afterEach that disposes every server `listen`
 * started during the test (the graphql-ws server first, then the HTTP server). `listen(attach)`
 * starts an HTTP server on a free 127.0.0.1 port, attaches a WebSocketServer to it through
 * `attach` (serveGraphqlWs or graphql-ws' useServer) and resolves to its `ws://` URL.
 */
export function useWsServers(): {
  listen(attach: (wss: WebSocketServer) => { dispose(): unknown }): Promise<string>;
} {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return {
    async listen(attach) {
      const server: Server = createServer();
      const wss = new WebSocketServer({ server });
      const served = attach(wss);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      closers.push(async () => {
        await served.dispose();
        server.close();
      });
      return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
  };
}

/**
 * Every text frame one graphql-transport-ws socket receives for `operations` (subscribed in
 * order after connection_ack, which is not kept), until each has completed or errored; then the
 * socket is closed. Rejects on a socket error.
 */
export async function framesFor(
  url: string,
  operations: { id: string; query: string }[],
): Promise<string[]> {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  let open = operations.length;
  const done = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const text = String(data);
      const message = JSON.parse(text) as { type: string };
      if (message.type === 'connection_ack') {
        for (const { id, query } of operations) {
          socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
        }
        return;
      }
      frames.push(text);
      if (message.type === 'complete' || message.type === 'error') {
        open -= 1;
        if (open === 0) resolve();
      }
    });
    socket.on('error', reject);
  });
  await once(socket, 'open');
  socket.send('{"type":"connection_init"}');
  await done;
  socket.close();
  return frames;
}
