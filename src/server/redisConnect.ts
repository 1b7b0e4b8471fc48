/**
 * The server's first connection to Redis, bounded in time and explained. ioredis alone answers
 * every failed `connect()` with "Connection is closed." and retries forever; an operator needs
 * to know which of their settings is wrong. Here a network failure (refused, host not found, no
 * answer) is retried until {@link CONNECT_TIMEOUT_MS}, since a Redis started at the same time as
 * the server may take a moment; anything retrying cannot mend (a wrong password, a server that
 * is not Redis, a database that does not exist) ends the wait at once. Once connected, ioredis'
 * own reconnecting takes over for the life of the server.
 */
import { Redis, type RedisOptions } from 'ioredis';

/** How long the server tries to reach Redis at start before it gives up (ms). */
const CONNECT_TIMEOUT_MS = 5_000;

/** Why Redis could not be reached at start: `message` is one line saying why, for an operator. */
export class RedisConnectError extends Error {
  override readonly name = 'RedisConnectError';
}

/**
 * Connect to `url` and wait until the connection is ready (ioredis' ready check passed).
 * @returns the connection, ready; its 'error' listeners are the caller's to add
 * @throws RedisConnectError saying why, within `timeoutMs` (the connection is closed first);
 *   whatever `beforeConnect` throws, with nothing sent
 */
export async function connectRedis(
  url: string,
  options: RedisOptions,
  timeoutMs = CONNECT_TIMEOUT_MS,
  /** Checks the connection's options before anything is sent (it throws to refuse them). */
  beforeConnect: (redis: Redis) => void = () => {},
): Promise<Redis> {
  const redis = new Redis(url, { ...options, lazyConnect: true });
  beforeConnect(redis);
  let last: Error | null = null;
  let settle: (outcome: Error | 'timeout' | null) => void = () => {};
  const onError = (error: Error) => {
    last = error;
    if (!retryable(error)) settle(error);
  };
  const onReady = () => settle(null);
  redis.on('error', onError);
  redis.once('ready', onReady);
  let timer: NodeJS.Timeout | undefined;
  const failure = await new Promise<Error | 'timeout' | null>((resolve) => {
    settle = resolve;
    timer = setTimeout(() => resolve(last ?? 'timeout'), timeoutMs);
    // Its rejection ("Connection is closed.") says nothing; the 'error' events say why.
    redis.connect().catch(() => {});
  });
  clearTimeout(timer);
  redis.off('ready', onReady);
  if (failure === null) {
    redis.off('error', onError);
    return redis;
  }
  // onError stays: an error while closing must not reach ioredis' "Unhandled error event".
  redis.disconnect();
  throw new RedisConnectError(explain(failure, url, timeoutMs));
}

/** Network trouble that may pass (Redis still starting, DNS not yet up); the rest will not. */
function retryable(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return (
    code !== undefined &&
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ENOTFOUND',
      'EAI_AGAIN',
      'ETIMEDOUT',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'EPIPE',
    ].includes(code)
  );
}

/** One line for an operator: what the failure means for their REDIS_URL. */
function explain(failure: Error | 'timeout', url: string, timeoutMs: number): string {
  const tls = url.startsWith('rediss:');
  const waited = `gave up after ${timeoutMs / 1000} s`;
  if (failure === 'timeout') {
    return tls
      ? `no answer over TLS within ${timeoutMs / 1000} s: is that port TLS? A plain Redis port needs redis://, not rediss://`
      : `no answer within ${timeoutMs / 1000} s (connected, but the server never replied)`;
  }
  const code = (failure as NodeJS.ErrnoException).code;
  const message = failure.message.split('\n')[0] ?? '';
  if (failure.name === 'ParserError') {
    const got = /got "(.*?)" as reply type byte/.exec(message)?.[1];
    return (
      'not a Redis server: it does not answer in the Redis protocol' +
      (got === undefined ? '' : ` (its reply began with ${JSON.stringify(got)}`) +
      (got === '<' || got === 'H' ? ', as an HTTP server does)' : got === undefined ? '' : ')')
    );
  }
  if (failure.name === 'ReplyError') {
    if (message.startsWith('WRONGPASS')) return 'wrong user name or password (WRONGPASS)';
    if (message.startsWith('NOAUTH')) {
      return 'this Redis needs a password: give it as redis://:PASSWORD@host:port (NOAUTH)';
    }
    if (/DB index is out of range/i.test(message)) {
      const db = /\/(\d+)\/?$/.exec(url.split('?')[0] ?? '')?.[1] ?? '?';
      return `database ${db} does not exist on this Redis (${message})`;
    }
    if (message.startsWith('NOPERM')) {
      return `this Redis user may not run a command Ringmaster needs (${message})`;
    }
    return `Redis refused the connection: ${message}`;
  }
  if (code === 'ECONNREFUSED') {
    return `nothing accepts connections there (connection refused; ${waited})`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `host name not found (${code}; ${waited})`;
  }
  if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return `host not reachable (${code}; ${waited})`;
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return (
      `the server closed every connection at once (${code}; ${waited})` +
      (tls ? '' : ': a TLS port? Then use rediss://')
    );
  }
  if (tls && (code?.startsWith('ERR_SSL') || code === 'EPROTO' || /SSL|TLS/.test(message))) {
    return `TLS handshake failed (${message}): a plain Redis port needs redis://, not rediss://`;
  }
  return `cannot connect: ${message}${code ? ` (${code})` : ''}`;
}
