/**
 * The keyspace source on a Redis Cluster (DESIGN.md §4.4): keyspace notifications are
 * node-local (redis/redis#2541) and `SSUBSCRIBE` does not carry them, so it holds one
 * {@link KeyspaceSource} per master — one subscriber connection each, configured, canaried and
 * reconnected as on a single Redis — and routes each watched key's channel to the master that
 * owns its slot. Every key of a queue shares the queue's `{Q}` hash tag, so a queue's watches
 * all live on one master. Replicas are not subscribed (they publish replicated writes too).
 *
 * Topology: `CLUSTER NODES` (see {@link readTopology}), read every `topologyIntervalMs` (the
 * RESYNC interval), and every {@link FAST_TOPOLOGY_MS} while a master's subscriber is down (a
 * SIGKILLed master: its replica's promotion is seen within that), when a node leaves the cluster
 * client's pool, or when that client re-read its slot map (after a MOVED). When the owners
 * change, the cluster client is asked to re-read its slot map too.
 *
 * Moves: when a slot's owner changes (failover, slot move), each watch routed there moves: its
 * channel is released on the old master, subscribed on the new one, and once that SUBSCRIBE is
 * answered its watcher is told to resync (`onResync`), so what changed while the watch moved is
 * re-read and sent as a RESYNC. A master's subscriber that reconnects, or whose canary goes
 * unheard, resyncs the watches routed to it.
 *
 * Notification config: each master's subscriber applies `notify-keyspace-events` on connect (as
 * on a single Redis); every replica gets it too at start, when it first appears and every
 * `topologyIntervalMs`, on a short-lived connection (the cluster client's own when it holds one
 * to replicas), so a replica promoted by a failover already publishes. A replica that refuses
 * CONFIG is logged once; once promoted, its canary decides whether the feed polls.
 *
 * Canary: each master's canary keys carry a hash tag chosen to hash to a slot that master owns,
 * and are written on the cluster client's own connection to that master (a MOVED makes the
 * round inconclusive, never a false "missed"); when that slot moves away, the canary is renewed.
 *
 * Connections: one subscriber per master, whatever the number of watches; topology reads,
 * canary writes and the masters' CONFIG re-applies go on the cluster client's pooled node
 * connections.
 */
import type { Cluster } from 'ioredis';
import { ReplyError } from 'ioredis';
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
import { canaryKey } from '../lanes/keys.js';
import { keySlot } from '../lanes/redis/client.js';
import { randomCanaryId } from './canary.js';
import {
  type ClusterTopology,
  clusterReady,
  openNodeConnection,
  pooledConnection,
  readTopology,
  refreshClientSlots,
  sameOwners,
} from './clusterNodes.js';
import { KeyspaceSource } from './keyspaceSource.js';
import { applyNotifyConfig, ConfigRefusedError, NEEDED_FLAGS } from './notifyConfig.js';
import type { FeedMode, FeedSource, KeyWatch, WatchKeyOptions } from './source.js';

/** Topology re-read period while a master's subscriber is down or a watch is unrouted (ms). */
export const FAST_TOPOLOGY_MS = 500;

/** How long one node may take to answer `CLUSTER NODES` or a replica's CONFIG (ms). */
const NODE_TIMEOUT_MS = 1_000;

/** Random canary ids tried for one whose keys hash to a slot a given master owns. */
const CANARY_ID_TRIES = 200_000;

export interface ClusterSourceOptions {
  /** The cluster client (the engine's); its pooled node connections carry canary writes and CONFIG. */
  readonly cluster: Cluster;
  readonly logger: Logger;
  /** For log lines (ms). */
  readonly pollIntervalMs: number;
  /** Key prefix `P`, for the canaries' keys. */
  readonly prefix: string;
  /** Each master's canary: pause between rounds (ms). */
  readonly canaryIntervalMs: number;
  /** Each master's canary: how long a round waits for its events (ms). */
  readonly canaryTimeoutMs: number;
  /** How often the topology is re-read and the replicas' config checked (ms): the RESYNC interval. */
  readonly topologyIntervalMs: number;
  /** The mode changed: 'polling' while any master's is. */
  readonly onModeChange: (mode: FeedMode) => void;
}

/** One master and its subscriber. */
interface Master {
  readonly key: string;
  readonly source: KeyspaceSource;
  /** The watches whose channels are subscribed on this master. */
  readonly routed: Set<Routed>;
  /** The slot the current canary's keys hash to. */
  canarySlot: number;
  /** Its subscriber went live once: a watch routed here from now on is resynced when subscribed. */
  live: boolean;
  /** Its `start()` resolved. */
  started: boolean;
  /** Its `start()`: connected, live, first canary round heard (never rejects). */
  starting: Promise<void>;
}

/** One `watch()`: where its channel is subscribed now. */
interface Routed {
  readonly key: string;
  readonly slot: number;
  readonly onHint: (event: string) => void;
  readonly onResync: (() => void) | undefined;
  master: Master | undefined;
  inner: KeyWatch | undefined;
  released: boolean;
}

export class ClusterSource implements FeedSource {
  private readonly cluster: Cluster;
  private readonly logger: Logger;
  private readonly masters = new Map<string, Master>();
  /** slot → the watches of keys in it */
  private readonly bySlot = new Map<number, Set<Routed>>();
  private topology: ClusterTopology | undefined;
  /** Replicas whose config was applied since they last appeared. */
  private readonly configured = new Set<string>();
  /** Masters whose subscriber could not connect (warned once until it does). */
  private readonly unreachable = new Set<string>();
  /**
   * Replicas whose CONFIG round is under way → that round: a second ask while it runs (start()
   * and the first topology read both ask) joins it, so a replica is configured and logged once.
   */
  private readonly configuring = new Map<string, Promise<void>>();
  /** Nodes whose CONFIG refusal was logged. */
  private readonly refusedConfig = new Set<string>();
  private readonly stopping = new Set<Promise<void>>();
  private currentMode: FeedMode = 'notifications';
  private state: 'new' | 'started' | 'stopped' = 'new';
  private timer: NodeJS.Timeout | undefined;
  private lastReplicaCheck = 0;
  private lastRefresh = 0;
  /** Read the topology at the next tick, whatever the period says. */
  private refreshDue = false;
  private ticking = false;
  /** The cluster client re-read its slot map (after a MOVED, say): read ours too. */
  private readonly onRefresh = () => this.refreshSoon();
  private readonly onNodeGone = () => this.refreshSoon();

  constructor(private readonly options: ClusterSourceOptions) {
    this.cluster = options.cluster;
    this.logger = options.logger;
  }

  get mode(): FeedMode {
    return this.currentMode;
  }

  /**
   * Every master the topology lists has a subscriber that is up and subscribed to every channel
   * routed to it, and every watch is routed. False before start, while a master's subscriber is
   * down (until its replica is promoted and the watches moved), and after stop.
   */
  get subscribed(): boolean {
    const topology = this.topology;
    if (this.state !== 'started' || topology === undefined || topology.masters.size === 0) {
      return false;
    }
    for (const key of topology.masters) {
      if (this.masters.get(key)?.source.subscribed !== true) return false;
    }
    for (const set of this.bySlot.values()) {
      for (const routed of set) if (routed.master === undefined) return false;
    }
    return true;
  }

  get channelCount(): number {
    let count = 0;
    for (const master of this.masters.values()) count += master.source.channelCount;
    return count;
  }

  /** Subscriber connections: one per master. */
  get connectionCount(): number {
    return this.masters.size;
  }

  /**
   * Read the topology, configure every replica, start one subscriber per master and hear each
   * master's first canary round. A master whose subscriber cannot connect now is retried.
   * @throws Error when the cluster cannot be reached or no node answers CLUSTER NODES
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`ClusterSource.start(): it is ${this.state}`);
    await clusterReady(this.cluster);
    const topology = await readTopology(this.cluster, NODE_TIMEOUT_MS);
    this.state = 'started';
    this.cluster.on('refresh', this.onRefresh);
    this.cluster.on('-node', this.onNodeGone);
    this.lastRefresh = performance.now();
    this.reconcile(topology);
    // Each master's first canary round, so the mode is known, as on a single Redis.
    await Promise.all([
      ...[...this.masters.values()].map((master) => master.starting),
      this.configureReplicas(),
    ]);
    this.schedule();
  }

  watch(key: string, onHint: (event: string) => void, options: WatchKeyOptions = {}): KeyWatch {
    const routed: Routed = {
      key,
      slot: keySlot(key),
      onHint,
      onResync: options.onResync,
      master: undefined,
      inner: undefined,
      released: false,
    };
    let set = this.bySlot.get(routed.slot);
    if (set === undefined) {
      set = new Set();
      this.bySlot.set(routed.slot, set);
    }
    set.add(routed);
    const owner = this.topology?.owners[routed.slot];
    const master = owner === undefined ? undefined : this.masters.get(owner);
    if (master !== undefined) this.route(routed, master);
    else this.refreshSoon();
    return {
      ready: routed.inner?.ready ?? Promise.resolve(),
      release: () => {
        if (routed.released) return;
        routed.released = true;
        this.unroute(routed);
        const slotSet = this.bySlot.get(routed.slot);
        slotSet?.delete(routed);
        if (slotSet?.size === 0) this.bySlot.delete(routed.slot);
      },
    };
  }

  async stop(): Promise<void> {
    this.state = 'stopped';
    clearTimeout(this.timer);
    this.cluster.off('refresh', this.onRefresh);
    this.cluster.off('-node', this.onNodeGone);
    for (const master of [...this.masters.values()]) this.retire(master);
    this.bySlot.clear();
    await Promise.all([...this.stopping]);
  }

  /** Read the topology at the next tick (a node left the client's pool, a watch is unrouted). */
  private refreshSoon(): void {
    this.refreshDue = true;
  }

  private schedule(): void {
    if (this.state !== 'started') return;
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => void this.tick(),
      Math.min(FAST_TOPOLOGY_MS, this.options.topologyIntervalMs),
    );
    this.timer.unref();
  }

  /**
   * Every {@link FAST_TOPOLOGY_MS}: read the topology when asked to, while anything is down or
   * unrouted, and else every `topologyIntervalMs`; check the replicas' config at that period.
   */
  private async tick(): Promise<void> {
    if (this.state !== 'started' || this.ticking) return;
    this.ticking = true;
    try {
      const now = performance.now();
      const { topologyIntervalMs } = this.options;
      if (this.refreshDue || !this.subscribed || now - this.lastRefresh >= topologyIntervalMs) {
        this.refreshDue = false;
        this.lastRefresh = now;
        try {
          const topology = await readTopology(this.cluster, NODE_TIMEOUT_MS);
          if (this.state !== 'started') return;
          this.reconcile(topology);
        } catch (error) {
          this.logger.debug(
            { err: errorLine(error) },
            'could not read the cluster topology; retrying',
          );
        }
      }
      if (performance.now() - this.lastReplicaCheck >= topologyIntervalMs) {
        this.configured.clear();
        await this.configureReplicas();
      }
    } finally {
      this.ticking = false;
      this.schedule();
    }
  }

  /** Make the subscribers and routes match `topology`. */
  private reconcile(topology: ClusterTopology): void {
    const before = this.topology;
    this.topology = topology;
    if (before !== undefined && !sameOwners(before, topology)) {
      // The cluster client's pool learns the new masters (canary writes and CONFIG go there).
      void refreshClientSlots(this.cluster);
    }
    for (const key of topology.masters) {
      if (!this.masters.has(key)) this.addMaster(key);
    }
    // Moved, or not subscribed anywhere since its first read: resync either way, once per
    // watcher, when all of its channels that moved are subscribed again (a watch's keys share a
    // slot and move together; one RESYNC for the move, not one per key).
    const moved = new Map<() => void, Promise<boolean>[]>();
    for (const [slot, set] of this.bySlot) {
      const owner = topology.owners[slot];
      if (owner === undefined) continue;
      const master = this.masters.get(owner);
      if (master === undefined) continue;
      for (const routed of set) {
        if (routed.master === master) continue;
        this.route(routed, master);
        // A master not live yet resyncs everything routed to it on its first ready.
        if (routed.onResync === undefined || !master.live) continue;
        const inner = routed.inner as KeyWatch;
        const stillHere = inner.ready.then(() => !routed.released && routed.inner === inner);
        const pending = moved.get(routed.onResync);
        if (pending === undefined) moved.set(routed.onResync, [stillHere]);
        else pending.push(stillHere);
      }
    }
    for (const [onResync, subscribed] of moved) {
      void Promise.all(subscribed).then((here) => {
        if (here.some(Boolean)) onResync();
      });
    }
    for (const master of [...this.masters.values()]) {
      if (!topology.masters.has(master.key)) {
        this.logger.info({ node: master.key }, 'no longer a master: its keyspace subscriber stops');
        this.retire(master);
      } else if (master.started && movedAway(topology, master.canarySlot, master.key)) {
        master.source.renewCanary();
      }
    }
    if (before !== undefined && changedShape(before, topology)) {
      this.logger.info(
        { masters: [...topology.masters], replicas: [...topology.replicas] },
        'cluster topology changed',
      );
    }
    if ([...topology.replicas].some((key) => !this.configured.has(key))) {
      void this.configureReplicas();
    }
    this.updateMode();
  }

  private addMaster(key: string): void {
    const logger = this.logger.child({ node: key });
    const master: Master = {
      key,
      routed: new Set(),
      canarySlot: -1,
      live: false,
      started: false,
      starting: Promise.resolve(),
      source: new KeyspaceSource({
        node: {
          db: 0,
          openSubscriber: (overrides) => openNodeConnection(this.cluster, key, overrides),
          commands: () => {
            const connection = pooledConnection(this.cluster, key);
            if (connection === undefined) throw new Error(`no connection to ${key} in the pool`);
            return connection;
          },
          canaryId: () => {
            const id = this.canaryIdFor(key);
            master.canarySlot = keySlot(canaryKey(this.options.prefix, id, 'l'));
            return id;
          },
        },
        logger,
        pollIntervalMs: this.options.pollIntervalMs,
        prefix: this.options.prefix,
        canaryIntervalMs: this.options.canaryIntervalMs,
        canaryTimeoutMs: this.options.canaryTimeoutMs,
        onReconnect: () => this.resyncRouted(master),
        onMissedEvents: () => this.resyncRouted(master),
        onModeChange: () => this.updateMode(),
      }),
    };
    this.masters.set(key, master);
    master.starting = master.source.start().then(
      () => {
        master.started = true;
        this.unreachable.delete(key);
      },
      (error: unknown) => {
        if (this.masters.get(key) !== master) return;
        // Retried every tick while the topology lists it: warned once per streak.
        const level = this.unreachable.has(key) ? 'debug' : 'warn';
        this.unreachable.add(key);
        logger[level](
          { err: errorLine(error) },
          'keyspace subscriber of a master could not connect; retrying',
        );
        this.retire(master);
        this.refreshSoon();
      },
    );
    // Whatever was routed here before it was live was subscribed by its first ready: resync.
    void master.source.whenLive().then(() => {
      if (this.masters.get(key) !== master) return;
      master.live = true;
      this.resyncRouted(master);
    });
  }

  /** Stop a master's subscriber; what was routed to it waits for the next reconcile. */
  private retire(master: Master): void {
    if (this.masters.get(master.key) === master) this.masters.delete(master.key);
    for (const routed of [...master.routed]) this.unroute(routed);
    const stopped = master.source.stop().catch(() => undefined);
    this.stopping.add(stopped);
    void stopped.finally(() => this.stopping.delete(stopped));
    this.updateMode();
  }

  /** Subscribe `routed`'s channel on `master`, releasing the one it had. */
  private route(routed: Routed, master: Master): void {
    this.unroute(routed);
    routed.inner = master.source.watch(routed.key, routed.onHint);
    routed.master = master;
    master.routed.add(routed);
  }

  private unroute(routed: Routed): void {
    routed.inner?.release();
    routed.master?.routed.delete(routed);
    routed.inner = undefined;
    routed.master = undefined;
  }

  /** Resync every watcher with a channel on `master`, once each however many it has there. */
  private resyncRouted(master: Master): void {
    const watchers = new Set<() => void>();
    for (const routed of master.routed) if (routed.onResync) watchers.add(routed.onResync);
    for (const onResync of watchers) onResync();
  }

  private updateMode(): void {
    let mode: FeedMode = 'notifications';
    for (const master of this.masters.values()) {
      if (master.source.mode === 'polling') mode = 'polling';
    }
    if (mode === this.currentMode || this.state === 'stopped') return;
    this.currentMode = mode;
    this.options.onModeChange(mode);
  }

  /** A random canary id whose keys hash to a slot `key` serves (any id when none is found). */
  private canaryIdFor(key: string): string {
    const owners = this.topology?.owners;
    for (let i = 0; owners !== undefined && i < CANARY_ID_TRIES; i++) {
      const id = randomCanaryId();
      if (owners[keySlot(canaryKey(this.options.prefix, id, 'l'))] === key) return id;
    }
    return randomCanaryId();
  }

  /**
   * Add the flags the feed needs to every replica's `notify-keyspace-events` (on the cluster
   * client's connection to it), so a replica promoted later already publishes. A replica whose
   * round is still under way is not asked twice: its round is awaited instead. Never rejects.
   */
  private async configureReplicas(): Promise<void> {
    this.lastReplicaCheck = performance.now();
    const replicas = [...(this.topology?.replicas ?? [])];
    await Promise.all(
      replicas.map((key) => {
        let round = this.configuring.get(key);
        if (round === undefined) {
          round = this.configureNode(key).finally(() => this.configuring.delete(key));
          this.configuring.set(key, round);
        }
        return round;
      }),
    );
  }

  /**
   * On the cluster client's connection to the replica when it has one (it does not with the
   * default `scaleReads: 'master'`), else on a connection opened for this and closed after.
   */
  private async configureNode(key: string): Promise<void> {
    const pooled = pooledConnection(this.cluster, key);
    const connection =
      pooled ??
      openNodeConnection(this.cluster, key, {
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        connectTimeout: NODE_TIMEOUT_MS,
        enableOfflineQueue: true,
      });
    if (pooled === undefined) connection.on('error', () => {});
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${NODE_TIMEOUT_MS} ms`)),
        NODE_TIMEOUT_MS,
      );
    });
    try {
      const result = await Promise.race([applyNotifyConfig(connection), timeout]);
      this.configured.add(key);
      this.refusedConfig.delete(key);
      if (result.changed) {
        this.logger.info(
          { node: key, before: result.before, after: result.after },
          'keyspace notifications configured on a replica (for when it is promoted)',
        );
      }
    } catch (error) {
      const err = errorLine(error);
      if (!(error instanceof ReplyError) && !(error instanceof ConfigRefusedError)) {
        this.logger.debug({ node: key, err }, 'could not configure a replica; retrying later');
        return;
      }
      this.configured.add(key);
      if (this.refusedConfig.has(key)) return;
      this.refusedConfig.add(key);
      this.logger.info(
        { node: key, err, needed: NEEDED_FLAGS },
        'CONFIG is refused by this replica, so this server cannot set notify-keyspace-events ' +
          'on it; once promoted, its canary checks whether notifications arrive',
      );
    } finally {
      clearTimeout(timer);
      if (pooled === undefined) connection.disconnect();
    }
  }
}

/** Masters or replicas differ (not only slot ranges). */
function changedShape(a: ClusterTopology, b: ClusterTopology): boolean {
  const same = (x: ReadonlySet<string>, y: ReadonlySet<string>) =>
    x.size === y.size && [...x].every((key) => y.has(key));
  return !same(a.masters, b.masters) || !same(a.replicas, b.replicas);
}

/** `slot` is known to be served by another master than `key` now. */
function movedAway(topology: ClusterTopology, slot: number, key: string): boolean {
  const owner = topology.owners[slot];
  return owner !== undefined && owner !== key;
}
