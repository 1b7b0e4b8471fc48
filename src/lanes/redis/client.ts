/**
 * The one place that knows a Redis Cluster from a single Redis: what the engine accepts (a
 * {@link RedisClient}, ioredis `Redis` or `Cluster`), the `Redis` it opens from a URL or
 * options ({@link openClient}), and every extra connection it opens from the one it is given — the Worker's blocking connection, audit/repair's WATCH connection, the
 * live feed's subscribers — made correctly for both kinds.
 *
 * Why a helper: the two clients duplicate differently. `Redis.duplicate(options)` takes the
 * overrides; `Cluster.duplicate(startupNodes, options)` takes startup nodes first, so overrides
 * passed as its only argument (`lazyConnect` included) are read as nodes and dropped: the copy
 * connects at once and a later `connect()` throws "Redis is already connecting/connected". And
 * some connections must not be a Cluster at all: a WATCH and the EXEC after it must travel on
 * one socket to the master of the watched key, and a keyspace subscriber must sit on the node
 * whose keys it hears (keyspace notifications are node-local). Those are plain connections to
 * one master, opened with the cluster's own `redisOptions` (password, TLS, timeouts).
 */
import calculateSlot from 'cluster-key-slot';
import { type Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { forgetConnectionError, noteConnectionError } from './unavailable.js';

/** What the engine runs on: one Redis, or a Redis Cluster (every queue's keys share a slot). */
export type RedisClient = Redis | Cluster;

/** One node's address, as a connection options object takes it. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * What a connection opened from another may change; everything else (servers, credentials,
 * TLS, database) is copied. Each maps to the right place for a Cluster (its own options or its
 * `redisOptions`).
 */
export interface ConnectionOverrides {
  /** Do not connect until `connect()` (or, for a Cluster, the first command). */
  readonly lazyConnect?: boolean;
  readonly enableAutoPipelining?: boolean;
  /** False: a command sent while disconnected fails at once instead of waiting. */
  readonly enableOfflineQueue?: boolean;
  /** CLIENT SETNAME of the connection (of each node connection, for a Cluster). */
  readonly connectionName?: string;
  readonly maxRetriesPerRequest?: number | null;
  readonly autoResubscribe?: boolean;
  readonly autoResendUnfulfilledCommands?: boolean;
  /**
   * False: never reconnect once closed (every later command fails), for a connection whose
   * state (a WATCH) a reconnect would silently lose. Default: reconnect as the original does.
   */
  readonly reconnect?: boolean;
}

/** True for an ioredis `Cluster` (its `isCluster` flag, so a second copy of ioredis works too). */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/** The database the connection's keys live in: its `db` option; always 0 on a Cluster. */
export function databaseOf(redis: RedisClient): number {
  return isCluster(redis) ? 0 : (redis.options.db ?? 0);
}

/** The hash slot (0..16383) of `key`, as Redis Cluster computes it (CRC16 of its hash tag). */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/**
 * A `Redis` of the engine's own, from a URL or ioredis options (`connectionOption.ts` has
 * checked which): lazy (it connects on its first command, so a refused handle opened nothing),
 * with an 'error' listener (commands report a lost connection; without one ioredis prints each
 * reconnect failure) that keeps the last error for a REDIS_UNAVAILABLE message (`unavailable.ts`). The caller owns it and closes it.
 */
export function openClient(source: string | RedisOptions): Redis {
  const redis =
    typeof source === 'string'
      ? new Redis(source, { lazyConnect: true })
      : new Redis({ ...source, lazyConnect: true });
  redis.on('error', (error: Error) => {
    noteConnectionError(redis, error);
    // ioredis reports a failed SELECT of its db here and goes on in database 0: end it instead.
    if (/DB index is out of range/i.test(error.message)) redis.disconnect();
  });
  redis.on('ready', () => forgetConnectionError(redis));
  return redis;
}

/** The options of a plain `Redis` for one node of `cluster`: its `redisOptions`, then `overrides`. */
function nodeOptions(
  cluster: Cluster,
  node: NodeAddress,
  overrides: ConnectionOverrides,
): RedisOptions {
  const { reconnect, ...rest } = overrides;
  return {
    ...(cluster.options.redisOptions ?? {}),
    host: node.host,
    port: node.port,
    ...rest,
    ...(reconnect === false ? { retryStrategy: () => null } : {}),
  };
}

/**
 * A new connection like `redis`, with `overrides`: for a `Redis`, `redis.duplicate(…)` (same
 * server, credentials and `db`); for a `Cluster`, a new Cluster on the same startup nodes with
 * the same options (its `redisOptions` overridden where the override is per node). The caller
 * owns it: listen for 'error' and close it.
 */
export function duplicateConnection(
  redis: RedisClient,
  overrides: ConnectionOverrides = {},
): RedisClient {
  const { reconnect, ...rest } = overrides;
  if (!isCluster(redis)) {
    return redis.duplicate({
      ...rest,
      ...(reconnect === false ? { retryStrategy: () => null } : {}),
    });
  }
  const {
    lazyConnect,
    enableAutoPipelining,
    enableOfflineQueue,
    connectionName,
    maxRetriesPerRequest,
    autoResubscribe,
    autoResendUnfulfilledCommands,
  } = overrides;
  const perNode: RedisOptions = {
    ...(connectionName === undefined ? {} : { connectionName }),
    ...(maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest }),
    ...(autoResubscribe === undefined ? {} : { autoResubscribe }),
    ...(autoResendUnfulfilledCommands === undefined ? {} : { autoResendUnfulfilledCommands }),
  };
  const options: ClusterOptions = {
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(enableAutoPipelining === undefined ? {} : { enableAutoPipelining }),
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(reconnect === false ? { clusterRetryStrategy: () => null } : {}),
    redisOptions: { ...(redis.options.redisOptions ?? {}), ...perNode },
  };
  // Startup nodes first: `duplicate(options)` alone would take the options for nodes.
  return redis.duplicate([], options);
}

/**
 * A plain connection to one node of `cluster` (a master, for a subscriber or a WATCH), with the
 * cluster's `redisOptions` and `overrides`. The caller owns it.
 */
export function openNodeConnection(
  cluster: Cluster,
  node: NodeAddress,
  overrides: ConnectionOverrides = {},
): Redis {
  return new Redis(nodeOptions(cluster, node, overrides));
}

/** `host:port` as the cluster reports it → the address to connect to, through its `natMap`. */
function addressOf(cluster: Cluster, nodeKey: string): NodeAddress {
  const natMap = cluster.options.natMap;
  const mapped =
    typeof natMap === 'function' ? natMap(nodeKey) : natMap ? natMap[nodeKey] : undefined;
  if (mapped) return { host: mapped.host, port: mapped.port };
  const colon = nodeKey.lastIndexOf(':');
  return { host: nodeKey.slice(0, colon), port: Number(nodeKey.slice(colon + 1)) };
}

/**
 * Which master serves `key` now, as `host:port` (the cluster's own name for it), from what the
 * client last learnt; '' for a single Redis, or a slot the client knows no master of. Sends
 * nothing: for grouping work by master.
 */
export function masterKeyOf(redis: RedisClient, key: string): string {
  if (!isCluster(redis)) return '';
  return redis.slots[keySlot(key)]?.[0] ?? '';
}

/**
 * Resolves once `cluster` knows its slots: at once when ready, else after a PING, which ioredis
 * holds in its offline queue until the cluster is ready (and which connects a lazy one).
 */
async function slotsKnown(cluster: Cluster): Promise<void> {
  if (cluster.status === 'ready' && cluster.slots.length > 0) return;
  await cluster.ping();
}

/**
 * The address of the master serving `key`'s slot now, as `cluster` last learnt it (it learns
 * again on MOVED, on failover errors and every `slotsRefreshInterval`).
 * @throws Error when no master serves the slot (the cluster is down for it)
 */
export async function masterOfKey(cluster: Cluster, key: string): Promise<NodeAddress> {
  await slotsKnown(cluster);
  const slot = keySlot(key);
  const owner = cluster.slots[slot]?.[0];
  if (owner === undefined) throw new Error(`CLUSTERDOWN no master serves slot ${slot} (${key})`);
  return addressOf(cluster, owner);
}

/**
 * Every master `cluster` knows now, by address (each once), in slot order. Connects a lazy
 * cluster and waits for its slots first.
 */
export async function masterAddresses(cluster: Cluster): Promise<NodeAddress[]> {
  await slotsKnown(cluster);
  const seen = new Map<string, NodeAddress>();
  for (const nodes of cluster.slots) {
    const owner = nodes?.[0];
    if (owner !== undefined && !seen.has(owner)) seen.set(owner, addressOf(cluster, owner));
  }
  return [...seen.values()];
}

/**
 * The connections to ask a question every master must answer (INFO, PING): `[redis]` for a
 * single Redis; for a Cluster, its own connection to each master it knows (used for one
 * command each; they are the cluster's, not the caller's to close).
 */
export async function masterClients(redis: RedisClient): Promise<Redis[]> {
  if (!isCluster(redis)) return [redis];
  await slotsKnown(redis);
  return redis.nodes('master');
}

/**
 * A connection of its own for commands that must stay on one socket with `key`'s master (WATCH
 * … EXEC): `duplicateConnection` for a single Redis; for a Cluster, a plain connection to the
 * master serving `key` now. If the slot moves meanwhile, the node answers MOVED and the
 * transaction fails; nothing is applied.
 */
export async function connectionForKey(
  redis: RedisClient,
  key: string,
  overrides: ConnectionOverrides = {},
): Promise<Redis> {
  if (!isCluster(redis)) return duplicateConnection(redis, overrides) as Redis;
  return openNodeConnection(redis, await masterOfKey(redis, key), overrides);
}
