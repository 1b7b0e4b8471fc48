/**
 * A stopping server tells its WebSocket clients it is going away (close 1001, RFC 6455 §7.4.1),
 * so they reconnect as after any restart instead of seeing an abnormal closure (1006); a peer
 * that never answers the closing handshake is cut after a grace, so it cannot hold the stop for
 * `ws`' own 30 s close timeout (src/server/wsServer.ts, goingAway).
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  await redis.stop();
});

describe('stopping the server', () => {
  it('closes a graphql-ws socket with 1001, a live subscription on it', async () => {
    const server = await startTestServer(redis.url);
    const socket = new WebSocket(server.endpoint.replace(/^http/, 'ws'), 'graphql-transport-ws');
    await once(socket, 'open');
    socket.send('{"type":"connection_init"}');
    await once(socket, 'message');
    socket.send(
      JSON.stringify({
        id: '1',
        type: 'subscribe',
        payload: { query: 'subscription { ringChanged(queue: "shutdown") { ring reason } }' },
      }),
    );
    await once(socket, 'message'); // its SNAPSHOT
    const closed = once(socket, 'close');
    await server.stop();
    const [code, reason] = (await closed) as [number, Buffer];
    expect([code, reason.toString()]).toEqual([1001, 'server shutting down']);
  });

  it('cuts a peer that never answers the closing handshake, well before ws’ 30 s timeout', {
    timeout: 60_000,
  }, async () => {
    const server = await startTestServer(redis.url);
    const { port } = new URL(server.endpoint);
    // A client that upgrades, then never reads nor answers: the server's close frame gets no
    // reply.
    const raw = connect(Number(port), '127.0.0.1');
    await once(raw, 'connect');
    raw.write(
      [
        'GET /graphql HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Protocol: graphql-transport-ws',
        '',
        '',
      ].join('\r\n'),
    );
    const [head] = (await once(raw, 'data')) as [Buffer];
    expect(head.toString()).toMatch(/^HTTP\/1\.1 101 /);
    raw.pause();
    const started = performance.now();
    await server.stop();
    // The grace is 1 s; ws' close timeout, which would otherwise hold the stop, is 30 s.
    expect(performance.now() - started).toBeLessThan(15_000);
    // And the peer was cut: reading on, it meets the end of the connection.
    const ended = once(raw, 'close');
    raw.resume();
    await ended;
  });
});
