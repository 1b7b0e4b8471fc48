/**
 * Probes of the hostile-input tests (test/api/hostile.*.test.ts): a raw HTTP request whose every
 * byte and header is the test's own, a raw graphql-ws socket that plays a script of frames and
 * reports how the server ended it, and the check that the server is still up after each.
 */
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import { post, type RawResponse, wsOperation } from './api.js';
import type { TestServer } from './server.js';

/** The server is up: /health answers, a query over HTTP answers, and (optionally) over WebSocket. */
export async function expectServerUp(server: TestServer, overWebSocket = false): Promise<void> {
  const health = await fetch(`${server.server.url}/health`);
  expect(health.status, '/health').toBe(200);
  const query = await post(server.endpoint, { query: '{ queues { name } }' });
  expect(query.status, query.text).toBe(200);
  expect(query.json?.data).toEqual({ queues: expect.any(Array) });
  if (overWebSocket) {
    const outcome = await wsOperation(server.endpoint, { query: '{ queues { name } }' });
    expect(outcome.results[0]?.data).toEqual({ queues: expect.any(Array) });
  }
}

/** A raw HTTP request: POST to the endpoint unless `method` and `path` say otherwise. */
export interface Sent {
  method?: string;
  /** Merged over `content-type: application/json` and a GraphQL accept; null removes one. */
  headers?: Record<string, string | null>;
  body?: string | Buffer;
  path?: string;
}

/**
 * One raw HTTP request with node:http, so every byte and header is the test's own (fetch adds a
 * content-type to string bodies and will not send a Host of our choosing).
 */
export function send(sent: Sent, endpoint: string): Promise<RawResponse> {
  const url = new URL(sent.path ?? '', endpoint);
  const headers: Record<string, string> = {};
  const merged: Record<string, string | null> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json',
    ...sent.headers,
  };
  for (const [name, value] of Object.entries(merged)) if (value !== null) headers[name] = value;
  if (sent.body !== undefined) headers['content-length'] = String(Buffer.byteLength(sent.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: sent.method ?? 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: RawResponse['json'];
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

/** One step of a raw socket's script: send text, send bytes, or wait for a message type. */
export type WsStep =
  | { readonly send: string }
  | { readonly sendBytes: Buffer; readonly binary: boolean }
  | { readonly await: string };

/** A socket's script and how the server must end it. */
export interface WsCase {
  readonly name: string;
  readonly steps: readonly WsStep[];
  readonly protocol?: string | string[];
  readonly headers?: Record<string, string>;
  /** The server closes the socket with this code … */
  readonly close?: number;
  /** … or refuses the upgrade with this HTTP status … */
  readonly upgradeStatus?: number;
  /** … or answers the operation with an `error` message of this code and keeps the socket; */
  readonly errorCode?: string;
  /** with none of the three, the socket must still be open (a ping answered) after the steps. */
}

/** How the server ended a played script. */
export interface WsResult {
  closeCode?: number;
  closeReason?: string;
  upgradeStatus?: number;
  frames: string[];
  /** Set when the socket is still open at the end: a ping was answered with a pong. */
  stillOpen: boolean;
}

/** Open a raw socket, play `steps`, and report how the server ended it (bounded, no sleeps). */
export function playWs(c: WsCase, endpoint: string): Promise<WsResult> {
  const socket = new WebSocket(
    endpoint.replace(/^http/, 'ws'),
    c.protocol ?? 'graphql-transport-ws',
    {
      headers: c.headers,
    },
  );
  const result: WsResult = { frames: [], stillOpen: false };
  const waiters: { type: string; resolve: () => void }[] = [];
  const seen = (type: string) => {
    const i = waiters.findIndex((w) => w.type === type);
    if (i >= 0) waiters.splice(i, 1)[0]?.resolve();
  };
  return new Promise<WsResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`${c.name}: no outcome within 10 s; frames: ${result.frames.join(' | ')}`));
    }, 10_000);
    const done = () => {
      clearTimeout(timer);
      resolve(result);
    };
    socket.on('unexpected-response', (_req, res) => {
      result.upgradeStatus = res.statusCode ?? 0;
      res.resume();
      done();
    });
    socket.on('error', (error) => {
      if (result.upgradeStatus === undefined) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', (code, reason) => {
      result.closeCode = code;
      result.closeReason = reason.toString();
      done();
    });
    socket.on('message', (data) => {
      const text = data.toString();
      result.frames.push(text);
      try {
        const type = (JSON.parse(text) as { type?: string }).type;
        if (type) seen(type);
      } catch {
        // not JSON: kept in frames for the leak check
      }
    });
    socket.on('open', async () => {
      try {
        for (const step of c.steps) {
          if ('await' in step) {
            await new Promise<void>((res) => waiters.push({ type: step.await, resolve: res }));
          } else if ('sendBytes' in step) {
            socket.send(step.sendBytes, { binary: step.binary });
          } else {
            socket.send(step.send);
          }
        }
        if (c.close === undefined && c.upgradeStatus === undefined) {
          // The operation's error, if one is expected; then proof that the socket is usable.
          if (c.errorCode !== undefined) {
            // An `error` message (refused before it ran) or a `next` with errors (a field error).
            await new Promise<void>((res) => {
              waiters.push({ type: 'error', resolve: res }, { type: 'next', resolve: res });
            });
          }
          const pong = new Promise<void>((res) => waiters.push({ type: 'pong', resolve: res }));
          socket.send(JSON.stringify({ type: 'ping' }));
          await pong;
          result.stillOpen = true;
          socket.close(1000);
        }
      } catch (error) {
        reject(error);
      }
    });
  });
}
