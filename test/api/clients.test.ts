/**
 * Real GraphQL clients against the real server, configured as their own READMEs show:
 * urql (@urql/core with its default exchanges, which sends queries as GET), Apollo Client
 * (HttpLink, and GraphQLWsLink over graphql-ws for subscriptions), graphql-request (POST, and
 * GET when asked), graphql-sse's client and graphql-ws' client. Each runs a subscription (where
 * the client has them), a mutation the subscription sees, and a query — with AUTH_TOKENS unset,
 * and set with the token where each client puts it. With AUTH_TOKENS set, a client without the
 * token is told so, promptly: UNAUTHENTICATED, 401 or close code 4403.
 *
 * Result shapes are matched, not typed: mutation root fields may be nullable or not.
 */
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { cacheExchange, fetchExchange, Client as UrqlClient } from '@urql/core';
import { GraphQLClient } from 'graphql-request';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { type TestServer, useTestServer } from '../support/server.js';

const redis = useTestRedis();

const ENQUEUE = `mutation Enqueue($queue: String!, $group: String!) {
  enqueue(queue: $queue, group: $group, payload: { n: 1 }) { id group state }
}`;
const GROUP = `query Group($queue: String!, $group: String!) {
  queue(name: $queue) { ring group(id: $group) { id pending state } }
}`;
const RING = `subscription Ring($queue: String!) {
  ringChanged(queue: $queue) { ring reason }
}`;

type Data = Record<string, unknown>;
type Variables = Record<string, unknown>;

/** One client's way of running each kind of operation, written as its users write it. */
interface Calls {
  mutate(document: string, variables: Variables): Promise<Data | null | undefined>;
  query(document: string, variables: Variables): Promise<Data | null | undefined>;
  /** Deliver each result's data to `onData`; returns how to stop. */
  subscribe?(
    document: string,
    variables: Variables,
    onData: (data: Data) => void,
    onError: (error: unknown) => void,
  ): () => void;
}

/** A sink for each result's data or errors: what graphql-ws and graphql-sse both subscribe with. */
interface Sink {
  next(result: { data?: Data | null | undefined; errors?: readonly unknown[] | undefined }): void;
  error(error: unknown): void;
  complete(): void;
}

/** {@link Calls.subscribe} over a graphql-ws or a graphql-sse client (the same `subscribe`). */
const subscribeWith =
  (client: {
    subscribe(payload: { query: string; variables: Variables }, sink: Sink): () => void;
  }) =>
  (
    query: string,
    variables: Variables,
    onData: (data: Data) => void,
    onError: (error: unknown) => void,
  ): (() => void) =>
    client.subscribe(
      { query, variables },
      {
        next: (result) => (result.errors ? onError(result.errors) : onData(result.data ?? {})),
        error: onError,
        complete: () => undefined,
      },
    );

/**
 * The scenario every client runs: a queue that already has `first` on its ring; subscribe to
 * the ring (a SNAPSHOT arrives), enqueue for `acme` (a mutation), see `acme` join the ring on
 * the subscription, then read the group back (a query).
 */
async function exercise(api: TestServer, calls: Calls): Promise<void> {
  const queue = queueName('clients');
  await api.server.engine.queue(queue).enqueue('first', null);
  const events: Data[] = [];
  const errors: unknown[] = [];
  let stop = (): void => undefined;
  if (calls.subscribe) {
    stop = calls.subscribe(
      RING,
      { queue },
      (data) => events.push(data),
      (e) => errors.push(e),
    );
    await waitFor('the snapshot', () => events.length > 0 || errors.length > 0);
    expect(errors).toEqual([]);
    expect(events[0]).toMatchObject({ ringChanged: { ring: ['first'], reason: 'SNAPSHOT' } });
  }
  try {
    const enqueued = await calls.mutate(ENQUEUE, { queue, group: 'acme' });
    expect(enqueued).toMatchObject({
      enqueue: { id: expect.any(String), group: 'acme', state: 'PENDING' },
    });
    if (calls.subscribe) {
      await waitFor('acme on the ring, over the subscription', () =>
        events.some((e) => (e.ringChanged as { ring: string[] }).ring.includes('acme')),
      );
      expect(errors).toEqual([]);
    }
  } finally {
    stop();
  }
  const read = await calls.query(GROUP, { queue, group: 'acme' });
  expect(read).toMatchObject({
    queue: { ring: ['first', 'acme'], group: { id: 'acme', pending: 1, state: 'READY' } },
  });
}

const TOKEN = 'admin-token-for-the-clients-suite';
const MODES = [
  { mode: 'AUTH_TOKENS unset', env: {}, token: undefined },
  { mode: 'AUTH_TOKENS set', env: { AUTH_TOKENS: `admin:${TOKEN}` }, token: TOKEN },
] as const;

/** What each client sends with a token: `Authorization: Bearer …` on HTTP and SSE. */
const bearer = (token: string | undefined): Record<string, string> =>
  token ? { authorization: `Bearer ${token}` } : {};

/** graphql-ws carries the token in connection_init's payload (docs/server.md, "Authentication"). */
const wsParams = (token: string | undefined): Record<string, string> =>
  token ? { authorization: token } : {};

const wsUrl = (api: TestServer): string => api.endpoint.replace(/^http/, 'ws');

describe.each(MODES)('with $mode', ({ env, token }) => {
  const api = useTestServer(env, { redis });

  it('urql with its default exchanges: queries go as GET, mutations as POST, subscriptions as SSE', async () => {
    // Watches the requests urql makes, to prove that the queries here really went as GET.
    const methods: string[] = [];
    const client = new UrqlClient({
      url: api.endpoint,
      exchanges: [cacheExchange, fetchExchange],
      fetchSubscriptions: true,
      fetchOptions: { headers: bearer(token) },
      fetch: (input, init) => {
        methods.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });
    const unwrap = async (promise: Promise<{ data?: Data; error?: unknown }>) => {
      const result = await promise;
      expect(result.error).toBeUndefined();
      return result.data;
    };
    await exercise(api, {
      mutate: (document, variables) => unwrap(client.mutation(document, variables).toPromise()),
      query: (document, variables) =>
        unwrap(client.query(document, variables, { requestPolicy: 'network-only' }).toPromise()),
      subscribe(document, variables, onData, onError) {
        const { unsubscribe } = client.subscription(document, variables).subscribe((result) => {
          if (result.error) onError(result.error);
          else if (result.data) onData(result.data);
        });
        return unsubscribe;
      },
    });
    expect(methods).toEqual(['POST', 'POST', 'GET']); // subscription, mutation, query
  });

  it('Apollo Client: HttpLink for queries and mutations, GraphQLWsLink for subscriptions', async () => {
    const ws = createWsClient({
      url: wsUrl(api),
      webSocketImpl: WebSocket,
      connectionParams: wsParams(token),
    });
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: ApolloLink.split(
        ({ query }) => {
          const definition = getMainDefinition(query);
          return (
            definition.kind === 'OperationDefinition' && definition.operation === 'subscription'
          );
        },
        new GraphQLWsLink(ws),
        new HttpLink({ uri: api.endpoint, headers: bearer(token) }),
      ),
    });
    try {
      await exercise(api, {
        mutate: async (document, variables) =>
          (await client.mutate({ mutation: gql(document), variables })).data as Data,
        query: async (document, variables) =>
          (await client.query({ query: gql(document), variables, fetchPolicy: 'network-only' }))
            .data as Data,
        subscribe(document, variables, onData, onError) {
          const subscription = client.subscribe({ query: gql(document), variables }).subscribe({
            next: (result) => {
              if (result.error) onError(result.error);
              else if (result.data) onData(result.data as Data);
            },
            error: onError,
          });
          return () => subscription.unsubscribe();
        },
      });
    } finally {
      client.stop();
      await ws.dispose();
    }
  });

  it('graphql-request: POST by default, and GET when asked', async () => {
    const client = new GraphQLClient(api.endpoint, { headers: bearer(token) });
    await exercise(api, {
      mutate: (document, variables) => client.request<Data>(document, variables),
      query: (document, variables) => client.request<Data>(document, variables),
    });
    const overGet = new GraphQLClient(api.endpoint, { method: 'GET', headers: bearer(token) });
    await expect(overGet.request<Data>('{ queues { name } }')).resolves.toMatchObject({
      queues: expect.any(Array),
    });
  });

  it('graphql-sse: every operation over SSE (distinct connections)', async () => {
    const client = createSseClient({ url: api.endpoint, headers: bearer(token) });
    /** One result of a query or mutation, as graphql-sse's README runs them. */
    const once = (query: string, variables: Variables) =>
      new Promise<Data | null | undefined>((resolve, reject) => {
        let data: Data | null | undefined;
        client.subscribe<Data>(
          { query, variables },
          {
            next: (result) => {
              if (result.errors) reject(new Error(JSON.stringify(result.errors)));
              data = result.data;
            },
            error: reject,
            complete: () => resolve(data),
          },
        );
      });
    try {
      await exercise(api, {
        mutate: once,
        query: once,
        subscribe: subscribeWith(client),
      });
    } finally {
      client.dispose();
    }
  });

  it('graphql-ws: every operation over one WebSocket', async () => {
    const client = createWsClient({
      url: wsUrl(api),
      webSocketImpl: WebSocket,
      connectionParams: wsParams(token),
    });
    /** The one result of a query or mutation (graphql-ws' `iterate`, as in its README). */
    const once = async (query: string, variables: Variables) => {
      for await (const result of client.iterate<Data>({ query, variables })) {
        if (result.errors) throw new Error(JSON.stringify(result.errors));
        return result.data;
      }
      throw new Error('completed without a result');
    };
    try {
      await exercise(api, {
        mutate: once,
        query: once,
        subscribe: subscribeWith(client),
      });
    } finally {
      await client.dispose();
    }
  });
});

describe('with AUTH_TOKENS set, a client without the token is told so', () => {
  const api = useTestServer({ AUTH_TOKENS: `admin:${TOKEN}` }, { redis });

  it('urql: a query (GET) and a mutation answer UNAUTHENTICATED', async () => {
    const client = new UrqlClient({ url: api.endpoint, exchanges: [cacheExchange, fetchExchange] });
    const query = await client.query('{ queues { name } }', {}).toPromise();
    expect(query.error?.graphQLErrors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const mutation = await client
      .mutation(ENQUEUE, { queue: queueName('refused'), group: 'a' })
      .toPromise();
    expect(mutation.error?.graphQLErrors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('Apollo Client: the query rejects with UNAUTHENTICATED', async () => {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({ uri: api.endpoint }),
    });
    await expect(client.query({ query: gql('{ queues { name } }') })).rejects.toThrow(
      /bearer token/,
    );
  });

  it('graphql-request: the request rejects with 401 and UNAUTHENTICATED', async () => {
    const client = new GraphQLClient(api.endpoint);
    const error = await client.request('{ queues { name } }').catch((e: unknown) => e);
    expect(error).toMatchObject({
      response: { status: 401, errors: [{ extensions: { code: 'UNAUTHENTICATED' } }] },
    });
  });

  // graphql-sse and graphql-ws retry a refused connection 5 times with growing pauses (~30 s)
  // by design (a token may be refreshed in between); with retries off the refusal is immediate.
  it('graphql-sse: the subscription fails with 401', async () => {
    const client = createSseClient({ url: api.endpoint, retryAttempts: 0 });
    try {
      const error = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: RING, variables: { queue: queueName('refused') } },
          { next: () => undefined, error: resolve, complete: () => resolve(null) },
        );
      });
      expect(String(error)).toMatch(/401/);
    } finally {
      client.dispose();
    }
  });

  it('graphql-ws: the socket is closed with 4403 Forbidden', async () => {
    const client = createWsClient({ url: wsUrl(api), webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const error = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: RING, variables: { queue: queueName('refused') } },
          { next: () => undefined, error: resolve, complete: () => resolve(null) },
        );
      });
      expect(error).toMatchObject({ code: 4403 });
    } finally {
      await client.dispose();
    }
  });
});
