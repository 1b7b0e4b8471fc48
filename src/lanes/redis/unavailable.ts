/**
 * Where a connection that cannot reach Redis points, and why it last failed (DESIGN.md §5,
 * REDIS_UNAVAILABLE): the text a REDIS_UNAVAILABLE message gives after "Redis is unavailable".
 */
import type { RedisOptions } from 'ioredis';

/** An ioredis `Redis` or `Cluster` (of `client.ts`, which imports this file). */
type Client = { readonly isCluster?: boolean; readonly options: object };

/**
 * How {@link unavailableWhere} says the connection's database is missing: a configuration, so
 * the REDIS_UNAVAILABLE message (errors.ts) says to fix it rather than to retry later.
 */
export const MISSING_DATABASE = 'does not exist on this Redis';

/** The last connection error of each client the engine opened and listens to. */
const lastErrors = new WeakMap<object, Error>();

/** Keep `error` as `redis`'s last connection error (its 'error' listener); 'ready' forgets it. */
export function noteConnectionError(redis: Client, error: Error): void {
  lastErrors.set(redis, error);
}

/** `redis` connected again: an earlier failure no longer says why a call fails. */
export function forgetConnectionError(redis: Client): void {
  lastErrors.delete(redis);
}

/**
 * The words for a socket error's code, as a person says them: the network failures, which are
 * REDIS_UNAVAILABLE (errors.ts) and which the server waits out at start (they may pass: Redis
 * still starting, DNS not yet up).
 */
const CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host not reachable',
  ENETUNREACH: 'network not reachable',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name not found',
};

/** The words for socket error code `code` (`ECONNREFUSED` → "connection refused"), or undefined. */
export function socketCause(code: string | undefined): string | undefined {
  return code === undefined ? undefined : CAUSES[code];
}

/**
 * ` at host:port (connection refused)`: `redis`'s address (its socket path; none for a Cluster;
 * never its credentials) and the cause of `error` or of its last connection error, when known
 * (`ECONNREFUSED` → "connection refused", another code as itself; a database the server lacks);
 * '' when neither is known.
 */
export function unavailableWhere(redis: Client, error: unknown): string {
  const address = redis.isCluster ? undefined : addressOf(redis.options as RedisOptions);
  const last = lastErrors.get(redis);
  const code = codeOf(error) ?? codeOf(last);
  const cause =
    code !== undefined
      ? (CAUSES[code] ?? code)
      : last !== undefined && /DB index is out of range/i.test(last.message)
        ? `database ${(redis.options as RedisOptions).db} ${MISSING_DATABASE}`
        : undefined;
  return `${address === undefined ? '' : ` at ${address}`}${cause === undefined ? '' : ` (${cause})`}`;
}

function addressOf(options: RedisOptions): string {
  if (options.path) return options.path;
  const host = options.host ?? 'localhost';
  return `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 6379}`;
}

function codeOf(error: unknown): string | undefined {
  try {
    const code = (error as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' && /^E[A-Z_]+$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}
