/**
 * Helpers for the API tests (`test/api/`): raw requests on every transport (so a test
 * can send what the typed documents cannot, and read the exact bytes the server answered), the
 * §5 leak check, and a "nothing changed in Redis" assertion built on the keyspace snapshot.
 */
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { Job, Queue } from '../../src/lanes/index.js';
import { snapshot } from './lanes.js';
import type { GraphQLResponse } from './server.js';

/** What any response body must never hold (DESIGN.md §5): stack, file path, Redis text. */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\bat [^\s()]+ \(/, // a stack frame: "at fn (file:line)"
  /\/work\//,
  /\.ts:\d/,
  /\.js:\d/,
  /\.lua\b/,
  /node_modules/,
  /\bstack\b/i,
  /\bERR\b/,
  /WRONGTYPE/,
  /ioredis/i,
  /ReplyError/,
  /user_script/,
  /@user_script/,
  /user_function/,
  /ringmaster_[0-9a-f]{12}/,
  /\bredis\b/i,
];

/** Fail when `text` holds anything of {@link LEAK_PATTERNS}. */
export function expectNoLeak(text: string): void {
  for (const pattern of LEAK_PATTERNS) {
    expect(text, `response leaks ${pattern}: ${text.slice(0, 500)}`).not.toMatch(pattern);
  }
}

export interface GraphQLErrorShape {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; [key: string]: unknown };
}

export interface RawResponse {
  status: number;
  /** The body exactly as sent (every SSE event, for event streams). */
  text: string;
  /** The GraphQL result: the parsed JSON body, or the first SSE `next` event's data. */
  json: { data?: unknown; errors?: GraphQLErrorShape[] } | undefined;
}

export interface RawRequest {
  query: string;
  variables?: Record<string, unknown>;
}

/**
 * POST `body` to `endpoint`. `accept` is `application/graphql-response+json` by default; with
 * `text/event-stream` (SSE) the stream is read until its first `next` event and then aborted,
 * so a subscription that is accepted does not hold the test open.
 */
export async function post(
  endpoint: string,
  body: RawRequest | string,
  options: { token?: string; accept?: string; authorization?: string } = {},
): Promise<RawResponse> {
  const accept = options.accept ?? 'application/graphql-response+json';
  const headers: Record<string, string> = { 'content-type': 'application/json', accept };
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  else if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const abort = new AbortController();
  const response = await fetch(endpoint, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: abort.signal,
  });
  if (accept !== 'text/event-stream') {
    const text = await response.text();
    let json: RawResponse['json'];
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json };
  }
  // SSE: read until the first `next` event (or the end of the stream), then hang up.
  let text = '';
  let json: RawResponse['json'];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  try {
    while (json === undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const event = /event: next\ndata: (.*)\n\n/.exec(text);
      if (event) json = JSON.parse(event[1] as string);
    }
  } finally {
    abort.abort();
    await reader.cancel().catch(() => undefined);
  }
  return { status: response.status, text, json };
}

/** The `extensions.code` of every error in a result, in order. */
export function codes(json: RawResponse['json']): (string | undefined)[] {
  return (json?.errors ?? []).map((e) => e.extensions?.code);
}

/** What a graphql-ws exchange ended with, from the raw protocol. */
export interface WsOutcome {
  /** The close code when the server closed the socket before the operation completed. */
  closeCode?: number;
  /** `next` payloads, then the `error` payload (as `{ errors }`) if there was one. */
  results: { data?: unknown; errors?: GraphQLErrorShape[] }[];
  /** Every frame the server sent, as text, for the leak check. */
  frames: string[];
}

/**
 * Run one operation over graphql-ws at the protocol level (no client library, so nothing is
 * retried or hidden): connection_init with `authorization` in the payload, then subscribe, and
 * collect frames until the first result (or error/complete), or the socket closes.
 */
export function wsOperation(
  endpoint: string,
  body: RawRequest,
  options: { token?: string } = {},
  timeoutMs = 5_000,
): Promise<WsOutcome> {
  const url = endpoint.replace(/^http/, 'ws');
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const outcome: WsOutcome = { results: [], frames: [] };
  return new Promise<WsOutcome>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`graphql-ws: no outcome within ${timeoutMs} ms: ${outcome.frames}`));
    }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      if (socket.readyState === WebSocket.OPEN) socket.close(1000);
      resolve(outcome);
    };
    socket.on('open', () => {
      const payload = options.token === undefined ? {} : { authorization: options.token };
      socket.send(JSON.stringify({ type: 'connection_init', payload }));
    });
    socket.on('message', (raw) => {
      const text = raw.toString();
      outcome.frames.push(text);
      const message = JSON.parse(text) as { type: string; payload?: unknown };
      if (message.type === 'connection_ack') {
        socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: body }));
      } else if (message.type === 'next') {
        outcome.results.push(message.payload as WsOutcome['results'][number]);
        finish();
      } else if (message.type === 'error') {
        outcome.results.push({ errors: message.payload as GraphQLErrorShape[] });
        finish();
      } else if (message.type === 'complete') {
        finish();
      }
    });
    socket.on('close', (code) => {
      if (outcome.results.length === 0) outcome.closeCode = code;
      clearTimeout(timer);
      resolve(outcome);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Run `action` and assert the whole keyspace is byte for byte what it was (DUMP + PTTL of every
 * key; `take` another snapshot, such as lanes.ts' expirySnapshot, where keys expire: a PTTL counts
 * down between the two). Returns what `action` returned.
 */
export async function expectRedisUnchanged<T>(
  redis: Redis,
  action: () => Promise<T>,
  take: (redis: Redis) => Promise<Map<string, string>> = snapshot,
): Promise<T> {
  const before = await take(redis);
  const result = await action();
  const after = await take(redis);
  expect(Object.fromEntries(after), 'Redis changed').toEqual(Object.fromEntries(before));
  return result;
}

/**
 * Put something in every kind of key of `queue` (a limit, a dead job, an active job leased for
 * an hour, pending work, a paused group), so a stray write anywhere shows in a snapshot.
 * Returns the active job (group `a`).
 */
export async function seedEveryKey(queue: Queue): Promise<Job> {
  await queue.setLimit('a', 2);
  await queue.enqueue('d', { doomed: true }, { maxAttempts: 1 });
  const doomed = await queue.claim();
  await queue.retry(doomed?.id as string, doomed?.token as string, 'gone');
  await queue.enqueue('a', { n: 1 });
  await queue.enqueue('a', { n: 2 });
  const active = (await queue.claim({ leaseMs: 3_600_000 })) as Job;
  await queue.enqueue('b', { n: 3 });
  await queue.pause('b');
  await queue.enqueue('c');
  return active;
}

/**
 * A refused GraphQL call's one error, after the §5 leak check on the whole body: its
 * `extensions.code` and `extensions.argument` (the input path a BAD_USER_INPUT names). Fails the
 * test unless the body holds exactly one error.
 */
export function refusal<T>(response: GraphQLResponse<T>): { code?: string; argument?: unknown } {
  expectNoLeak(JSON.stringify(response.body));
  expect(response.body.errors, JSON.stringify(response.body)).toHaveLength(1);
  const extensions = response.body.errors?.[0]?.extensions as Record<string, unknown> | undefined;
  return { code: extensions?.code as string, argument: extensions?.argument };
}
