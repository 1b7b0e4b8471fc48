/**
 * Error masking (DESIGN.md §5): the engine's typed errors keep their message and code; every
 * other error becomes INTERNAL_SERVER_ERROR with no stack, path or Redis text, whatever
 * NODE_ENV says. Redis failures (REDIS_OUT_OF_MEMORY, REDIS_UNAVAILABLE, CONNECTION_CLOSED) keep their code but
 * get a fixed message (REDIS_NOT_PERMITTED keeps the engine's one line: what was refused, what
 * to grant), and a request that failed for one of them as a whole gets an HTTP
 * status ({@link useRedisFailureStatus}).
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ErrorCode, RingmasterError } from '../../lanes/index.js';

/**
 * What an API client reads for a Redis failure: the engine's message names Redis' own reply or
 * the socket error (an address, say), which is for the server's operator, not for clients.
 */
const REDIS_FAILURE_MESSAGES: Partial<Record<ErrorCode, string>> = {
  [ErrorCode.REDIS_OUT_OF_MEMORY]:
    'The queue store is out of memory: this call was refused and changed nothing. Retry later, with backoff.',
  [ErrorCode.REDIS_UNAVAILABLE]:
    'The queue store is unavailable for now (unreachable, restarting or failing over). Retry later, with backoff.',
  // The server's own connection ended: it is shutting down (the engine's message tells a
  // library caller to make a new handle, which means nothing to an API client).
  [ErrorCode.CONNECTION_CLOSED]:
    "The server's connection to the queue store is closed (the server is shutting down). Retry later, with backoff.",
};

/** Seconds a client is told to wait (`Retry-After`) when the store is unavailable. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * HTTP status (and headers) of a request that failed as a whole for a Redis failure: 503 with
 * `Retry-After` while Redis is unavailable or the server's connection to it is closed (it is
 * shutting down: CONNECTION_CLOSED), 507 (Insufficient Storage) when it is out of memory,
 * 500 when it refused this server's user a command or key (REDIS_NOT_PERMITTED: configuration);
 * and 429 (Too Many Requests) for an enqueue refused by a group's backlog bound (GROUP_FULL).
 */
const REDIS_FAILURE_HTTP: Partial<
  Record<ErrorCode, { status: number; headers?: Record<string, string> }>
> = {
  [ErrorCode.REDIS_UNAVAILABLE]: {
    status: 503,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  [ErrorCode.REDIS_OUT_OF_MEMORY]: { status: 507 },
  // The server closed its connection (shutting down): another server, or this one restarted,
  // answers the retry.
  [ErrorCode.CONNECTION_CLOSED]: {
    status: 503,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
  // Redis refused this server's user (an ACL) or its credentials: the server's configuration.
  [ErrorCode.REDIS_NOT_PERMITTED]: { status: 500 },
  // A group at its backlog bound (DESIGN.md §3, "Backlog bounds"): the client sends too much.
  [ErrorCode.GROUP_FULL]: { status: 429 },
};

/** What a masked error says (Yoga's `maskedErrors.errorMessage`; `ws.ts` masks with it too). */
export const UNEXPECTED_ERROR_MESSAGE = 'Unexpected error.';

/** Yoga's `maskedErrors.maskError`: expose known errors, mask the rest. */
export function maskError() {
  return (error: unknown, message: string): Error => {
    if (error instanceof GraphQLError) {
      // A variable value that does not fit its type (null for a non-null variable, a value the
      // scalar refuses): graphql-js raises it before anything runs, so it has no path, and
      // names the variable first. The caller's mistake: BAD_USER_INPUT, and HTTP 400 under
      // application/graphql-response+json (the response has no data).
      if (
        error.path === undefined &&
        !error.extensions?.code &&
        error.message.startsWith('Variable "$')
      ) {
        Object.assign(error.extensions, {
          code: 'BAD_USER_INPUT',
          http: { spec: true, status: 400 },
        });
        return error;
      }
      const original = error.originalError;
      // Parse and validation errors, and errors that carry a code (the engine's typed errors
      // copy theirs; auth errors set one): safe to show as they are. Returning the same object
      // also keeps Yoga from logging a caller's mistake as a server error.
      if (!original || original instanceof RingmasterError || error.extensions?.code) {
        // Yoga puts the JSON parser's own error (name, message) in a bad body's extensions.
        delete (error.extensions as Record<string, unknown>).originalError;
        // Changed in place, not replaced: Yoga logs a replaced error as unexpected, and an
        // outage would log every request (the connection's own errors are logged already).
        const redisFailure =
          original instanceof RingmasterError ? REDIS_FAILURE_MESSAGES[original.code] : undefined;
        if (redisFailure) error.message = redisFailure;
        return error;
      }
    }
    // Anything else is unexpected: Yoga logs it in full; the caller learns nothing of it.
    return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
  };
}

/**
 * Yoga plugin: a request that failed as a whole for a Redis failure — no data, or every root
 * field null — answers with its HTTP status (503 + `Retry-After` for REDIS_UNAVAILABLE and
 * CONNECTION_CLOSED, 507 for
 * REDIS_OUT_OF_MEMORY, 500 for REDIS_NOT_PERMITTED), so proxies and HTTP clients see a
 * server-side failure (retryable for the first two; the third lasts until Redis' ACL changes)
 * rather than a 200. A request with some data keeps 200 (GraphQL over HTTP). HTTP only:
 * SSE and WebSocket results carry the code in each error's `extensions.code`.
 */
export function useRedisFailureStatus(): Plugin {
  return {
    onExecutionResult({ result, setResult }) {
      if (result === undefined || Symbol.asyncIterator in result) return;
      const data = result.data as Record<string, unknown> | null | undefined;
      if (data != null && Object.values(data).some((value) => value !== null)) return;
      for (const error of result.errors ?? []) {
        const http = REDIS_FAILURE_HTTP[error.extensions?.code as ErrorCode];
        if (http) {
          setResult({ ...result, extensions: { ...result.extensions, http } });
          return;
        }
      }
    },
  };
}
