/**
 * The server's first connection to Redis, bounded in time and explained. ioredis alone answers
 * every failed `connect()` with "Connection is closed." and retries forever; an operator needs
 * to know which of their settings is wrong. Here a network failure (refused, host not found, no
 * answer) is retried until {@link CONNECT_TIMEOUT_MS}, since a Redis started at the same time as
 * the server may take a moment; anything retrying cannot mend (a wrong password, a server that
 * is not Redis, a database that does not exist) ends the wait at once. Once connected, ioredis'
 * own reconnecting takes over for the life of the server.
 *
 * A Redis Cluster is recognised from the node that answered (`INFO cluster`: `cluster_enabled:1`),
 * whichever node `REDIS_URL` names, so a user never sees MOVED: the server then talks to the
 * cluster through an ioredis `Cluster` seeded with that node (or every `REDIS_CLUSTER_NODES`
 * entry), with the node's user, password and TLS and redirection budgets sized from its
 * `cluster-node-timeout` (`clusterOptions`).
 */
import { connect as tlsConnect } from 'node:tls';
import { Cluster, Redis, type RedisOptions, ReplyError } from 'ioredis';
import {
  clusterOptions,
  type NodeAddress,
  type RedisClient,
  readNodeTimeout,
  socketCause,
} from '../lanes/internal.js';

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
  // A Redis answers its first command, even to refuse it; a connection accepted and then closed
  // with no reply at all is something else (or TLS), and retrying will not change that.
  let replied = false;
  let opened = false;
  const onConnect = () => {
    opened = true;
    // The first reply ends ioredis' ready check or AUTH; a close before any is told below.
    (redis as unknown as { stream?: NodeJS.EventEmitter }).stream?.once('data', () => {
      replied = true;
    });
  };
  const onClose = () => {
    if (opened && !replied) settle(new ClosedOnGreeting());
  };
  const onError = (error: Error) => {
    last = error;
    if (!retryable(error)) settle(error);
  };
  const onReady = () => settle(null);
  redis.on('connect', onConnect);
  redis.on('close', onClose);
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
  redis.off('connect', onConnect);
  redis.off('close', onClose);
  if (failure === null) {
    redis.off('error', onError);
    return redis;
  }
  // onError stays: an error while closing must not reach ioredis' "Unhandled error event".
  redis.disconnect();
  if (failure instanceof ClosedOnGreeting || isRetriesSpent(failure)) {
    const { host, port } = redis.options;
    const tls = redis.options.tls !== undefined;
    throw new RedisConnectError(await closedOnGreeting(host ?? '127.0.0.1', port ?? 6379, tls));
  }
  throw new RedisConnectError(explain(failure, url, timeoutMs, redis.options.db));
}

/** A connection accepted, then closed before any reply came. */
class ClosedOnGreeting extends Error {
  constructor() {
    super('closed before any reply');
  }
}

/**
 * ioredis' MaxRetriesPerRequestError: the connection's first command (AUTH, with a password)
 * was sent on connection after connection, each closed before it was answered.
 */
function isRetriesSpent(failure: Error | 'timeout'): boolean {
  return failure !== 'timeout' && failure.message.startsWith('Reached the max retries per request');
}

/** How long the TLS probe of a port that closed on Redis' greeting may take (ms). */
const TLS_PROBE_MS = 1_000;

/**
 * Why a port closed the connection on Redis' greeting, in one line: a TLS handshake is tried
 * there (certificates not checked: only whether TLS answers) to tell a TLS port — a Redis with
 * TLS, asked in plain text — from a server that is not Redis at all (Postgres, an MQTT broker).
 */
async function closedOnGreeting(host: string, port: number, tls: boolean): Promise<string> {
  const said = 'it accepted the connection and closed it on Redis’ first command, without a reply';
  if (!tls && (await speaksTls(host, port))) {
    return `a TLS port: ${said}, and it answers a TLS handshake; use rediss:// instead of redis://`;
  }
  return `not a Redis server: ${said} (is that the Redis port? Redis listens on 6379 by default)`;
}

function speaksTls(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, rejectUnauthorized: false, servername: undefined });
    const done = (answer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(false), TLS_PROBE_MS);
    socket.once('secureConnect', () => done(true));
    // An alert (a client certificate wanted, say) is TLS answering too.
    socket.once('error', (error) => done(/alert|certificate/i.test(error.message)));
  });
}

/** What {@link connectTarget} connected to. */
export interface ConnectedRedis {
  /** A single Redis, or a Cluster (ready: its slots are known). */
  readonly redis: RedisClient;
  /** For a cluster: its `cluster-node-timeout` (ms) and the seed nodes; null for one Redis. */
  readonly cluster: { readonly nodeTimeoutMs: number; readonly seeds: NodeAddress[] } | null;
}

/**
 * Connect to what `urls` name: one Redis (`REDIS_URL`), or a Redis Cluster, found either way —
 * a `REDIS_URL` naming any node of one, or the seed nodes of `REDIS_CLUSTER_NODES`
 * (`expectCluster`). The seeds are tried at once; the first to answer is asked whether it is a
 * cluster node, and for its node timeout.
 * @returns the connection, ready; its 'error' listeners are the caller's to add
 * @throws RedisConnectError saying why (as {@link connectRedis}, naming the seed), or, with
 *   `expectCluster`, that the node is not in cluster mode; whatever `beforeConnect` throws
 */
export async function connectTarget(
  urls: readonly string[],
  options: RedisOptions,
  { expectCluster = false, timeoutMs = CONNECT_TIMEOUT_MS } = {},
  beforeConnect: (redis: Redis) => void = () => {},
): Promise<ConnectedRedis> {
  const probe = await connectFirst(urls, options, timeoutMs, beforeConnect);
  let enabled = false;
  try {
    enabled = /^cluster_enabled:1/m.test(await probe.info('cluster'));
  } catch {
    // INFO refused (an ACL): then not known as a cluster; checkServer says what INFO it needs.
  }
  const at = `${probe.options.host}:${probe.options.port}`;
  if (!enabled) {
    if (!expectCluster) return { redis: probe, cluster: null };
    probe.disconnect();
    throw new RedisConnectError(
      `${at} is not a Redis Cluster node (cluster_enabled:0): REDIS_CLUSTER_NODES names the nodes of a cluster; for one Redis set REDIS_URL instead`,
    );
  }
  const nodeTimeoutMs = await readNodeTimeout(probe);
  const seeds = urls.map(addressOf);
  // What every node shares: the answering seed's user, password and TLS (a cluster's nodes
  // take the same), and the server's per-call retries.
  const from = probe.options;
  const redisOptions: RedisOptions = {
    ...options,
    ...(from.username === undefined ? {} : { username: from.username }),
    ...(from.password === undefined ? {} : { password: from.password }),
    ...(from.tls === undefined ? {} : { tls: from.tls }),
    ...(from.family === undefined ? {} : { family: from.family }),
  };
  probe.disconnect();
  const cluster = new Cluster(seeds, {
    ...clusterOptions(nodeTimeoutMs),
    lazyConnect: true,
    redisOptions,
  });
  const onError = () => {};
  cluster.on('error', onError);
  let timer: NodeJS.Timeout | undefined;
  const failure = await Promise.race([
    cluster.connect().then(
      () => null,
      (error: Error) => error,
    ),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    }),
  ]);
  clearTimeout(timer);
  if (failure === null) {
    cluster.off('error', onError);
    return { redis: cluster, cluster: { nodeTimeoutMs, seeds } };
  }
  cluster.disconnect();
  throw new RedisConnectError(
    failure === 'timeout'
      ? `${at} is a Redis Cluster node, but the cluster was not ready within ${timeoutMs / 1000} s (CLUSTER INFO: is cluster_state ok?)`
      : `${at} is a Redis Cluster node, but the cluster could not be reached: ${failure.message}`,
  );
}

/**
 * {@link connectRedis} to every URL at once; the first ready wins, the others are closed.
 * @throws the first URL's RedisConnectError when none connects
 */
async function connectFirst(
  urls: readonly string[],
  options: RedisOptions,
  timeoutMs: number,
  beforeConnect: (redis: Redis) => void,
): Promise<Redis> {
  if (urls.length === 1) return connectRedis(urls[0] as string, options, timeoutMs, beforeConnect);
  const attempts = urls.map((url) => connectRedis(url, options, timeoutMs, beforeConnect));
  try {
    const winner = await Promise.any(attempts);
    for (const attempt of attempts) {
      attempt.then(
        (redis) => redis !== winner && redis.disconnect(),
        () => {},
      );
    }
    return winner;
  } catch (error) {
    const first = (error as AggregateError).errors[0];
    if (!(first instanceof RedisConnectError)) throw first;
    const { host, port } = addressOf(urls[0] as string);
    throw new RedisConnectError(`no node answered; ${host}:${port}: ${first.message}`);
  }
}

/** The host and port a Redis URL names, as ioredis reads it (defaults included). */
function addressOf(url: string): NodeAddress {
  const parsed = new Redis(url, { lazyConnect: true }).options;
  return { host: parsed.host ?? '127.0.0.1', port: parsed.port ?? 6379 };
}

/** Network trouble that may pass (Redis still starting, DNS not yet up); the rest will not. */
function retryable(error: Error): boolean {
  return socketCause((error as NodeJS.ErrnoException).code) !== undefined;
}

/**
 * redis-parser's ParserError (a reply that is not RESP), told by its shape: redis-errors' classes
 * take their `name` from their constructor's, which the server's bundle may rename
 * (scripts/bundle.mjs), and ioredis exports ReplyError but not ParserError.
 */
function isParserError(failure: Error): boolean {
  return 'offset' in failure && 'buffer' in failure && failure.message.startsWith('Protocol error');
}

/**
 * One line for an operator: what the failure means for their REDIS_URL.
 * @param db the database the connection selects, as ioredis read it from the URL's path or
 *   `?db=` (config.ts has checked it is decimal digits); named when Redis lacks it
 */
function explain(
  failure: Error | 'timeout',
  url: string,
  timeoutMs: number,
  db: number | undefined,
): string {
  const tls = url.startsWith('rediss:');
  const waited = `gave up after ${timeoutMs / 1000} s`;
  if (failure === 'timeout') {
    return tls
      ? `no answer over TLS within ${timeoutMs / 1000} s: is that port TLS? A plain Redis port needs redis://, not rediss://`
      : `no answer within ${timeoutMs / 1000} s (connected, but the server never replied)`;
  }
  const code = (failure as NodeJS.ErrnoException).code;
  const message = failure.message.split('\n')[0] ?? '';
  if (isParserError(failure)) {
    const got = /got "(.*?)" as reply type byte/.exec(message)?.[1];
    return (
      'not a Redis server: it does not answer in the Redis protocol' +
      (got === undefined ? '' : ` (its reply began with ${JSON.stringify(got)}`) +
      (got === '<' || got === 'H' ? ', as an HTTP server does)' : got === undefined ? '' : ')')
    );
  }
  if (failure instanceof ReplyError) {
    if (message.startsWith('WRONGPASS')) return 'wrong user name or password (WRONGPASS)';
    if (message.startsWith('NOAUTH')) {
      return 'this Redis needs a password: give it as redis://:PASSWORD@host:port (NOAUTH)';
    }
    if (/SELECT is not allowed in cluster mode/i.test(message)) {
      return 'this Redis is a cluster node, where only database 0 exists: drop the database number from the URL';
    }
    if (/DB index is out of range/i.test(message)) {
      return `database ${db ?? 0} does not exist on this Redis (${message})`;
    }
    if (message.startsWith('NOPERM')) {
      return `this Redis user may not run a command Ringmaster needs (${message})`;
    }
    return `Redis refused the connection: ${message}`;
  }
  const cause = socketCause(code);
  if (code === 'ECONNREFUSED') {
    return `nothing accepts connections there (${cause}; ${waited})`;
  }
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return (
      `the server closed every connection at once (${code}; ${waited})` +
      (tls ? '' : ': a TLS port? Then use rediss://')
    );
  }
  if (cause !== undefined) return `${cause} (${code}; ${waited})`;
  if (tls && (code?.startsWith('ERR_SSL') || code === 'EPROTO' || /SSL|TLS/.test(message))) {
    return `TLS handshake failed (${message}): a plain Redis port needs redis://, not rediss://`;
  }
  return `cannot connect: ${message}${code ? ` (${code})` : ''}`;
}
