/**
 * A real Redis Cluster of the machine's own `redis-server`: 3 masters and 3 replicas on free
 * loopback ports, joined with `redis-cli --cluster create … --cluster-replicas 1 --cluster-yes`
 * (ready in ~2–3 s). The benchmark starts one (`npm run bench -- --cluster`), and so do the
 * cluster tests, through `useTestCluster` in `test/support/cluster.ts`: they need process control
 * (kill a master, move a slot), so they always start a cluster of their own, whatever
 * `REDIS_URL` says. No vitest here, and nothing of `test/`, so both may import it.
 *
 * Slot moves follow the documented resharding procedure (CLUSTER SETSLOT IMPORTING / MIGRATING,
 * MIGRATE of each key, CLUSTER SETSLOT NODE on every master); failover is either graceful
 * (`CLUSTER FAILOVER` on a replica) or a SIGKILL of a master and the replicas' election.
 */
import { spawn } from 'node:child_process';
import getPort from 'get-port';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { type RedisProcess, startRedisServer } from '../src/server/redisProcess/index.js';
import { RedisStartError } from '../src/server/redisProcess/ready.js';

/**
 * `cluster-node-timeout` of the test cluster, in ms: how long a master may be unreachable before
 * it is failed over. Short, so a failover test takes seconds; the election adds up to ~1 s more.
 */
export const TEST_NODE_TIMEOUT_MS = 1_000;

/** One node as `CLUSTER NODES` describes it. */
export interface ClusterNodeInfo {
  readonly id: string;
  readonly port: number;
  readonly role: 'master' | 'replica';
  /** The master's node id, for a replica. */
  readonly masterId: string | null;
  /** Slot ranges served, for a master: `[from, to]` inclusive. */
  readonly slots: readonly (readonly [number, number])[];
  /** True when the node is flagged `fail` or `fail?`, or not connected. */
  readonly failing: boolean;
}

/** A slot move in progress (see {@link TestCluster.beginSlotMove}). */
export interface SlotMove {
  /** The keys still on the node the slot is leaving. */
  remaining(): Promise<string[]>;
  /** MIGRATE these keys (of the slot) to the new owner, in one command. */
  move(keys: readonly string[]): Promise<void>;
  /** Move every key left, then SETSLOT NODE on every master, and wait until all agree. */
  finish(options?: {
    afterEachKey?: (key: string) => Promise<void>;
    keysPerMigrate?: number;
  }): Promise<void>;
}

export interface StartTestClusterOptions {
  /** Masters (each with one replica). Default 3. */
  masters?: number;
  /** `cluster-node-timeout` in ms. Default {@link TEST_NODE_TIMEOUT_MS}. */
  nodeTimeoutMs?: number;
  /** `notify-keyspace-events` of every node, as `startRedisServer` takes it. Default: Redis'. */
  notifyKeyspaceEvents?: string;
  /** More `redis-server` arguments for every node (`['--name', 'value', …]`). Default none. */
  extraArgs?: readonly string[];
}

/** A running test cluster. After `stop()`, every method but `stop()` throws. */
export interface TestCluster {
  /** `host:port` of every node, in start order (masters first, as `--cluster create` assigns). */
  readonly seeds: readonly { host: string; port: number }[];
  /** `REDIS_CLUSTER_NODES`-style list, `127.0.0.1:p1,127.0.0.1:p2,…`. */
  readonly nodesList: string;
  /** `redis://127.0.0.1:<port of the first node>`: one node, as a user would give REDIS_URL. */
  readonly url: string;
  readonly nodeTimeoutMs: number;
  /** A new ioredis Cluster client on every seed, closed by `stop()`. */
  client(options?: ClusterOptions): Cluster;
  /** A new plain connection to one node (by port), closed by `stop()`. */
  node(port: number, options?: RedisOptions): Redis;
  /** The cluster's view as the first reachable node gives it. */
  topology(): Promise<ClusterNodeInfo[]>;
  /** The port of the master serving `key`'s slot now. */
  ownerOf(key: string): Promise<number>;
  /**
   * SIGKILL (or another signal) to one node; resolves once a terminating signal took effect. A
   * master with a replica connected is first asked to WAIT (up to 3 s) until one has
   * acknowledged its writes.
   */
  kill(port: number, signal?: NodeJS.Signals): Promise<void>;
  /** Start a stopped or killed node again with its files (it rejoins, as a replica if replaced). */
  restart(port: number): Promise<void>;
  /**
   * Graceful failover of the master at `masterPort`: once one of its replicas is live and in
   * sync with it (link up, no full sync under way; up to 20 s), `CLUSTER FAILOVER` on that
   * replica, asked again while Redis drops it unfinished (every 6 s, up to 30 s). Resolves once
   * that replica reports itself master. Returns the new master's port.
   */
  failover(masterPort: number): Promise<number>;
  /**
   * Wait until a replica of the (killed) master at `masterPort` has been promoted and every live
   * node agrees. Returns the new master's port.
   */
  awaitPromotion(masterPort: number, timeoutMs?: number): Promise<number>;
  /**
   * Move `slot` from the master that serves it to the master at `toPort`, by the documented
   * resharding steps. `afterEachKey` runs after each `MIGRATE` (with the key moved), so a test can
   * act while the slot is half moved; `keysPerMigrate` keys move per MIGRATE (default 1);
   * `order` sorts the slot's keys before they move (default: as `GETKEYSINSLOT` lists them).
   */
  migrateSlot(
    slot: number,
    toPort: number,
    options?: {
      afterEachKey?: (key: string) => Promise<void>;
      keysPerMigrate?: number;
      order?: (keys: string[]) => string[];
    },
  ): Promise<void>;
  /**
   * Open the move of `slot` to the master at `toPort` (SETSLOT IMPORTING on it, MIGRATING on the
   * owner) and hand back its steps, so a test can hold the slot half moved for as long as it
   * likes.
   */
  beginSlotMove(slot: number, toPort: number): Promise<SlotMove>;
  /** The hash slot of a key, as the cluster computes it (`CLUSTER KEYSLOT`). */
  keySlot(key: string): Promise<number>;
  /** Wait until every live node reports `cluster_state:ok` and the same slot owners. */
  awaitHealthy(timeoutMs?: number): Promise<void>;
  /** Close every client, stop every node, delete their files. Idempotent. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
/**
 * How long `failover` waits for a manual failover before asking again (ms): past Redis'
 * cluster manual-failover timeout (5 s, CLUSTER_MF_TIMEOUT), after which it dropped the first.
 */
const MANUAL_FAILOVER_RETRY_MS = 6_000;

/**
 * A port whose cluster bus port (port + 10000) is free too, away from 6379 and its bus. Picked at
 * random in 20000–49999, not the first free one: test files run side by side, and a port freed by
 * a node a test killed would otherwise be the next one another file's cluster takes, so the node
 * could not restart on it.
 */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const candidate = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(candidate) || taken.has(candidate + 10_000)) continue;
    const port = await getPort({ host: HOST, port: candidate });
    if (port !== candidate) continue;
    const bus = await getPort({ host: HOST, port: candidate + 10_000 });
    if (bus !== candidate + 10_000) continue;
    taken.add(port);
    taken.add(bus);
    return port;
  }
}

function run(command: string, args: readonly string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

/** Parse `CLUSTER NODES`. */
export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id, address, flags, master, , , , link, ...slotFields] = line.split(' ');
      const port = Number((address ?? '').split('@')[0]?.split(':')[1]);
      const flagSet = new Set((flags ?? '').split(','));
      const slots = slotFields
        .filter((field) => !field.startsWith('['))
        .map((field) => {
          const [from, to] = field.split('-').map(Number);
          return [from as number, (to ?? from) as number] as const;
        });
      return {
        id: id as string,
        port,
        role: flagSet.has('master') ? 'master' : 'replica',
        masterId: master === '-' ? null : (master ?? null),
        slots,
        failing: flagSet.has('fail') || flagSet.has('fail?') || link !== 'connected',
      } satisfies ClusterNodeInfo;
    });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Start a 3 + 3 test cluster (see the module comment). */
export async function startTestCluster(
  options: StartTestClusterOptions = {},
): Promise<TestCluster> {
  const masters = options.masters ?? 3;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? TEST_NODE_TIMEOUT_MS;
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let i = 0; i < masters * 2; i++) ports.push(await clusterPort(taken));
  const processes = new Map<number, RedisProcess>();
  const open = new Set<Redis | Cluster>();
  /** The slots each killed master served, so `awaitPromotion` knows what to look for. */
  const slotsAtKill = new Map<number, ClusterNodeInfo['slots']>();
  let stopped: Promise<void> | undefined;

  const stopAll = async () => {
    await Promise.all(
      [...open].map(async (client) => {
        client.disconnect();
      }),
    );
    open.clear();
    await Promise.all([...processes.values()].map((server) => server.stop()));
  };

  /**
   * Node `i` on `ports[i]`. clusterPort found the port and its bus port free, but a test file
   * beside this one can bind either before this node does (Redis then exits "Address already in
   * use", for the bus port too): the node is tried again on another pair, a few times.
   */
  const startNode = async (i: number): Promise<RedisProcess> => {
    for (let attempt = 1; ; attempt++) {
      const port = ports[i] as number;
      try {
        return await startRedisServer({
          port,
          // A private directory per node: its nodes.conf (and append-only file) survive a kill,
          // so a restarted node rejoins as itself.
          appendOnly: true,
          ...(options.notifyKeyspaceEvents === undefined
            ? {}
            : { notifyKeyspaceEvents: options.notifyKeyspaceEvents }),
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            String(nodeTimeoutMs),
            '--appendfsync',
            'everysec',
            ...(options.extraArgs ?? []),
          ],
        });
      } catch (err) {
        if (!(err instanceof RedisStartError && err.addressInUse) || attempt >= 5) throw err;
        ports[i] = await clusterPort(taken);
      }
    }
  };

  try {
    await Promise.all(
      ports.map(async (_, i) => {
        const server = await startNode(i);
        processes.set(ports[i] as number, server);
      }),
    );
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `${HOST}:${port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      30_000,
    );
  } catch (err) {
    await stopAll();
    throw err;
  }

  const assertRunning = (method: string) => {
    if (stopped) throw new Error(`TestCluster.${method}() called after stop()`);
  };
  const track = <T extends Redis | Cluster>(client: T): T => {
    // Errors are the normal state while a test has a node down; commands still reject.
    client.on('error', () => {});
    open.add(client);
    client.once('end', () => open.delete(client));
    return client;
  };
  const node = (port: number, redisOptions: RedisOptions = {}) =>
    track(new Redis({ host: HOST, port, maxRetriesPerRequest: 1, ...redisOptions }));

  /** One short-lived connection per question, so a dead node never holds a test up for long. */
  const ask = async <T>(port: number, question: (redis: Redis) => Promise<T>): Promise<T> => {
    const redis = new Redis({
      host: HOST,
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      connectTimeout: 500,
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    try {
      await redis.connect();
      return await question(redis);
    } finally {
      redis.disconnect();
    }
  };
  const live = () => ports.filter((port) => processes.get(port)?.exited === false);
  const topologyFrom = (port: number) =>
    ask(port, async (redis) => parseClusterNodes((await redis.cluster('NODES')) as string));
  const topology = async (): Promise<ClusterNodeInfo[]> => {
    for (const port of live()) {
      try {
        return await topologyFrom(port);
      } catch {
        // try the next node
      }
    }
    throw new Error('TestCluster: no node answers');
  };
  const keySlot = async (key: string) =>
    ask(live()[0] as number, async (redis) => Number(await redis.cluster('KEYSLOT', key)));
  const ownerOfSlot = (nodes: readonly ClusterNodeInfo[], slot: number) =>
    nodes.find(
      (info) =>
        info.role === 'master' &&
        !info.failing &&
        info.slots.some(([a, b]) => slot >= a && slot <= b),
    );

  const awaitHealthy = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      try {
        const views = await Promise.all(
          live().map(async (port) => {
            const info = await ask(port, (redis) => redis.cluster('INFO') as Promise<string>);
            const nodes = await topologyFrom(port);
            const owners = nodes
              .filter((n) => n.role === 'master' && n.slots.length > 0)
              .map((n) => `${n.port}:${n.slots.map((s) => s.join('-')).join(',')}`)
              .sort()
              .join(' ');
            return { ok: info.includes('cluster_state:ok'), owners };
          }),
        );
        const owners = new Set(views.map((view) => view.owners));
        if (views.every((view) => view.ok) && owners.size === 1) return;
        last = JSON.stringify(views);
      } catch (err) {
        last = String(err);
      }
      await sleep(100);
    }
    throw new Error(`TestCluster: not healthy within ${timeoutMs} ms (${last})`);
  };
  await awaitHealthy();
  // Replicas must hold their master's data before a failover test may count on them.
  const awaitReplicasLinked = async (timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const nodes = await topology();
      const replicas = nodes.filter((n) => n.role === 'replica' && !n.failing);
      const linked = await Promise.all(
        replicas.map((n) =>
          ask(n.port, async (redis) =>
            ((await redis.info('replication')) as string).includes('master_link_status:up'),
          ).catch(() => false),
        ),
      );
      // Every replica there (the nodes turn replica some time after --cluster create returns,
      // later with a longer node timeout) and past its first sync (diskless: ~5 s in, with
      // Redis' default repl-diskless-sync-delay).
      if (replicas.length >= masters && linked.every(Boolean)) return;
      await sleep(100);
    }
    throw new Error(`TestCluster: replicas not linked within ${timeoutMs} ms`);
  };
  await awaitReplicasLinked();

  /**
   * Whether the replica on `port` holds its master's data: its link up and no full sync under
   * way. A node restarted as a replica (after a kill) is not, for seconds: its master sends the
   * snapshot only after `repl-diskless-sync-delay` (5 s by default), and the replica then loads
   * it.
   */
  const replicaSynced = (port: number) =>
    ask(port, async (redis) => {
      const info = (await redis.info('replication')) as string;
      return info.includes('master_link_status:up') && info.includes('master_sync_in_progress:0');
    }).catch(() => false);

  // A replica a busy machine kept from answering a ping within the node timeout is flagged
  // (`fail?`) until its next pong: waited for, as an operator would before a failover.
  const liveReplicaOf = async (masterPort: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const nodes = await topology();
      const master = nodes.find((n) => n.port === masterPort);
      const replica = nodes.find((n) => n.masterId === master?.id && !n.failing);
      if (master && replica) return { master, replica };
      if (Date.now() > deadline) throw new Error(`TestCluster: no live replica of ${masterPort}`);
      await sleep(100);
    }
  };

  const beginSlotMove = async (slot: number, toPort: number): Promise<SlotMove> => {
    const nodes = await topology();
    const source = ownerOfSlot(nodes, slot);
    const target = nodes.find((n) => n.port === toPort && n.role === 'master');
    if (!source || !target || source.port === toPort) {
      throw new Error(`TestCluster: cannot move slot ${slot} to ${toPort}`);
    }
    await ask(target.port, (r) => r.cluster('SETSLOT', slot, 'IMPORTING', source.id));
    await ask(source.port, (r) => r.cluster('SETSLOT', slot, 'MIGRATING', target.id));
    const remaining = async (count = 1_000_000) =>
      (await ask(source.port, (r) => r.cluster('GETKEYSINSLOT', slot, count))) as string[];
    const move = async (keys: readonly string[]) => {
      if (keys.length === 0) return;
      await ask(source.port, (r) =>
        r.call('MIGRATE', HOST, String(target.port), '', '0', '5000', 'KEYS', ...keys),
      );
    };
    return {
      remaining: () => remaining(),
      move,
      async finish(finishOptions = {}) {
        const batch = finishOptions.keysPerMigrate ?? 1;
        for (;;) {
          const keys = await remaining(batch);
          if (keys.length === 0) break;
          await move(keys);
          for (const key of keys) await finishOptions.afterEachKey?.(key);
        }
        // Target first, then source, then the others: the documented order.
        await ask(target.port, (r) => r.cluster('SETSLOT', slot, 'NODE', target.id));
        await ask(source.port, (r) => r.cluster('SETSLOT', slot, 'NODE', target.id));
        for (const other of nodes.filter(
          (n) =>
            n.role === 'master' && !n.failing && n.port !== source.port && n.port !== target.port,
        )) {
          await ask(other.port, (r) => r.cluster('SETSLOT', slot, 'NODE', target.id));
        }
        await awaitHealthy();
      },
    };
  };

  return {
    seeds: ports.map((port) => ({ host: HOST, port })),
    nodesList: ports.map((port) => `${HOST}:${port}`).join(','),
    url: `redis://${HOST}:${ports[0]}`,
    nodeTimeoutMs,
    client(clusterOptions: ClusterOptions = {}) {
      assertRunning('client');
      return track(
        new Cluster(
          ports.map((port) => ({ host: HOST, port })),
          clusterOptions,
        ),
      );
    },
    node(port, redisOptions) {
      assertRunning('node');
      return node(port, redisOptions);
    },
    topology,
    async ownerOf(key) {
      const slot = await keySlot(key);
      const owner = ownerOfSlot(await topology(), slot);
      if (!owner) throw new Error(`TestCluster: no live master serves slot ${slot}`);
      return owner.port;
    },
    async kill(port, signal = 'SIGKILL') {
      assertRunning('kill');
      const server = processes.get(port);
      if (!server) throw new Error(`TestCluster: no node on ${port}`);
      const self = (await topology()).find((n) => n.port === port);
      if (self?.role === 'master') {
        slotsAtKill.set(port, self.slots);
        // Its replica holds every write the master acknowledged so far (WAIT), as the tests'
        // accounting of a killed master assumes. Redis replicates asynchronously, and a master
        // streams nothing to a replica before that replica's first acknowledgement (up to 1 s
        // after its full sync): killed in that window, the replica is promoted holding none of
        // the queue, its jobs and counters gone while ids go on from the engine's floor.
        // (None when no replica is connected: a test that killed it first.)
        await ask(port, async (redis) => {
          const info = (await redis.info('replication')) as string;
          if (/^connected_slaves:[1-9]/m.test(info)) await redis.call('WAIT', 1, 3_000);
        }).catch(() => undefined);
      }
      await server.kill(signal);
    },
    async restart(port) {
      assertRunning('restart');
      const server = processes.get(port);
      if (!server) throw new Error(`TestCluster: no node on ${port}`);
      await server.restart();
    },
    async failover(masterPort) {
      assertRunning('failover');
      const { replica } = await liveReplicaOf(masterPort);
      // A replica still in its full sync cannot take over: the manual failover would wait for
      // the snapshot its master sends 5 s after the sync began, racing Redis' own 5 s limit
      // on a manual failover, lost whenever loading the snapshot takes longer than the few
      // hundred ms between the two. An operator waits for the replica to be in sync; so do we.
      const syncedBy = Date.now() + 20_000;
      while (!(await replicaSynced(replica.port))) {
        if (Date.now() > syncedBy)
          throw new Error(`TestCluster: replica ${replica.port} not in sync`);
        await sleep(100);
      }
      // A manual failover that has not completed within Redis' own limit (5 s: the replica
      // never caught up with the paused master, as on a loaded machine) is dropped silently;
      // asking again is how an operator completes it. Still graceful: never FORCE.
      const deadline = Date.now() + 30_000;
      let asked = 0;
      while (Date.now() < deadline) {
        if (Date.now() - asked > MANUAL_FAILOVER_RETRY_MS) {
          await ask(replica.port, (redis) => redis.cluster('FAILOVER'));
          asked = Date.now();
        }
        const role = await ask(replica.port, async (redis) => (await redis.role())[0]);
        if (role === 'master') {
          await awaitHealthy();
          return replica.port;
        }
        await sleep(50);
      }
      throw new Error(`TestCluster: replica ${replica.port} not promoted within 30 s`);
    },
    async awaitPromotion(masterPort, timeoutMs = 30_000) {
      const slots = slotsAtKill.get(masterPort);
      const first = slots?.[0]?.[0];
      if (first === undefined)
        throw new Error(`TestCluster: ${masterPort} was no master when killed`);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const owner = ownerOfSlot(await topology().catch(() => []), first);
        if (owner && owner.port !== masterPort) {
          await awaitHealthy(Math.max(1_000, deadline - Date.now()));
          return owner.port;
        }
        await sleep(100);
      }
      throw new Error(`TestCluster: no replica of ${masterPort} promoted within ${timeoutMs} ms`);
    },
    async migrateSlot(slot, toPort, migrateOptions = {}) {
      assertRunning('migrateSlot');
      const slotMove = await beginSlotMove(slot, toPort);
      if (migrateOptions.order) {
        const batch = migrateOptions.keysPerMigrate ?? 1;
        const keys = migrateOptions.order(await slotMove.remaining());
        for (let i = 0; i < keys.length; i += batch) {
          const some = keys.slice(i, i + batch);
          await slotMove.move(some);
          for (const key of some) await migrateOptions.afterEachKey?.(key);
        }
      }
      await slotMove.finish(migrateOptions);
    },
    beginSlotMove(slot, toPort) {
      assertRunning('beginSlotMove');
      return beginSlotMove(slot, toPort);
    },
    keySlot,
    awaitHealthy,
    stop() {
      stopped ??= stopAll();
      return stopped;
    },
  };
}
