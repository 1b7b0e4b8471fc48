/**
 * The CLI's GraphQL client: typed operations (src/cli/gql, generated from
 * src/cli/operations) over HTTP with Node's fetch, and subscriptions over graphql-ws
 * (DESIGN.md §4, §6 Auth). Every failure becomes a {@link CliError} with its exit code.
 */

import { connect } from 'node:net';
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import type { Client } from 'graphql-ws';
import {
  CliError,
  describeGraphQLError,
  ExitCode,
  exitCodeOf,
  type GraphQLErrorLike,
  neverSent,
  notAServer,
  notHttp,
  slowAnswer,
  timedOut,
  unconfirmed,
  unreachable,
} from './errors.js';
import { CliProbeDocument } from './gql/graphql.js';

/** Where and as whom the CLI talks to the server. */
export interface Connection {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql`. */
  readonly url: string;
  /** The bearer token (AUTH_TOKENS, DESIGN.md §6), or undefined when auth is off. */
  readonly token: string | undefined;
  /** How long one HTTP request may take before it counts as unreachable (ms). */
  readonly timeoutMs: number;
}

interface GraphQLBody<T> {
  data?: T | null;
  errors?: GraphQLErrorLike[];
}

/**
 * Send one typed operation and answer its data. A mutation is sent only to a URL that has
 * answered HTTP in this process ({@link probe} asks first when none has). Throws
 * {@link CliError}: USAGE when the first request to the URL got no HTTP answer (a socket
 * closed, bytes that are not HTTP: {@link notAServer}); UNREACHABLE when no answer came within
 * `timeoutMs` (or the connection failed) — but UNCONFIRMED for a mutation whose request may
 * have reached the server, naming `check`, the command that shows whether it was applied;
 * AUTH / REFUSED / SERVER by the first error's code and the HTTP status (`exitCodeOf`), SERVER
 * for an answer that is not GraphQL.
 */
export async function request<T, V>(
  connection: Connection,
  document: DocumentTypeDecoration<T, V>,
  variables: V,
  check?: string,
): Promise<T> {
  const { data, error } = await requestPartial(connection, document, variables, check);
  if (error) throw error;
  return data as T;
}

/** An answer that may be partial (DESIGN.md §5, partial results). */
export interface PartialResult<T> {
  /** The data, with null where a field failed; null when nothing came. */
  data: T | null;
  /** The first error as a CliError (its exit code), or null when there was none. */
  error: CliError | null;
}

/**
 * As {@link request}, but data that came with errors is answered beside the first error (a
 * list whose failed items are null, as `Query.queues` answers an unreadable queue). Throws
 * only when no data came.
 */
export async function requestPartial<T, V>(
  connection: Connection,
  document: DocumentTypeDecoration<T, V>,
  variables: V,
  check?: string,
): Promise<PartialResult<T>> {
  const mutation = isMutation(document);
  // A change goes only to something that has answered HTTP: else a socket it closed would
  // read as "may have been applied" where nothing could apply it.
  if (mutation && !answeredHttp.has(connection.url)) await probe(connection);
  /** The error for a request that got no (whole) answer, by whether it may have changed anything. */
  const noAnswer = async (cause: unknown): Promise<CliError> =>
    mutation && !neverSent(cause)
      ? unconfirmed(connection.url, cause, check ?? 'ringmaster history -q <queue>')
      : unanswered(connection, connection.url, cause);
  let response: Response;
  try {
    response = await fetch(connection.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(connection.token ? { authorization: `Bearer ${connection.token}` } : {}),
      },
      body: JSON.stringify({ query: String(document), variables }),
      signal: AbortSignal.timeout(connection.timeoutMs),
    });
  } catch (error) {
    throw await noAnswer(error);
  }
  answeredHttp.add(connection.url);
  let body: GraphQLBody<T>;
  try {
    body = (await response.json()) as GraphQLBody<T>;
  } catch (error) {
    // A body that is not JSON is the server's answer; one cut off (timeout, reset) is none.
    if (error instanceof SyntaxError) throw httpError(connection, response.status);
    throw await noAnswer(error);
  }
  const first = body.errors?.[0];
  const error = first
    ? new CliError(describeGraphQLError(first), exitCodeOf(first.extensions?.code, response.status))
    : null;
  if (body.data === undefined || body.data === null) {
    throw error ?? httpError(connection, response.status);
  }
  if (error === null && !response.ok) throw httpError(connection, response.status);
  return { data: body.data, error };
}

/** The URLs that have given an HTTP answer (any status) in this process. */
const answeredHttp = new Set<string>();

/**
 * Make sure something that speaks HTTP answers at `connection.url` before a change is sent
 * there: a cheap query ({@link CliProbeDocument}, no Redis), skipped once any request to the
 * URL got an HTTP answer (a steering command's read of the group before). Throws that query's
 * failure when it got no HTTP answer — {@link notAServer} (exit 1) for a socket closed or an
 * answer that is not HTTP, exit 4 for nothing listening or no answer within --timeout — so
 * that the change is never sent; an answer that is an error (401, a GraphQL error) lets the
 * change go, to report its own failure.
 */
async function probe(connection: Connection): Promise<void> {
  try {
    await requestPartial(connection, CliProbeDocument, {});
  } catch (error) {
    if (!answeredHttp.has(connection.url)) throw error;
  }
}

/** A document that starts with a read: the CLI's documents start with their operation. */
const READ = /^\s*(query|subscription)\b/;

/**
 * Whether `document` is a mutation: one whose unanswered request may still have changed
 * something. The CLI's documents (src/cli/gql, codegen's strings) hold one operation each,
 * written first, its fragments after it; read by its keyword rather than parsed, so that no
 * command loads a GraphQL parser (graphql-js is most of a CLI start's module loading). Anything
 * not plainly a read counts as a change (the safe side: a probe first, exit 6 if unanswered).
 * test/cli/client.test.ts checks every document against graphql-js' own reading.
 */
export function isMutation<T, V>(document: DocumentTypeDecoration<T, V>): boolean {
  return !READ.test(String(document));
}

/**
 * The error for an HTTP answer without GraphQL errors or data: 401/403 → AUTH; a 5xx → SERVER
 * (a proxy's 502, a server that failed); anything else (a 404, a 200 of HTML) means --url names
 * something that is not the GraphQL endpoint, so → USAGE: the argument is what to change.
 */
function httpError(connection: Connection, status: number): CliError {
  const code = exitCodeOf(undefined, status);
  if (code === ExitCode.AUTH) {
    return new CliError(
      `${connection.url} answered HTTP ${status}: pass a token of the right role with --token or RINGMASTER_TOKEN`,
      code,
    );
  }
  if (status >= 500) {
    return new CliError(
      `${connection.url} answered HTTP ${status}, not GraphQL: the server or a proxy before it failed`,
      ExitCode.SERVER,
    );
  }
  return new CliError(
    `${connection.url} is not a GraphQL endpoint (HTTP ${status}): point --url at the server's /graphql`,
    ExitCode.USAGE,
  );
}

/**
 * How long the check that something listens at the URL may take (ms), at most: its own budget,
 * not --timeout's, so that `--timeout 1` against a live server is still told it is slow.
 */
const LISTEN_CHECK_MS = 1000;

/**
 * The error for a request to `url` that got no answer and changed nothing (a query, or a change
 * never sent): when nothing at the connection's URL has answered HTTP yet and this request's
 * socket closed or got bytes that are not HTTP, {@link notAServer} (exit 1); when it timed out while a TCP connection to the URL's host and port still
 * succeeds, the server is up but slow (its Redis stalled, say), so {@link slowAnswer} — "start
 * the server" would be wrong advice; otherwise {@link unreachable}. Both are exit 4.
 */
async function unanswered(connection: Connection, url: string, cause: unknown): Promise<CliError> {
  if (!answeredHttp.has(connection.url) && notHttp(cause)) return notAServer(connection.url, cause);
  if (timedOut(cause) && (await listening(url, LISTEN_CHECK_MS))) {
    return slowAnswer(url, connection.timeoutMs);
  }
  return unreachable(url, cause);
}

/** Whether a TCP connection to `url`'s host and port opens within `ms`. */
function listening(url: string, ms: number): Promise<boolean> {
  const { hostname, port, protocol } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname.replace(/^\[|\]$/g, ''),
      port: Number(port || (protocol === 'https:' ? 443 : 80)),
      timeout: ms,
    });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** What GET /ready says (DESIGN.md §6, Probes); null fields when the server did not say. */
export interface Readiness {
  ready: boolean;
  /** `notifications` or `polling` (the live feed's mode). */
  notifications: string | null;
  redis: string | null;
  subscriber: string | null;
  eviction: string | null;
  /** Queues whose state Redis lost, as `/ready` lists them (DESIGN.md §6); absent when none. */
  stateLost?: { queue: string; cause: string; at: string }[];
}

/**
 * GET the server's `/ready` (beside `/graphql`); UNREACHABLE when nothing answers, USAGE when
 * what answers is not HTTP ({@link notAServer}).
 */
export async function readiness(connection: Connection): Promise<Readiness> {
  const url = new URL('/ready', connection.url);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(connection.timeoutMs) });
  } catch (error) {
    throw await unanswered(connection, url.href, error);
  }
  answeredHttp.add(connection.url);
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : null);
  return {
    ready: response.ok && body.ready === true,
    notifications: text('notifications'),
    redis: text('redis'),
    subscriber: text('subscriber'),
    eviction: text('eviction'),
    ...lostStates(body.stateLost),
  };
}

/** `/ready`'s `stateLost` list, kept only when it is one (entries of the wrong shape dropped). */
function lostStates(value: unknown): Pick<Readiness, 'stateLost'> {
  if (!Array.isArray(value)) return {};
  const losses = value.flatMap((entry: unknown) => {
    const { queue, cause, at } = (entry ?? {}) as Record<string, unknown>;
    return typeof queue === 'string' && typeof cause === 'string' && typeof at === 'string'
      ? [{ queue, cause, at }]
      : [];
  });
  return losses.length > 0 ? { stateLost: losses } : {};
}

/** WebSocket close codes the server uses for a refused token (DESIGN.md §6, Auth). */
const AUTH_CLOSE_CODES = new Set([4401, 4403]);

/**
 * A graphql-ws client on the endpoint's ws:// URL with the token in connectionParams, no
 * retries (a lost connection ends the command with its exit code). graphql-ws and ws are
 * imported here, by the one command that subscribes (`top`), not by every command's start.
 */
export async function wsClient(connection: Connection): Promise<Client> {
  const [{ createClient }, { WebSocket }] = await Promise.all([import('graphql-ws'), import('ws')]);
  return createClient({
    url: connection.url.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    connectionParams: connection.token ? { authorization: `Bearer ${connection.token}` } : {},
    onNonLazyError: () => {},
  });
}

/**
 * The CliError for what a graphql-ws sink's `error` got: a CloseEvent (auth close codes →
 * AUTH; others, and a socket error, → UNREACHABLE) or a list of GraphQL errors.
 */
export function subscriptionError(connection: Connection, error: unknown): CliError {
  if (Array.isArray(error) && error.length > 0) {
    const first = error[0] as GraphQLErrorLike;
    return new CliError(describeGraphQLError(first), exitCodeOf(first.extensions?.code, 0));
  }
  const close = error as { code?: unknown; reason?: unknown };
  if (typeof close?.code === 'number') {
    if (AUTH_CLOSE_CODES.has(close.code)) {
      return new CliError(
        `${connection.url} refused the token (WebSocket ${close.code}): pass a token of the right role with --token or RINGMASTER_TOKEN`,
        ExitCode.AUTH,
      );
    }
    const reason = typeof close.reason === 'string' && close.reason ? `: ${close.reason}` : '';
    return new CliError(
      `the subscription to ${connection.url} closed (${close.code}${reason}): is the server up?`,
      close.code === 1011 ? ExitCode.SERVER : ExitCode.UNREACHABLE,
    );
  }
  return unreachable(connection.url, error);
}
