/**
 * A Redis Cluster as the live feed sees it: which master owns each slot and which replicas
 * there are (`CLUSTER NODES`: `CLUSTER SLOTS` leaves out a replica whose replication offset is
 * still 0), the cluster client's own pooled connections to its nodes, and the one function that
 * opens a connection of the feed's own to a node.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { Redis as RedisClient } from 'ioredis';

/** Hash slots in a Redis Cluster. */
export const SLOT_COUNT = 16_384;

/**
 * The cluster's shape (`CLUSTER NODES` of every node the cluster client holds, merged). Node keys
 * are `host:port` as ioredis names them: the announced address, through its `natMap`.
 */
export interface ClusterTopology {
  /** The master serving each slot (index 0 … 16383), undefined where none is known. */
  readonly owners: readonly (string | undefined)[];
  /** Every node serving at least one slot as master (a failing one too, until replaced). */
  readonly masters: ReadonlySet<string>;
  /** Every replica not flagged failing. */
  readonly replicas: ReadonlySet<string>;
}

/** `ip:port` as the cluster client names that node: through its `natMap`, as ioredis does. */
function nodeKeyOf(cluster: Cluster, address: string): string {
  const natMap = cluster.options.natMap;
  const mapped = typeof natMap === 'function' ? natMap(address) : natMap?.[address];
  return mapped ? `${mapped.host}:${mapped.port}` : address;
}

/** What one node's `CLUSTER NODES` says: masters' slot claims with their config epochs. */
export interface ClusterView {
  readonly claims: readonly {
    readonly key: string;
    readonly epoch: number;
    readonly ranges: readonly (readonly [number, number])[];
  }[];
  /** Replicas not flagged failing. */
  readonly replicas: ReadonlySet<string>;
}

/**
 * Parse a `CLUSTER NODES` reply (`<id> <ip:port@cport[,hostname]> <flags> <master> <ping>
 * <pong> <config-epoch> <link> <slot>…`); slots being migrated (`[…]`) count for the node that
 * still serves them.
 */
export function parseClusterView(text: string, keyOf: (address: string) => string): ClusterView {
  const claims: ClusterView['claims'][number][] = [];
  const replicas = new Set<string>();
  for (const line of text.split('\n')) {
    const [, address, flagField, , , , epoch, , ...slots] = line.trim().split(' ');
    if (address === undefined || flagField === undefined) continue;
    const flags = new Set(flagField.split(','));
    const hostPort = address.split('@')[0] ?? '';
    if (flags.has('noaddr') || flags.has('handshake') || hostPort.endsWith(':0')) continue;
    const key = keyOf(hostPort);
    if (flags.has('slave')) {
      if (!flags.has('fail')) replicas.add(key);
      continue;
    }
    if (!flags.has('master')) continue;
    const ranges: (readonly [number, number])[] = [];
    for (const range of slots) {
      if (range.startsWith('[')) continue;
      const [from, to = from] = range.split('-').map(Number);
      if (from !== undefined && to !== undefined) ranges.push([from, to]);
    }
    if (ranges.length > 0) claims.push({ key, epoch: Number(epoch), ranges });
  }
  return { claims, replicas };
}

/**
 * One topology from several nodes' views, as Redis itself settles a conflict: each slot goes to
 * the claim with the highest config epoch. A node just restarted from its `nodes.conf` still
 * claims its old slots until it hears of its replacement; the promoted replica's claim has the
 * higher epoch.
 */
export function mergeViews(views: readonly ClusterView[]): ClusterTopology {
  const owners: (string | undefined)[] = new Array(SLOT_COUNT).fill(undefined);
  const epochs: number[] = new Array(SLOT_COUNT).fill(-1);
  const replicas = new Set<string>();
  for (const view of views) {
    for (const claim of view.claims) {
      for (const [from, to] of claim.ranges) {
        for (let slot = from; slot <= to && slot < SLOT_COUNT; slot++) {
          if (claim.epoch > (epochs[slot] as number)) {
            epochs[slot] = claim.epoch;
            owners[slot] = claim.key;
          }
        }
      }
    }
    for (const replica of view.replicas) replicas.add(replica);
  }
  const masters = new Set<string>();
  for (const owner of owners) if (owner !== undefined) masters.add(owner);
  for (const master of masters) replicas.delete(master);
  return { owners, masters, replicas };
}

/**
 * Read the topology: `CLUSTER NODES` on each of the cluster client's own node connections at
 * once (each bounded by `timeoutMs`), merged ({@link mergeViews}).
 * @throws Error when no node answers (the last error)
 */
export async function readTopology(cluster: Cluster, timeoutMs: number): Promise<ClusterTopology> {
  const keyOf = (address: string) => nodeKeyOf(cluster, address);
  let last: unknown = new Error('the cluster client has no node connection');
  const views = await Promise.all(
    cluster.nodes('all').map(async (node) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const reply = await Promise.race([
          node.cluster('NODES') as Promise<string>,
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer within ${timeoutMs} ms`)),
              timeoutMs,
            );
          }),
        ]);
        return parseClusterView(reply, keyOf);
      } catch (error) {
        last = error;
        return undefined;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const answered = views.filter((view): view is ClusterView => view !== undefined);
  const topology = mergeViews(answered);
  if (topology.masters.size > 0) return topology;
  if (answered.length > 0) last = new Error('CLUSTER NODES lists no master serving a slot');
  throw last instanceof Error ? last : new Error(String(last));
}

/** Same masters serving the same slots. */
export function sameOwners(a: ClusterTopology, b: ClusterTopology): boolean {
  return a.owners.every((owner, slot) => owner === b.owners[slot]);
}

/**
 * Ask the cluster client to re-read its own slot map (`CLUSTER SLOTS`), so its pool holds a
 * connection to every master (canary writes and CONFIG go on those). Never rejects.
 */
export function refreshClientSlots(cluster: Cluster): Promise<Error | undefined> {
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
 * connections it reconnects by itself unless `overrides` say otherwise (the pool's wait for a
 * MOVED to reconnect) and is never read-only.
 */
export function openNodeConnection(
  cluster: Cluster,
  nodeKey: string,
  overrides: RedisOptions,
): Redis {
  const own: RedisOptions = {
    retryStrategy: reconnectDelay,
    ...overrides,
    lazyConnect: true,
    readOnly: false,
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
