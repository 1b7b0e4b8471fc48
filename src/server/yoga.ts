/**
 * The Yoga instance: `/graphql` over HTTP and SSE (Yoga's own transport), GraphiQL, `/health`,
 * `/ready`, error masking and auth. WebSocket operations run through the same instance
 * (`ws.ts`), so every transport shares one pipeline.
 */
import {
  createYoga,
  type GraphiQLOptions,
  type Plugin,
  useReadinessCheck,
  type YogaServerInstance,
} from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Context } from '../context.js';
import type { Ringmaster } from '../lanes/index.js';
import type { LiveFeed } from '../pubsub/index.js';
import { schema } from '../schema/index.js';
import type { Authenticator } from './auth.js';
import type { ConnectionLimiter } from './connectionLimits.js';
import { useGraphiQLPage } from './graphiql.js';
import { useBadBodyStatus } from './plugins/badBody.js';
import type { BrowserPolicy } from './plugins/browser.js';
import { maskError, UNEXPECTED_ERROR_MESSAGE, useRedisFailureStatus } from './plugins/errors.js';
import { useNoIntrospection } from './plugins/introspection.js';
import { MAX_REQUEST_BYTES, useQueryLimits } from './plugins/limits.js';
import { useOperationRoleCheck } from './plugins/operationRole.js';
import { useSharedSubscriptionExecution } from './plugins/sharedExecution.js';
import { useStreamLimit } from './plugins/streamLimit.js';
import { useSubscriptionRootRule } from './plugins/subscriptionRoot.js';
import { useEndUnprocessedStreams } from './plugins/unprocessedStreams.js';
import { useStrictUtf8 } from './plugins/utf8.js';

/** What a request context is built from, on HTTP (request) and WebSocket (connectionParams). */
export interface ServerContext {
  readonly request: Request;
  readonly connectionParams?: Readonly<Record<string, unknown>>;
}

export interface YogaDeps {
  readonly engine: Ringmaster;
  readonly feed: LiveFeed;
  readonly auth: Authenticator;
  readonly logger: Logger;
  readonly introspection: boolean;
  /** CORS, CSRF prevention and the DNS-rebinding guard (`plugins/browser.ts`). */
  readonly browser: BrowserPolicy;
  /** Readiness: Redis answers and notifications are configured (or polling). */
  readonly ready: () => Promise<{ ok: boolean; detail: Record<string, unknown> }>;
  /** Connections per client, WebSockets and SSE streams together (`connectionLimits.ts`). */
  readonly connections: ConnectionLimiter;
  /** Plugins run first, before the browser policy (the operation counter of `GET /metrics`). */
  readonly observers?: readonly Plugin[];
}

/** GraphiQL's options: its title, transport and the query it opens with. */
const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'Ringmaster',
  // Subscriptions as SSE over POST, like every other operation, so they carry the Headers
  // tab (a token) and pass CSRF prevention as JSON; a refusal (401) shows in the result
  // pane. Over graphql-ws GraphiQL sends a fixed connection_init payload, without the tab's
  // token, and reconnects forever when the server closes the socket.
  subscriptionsProtocol: 'SSE',
  method: 'POST',
  defaultQuery: [
    '# Ringmaster: per-group concurrency for Redis job queues.',
    '# Every queue, its ring (head first) and its totals:',
    '{',
    '  queues {',
    '    name',
    '    ring',
    '    counts { groups onRing paused saturated pending active dead }',
    '  }',
    '}',
    '',
    '# Watch a ring live (run it on its own):',
    '# subscription { ringChanged(queue: "demo") { ring added removed reason } }',
    '',
  ].join('\n'),
};

export type RingmasterYoga = YogaServerInstance<ServerContext, Context>;

export function createRingmasterYoga(deps: YogaDeps): RingmasterYoga {
  const plugins: Plugin[] = [
    ...(deps.observers ?? []),
    // Where Yoga's own GraphiQL plugin runs: before the browser policy and the request checks.
    // GraphiQL from the installed package, not a CDN: it works on a machine with no internet;
    // imported on the first GraphiQL request, not at start.
    useGraphiQLPage('/graphql', GRAPHIQL_OPTIONS),
    ...deps.browser.plugins(),
    // Bodies and query strings that are not UTF-8: 400, never decoded with U+FFFD.
    useStrictUtf8(),
    useBadBodyStatus(),
    useReadinessCheck({
      endpoint: '/ready',
      check: async () => {
        const { ok, detail } = await deps.ready();
        return new Response(JSON.stringify({ ready: ok, ...detail }), {
          status: ok ? 200 : 503,
          headers: { 'content-type': 'application/json' },
        });
      },
    }),
    useRedisFailureStatus(),
    ...useQueryLimits(),
    useSubscriptionRootRule(),
    // A subscription asked over plain HTTP gets 406: its stream ends, its watch goes.
    useEndUnprocessedStreams(),
    // Before anything that replaces execute/subscribe: a refused operation runs nothing.
    useOperationRoleCheck(schema),
    // An SSE stream past MAX_CONNECTIONS_PER_CLIENT is refused before it subscribes.
    useStreamLimit(deps.connections, deps.auth),
    // Field auth reads the role, so only subscribers of one role share an event's result.
    useSharedSubscriptionExecution({
      scopeOf: (context) => (context as Context).role,
      // What resolvers read (context.ts), not the socket or request a subscriber came by.
      executionContextOf: (context) => {
        const { engine, feed, role, actor } = context as Context;
        return { engine, feed, role, actor };
      },
    }),
  ];
  if (!deps.introspection) plugins.push(useNoIntrospection());

  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    // Served by useGraphiQLPage (graphiql.ts): rendered once and gzipped, not per request.
    graphiql: false,
    maskedErrors: { isDev: false, maskError: maskError(), errorMessage: UNEXPECTED_ERROR_MESSAGE },
    // DESIGN.md §5: a body over 1 MiB is refused with 413 (a payload is at most 512 KiB).
    maxRequestBodySize: MAX_REQUEST_BYTES,
    // One operation per request: an array body is refused (400), so no request multiplies work.
    batching: false,
    cors: deps.browser.cors,
    logging: deps.logger.child({ component: 'yoga' }),
    plugins,
    context: ({ request, connectionParams }) => {
      const authorization =
        connectionParams === undefined
          ? request.headers.get('authorization')
          : connectionParams.authorization;
      const role = deps.auth.require(authorization);
      const actor = deps.auth.actorOf(authorization) ?? role;
      return { engine: deps.engine, feed: deps.feed, role, actor };
    },
  });
}
