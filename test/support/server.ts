/**
 * Test harness for the real server: `buildServer` on a free port over a test Redis, with typed
 * clients for each transport — HTTP (`request`, and `ok` for a call that must succeed),
 * graphql-ws (`ws`) and SSE (`sse`) — and `useTestServer`, a test file's server and Redis.
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type ExecutionResult, print } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { WebSocket } from 'ws';
import { buildServer, type RingmasterServer } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import { createLogger } from '../../src/server/logger.js';
import { type TestRedisHandle, useTestRedis } from './redis.js';

export interface GraphQLResponse<T> {
  status: number;
  body: ExecutionResult<T> & { errors?: { message: string; extensions?: { code?: string } }[] };
}

export interface TestServer {
  readonly server: RingmasterServer;
  /** `http://127.0.0.1:<port>/graphql` */
  readonly endpoint: string;
  /** POST a typed operation; `token` goes in `Authorization: Bearer`. */
  request<T, V>(
    document: TypedDocumentNode<T, V>,
    variables?: V,
    options?: { token?: string },
  ): Promise<GraphQLResponse<T>>;
  /** `request`, then its data: fails the test unless the answer is a success ({@link ok}). */
  ok<T, V>(
    document: TypedDocumentNode<T, V>,
    variables?: V,
    options?: { token?: string },
  ): Promise<T>;
  /** A graphql-ws client (closed by `stop()`); `token` goes in connectionParams.authorization. */
  ws(options?: { token?: string; retryAttempts?: number }): Client;
  /** Subscribe over SSE (Yoga's transport); iterate the results, `return()` to abort. */
  sse<T, V>(
    document: TypedDocumentNode<T, V>,
    variables?: V,
    options?: { token?: string },
  ): AsyncGenerator<ExecutionResult<T>>;
  stop(): Promise<void>;
}

/** A token for each role, for a server with auth on (AUTH_TOKENS, DESIGN.md §6). */
export const ROLE_TOKENS = {
  read: 'read-token-0123456789abcdef',
  worker: 'worker-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
} as const;

/** The AUTH_TOKENS value that gives each role its {@link ROLE_TOKENS} token. */
export const ROLE_AUTH_TOKENS = Object.entries(ROLE_TOKENS)
  .map(([role, token]) => `${role}:${token}`)
  .join(',');

/** What `GET /ready` answers for a ready server on a Redis that notifies (DESIGN.md §6). */
export const READY = {
  ready: true,
  redis: 'up',
  notifications: 'notifications',
  subscriber: 'up',
  eviction: 'noeviction',
} as const;

/** The data of a successful response; fails the test unless it is HTTP 200 with no errors. */
export function ok<T>(response: GraphQLResponse<T>): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data as T;
}

/**
 * Start a server on a free port over `redisUrl`; `env` overrides DESIGN.md §6 variables. With
 * `REDIS_CLUSTER_NODES` in `env`, REDIS_URL is left unset (the two exclude each other).
 */
export async function startTestServer(
  redisUrl: string,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const redis = env.REDIS_CLUSTER_NODES === undefined ? { REDIS_URL: redisUrl } : {};
  const config = loadConfig({ PORT: '0', ...redis, LOG_LEVEL: 'silent', ...env });
  const server = await buildServer(config, createLogger(config.logLevel));
  await server.start();
  const endpoint = `${server.url}/graphql`;
  const clients: Client[] = [];
  const aborts: AbortController[] = [];
  const headers = (token?: string): Record<string, string> =>
    token ? { authorization: `Bearer ${token}` } : {};

  const request: TestServer['request'] = async (document, variables, options = {}) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...headers(options.token),
      },
      body: JSON.stringify({ query: print(document), variables }),
    });
    return { status: response.status, body: await response.json() };
  };

  return {
    server,
    endpoint,
    request,
    ok: async (document, variables, options) => ok(await request(document, variables, options)),
    ws(options = {}) {
      const client = createClient({
        url: endpoint.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        retryAttempts: options.retryAttempts ?? 0,
        connectionParams: options.token ? { authorization: options.token } : {},
      });
      clients.push(client);
      return client;
    },
    async *sse(document, variables, options = {}) {
      const abort = new AbortController();
      aborts.push(abort);
      const response = await fetch(endpoint, {
        method: 'POST',
        signal: abort.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          ...headers(options.token),
        },
        body: JSON.stringify({ query: print(document), variables }),
      });
      if (!response.body) throw new Error(`SSE: no body (HTTP ${response.status})`);
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream()) as unknown as AsyncIterable<EventSourceMessage>;
      try {
        for await (const event of events) {
          if (event.event === 'complete') return;
          if (event.data) yield JSON.parse(event.data) as ExecutionResult<never>;
        }
      } finally {
        abort.abort();
      }
    },
    async stop() {
      for (const abort of aborts) abort.abort();
      await Promise.all(clients.map((c) => c.dispose()));
      await server.stop();
    },
  };
}

/**
 * A test file's (or a `describe`'s) server over a test Redis of its own (`useTestRedis`, started
 * in `beforeAll` and stopped in `afterAll`), or over `redis` when given (one the file already
 * has). The server is started in `beforeAll` and stopped in `afterAll` (before the Redis), or
 * with `perTest` started afresh in `beforeEach` and stopped in `afterEach`. The answer is the
 * server as a {@link TestServer} once started (its fields throw before), and `redis`, the Redis
 * handle.
 * ```ts
 * const api = useTestServer({ AUTH_TOKENS });   // at the top of the file
 * it('…', async () => { await api.request(QueuesDocument); });
 * ```
 */
export function useTestServer(
  env: Record<string, string> = {},
  options: { perTest?: boolean; redis?: TestRedisHandle } = {},
): TestServer & { readonly redis: TestRedisHandle } {
  const redis = options.redis ?? useTestRedis();
  let started: TestServer | undefined;
  const [before, after] = options.perTest ? [beforeEach, afterEach] : [beforeAll, afterAll];
  before(async () => {
    started = await startTestServer(redis.url, env);
  });
  after(async () => {
    await started?.stop();
    started = undefined;
  });
  const current = (): TestServer => {
    if (started === undefined) throw new Error('useTestServer: the server is not running here');
    return started;
  };
  return {
    redis,
    get server() {
      return current().server;
    },
    get endpoint() {
      return current().endpoint;
    },
    request: (document, variables, options) => current().request(document, variables, options),
    ok: (document, variables, options) => current().ok(document, variables, options),
    ws: (options) => current().ws(options),
    sse: (document, variables, options) => current().sse(document, variables, options),
    stop: () => current().stop(),
  };
}
