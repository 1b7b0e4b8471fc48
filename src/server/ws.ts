/**
 * graphql-ws on the same path as HTTP (`/graphql`), every operation run through Yoga's own
 * pipeline (`getEnveloped`), so auth, limits and error masking match HTTP and SSE. The one
 * exception is per event: a shared-execution stream is delivered as it is and its results
 * masked here, once each (DESIGN.md §4.4, "Transports"). A socket whose `connection_init`
 * carries no valid token is closed with 4403; one past MAX_CONNECTIONS_PER_CLIENT (its client's
 * sockets and SSE streams together) with 1013 (`connectionLimits.ts`).
 */
import type { Server } from 'node:http';
import {
  type ExecutionArgs,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLFormattedError,
  getOperationAST,
} from 'graphql';
import { isAsyncIterable } from 'graphql-yoga';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Authenticator } from './auth.js';
import {
  ConnectionLimiter,
  clientKey,
  DEFAULT_MAX_CONNECTIONS_PER_CLIENT,
  TOO_MANY_CONNECTIONS,
} from './connectionLimits.js';
import type { BrowserPolicy } from './plugins/browser.js';
import { maskError, UNEXPECTED_ERROR_MESSAGE } from './plugins/errors.js';
import { MAX_REQUEST_BYTES, MAX_SUBSCRIPTIONS_PER_SOCKET } from './plugins/limits.js';
import { takeSharedStream } from './plugins/sharedExecution.js';
import { Utf8WebSocket } from './plugins/utf8.js';
import {
  goingAway,
  pushedOperation,
  RawPayload,
  type SocketExtra,
  serveGraphqlWs,
} from './wsServer.js';
import type { RingmasterYoga } from './yoga.js';

/** How long a stopping server waits for its WebSockets' closing handshakes (ms): {@link goingAway}. */
const SHUTDOWN_GRACE_MS = 1_000;

type Envelope = ReturnType<RingmasterYoga['getEnveloped']>;

/** A result as graphql-ws hands it to `onNext`, or as a shared stream gives it. */
interface NextResult {
  readonly errors?: readonly (GraphQLError | GraphQLFormattedError)[] | undefined;
}

/** What an operation's execute or subscribe needs from its onSubscribe. */
interface Operation {
  readonly enveloped: Envelope;
  readonly socket: SocketExtra;
  readonly id: string;
}

/**
 * Attach graphql-ws to `server`; returns the WebSocket server (its `clients` are live sockets).
 * @param connections the server's connections per client (shared with SSE streams): a socket
 *   counts per client address (auth off, from the upgrade) or per token (auth on, from
 *   `connection_init`)
 */
export function attachWebSocket(
  server: Server,
  yoga: RingmasterYoga,
  auth: Authenticator,
  browser: BrowserPolicy,
  connections: ConnectionLimiter = new ConnectionLimiter(DEFAULT_MAX_CONNECTIONS_PER_CLIENT),
): { wss: WebSocketServer; close: () => Promise<void> } {
  // maxPayload: the same 1 MiB bound as an HTTP body (DESIGN.md §5), not ws' default 100 MiB.
  // verifyClient: a browser page of another origin is refused (403) before graphql-ws.
  // WebSocket: a binary frame that is not UTF-8 closes the socket (1007), as `ws` does for a
  // text frame, instead of reaching graphql-ws as text with U+FFFD in it (plugins/utf8.ts).
  const wss = new WebSocketServer({
    server,
    path: yoga.graphqlEndpoint,
    maxPayload: MAX_REQUEST_BYTES,
    WebSocket: Utf8WebSocket,
    verifyClient: ({ req }, accept) =>
      browser.acceptsUpgrade(req) ? accept(true) : accept(false, 403, 'Forbidden'),
  });
  /** Whether `socket` is admitted for `key`; closed with 1013 and the reason when not. */
  const admitted = (key: string, socket: WebSocket): boolean => {
    if (connections.admit(key, socket)) return true;
    socket.close(TOO_MANY_CONNECTIONS, connections.reason);
    return false;
  };
  if (!auth.enabled) {
    // Every caller is the same admin: a client is its address. Counted from the upgrade, so
    // sockets that never send connection_init count too.
    wss.on('connection', (socket, request) => {
      admitted(clientKey(null, request.socket.remoteAddress), socket);
    });
  }
  // Each operation's pipeline, socket and id, from its onSubscribe to its execute or subscribe,
  // which take them: graphql-ws keeps an operation's args for its whole life, and a subscriber
  // need not keep its pipeline's closures once subscribed.
  const operations = new WeakMap<ExecutionArgs, Operation>();
  const operationOf = (args: ExecutionArgs): Operation => {
    const operation = operations.get(args);
    if (operation === undefined) throw new Error('an operation without its onSubscribe');
    operations.delete(args);
    return operation;
  };
  // Each result's `next` payload, serialized once for every socket it goes to: subscribers of
  // one event share one result object (plugins/sharedExecution.ts).
  const payloads = new WeakMap<object, RawPayload>();
  const payloadOf = (result: NextResult): RawPayload => {
    let raw = payloads.get(result);
    if (raw === undefined) {
      raw = new RawPayload(JSON.stringify(nextPayload(result, maskResultError)));
      payloads.set(result, raw);
    }
    return raw;
  };
  // Yoga's masking (maskedErrors in yoga.ts), for the results of shared streams, which skip
  // envelop's per-event hooks (subscribe below): an unexpected error is logged and replaced.
  // Idempotent, so a result masked by the pipeline already comes out the same.
  const mask = maskError();
  const maskResultError = (error: unknown): GraphQLError => {
    const masked = mask(error, UNEXPECTED_ERROR_MESSAGE) as GraphQLError;
    if (masked !== error) yoga.logger.error(error);
    return masked;
  };
  const disposable = serveGraphqlWs(
    {
      execute: (args) => operationOf(args).enveloped.execute(args),
      subscribe: async (args) => {
        const operation = operationOf(args);
        const result = await operation.enveloped.subscribe(args);
        // The fan-out's hot path: a shared-execution stream goes to graphql-ws as it is, one
        // layer per subscriber, instead of through envelop's per-event wrappers (mapping and
        // error mapping, two more promise hops per event and subscriber). Their one job for
        // Ringmaster's pipeline, masking, is done in onNext, once per shared result.
        if (!isAsyncIterable(result)) return result;
        const shared = takeSharedStream(args.contextValue, maskResultError);
        if (shared === undefined) return result;
        // graphql-ws keeps these args (made by onSubscribe above) for the operation's life only
        // to hand them to onNext, which does not read them; the events are executed with the
        // pooled arguments of plugins/sharedExecution.ts. So the operation's own context (its
        // Pothos auth cache, its params) goes now: ~1.9 KB less per subscriber (PERFORMANCE.md §5).
        (args as { contextValue?: unknown }).contextValue = undefined;
        // Its `next` messages are written as its results come, within the feed's loop over
        // its subscribers, not by graphql-ws' loop (wsServer.ts, pushedOperation).
        return pushedOperation(operation.socket, operation.id, shared, payloadOf);
      },
      onConnect: (ctx) => {
        const authorization = ctx.connectionParams?.authorization;
        if (auth.roleOf(authorization) === null) return false;
        const token = auth.tokenKey(authorization);
        // Closed here with 1013 and a reason; graphql-ws' own 4403 after it is then a no-op.
        return token === null || admitted(token, ctx.extra.socket);
      },
      // The payload graphql-ws would send, serialized once per result (for the results
      // graphql-ws delivers itself: queries, mutations, streams not shared). Results with
      // errors lose Yoga's HTTP-only `extensions.http` here, as refusals do.
      onNext: (_ctx, _id, _payload, _args, result) =>
        // serveGraphqlWs puts the JSON in place of the payload object graphql-ws expects here.
        payloadOf(result) as unknown as FormattedExecutionResult,
      onSubscribe: async (ctx, id, params) => {
        // This operation is already counted in ctx.subscriptions (graphql-ws adds it first).
        if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS_PER_SOCKET) {
          return [
            new GraphQLError(
              `at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} operations may be open on one socket`,
              { extensions: { code: 'LIMIT_EXCEEDED' } },
            ),
          ];
        }
        const enveloped = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          // The context factory reads the token from here on WebSocket, per operation, so a
          // role is checked again on every subscribe, not only at connect.
          connectionParams: ctx.connectionParams ?? {},
        });
        try {
          const document = enveloped.parse(params.query);
          const errors = enveloped.validate(enveloped.schema, document);
          if (errors.length > 0) return errors.map((e: GraphQLError) => forSocket(e));
          if (!getOperationAST(document, params.operationName)) {
            return [
              new GraphQLError('Could not determine what operation to execute.', {
                extensions: { code: 'OPERATION_RESOLUTION_FAILURE' },
              }),
            ];
          }
          const args: ExecutionArgs = {
            schema: enveloped.schema,
            document,
            operationName: params.operationName ?? null,
            variableValues: params.variables ?? null,
            contextValue: await enveloped.contextFactory(),
          };
          operations.set(args, { enveloped, socket: ctx.extra, id });
          return args;
        } catch (error) {
          if (error && typeof error === 'object' && 'extensions' in error) {
            // Thrown with no code: the document did not parse (or is over the token limit).
            return [forSocket(error as GraphQLError, 'GRAPHQL_PARSE_FAILED')];
          }
          throw error;
        }
      },
    },
    wss,
  );
  return {
    wss,
    close: async () => {
      await goingAway(wss, SHUTDOWN_GRACE_MS);
      await disposable.dispose();
    },
  };
}

/**
 * The payload of a `next` message, as graphql-ws builds it (the result without `errors`, then
 * `errors` as JSON when there are any), each error masked by `mask` and without Yoga's
 * HTTP-only `extensions.http`.
 */
function nextPayload(result: NextResult, mask: (error: GraphQLError) => GraphQLError): object {
  const { errors, ...rest } = result;
  if (errors === undefined) return rest;
  return {
    ...rest,
    errors: errors.map((given) => {
      const e = given instanceof GraphQLError ? mask(given) : given;
      return e.extensions?.http === undefined
        ? toJson(e)
        : forSocket(e instanceof GraphQLError ? e : new GraphQLError(e.message, e)).toJSON();
    }),
  };
}

/** An error as JSON, whether it is a GraphQLError or already formatted. */
function toJson(error: GraphQLError | GraphQLFormattedError): GraphQLFormattedError {
  return error instanceof GraphQLError ? error.toJSON() : error;
}

/**
 * A refusal as graphql-ws sends it: the same `extensions.code` HTTP gives (`code` when it has
 * none), without Yoga's HTTP-only `extensions.http`.
 */
function forSocket(error: GraphQLError, code?: string): GraphQLError {
  const { http: _http, ...extensions } = error.extensions ?? {};
  return new GraphQLError(error.message, {
    nodes: error.nodes ?? null,
    source: error.source ?? null,
    positions: error.positions ?? null,
    extensions: { ...(code === undefined ? {} : { code }), ...extensions },
  });
}
