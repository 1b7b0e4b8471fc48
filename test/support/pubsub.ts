/**
 * Helpers for the live feed's tests: a feed per test on a real Redis (stopped after the test),
 * a logger whose lines can be inspected, bounded polls, and a reader that takes events from a
 * generator with a timeout without ever leaving a stray pull behind.
 */
import { randomUUID } from 'node:crypto';
import { type Cluster, Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { isCluster, Ringmaster } from '../../src/lanes/internal.js';
import { LiveFeed, type LiveFeedOptions } from '../../src/pubsub/index.js';
import {
  type RedisProcess,
  type StartRedisServerOptions,
  startRedisServer,
} from '../../src/server/redisProcess/index.js';

/** A pino logger that keeps its lines (parsed) for assertions. */
export function captureLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return { logger, lines };
}

/** A queue name of its own (the Redis may be shared, under REDIS_URL). */
export function queueName(stem = 'live'): string {
  return `${stem}-${randomUUID().slice(0, 8)}`;
}

/** Poll `check` every `intervalMs` until it returns a truthy value; fail after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 10 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Pulls from a generator with a timeout. A pull that timed out stays pending and is reused by
 * the next `next()`, so no event is ever lost to a timeout.
 */
export class Reader<T> {
  private pending: Promise<IteratorResult<T>> | undefined;
  constructor(readonly iterator: AsyncGenerator<T>) {}

  /** The next event; throws after `timeoutMs`, and if the generator ended. */
  async next(timeoutMs = 10_000): Promise<T> {
    const result = await this.result(timeoutMs);
    if (result.done) throw new Error('the generator ended');
    return result.value;
  }

  /** The next result, done or not; throws after `timeoutMs`. */
  async result(timeoutMs = 10_000): Promise<IteratorResult<T>> {
    this.pending ??= this.iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const outcome = await Promise.race([this.pending, timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout') throw new Error(`no event within ${timeoutMs} ms`);
    this.pending = undefined;
    return outcome;
  }

  /** Whether a pull is pending (it timed out, or `pull()` started it). */
  get pulling(): boolean {
    return this.pending !== undefined;
  }

  /** Start a pull without waiting for it. */
  pull(): void {
    this.pending ??= this.iterator.next();
  }
}

/** Options of a test feed: fast throttle, and safety re-reads far away unless a test wants them. */
export type FeedOptions = Partial<Omit<LiveFeedOptions, 'engine'>>;

/**
 * Makes started feeds on connections of its own; every feed and connection made in a test is
 * stopped after it.
 */
export function useFeeds(client: () => Redis) {
  const made: Array<{ feed: LiveFeed; redis: Redis }> = [];
  afterEach(async () => {
    for (const { feed, redis } of made.splice(0)) {
      await feed.stop();
      redis.disconnect();
    }
  });
  return {
    /** A started feed, its engine, and its captured log. */
    async start(options: FeedOptions = {}) {
      const redis = client();
      const engine = new Ringmaster(redis, { prefix: 'pst' });
      const { logger, lines } = captureLogger();
      const feed = new LiveFeed({
        engine,
        resyncIntervalMs: 60_000,
        pollIntervalMs: 60_000,
        logger,
        ...options,
      });
      made.push({ feed, redis });
      await feed.start();
      return { feed, engine, redis, lines };
    },
  };
}

/**
 * The keyspace channels subscribed on the server for queue `queue` (PUBSUB CHANNELS); on a
 * Redis Cluster, where PUBSUB answers for one node, those of every node it knows.
 */
export async function channelsOf(redis: Redis | Cluster, queue: string): Promise<string[]> {
  const pattern = `__keyspace@*__:*{${queue}}*`;
  if (!isCluster(redis)) return redis.pubsub('CHANNELS', pattern) as Promise<string[]>;
  const nodes = redis.nodes('all');
  const each = await Promise.all(
    nodes.map((n) => n.pubsub('CHANNELS', pattern) as Promise<string[]>),
  );
  return each.flat();
}

/** A redis-server of the calling file's own, for what the harness cannot set up. */
export interface OwnRedis {
  /** The running server (after beforeAll). */
  server(): RedisProcess;
  /** A new connection to it, closed after the file. */
  client(): Redis;
}

/**
 * Start a `redis-server` in beforeAll (stopped in afterAll) with exactly `options` — e.g. no
 * notification flags at all, which the harness (always `KEA`) cannot give.
 */
export function useOwnRedisServer(options: StartRedisServerOptions = {}): OwnRedis {
  let server: RedisProcess | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer(options);
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server?.stop();
  });
  const running = (): RedisProcess => {
    if (server === undefined) throw new Error('useOwnRedisServer(): not started yet');
    return server;
  };
  return {
    server: running,
    client() {
      const client = new Redis(running().url);
      client.on('error', () => {});
      clients.push(client);
      return client;
    },
  };
}
