/**
 * `buildServer(config)` → `{ start, stop }` (STYLE.md 12): Redis (embedded when REDIS_URL is
 * unset), the engine, the live feed, the reaper, Yoga on HTTP and graphql-ws on one port.
 * `stop()` really stops: sockets, timers, the subscriber, Redis connections and the embedded
 * redis-server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { queuesKey, Ringmaster } from '../lanes/index.js';
import { LiveFeed } from '../pubsub/index.js';
import { advertise } from './advertise.js';
import { Authenticator } from './auth.js';
import { BrowserPolicy } from './browser.js';
import type { Config } from './config.js';
import { withConsole } from './console.js';
import { lockDataDir } from './dataDirLock.js';
import { withHealth } from './health.js';
import { Reaper } from './reaper.js';
import { type RedisProcess, startRedisServer } from './redisProcess/index.js';
import { attachWebSocket } from './ws.js';
import { createRingmasterYoga, type RingmasterYoga } from './yoga.js';

/** How long `/ready` waits for Redis to answer PING before it reports Redis down (ms). */
const READY_PING_TIMEOUT_MS = 1_000;

/** Distinct invalid names in `P:queues` warned about, at most (a bound on what is remembered). */
const MAX_WARNED_QUEUE_NAMES = 1_000;

export interface RingmasterServer {
  readonly engine: Ringmaster;
  readonly feed: LiveFeed;
  readonly yoga: RingmasterYoga;
  readonly reaper: Reaper;
  /** `http://host:port` once started: reachable from this machine (loopback for HOST=0.0.0.0). */
  readonly url: string;
  /** Live WebSocket connections (count). */
  readonly sockets: number;
  /** Listen; resolves once HTTP and WebSocket accept connections. */
  start(): Promise<void>;
  /** Stop accepting, close every socket, stop timers and the feed, quit Redis. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Build a server from validated configuration. Connects to Redis (or starts the embedded one)
 * but does not listen until `start()`.
 * @throws RedisServerNotFoundError when REDIS_URL is unset and no redis-server is installed
 * @throws DataDirInUseError when REDIS_URL is unset and another server holds DATA_DIR
 * @throws Error when the Redis is older than 6.2 (`Ringmaster.checkServer`)
 */
export async function buildServer(config: Config, logger: Logger): Promise<RingmasterServer> {
  let embedded: RedisProcess | null = null;
  let redisUrl = config.redisUrl;
  let releaseDataDir: (() => void) | null = null;
  if (redisUrl === undefined) {
    releaseDataDir = lockDataDir(config.dataDir);
    try {
      embedded = await startRedisServer({
        dataDir: config.dataDir,
        appendOnly: true,
        // Its lines carry component 'redis-server' themselves (a child logger would repeat the key).
        logger,
      });
    } catch (error) {
      releaseDataDir();
      throw error;
    }
    redisUrl = embedded.url;
    logger.info({ url: redisUrl, dataDir: config.dataDir }, 'embedded redis-server started');
  }

  // Not auto-pipelined: a NOSCRIPT reply inside an ioredis auto-pipeline (after SCRIPT FLUSH, a
  // restart or a failover) can throw "results[i] is not iterable" out of ioredis' callback and
  // crash the process (ioredis 5.11, issue #1931; test/faults/script-flush caught it).
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3, lazyConnect: true });
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  await redis.connect();

  // A name in `P:queues` that is not a valid queue name is skipped by every reader (the reaper,
  // `Query.queues`); warned about once per name per process, not on every reaper tick.
  const warnedQueueNames = new Set<string>();
  const engine = new Ringmaster(redis, {
    prefix: config.keyPrefix,
    onInvalidQueueName: (name) => {
      if (warnedQueueNames.has(name) || warnedQueueNames.size >= MAX_WARNED_QUEUE_NAMES) return;
      warnedQueueNames.add(name);
      logger.warn(
        { queue: name, key: queuesKey(config.keyPrefix) },
        'skipping an invalid queue name in the queue registry (remove it with SREM)',
      );
    },
  });
  try {
    await engine.checkServer();
  } catch (error) {
    redis.disconnect();
    await embedded?.stop();
    releaseDataDir?.();
    throw error;
  }
  const feed = new LiveFeed({
    engine,
    prefix: config.keyPrefix,
    resyncIntervalMs: config.resyncIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    logger: logger.child({ component: 'feed' }),
  });
  const auth = new Authenticator(config.authTokens);
  const browser = new BrowserPolicy({
    corsOrigins: config.corsOrigins,
    loopbackHostsOnly: !auth.enabled,
  });
  const reaper = new Reaper(engine, config.reapIntervalMs, logger.child({ component: 'reaper' }));
  const yoga = createRingmasterYoga({
    engine,
    feed,
    auth,
    logger,
    introspection: config.introspection,
    browser,
    ready: async () => {
      // Bounded: a Redis that is frozen (SIGSTOP, a stalled host) keeps the connection open and
      // never answers, and a probe that hangs tells an operator nothing. Down after 1 s.
      let timer: NodeJS.Timeout | undefined;
      const redisUp = await Promise.race([
        redis.ping().then(
          () => true,
          () => false,
        ),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), READY_PING_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
      // Notifications mode needs its subscriber connected and subscribed: while it is down (or
      // reconnecting) no change is pushed. Polling needs only Redis.
      const subscriberUp = feed.subscribed;
      const ok = redisUp && (subscriberUp || feed.mode === 'polling');
      return {
        ok,
        detail: {
          redis: redisUp ? 'up' : 'down',
          notifications: feed.mode,
          subscriber: subscriberUp ? 'up' : 'down',
        },
      };
    },
  });

  // The console at `/` and `/assets/*` (src/server/console.ts); everything else goes to Yoga.
  const http: Server = createServer(
    withHealth(
      withConsole(yoga, {
        authRequired: auth.enabled,
        logger: logger.child({ component: 'console' }),
      }),
    ),
  );
  const ws = attachWebSocket(http, yoga, auth, browser);
  let url = '';
  let stopping: Promise<void> | null = null;

  return {
    engine,
    feed,
    yoga,
    reaper,
    get url() {
      return url;
    },
    get sockets() {
      return ws.wss.clients.size;
    },
    async start() {
      await feed.start();
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(config.port, config.host, () => {
          http.off('error', reject);
          resolve();
        });
      });
      const address = http.address() as AddressInfo;
      // A wildcard bind (0.0.0.0) is advertised as loopback plus the machine's names.
      const advertised = advertise(address.address, address.port);
      url = advertised.url;
      reaper.start();
      logger.info(
        {
          url: `${url}/graphql`,
          console: `${url}/`,
          ...(advertised.elsewhere.length > 0 ? { elsewhere: advertised.elsewhere } : {}),
          notifications: feed.mode,
        },
        'ringmaster listening',
      );
    },
    stop() {
      stopping ??= (async () => {
        await reaper.stop();
        await ws.close();
        await feed.stop();
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
        await redis.quit().catch(() => redis.disconnect());
        await embedded?.stop();
        releaseDataDir?.();
        logger.info('ringmaster stopped');
      })();
      return stopping;
    },
  };
}
