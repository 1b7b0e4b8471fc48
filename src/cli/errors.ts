/**
 * The CLI's exit codes, one per kind of failure (docs/cli.md, `ringmaster --help`), and the
 * error that carries one. Every failure ends as one line on stderr naming what to change.
 */
import { BAD_PORTS_SPEC } from '../badPorts.js';

/** Process exit codes of `ringmaster`. */
export const ExitCode = {
  /** Done. */
  OK: 0,
  /**
   * Bad arguments: an unknown command or option, a value that does not parse, a --url that is
   * no GraphQL endpoint (HTTP 404 or another answer that is not GraphQL) or no Ringmaster
   * server at all (it closed the connection or answered without HTTP: a Redis, a Postgres).
   */
  USAGE: 1,
  /** The server refused the input: BAD_USER_INPUT and the other DESIGN.md §5 codes. */
  REFUSED: 2,
  /**
   * The token is missing, unknown or of a role that may not do this (HTTP 401, 403; `top`'s
   * WebSocket closed with 4401, 4403).
   */
  AUTH: 3,
  /**
   * No answer that changed anything: nothing listening (connection refused, a name that does
   * not resolve), or a query not answered within --timeout (a slow server or Redis).
   */
  UNREACHABLE: 4,
  /**
   * The server failed: INTERNAL_SERVER_ERROR, Redis unavailable, any other HTTP 5xx; or `status`
   * found it not ready (`/ready` 503).
   */
  SERVER: 5,
  /**
   * A change was sent, to a URL that had answered HTTP, but no answer came back (a timeout, a
   * dropped connection): it may or may not have been applied. The message names the command
   * that shows which.
   */
  UNCONFIRMED: 6,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports as `ringmaster: <message>` and exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** One GraphQL error as the server sends it (DESIGN.md §5). */
export interface GraphQLErrorLike {
  message: string;
  extensions?: { code?: string; argument?: unknown; [key: string]: unknown };
}

const AUTH_CODES = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);
/** Codes that say the server could not do it now, whatever was asked (§5). */
const SERVER_CODES = new Set([
  'INTERNAL_SERVER_ERROR',
  'REDIS_UNAVAILABLE',
  'REDIS_OUT_OF_MEMORY',
  'REDIS_NOT_PERMITTED',
  'CONNECTION_CLOSED',
]);

/** What to do about an auth refusal, added to its message. */
export const AUTH_HINT = 'pass a token of the right role with --token or RINGMASTER_TOKEN';

/**
 * The exit code for a GraphQL error, given the HTTP status it came with (0 over WebSocket):
 * UNAUTHENTICATED/FORBIDDEN or 401/403 → AUTH; INTERNAL_SERVER_ERROR, REDIS_UNAVAILABLE,
 * REDIS_OUT_OF_MEMORY, REDIS_NOT_PERMITTED, CONNECTION_CLOSED or a 5xx without a code → SERVER; any other code → REFUSED.
 */
export function exitCodeOf(code: string | undefined, status: number): ExitCode {
  if ((code !== undefined && AUTH_CODES.has(code)) || status === 401 || status === 403) {
    return ExitCode.AUTH;
  }
  if (code !== undefined && SERVER_CODES.has(code)) return ExitCode.SERVER;
  if (code === undefined && status >= 500) return ExitCode.SERVER;
  return ExitCode.REFUSED;
}

/** A GraphQL error as one line: the queue it names, the message, the argument to change, the code. */
export function describeGraphQLError(error: GraphQLErrorLike): string {
  const code = error.extensions?.code;
  const argument = error.extensions?.argument;
  const queue = error.extensions?.queue;
  const parts = [error.message.replace(/\s*\n\s*/g, ' ')];
  if (typeof queue === 'string') parts.unshift(`queue ${queue}:`);
  if (typeof argument === 'string') parts.push(`(change ${argument})`);
  if (code !== undefined) {
    parts.push(AUTH_CODES.has(code) ? `[${code}]: ${AUTH_HINT}` : `[${code}]`);
  }
  return parts.join(' ');
}

/**
 * The error for a request that never got an answer: refused, unresolved, timed out; or never
 * sent, since `fetch` refuses the URL's port (a WHATWG "bad port", src/badPorts.ts: 6000, 6667,
 * …), where starting the server is no help: it must listen on another PORT. Exit UNREACHABLE.
 */
export function unreachable(url: string, cause: unknown): CliError {
  const reason = causeText(cause);
  if (reason === 'bad port') {
    const port = portOf(url);
    return new CliError(
      `cannot reach ${url}: port ${port ?? '?'} is one that fetch refuses to connect to (Node's, as every browser's: a "bad port" of the fetch standard, ${BAD_PORTS_SPEC}), so the request was never sent; run the server on another PORT (4000 by default) and point --url / RINGMASTER_URL at it`,
      ExitCode.UNREACHABLE,
    );
  }
  return new CliError(
    `cannot reach ${url} (${reason}): start the server or point --url / RINGMASTER_URL at it`,
    ExitCode.UNREACHABLE,
  );
}

/** The TCP port `url` names (its scheme's default when it names none), or null if not a URL. */
function portOf(url: string): number | null {
  try {
    const parsed = new URL(url);
    if (parsed.port !== '') return Number(parsed.port);
    return parsed.protocol === 'https:' || parsed.protocol === 'wss:' ? 443 : 80;
  } catch {
    return null;
  }
}

/**
 * A query that reached a listening server but got no answer within `--timeout` ({@link
 * slowAnswer}): exit UNREACHABLE. `status` tells it apart: after a not-ready `/ready` it is the
 * server's state (a frozen Redis), exit SERVER.
 */
export class SlowAnswerError extends CliError {
  override readonly name = 'SlowAnswerError';
}

/**
 * The error for a request that reached a listening server but got no answer within
 * `timeoutMs` (`--timeout`) and changed nothing (a query): the server, or its Redis, is slow —
 * not absent. Exit UNREACHABLE, as any query that got no answer.
 */
export function slowAnswer(url: string, timeoutMs: number): SlowAnswerError {
  return new SlowAnswerError(
    `no answer from ${url} in ${timeoutMs.toLocaleString('en-US')} ms: the server or its Redis may be slow; try a larger --timeout`,
    ExitCode.UNREACHABLE,
  );
}

/** Whether a failed request's `cause` is its timeout (`--timeout`) running out. */
export const timedOut = (cause: unknown): boolean => causeText(cause) === 'timed out';

/**
 * The error for a mutation sent to `url` that got no answer (`cause`: a timeout, a dropped
 * connection): it may have been applied, so it is not "cannot reach". `check` is the command
 * that shows whether it was (`ringmaster group g -q Q`).
 */
export function unconfirmed(url: string, cause: unknown, check: string): CliError {
  return new CliError(
    `the change was sent to ${url} but no answer came (${causeText(cause)}): it may have been applied; check with \`${check}\` before repeating it`,
    ExitCode.UNCONFIRMED,
  );
}

/**
 * Codes of a request that something at --url took but gave no HTTP answer to: it closed the
 * connection (a Redis closes on an HTTP request; a Postgres on a startup packet it cannot
 * read), reset it, or answered bytes that are not HTTP (undici's parser, `HPE_…`).
 */
const NOT_HTTP = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * Whether a failed request's `cause` shows that what answered at the URL does not speak HTTP:
 * the connection opened, then closed or answered without HTTP ({@link NOT_HTTP}). Only on a
 * URL that never answered HTTP does this mean "not the server" (a server that did may have
 * dropped one connection).
 */
export function notHttp(cause: unknown): boolean {
  const code = causeText(cause);
  return NOT_HTTP.has(code) || code.startsWith('HPE_');
}

/**
 * The error for a first request to `url` (nothing there answered HTTP before) that got no HTTP
 * answer ({@link notHttp}): something listens there, but not a Ringmaster server, so nothing
 * could have been applied. Exit USAGE, as for any --url that is not the API: the argument is
 * what to change. Quotes the first bytes it answered, when it answered any.
 */
export function notAServer(url: string, cause: unknown): CliError {
  const bytes = answeredBytes(cause);
  const what =
    bytes === null
      ? `it closed the connection without an HTTP answer (${causeText(cause)})`
      : `it answered ${JSON.stringify(bytes)}, which is not HTTP (${causeText(cause)})`;
  return new CliError(
    `${url} is not a Ringmaster server: ${what}; nothing was changed: point --url at the server's /graphql`,
    ExitCode.USAGE,
  );
}

/** The first bytes of a non-HTTP answer (undici's parser error keeps them as `data`), or null. */
function answeredBytes(cause: unknown): string | null {
  let error = cause;
  for (let depth = 0; depth < 4 && error instanceof Error; depth++) {
    const data = (error as { data?: unknown }).data;
    if (typeof data === 'string' && data.trim() !== '') {
      const text = data.trim();
      return text.length > 60 ? `${text.slice(0, 60)}…` : text;
    }
    error = error.cause;
  }
  return null;
}

/**
 * Codes of a connection that failed before a request could be written (no address, refused,
 * no route, the connect timed out, TLS refused): nothing reached the server.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  // fetch's own refusal of a port browsers block (6000, 1, …): it never connects.
  'bad port',
]);

/**
 * Whether a failed request's `cause` proves it was never sent: a connect-time failure
 * ({@link NOT_SENT}, a TLS certificate or handshake error). Anything else — a timeout, a reset,
 * a socket closed mid-answer — may have come after the server read the request.
 */
export function neverSent(cause: unknown): boolean {
  const code = causeText(cause);
  return NOT_SENT.has(code) || /CERT|^ERR_TLS_|^ERR_SSL_/.test(code);
}

/** The most telling short name of why a connection failed (ECONNREFUSED, timeout, …). */
function causeText(cause: unknown): string {
  // A WebSocket's ErrorEvent carries the socket's error, or at least a message.
  if (cause !== null && typeof cause === 'object' && !(cause instanceof Error)) {
    const event = cause as { error?: unknown; message?: unknown; type?: unknown };
    if (event.error instanceof Error) return causeText(event.error);
    if (typeof event.message === 'string' && event.message !== '') return event.message;
    if (typeof event.type === 'string') return `WebSocket ${event.type}`;
  }
  let error = cause;
  // fetch wraps the socket's error: TypeError('fetch failed', { cause: Error{code} }).
  for (let depth = 0; depth < 4 && error instanceof Error; depth++) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error.name === 'TimeoutError') return 'timed out';
    if (error.cause === undefined) break;
    error = error.cause;
  }
  if (error instanceof AggregateError && error.errors.length > 0) return causeText(error.errors[0]);
  return error instanceof Error ? error.message : String(error);
}
