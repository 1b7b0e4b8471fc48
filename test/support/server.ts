/**
 * Test harness for the real server: `buildServer` on a free port over a test Redis, with typed
 * clients for each transport — HTTP (`request`), graphql-ws (`ws`) and SSE (`sse`).
 */
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { type ExecutionResult, print } from 'graphql';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll } from 'vitest';
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

  return {
    server,
    endpoint,
    async request(document, variables, options = {}) {
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
    },
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
 * A test file's server over a test Redis of its own (`useTestRedis`): both started in
 * `beforeAll`, stopped in `afterAll` (the server first). The answer is the server as a
 * {@link TestServer} once started (its fields throw before), and `redis`, the Redis handle.
 * ```ts
 * const api = useTestServer({ AUTH_TOKENS });   // at the top of the file
 * it('…', async () => { await api.request(QueuesDocument); });
 * ```
 */
export function useTestServer(
  env: Record<string, string> = {},
): TestServer & { readonly redis: TestRedisHandle } {
  const redis = useTestRedis();
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(redis.url, env);
  });
  afterAll(async () => {
    await started?.stop();
  });
  const current = (): TestServer => {
    if (started === undefined) throw new Error('useTestServer: the server starts in beforeAll');
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
    ws: (options) => current().ws(options),
    sse: (document, variables, options) => current().sse(document, variables, options),
    stop: () => current().stop(),
  };
}
