/**
 * Test harness: a real Redis for each test file, with keyspace notifications on
 * (`notify-keyspace-events KEA`: keyspace and keyevent channels for every event class — generic,
 * string, list, set, hash, sorted set, expired, evicted, stream…).
 *
 * Where the Redis comes from, first match wins:
 * 1. `REDIS_URL` is set: that server, shared by every test file ("external" mode). It cannot be
 *    stopped, killed or restarted from here (`canControlProcess` is false and those methods
 *    throw), and `renameConfig` is refused. Tests share it, so each must use its own queue names.
 *    Tests write to its database and `flush()` empties it, so a database holding keys that are
 *    not the tests' own is refused: the tests mark a database they use
 *    ({@link TEST_DATABASE_MARKER}), and only an empty or marked one is accepted.
 *    A `REDIS_URL` naming a node of a Redis Cluster is one too: `client()` then returns an
 *    ioredis `Cluster` (typed as `Redis`: tests use the commands both have), and the checks and
 *    `flush()` cover every master. So a suite runs against a cluster unchanged
 *    (test/cluster/apiContract.test.ts runs the API contract suite that way).
 *    Set `TEST_REDIS=binary|docker` to skip the detection below and force a mode.
 * 2. A Docker engine answers within 2 s: a fresh `redis:7` container ("container" mode).
 * 3. Otherwise: a `redis-server` child on a free loopback port ("binary" mode), via
 *    `startRedisServer`, which says how to install Redis if there is none.
 *
 * Usage in a test file:
 * ```ts
 * const redis = useTestRedis();               // beforeAll: start, afterAll: stop
 * it('…', async () => { const r = redis.client(); await r.set('k', 'v'); });
 * ```
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll } from 'vitest';
import { clusterOptions, masterClients } from '../../src/lanes/internal.js';
import {
  type RedisProcess,
  startRedisServer,
  TERMINATING_SIGNALS,
} from '../../src/server/redisProcess/index.js';

/** Where a {@link TestRedis} runs; see the module comment for how it is chosen. */
export type TestRedisMode = 'external' | 'container' | 'binary';

export interface StartTestRedisOptions {
  /**
   * Start Redis with `--rename-command CONFIG ""`, so every CONFIG command is refused, as on a
   * managed Redis. Binary and container modes only: throws in external mode.
   */
  renameConfig?: boolean;
  /**
   * Commands renamed away (`--rename-command NAME ""`), so Redis answers them "unknown command":
   * `['FCALL', 'FUNCTION']` is a Redis without Functions, as 6.2 is. Binary and container modes
   * only: throws in external mode.
   */
  withoutCommands?: readonly string[];
  /**
   * Keep an append-only file with `appendfsync always`, so every acknowledged write survives a
   * SIGKILL and `restart()`. Default false (nothing on disk). Ignored in external mode.
   */
  appendOnly?: boolean;
}

/** A Redis for tests. After `stop()`, every method but `stop()` throws. */
export interface TestRedis {
  readonly mode: TestRedisMode;
  /** `redis://host:port`, stable across `kill()` and `restart()`. */
  readonly url: string;
  readonly port: number;
  /** False in external mode, where `kill()` and `restart()` throw: check it, or skip the test. */
  readonly canControlProcess: boolean;
  /**
   * A new ioredis connection to this Redis, closed by `stop()`. Its 'error' events (expected
   * while a test has Redis down) are swallowed; commands still reject. `options` are passed on.
   */
  client(options?: RedisOptions): Redis;
  /**
   * Delete every key: FLUSHALL on a Redis of our own; on an external (shared) one, FLUSHDB,
   * keeping only {@link TEST_DATABASE_MARKER}.
   */
  flush(): Promise<void>;
  /**
   * Send `signal` to Redis. SIGKILL/SIGTERM/… resolve once it has exited; SIGSTOP/SIGCONT are
   * sent without waiting (see `RedisProcess.kill`). Throws in external mode.
   */
  kill(signal: NodeJS.Signals): Promise<void>;
  /** Start it again on the same host and port and wait until it answers. Throws in external mode. */
  restart(): Promise<void>;
  /** Close every client, then stop Redis and delete its files. Idempotent. */
  stop(): Promise<void>;
}

/** The flags the harness turns on: keyspace (K) and keyevent (E) channels for all classes (A). */
export const TEST_NOTIFY_FLAGS = 'KEA';
const REDIS_IMAGE = 'redis:7';
/** How long Docker detection may take before the harness falls back to the binary. */
const DOCKER_PROBE_MS = 2_000;

/** True when tests run against `REDIS_URL`, where process control and `renameConfig` are off. */
export function usingExternalRedis(): boolean {
  return chooseModeFromEnv() === 'external';
}

function chooseModeFromEnv(): TestRedisMode | 'detect' {
  const forced = process.env.TEST_REDIS;
  if (forced === 'binary') return 'binary';
  if (forced === 'docker') return 'container';
  if (forced !== undefined && forced !== '') {
    throw new Error(`TEST_REDIS must be "binary" or "docker", not ${JSON.stringify(forced)}`);
  }
  return process.env.REDIS_URL ? 'external' : 'detect';
}

/** Cached per test file (each runs in its own fork): detection costs up to 2 s when it fails. */
let dockerAvailable: Promise<boolean> | undefined;

/**
 * Is a Docker engine reachable? A cheap look for a socket first, so machines without Docker do
 * not even load testcontainers, then testcontainers' own client, bounded in time because its
 * strategies can otherwise wait a long while on a dead socket.
 */
function detectDocker(): Promise<boolean> {
  dockerAvailable ??= (async () => {
    const sockets = [
      '/var/run/docker.sock',
      path.join(os.homedir(), '.docker', 'run', 'docker.sock'),
      ...(process.env.XDG_RUNTIME_DIR
        ? [path.join(process.env.XDG_RUNTIME_DIR, 'docker.sock')]
        : []),
    ];
    if (!process.env.DOCKER_HOST && !sockets.some((socket) => existsSync(socket))) return false;
    try {
      const { getContainerRuntimeClient } = await import('testcontainers');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), DOCKER_PROBE_MS);
        timer.unref();
      });
      const client = getContainerRuntimeClient().then(
        () => true,
        () => false,
      );
      const found = await Promise.race([client, timeout]);
      clearTimeout(timer);
      return found;
    } catch {
      return false;
    }
  })();
  return dockerAvailable;
}

/** ioredis connections handed out by one TestRedis, so `stop()` can close them all. */
class Clients {
  readonly #open = new Set<Redis>();
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly cluster: boolean,
  ) {}

  create(options: RedisOptions = {}): Redis {
    if (this.#closed) throw new Error('TestRedis.client() called after stop()');
    const client = this.cluster ? clusterClient(this.url, options) : new Redis(this.url, options);
    // Reconnect errors are the normal state while a test has Redis killed or frozen; without a
    // listener ioredis prints each one. Commands still reject, so a test sees real failures.
    client.on('error', () => {});
    this.#open.add(client);
    client.once('end', () => this.#open.delete(client));
    return client;
  }

  async closeAll(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#open].map(async (client) => {
        // QUIT is polite but needs a live server; a bounded wait, then drop the socket anyway.
        if (client.status === 'ready') {
          await Promise.race([
            client.quit().catch(() => undefined),
            new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
          ]);
        }
        client.disconnect();
      }),
    );
    this.#open.clear();
  }
}

/**
 * A Cluster client seeded with the node `url` names, with Ringmaster's budgets (default node
 * timeout) and `options` for every node; typed as `Redis` for the tests that use either.
 */
function clusterClient(url: string, options: RedisOptions): Redis {
  const { hostname, port } = new URL(url);
  const cluster = new Cluster([{ host: hostname, port: Number(port || 6379) }], {
    ...clusterOptions(),
    ...(options.lazyConnect === undefined ? {} : { lazyConnect: options.lazyConnect }),
    redisOptions: options,
  });
  return cluster as unknown as Redis;
}

/** Whether the Redis at `url` is a node of a Redis Cluster (INFO cluster). */
async function isClusterNode(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return /^cluster_enabled:1/m.test(await probe.info('cluster'));
  } finally {
    probe.disconnect();
  }
}

/** The parts that differ between modes; the shared parts live in {@link makeTestRedis}. */
interface Backend {
  mode: TestRedisMode;
  /** A node of a Redis Cluster (external mode only). */
  cluster?: boolean;
  url: string;
  port: number;
  kill(signal: NodeJS.Signals): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function makeTestRedis(backend: Backend): TestRedis {
  const clients = new Clients(backend.url, backend.cluster === true);
  let admin: Redis | undefined;
  let stopped: Promise<void> | undefined;
  const assertRunning = (method: string): void => {
    if (stopped) throw new Error(`TestRedis.${method}() called after stop()`);
  };
  return {
    mode: backend.mode,
    url: backend.url,
    port: backend.port,
    canControlProcess: backend.mode !== 'external',
    client: (options) => clients.create(options),
    async flush() {
      assertRunning('flush');
      admin ??= clients.create();
      // Never FLUSHALL a shared server: other test files may use its other databases. The
      // marker goes back at once: the database stays the tests' own.
      if (backend.cluster) {
        for (const master of await masterClients(admin)) await master.flushdb();
        await admin.set(TEST_DATABASE_MARKER, 'tests');
      } else if (backend.mode === 'external') {
        await admin.multi().flushdb().set(TEST_DATABASE_MARKER, 'tests').exec();
      } else {
        await admin.flushall();
      }
    },
    async kill(signal) {
      assertRunning('kill');
      await backend.kill(signal);
    },
    async restart() {
      // After stop() nobody would stop it again: refuse rather than leak a server.
      assertRunning('restart');
      await backend.restart();
    },
    stop() {
      stopped ??= clients.closeAll().then(() => backend.stop());
      return stopped;
    },
  };
}

/** Refuse a REDIS_URL database holding someone else's keys; mark it as the tests' otherwise. */
async function claimDatabase(url: string, cluster: boolean): Promise<void> {
  const client = cluster
    ? clusterClient(url, { lazyConnect: true })
    : new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    await client.connect();
    const sizes = await Promise.all((await masterClients(client)).map((node) => node.dbsize()));
    const [keys, marked] = [
      sizes.reduce((sum, n) => sum + n, 0),
      await client.exists(TEST_DATABASE_MARKER),
    ];
    if (keys > 0 && marked === 0) {
      throw new Error(
        `REDIS_URL (${url}) names a database that holds ${keys} keys the tests did not write. ` +
          'The tests write to that database and empty it (FLUSHDB), so they refuse to touch ' +
          'it: point REDIS_URL at an empty database (redis://host:port/15, say), or unset it ' +
          'and each test file starts a redis-server of its own.',
      );
    }
    await client.set(TEST_DATABASE_MARKER, 'keys here are written and flushed by the tests');
  } finally {
    client.disconnect();
  }
}

function cannotControl(what: string): never {
  throw new Error(
    `TestRedis.${what}() is not supported with REDIS_URL (${process.env.REDIS_URL}): ` +
      'this Redis is not ours to stop. Check `canControlProcess` (or `usingExternalRedis()`) ' +
      'and skip the test, or unset REDIS_URL to get a Redis of its own.',
  );
}

/**
 * The key the tests leave in a `REDIS_URL` database they use, so that a later run knows the keys
 * there are the tests' own (and a database of someone else's data is never written or flushed).
 */
export const TEST_DATABASE_MARKER = 'ringmaster:test-database';

async function externalBackend(url: string): Promise<Backend> {
  const parsed = new URL(url);
  const cluster = await isClusterNode(url);
  await claimDatabase(url, cluster);
  // Best effort, as the server itself does (DESIGN.md §6): add our flags to those already set,
  // never remove any. A Redis that refuses CONFIG keeps its own; pub/sub tests then need polling.
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  probe.on('error', () => {});
  try {
    await probe.connect();
    const reply = (await probe.config('GET', 'notify-keyspace-events')) as string[];
    const current = reply[1] ?? '';
    const merged = [...new Set(current + TEST_NOTIFY_FLAGS)].join('');
    if (merged !== current) await probe.config('SET', 'notify-keyspace-events', merged);
  } catch {
    // CONFIG renamed away or refused: nothing more to do here.
  } finally {
    probe.disconnect();
  }
  return {
    mode: 'external',
    cluster,
    url,
    port: Number(parsed.port || 6379),
    kill: async () => cannotControl('kill'),
    restart: async () => cannotControl('restart'),
    stop: async () => {},
  };
}

async function binaryBackend(options: StartTestRedisOptions): Promise<Backend> {
  const server: RedisProcess = await startRedisServer({
    notifyKeyspaceEvents: TEST_NOTIFY_FLAGS,
    appendOnly: options.appendOnly ?? false,
    extraArgs: [
      ...(options.appendOnly ? ['--appendfsync', 'always'] : []),
      ...renamedAway(options),
    ],
  });
  return {
    mode: 'binary',
    url: server.url,
    port: server.port,
    kill: (signal) => server.kill(signal),
    restart: () => server.restart(),
    stop: () => server.stop(),
  };
}

async function containerBackend(options: StartTestRedisOptions): Promise<Backend> {
  const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers');
  // A fixed host port, so the URL (and every client's address) survives a restart; Docker would
  // otherwise map a new random port each time the container starts.
  const hostPort = await getPort({ exclude: [6379] });
  const command = [
    'redis-server',
    '--save',
    '',
    '--notify-keyspace-events',
    TEST_NOTIFY_FLAGS,
    '--appendonly',
    options.appendOnly ? 'yes' : 'no',
    ...(options.appendOnly ? ['--appendfsync', 'always'] : []),
    ...renamedAway(options),
  ];
  const container: StartedTestContainer = await new GenericContainer(REDIS_IMAGE)
    .withCommand(command)
    .withExposedPorts({ container: 6379, host: hostPort })
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .withStartupTimeout(60_000)
    .start();
  const docker = (await getContainerRuntimeClient()).container.getById(container.getId());
  return {
    mode: 'container',
    url: `redis://${container.getHost()}:${hostPort}`,
    port: hostPort,
    async kill(signal) {
      // `docker kill --signal` reaches Redis, PID 1 of the container, from outside; a signal
      // sent from inside (`exec kill`) would be ignored by PID 1 for SIGKILL and SIGSTOP.
      await docker.kill({ signal });
      // Same rule as the binary: wait only for signals that end Redis.
      if (!TERMINATING_SIGNALS.has(signal)) return;
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([
        docker.wait().then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), 10_000);
        }),
      ]);
      clearTimeout(timer);
      if (!stopped) throw new Error(`container did not stop within 10 s of ${signal}`);
    },
    // The same container again, so its files (the append-only file) are kept; testcontainers
    // waits for a fresh "Ready to accept connections" line, not the one of the last run.
    restart: () => container.restart({ timeout: 5_000 }),
    async stop() {
      await container.stop({ timeout: 5_000 });
    },
  };
}

/** The `--rename-command` arguments of `options`: CONFIG for renameConfig, then withoutCommands. */
function renamedAway(options: StartTestRedisOptions): string[] {
  const names = [...(options.renameConfig ? ['CONFIG'] : []), ...(options.withoutCommands ?? [])];
  return names.flatMap((name) => ['--rename-command', name, '']);
}

/**
 * Start a fresh Redis for the calling test file (see the module comment for where it runs).
 * @throws when `renameConfig` is asked for under REDIS_URL, or when Redis cannot be started
 *   (the error says why, e.g. how to install `redis-server`).
 */
export async function startTestRedis(options: StartTestRedisOptions = {}): Promise<TestRedis> {
  let mode = chooseModeFromEnv();
  if (mode === 'external') {
    if (renamedAway(options).length > 0) {
      throw new Error(
        'startTestRedis({ renameConfig, withoutCommands }) needs a Redis of its own; it cannot rename ' +
          'commands on REDIS_URL. Skip this test when usingExternalRedis() is true.',
      );
    }
    return makeTestRedis(await externalBackend(process.env.REDIS_URL as string));
  }
  if (mode === 'detect') mode = (await detectDocker()) ? 'container' : 'binary';
  return makeTestRedis(
    mode === 'container' ? await containerBackend(options) : await binaryBackend(options),
  );
}

/** What {@link useTestRedis} returns: getters that work inside tests and hooks. */
export interface TestRedisHandle {
  /** The running TestRedis; throws if read before `beforeAll` has run. */
  readonly redis: TestRedis;
  readonly url: string;
  /** `redis.client(options)`: a new tracked connection. */
  client(options?: RedisOptions): Redis;
}

/**
 * Start a TestRedis in `beforeAll` and stop it in `afterAll` of the enclosing suite (or file).
 * Call it at the top level of a test file or inside a `describe`.
 */
export function useTestRedis(options: StartTestRedisOptions = {}): TestRedisHandle {
  let current: TestRedis | undefined;
  beforeAll(async () => {
    current = await startTestRedis(options);
  });
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });
  const get = (): TestRedis => {
    if (current === undefined) {
      throw new Error('useTestRedis(): Redis is not running here (read it inside a test or hook)');
    }
    return current;
  };
  return {
    get redis() {
      return get();
    },
    get url() {
      return get().url;
    },
    client: (clientOptions) => get().client(clientOptions),
  };
}
