/**
 * `buildServer(config)` → `{ start, stop }`: Redis (embedded when REDIS_URL is unset), the
 * engine, the live feed, the reaper, Yoga on HTTP and graphql-ws on one port.
 * `stop()` really stops: sockets, timers, the subscriber, Redis connections and the embedded
 * redis-server.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { BAD_PORTS_SPEC, isFetchBadPort } from '../badPorts.js';
import {
  assertPlainKeys,
  EvictionPolicyError,
  isCluster,
  masterClients,
  queuesKey,
  type Reaper,
  type RedisClient,
  Ringmaster,
  RingmasterError,
} from '../lanes/internal.js';
import { LiveFeed } from '../pubsub/index.js';
import { advertise } from './advertise.js';
import { Authenticator } from './auth.js';
import { type Config, shown } from './config.js';
import { ConnectionLimiter } from './connectionLimits.js';
import { withConsole } from './console.js';
import { lockDataDir } from './dataDirLock.js';
import { EvictionWatch } from './evictionWatch.js';
import { withHealth } from './health.js';
import { routeIoredisWarnings } from './ioredisWarnings.js';
import { ServerMetrics, withMetrics } from './metrics.js';
import { BrowserPolicy } from './plugins/browser.js';
import { useOperationMetrics } from './plugins/operationMetrics.js';
import { serverReaper } from './reaper.js';
import { connectTarget, RedisConnectError } from './redisConnect.js';
import { type RedisProcess, RedisStartError, startRedisServer } from './redisProcess/index.js';
import { StartupError } from './startupError.js';
import { StateLossReport } from './stateLoss.js';
import { coalesceWrites } from './writeCoalescing.js';
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
 * @throws StartupError (one line naming the setting) when DATA_DIR cannot be used, the embedded
 *   redis-server does not start, Redis cannot be reached within 5 s or refuses (a password, a
 *   database, not Redis at all), or is older than 6.2 (`Ringmaster.checkServer`); from
 *   `start()`, when HOST:PORT cannot be listened on
 *   A Redis whose maxmemory-policy is not noeviction is not refused: `/ready` is 503 and an
 *   error is logged while it lasts (`EvictionWatch`), since the policy can be fixed without a
 *   restart. REDIS_URL carrying `?keyPrefix=` is a StartupError too (see `assertPlainKeys`;
 *   KEY_PREFIX is the supported way), before anything is sent; `loadConfig` refuses it first,
 *   so this is met by a Config made another way.
 */
export async function buildServer(config: Config, logger: Logger): Promise<RingmasterServer> {
  // ioredis' own console warnings (a password Redis does not need) go to the log while it runs.
  const restoreWarnings = routeIoredisWarnings(logger);
  warnLookalikes(config, logger);
  let server: RingmasterServer;
  try {
    server = await build(config, logger);
  } catch (error) {
    restoreWarnings();
    throw error;
  }
  const stop = server.stop.bind(server);
  return Object.assign(server, { stop: () => stop().finally(restoreWarnings) });
}

async function build(config: Config, logger: Logger): Promise<RingmasterServer> {
  let embedded: RedisProcess | null = null;
  let redisUrl = config.redisUrl;
  let releaseDataDir: (() => void) | null = null;
  // The embedded Redis is one node, never a cluster; it runs only when no Redis is named.
  if (redisUrl === undefined && config.redisClusterNodes === undefined) {
    releaseDataDir = lockDataDir(config.dataDir);
    try {
      embedded = await startRedisServer({
        ...(config.embeddedRedisPort !== undefined && { port: config.embeddedRedisPort }),
        dataDir: config.dataDir,
        appendOnly: true,
        // Its lines carry component 'redis-server' themselves (a child logger would repeat the key).
        logger,
      });
    } catch (error) {
      releaseDataDir();
      throw error instanceof RedisStartError ? embeddedStartError(error, config) : error;
    }
    redisUrl = embedded.url;
    logger.info({ url: redisUrl, dataDir: config.dataDir }, 'embedded redis-server started');
  }

  // Not auto-pipelined: a NOSCRIPT reply inside an ioredis auto-pipeline (after SCRIPT FLUSH, a
  // restart or a failover) can throw "results[i] is not iterable" out of ioredis' callback and
  // crash the process (ioredis 5.11, issue #1931; test/faults/script-flush caught it).
  // While Redis is down a call waits in ioredis' offline queue and fails once 4 reconnect
  // attempts in a row have failed (maxRetriesPerRequest 3; ioredis waits ≤ 2 s between
  // attempts): within ~8 s, as REDIS_UNAVAILABLE (HTTP 503). No command timeout: a command
  // that timed out would still be sent after the reconnect (or run by a frozen Redis once it
  // continues), so a call reported failed could be applied; a frozen Redis holds calls instead
  // (`/ready` says so within 1 s). The first connection is bounded and explained at start
  // (src/server/redisConnect.ts); ioredis reconnects after that.
  // A Redis Cluster (REDIS_URL at any of its nodes, or REDIS_CLUSTER_NODES) is talked to through
  // an ioredis Cluster whose redirection budgets outlast a failover (src/lanes/redis/clusterOptions.ts).
  let redis: RedisClient;
  try {
    const connected = await connectTarget(
      config.redisClusterNodes?.map((node) =>
        /^rediss?:\/\//.test(node) ? node : `redis://${node}`,
      ) ?? [redisUrl as string],
      { maxRetriesPerRequest: 3 },
      { expectCluster: config.redisClusterNodes !== undefined },
      (client) => {
        // ioredis reads options from the URL's query string: `?keyPrefix=app:` would strand jobs.
        if (embedded === null) {
          assertPlainKeys(client, { source: 'REDIS_URL', prefix: config.keyPrefix });
        }
      },
    );
    redis = connected.redis;
    if (connected.cluster) {
      logger.info(
        {
          seeds: connected.cluster.seeds.map((s) => `${s.host}:${s.port}`),
          nodeTimeoutMs: connected.cluster.nodeTimeoutMs,
        },
        'redis cluster detected',
      );
    }
  } catch (error) {
    await embedded?.stop();
    releaseDataDir?.();
    if (!(error instanceof RedisConnectError || error instanceof RingmasterError)) throw error;
    throw new StartupError(redisVariable(config), shownRedis(config), error.message);
  }
  redis.on('error', (err) => logger.warn({ err: err.message }, 'redis connection error'));
  // One socket write per event-loop turn for the commands of many requests (not auto-pipelining).
  coalesceWrites(redis);
  if (isCluster(redis)) {
    redis.on('node error', (err: Error, node: string) =>
      logger.warn({ err: err.message, node }, 'redis cluster node connection error'),
    );
  }

  // A name in `P:queues` that is not a valid queue name is skipped by every reader (the reaper,
  // `Query.queues`); warned about once per name per process, not on every reaper tick.
  const warnedQueueNames = new Set<string>();
  // GET /metrics (DESIGN.md §4.7): made first, so the engine reports its script calls to it.
  const metrics = new ServerMetrics(
    logger.child({ component: 'metrics' }),
    config.metricsTopGroups,
  );
  // A queue whose state Redis lost (DESIGN.md §3): logged once, counted, sent to subscribers.
  const stateLoss = new StateLossReport(metrics, logger.child({ component: 'redis' }));
  const engine = new Ringmaster(redis, {
    prefix: config.keyPrefix,
    onScript: metrics.observeScript,
    onStateLost: stateLoss.record,
    historyMaxLen: config.historyMaxLen,
    onInvalidQueueName: (name) => {
      if (warnedQueueNames.has(name) || warnedQueueNames.size >= MAX_WARNED_QUEUE_NAMES) return;
      warnedQueueNames.add(name);
      logger.warn(
        { queue: name, key: queuesKey(config.keyPrefix) },
        'skipping an invalid queue name in the queue registry (remove it with SREM)',
      );
    },
  });
  const eviction = new EvictionWatch(
    engine,
    config.resyncIntervalMs,
    logger.child({ component: 'redis' }),
  );
  try {
    try {
      await engine.checkServer();
    } catch (error) {
      // Not fatal: the watch logs it and keeps /ready at 503 until the policy is fixed.
      if (!(error instanceof EvictionPolicyError)) throw error;
    }
    await eviction.check();
  } catch (error) {
    redis.disconnect();
    await embedded?.stop();
    releaseDataDir?.();
    // Too old, or a user that may not run INFO: either way this Redis will not do.
    throw new StartupError(redisVariable(config), shownRedis(config), (error as Error).message);
  }
  const feed = new LiveFeed({
    engine,
    resyncIntervalMs: config.resyncIntervalMs,
    pollIntervalMs: config.pollIntervalMs,
    maxWatches: config.maxWatches,
    maxRereadsPerSecond: config.maxRereadsPerSecond,
    logger: logger.child({ component: 'feed' }),
  });
  metrics.attach({ engine, feed });
  stateLoss.attach(feed);
  const auth = new Authenticator(config.authTokens, config.authTokenNames);
  const browser = new BrowserPolicy({
    corsOrigins: config.corsOrigins,
    loopbackHostsOnly: !auth.enabled,
  });
  const reaper = serverReaper(
    engine,
    config.reapIntervalMs,
    logger.child({ component: 'reaper' }),
    config.groupGraceMs,
  );
  // One bound per client over WebSockets and SSE streams together.
  const connections = new ConnectionLimiter(config.maxConnectionsPerClient);
  const yoga = createRingmasterYoga({
    engine,
    feed,
    auth,
    connections,
    logger,
    introspection: config.introspection,
    browser,
    observers: [useOperationMetrics(metrics.operations)],
    ready: async () => {
      // Bounded: a Redis that is frozen (SIGSTOP, a stalled host) keeps the connection open and
      // never answers, and a probe that hangs tells an operator nothing. Down after 1 s.
      // The eviction policy is re-read alongside (one INFO memory), so a CONFIG SET to an
      // evicting policy shows here at once; a read that fails or times out keeps the last one.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), READY_PING_TIMEOUT_MS);
      });
      const [redisUp, policyRead] = await Promise.all([
        Promise.race([
          // On a cluster, every master must answer (a queue on one that does not is unusable).
          masterClients(redis)
            .then((masters) => Promise.all(masters.map((node) => node.ping())))
            .then(
              () => true,
              () => false,
            ),
          deadline,
        ]),
        Promise.race([eviction.check(), deadline]),
      ]);
      clearTimeout(timer);
      // Notifications mode needs its subscriber connected and subscribed: while it is down (or
      // reconnecting) no change is pushed. Polling needs only Redis: a working mode, so 200,
      // whether CONFIG is refused or the keyspace canary went unheard (`notifications` says
      // "notifications" only while the canary is heard).
      const subscriberUp = feed.subscribed;
      const ok = redisUp && (subscriberUp || feed.mode === 'polling') && eviction.ok;
      // A lost state is reported, not a reason to refuse traffic (DESIGN.md §6, "/ready").
      const lost = stateLoss.losses.length > 0 ? { stateLost: stateLoss.losses } : {};
      // Only what this probe found is shown as current: while Redis does not answer, the policy
      // and whether notifications arrive are not known, and their last answers (which may be
      // stale: the policy may have been changed back before Redis went down) are named so.
      if (!redisUp) {
        return {
          ok,
          detail: {
            redis: 'down',
            notifications: 'unknown',
            subscriber: subscriberUp ? 'up' : 'down',
            eviction: 'unknown',
            lastKnown: { notifications: feed.mode, eviction: eviction.policy },
            ...lost,
          },
        };
      }
      return {
        ok,
        detail: {
          redis: 'up',
          notifications: feed.mode,
          subscriber: subscriberUp ? 'up' : 'down',
          // A read that failed or timed out this time: not known now either.
          eviction: policyRead ? eviction.policy : 'unknown',
          ...lost,
        },
      };
    },
  });

  // The console at `/` and `/assets/*` (src/server/console.ts); everything else goes to Yoga.
  const http: Server = createServer(
    withHealth(
      withMetrics(
        withConsole(yoga, {
          authRequired: auth.enabled,
          logger: logger.child({ component: 'console' }),
        }),
        metrics,
        { auth, metricsToken: config.metricsToken },
      ),
    ),
  );
  // Attached once listening: the WebSocket server re-emits the HTTP server's errors, and
  // graphql-ws prints a listen error (EADDRINUSE) with its stack before ours could say it.
  let ws: ReturnType<typeof attachWebSocket> | null = null;
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
      return ws?.wss.clients.size ?? 0;
    },
    async start() {
      await feed.start();
      await new Promise<void>((resolve, reject) => {
        const refused = (error: NodeJS.ErrnoException) => reject(listenError(error, config));
        http.once('error', refused);
        http.listen(config.port, config.host, () => {
          http.off('error', refused);
          resolve();
        });
      });
      ws = attachWebSocket(http, yoga, auth, browser, connections);
      const address = http.address() as AddressInfo;
      // A wildcard bind (0.0.0.0) is advertised as loopback plus the machine's names.
      const advertised = advertise(address.address, address.port);
      url = advertised.url;
      reaper.start();
      stateLoss.start(engine);
      eviction.start();
      if (isFetchBadPort(address.port)) {
        // Served, since curl and other clients reach it; but not a browser or the CLI.
        logger.warn(
          { port: address.port, spec: BAD_PORTS_SPEC },
          `PORT=${address.port} is a port that browsers and Node's fetch refuse to connect to (a "bad port" of the fetch standard): the console, GraphiQL and the ringmaster CLI cannot reach this server, curl and other clients can; run it on another PORT (4000 by default)`,
        );
      }
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
        stateLoss.stop();
        eviction.stop();
        await ws?.close();
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

/** The variable that names the Redis: REDIS_CLUSTER_NODES when set, else REDIS_URL. */
function redisVariable(config: Config): 'REDIS_URL' | 'REDIS_CLUSTER_NODES' {
  return config.redisClusterNodes === undefined ? 'REDIS_URL' : 'REDIS_CLUSTER_NODES';
}

/** That variable as a message may show it (passwords masked); undefined in embedded mode. */
function shownRedis(config: Config): string | undefined {
  if (config.redisClusterNodes !== undefined) {
    return shown('REDIS_CLUSTER_NODES', config.redisClusterNodes.join(','));
  }
  return shown('REDIS_URL', config.redisUrl);
}

/** The embedded redis-server did not start: its exit and the line of its output that says why. */
function embeddedStartError(error: RedisStartError, config: Config): StartupError {
  const port = config.embeddedRedisPort;
  // A port of the operator's choosing that another process holds is that setting's mistake.
  if (port !== undefined && error.output.some((line) => /address already in use/i.test(line))) {
    return new StartupError(
      'EMBEDDED_REDIS_PORT',
      String(port),
      `another process already listens on 127.0.0.1:${port}: stop it, choose another EMBEDDED_REDIS_PORT, or unset it for a free port`,
    );
  }
  // The first line is "redis-server (pid N) exited with code 1 before it was ready on HOST:PORT."
  const what = (error.message.split('\n')[0] ?? '').replace(/ \(pid \d+\)/, '').replace(/\.$/, '');
  // Redis logs `pid:role date time <level> text`; its last warning (`#`) says why it stopped.
  const warning = [...error.output].reverse().find((line) => line.includes(' # '));
  const reason = warning?.slice(warning.indexOf(' # ') + 3) ?? error.output.at(-1);
  return new StartupError(
    'DATA_DIR',
    config.dataDir,
    `the embedded ${what}${reason ? `: ${reason}` : ''} (or set REDIS_URL to use a Redis of your own)`,
  );
}

/**
 * One warning per variable set that looks like Ringmaster's but is not (DESIGN.md §6,
 * "Look-alike variables"): its name and the one meant, never its value (it may be a secret).
 */
function warnLookalikes(config: Config, logger: Logger): void {
  for (const { variable, meant } of config.lookalikes) {
    logger.warn(
      { variable, meant },
      `${variable} is set, but Ringmaster reads no such variable: did you mean ${meant}?`,
    );
  }
}

/** Why HOST:PORT could not be listened on, as the setting to change. */
function listenError(error: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return new StartupError(
        'PORT',
        String(config.port),
        `another process already listens on ${where}: stop it or choose another PORT`,
      );
    case 'EACCES':
      return new StartupError(
        'PORT',
        String(config.port),
        `permission denied to listen on ${where} (ports below 1024 need privileges)`,
      );
    case 'EADDRNOTAVAIL':
      return new StartupError('HOST', config.host, 'is not an address of this machine');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartupError('HOST', config.host, `host name not found (${error.code})`);
    default:
      return new StartupError('HOST', config.host, `cannot listen on ${where}: ${error.message}`);
  }
}
