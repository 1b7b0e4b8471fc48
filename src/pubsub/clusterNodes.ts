/**
 * A Redis Cluster as the live feed sees it: which master owns each slot (ioredis' slot map,
 * refreshed from `CLUSTER SLOTS`), the connections of the cluster client's own pool to each
 * node, and the one function that opens a connection of the feed's own to a node.
 */
import calculateSlot from 'cluster-key-slot';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { Redis as RedisClient } from 'ioredis';

/** Hash slots in a Redis Cluster. */
export const SLOT_COUNT = 16_384;

/** The cluster's shape as last read: node keys are ioredis' `host:port` (after any `natMap`). */
export interface ClusterTopology {
  /** The master serving each slot (index 0 … 16383), undefined where none is known. */
  readonly owners: readonly (string | undefined)[];
  /** Every node serving a slot as master. */
  readonly masters: ReadonlySet<string>;
  /** Every node listed as a replica of one. */
  readonly replicas: ReadonlySet<string>;
}

/** The hash slot of `key` (its `{tag}` when it has one), as Redis computes it. */
export function keySlot(key: string): number {
  return calculateSlot(key);
}

/** Whether `redis` is an ioredis `Cluster` (which `Ringmaster.redis` may be). */
export function isCluster(redis: Redis | Cluster): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}

/** The topology in ioredis' slot map now (`cluster.slots`: per slot, master first). */
export function topologyOf(cluster: Cluster): ClusterTopology {
  const owners: (string | undefined)[] = new Array(SLOT_COUNT).fill(undefined);
  const masters = new Set<string>();
  const replicas = new Set<string>();
  for (let slot = 0; slot < SLOT_COUNT; slot++) {
    const nodes = cluster.slots[slot];
    const master = nodes?.[0];
    if (nodes === undefined || master === undefined) continue;
    owners[slot] = master;
    masters.add(master);
    for (const replica of nodes.slice(1)) replicas.add(replica);
  }
  // A node that just turned master may still be listed as a replica of another range.
  for (const master of masters) replicas.delete(master);
  return { owners, masters, replicas };
}

/**
 * Re-read the slot map (`CLUSTER SLOTS` from one reachable node, ioredis' own refresh, which
 * emits `refresh` on success). Never rejects.
 * @returns the error when no node answered, else undefined
 */
export function refreshTopology(cluster: Cluster): Promise<Error | undefined> {
  return new Promise((resolve) => {
    try {
      cluster.refreshSlotsCache((error) => resolve(error ?? undefined));
    } catch (error) {
      resolve(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/** The cluster client's pooled connection to `nodeKey`, when it has one. */
export function pooledConnection(cluster: Cluster, nodeKey: string): Redis | undefined {
  return cluster
    .nodes('all')
    .find((node) => `${node.options.host}:${node.options.port}` === nodeKey);
}

/** How ioredis reconnects a plain connection by default (ms after the n-th attempt). */
const reconnectDelay = (times: number) => Math.min(times * 50, 2_000);

/**
 * A connection of the feed's own to one node of `cluster`, not connected yet: the options of
 * the cluster client's pooled connection to it (credentials, TLS, `redisOptions`), else the
 * cluster's `redisOptions` with the node's address, and `overrides`. Unlike the pool's
 * connections it reconnects by itself (the pool's wait for a MOVED to reconnect) and is never
 * read-only.
 */
export function openNodeConnection(
  cluster: Cluster,
  nodeKey: string,
  overrides: RedisOptions,
): Redis {
  const own: RedisOptions = {
    ...overrides,
    lazyConnect: true,
    readOnly: false,
    retryStrategy: reconnectDelay,
  };
  const pooled = pooledConnection(cluster, nodeKey);
  if (pooled !== undefined) return pooled.duplicate(own);
  const at = nodeKey.lastIndexOf(':');
  return new RedisClient({
    ...(cluster.options.redisOptions ?? {}),
    host: nodeKey.slice(0, at),
    port: Number(nodeKey.slice(at + 1)),
    ...own,
  });
}

/**
 * Resolves once `cluster` is ready (connecting it if it was made with `lazyConnect`).
 * @throws Error when it closes before being ready
 */
export async function clusterReady(cluster: Cluster): Promise<void> {
  if (cluster.status === 'ready') return;
  if (cluster.status === 'wait') {
    await cluster.connect();
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error) => {
      cluster.off('ready', onReady);
      cluster.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    };
    const onReady = () => done();
    const onEnd = () => done(new Error('the Redis Cluster connection ended before it was ready'));
    cluster.once('ready', onReady);
    cluster.once('end', onEnd);
  });
}
