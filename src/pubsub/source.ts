/**
 * What the live feed needs of where keyspace hints come from: one Redis ({@link KeyspaceSource})
 * or every master of a Redis Cluster ({@link ClusterSource}). Watches only see this interface.
 */

export type FeedMode = 'notifications' | 'polling';

/** A watch on one key: `ready` settles once its channel is subscribed (or cannot be now). */
export interface KeyWatch {
  readonly ready: Promise<void>;
  /** Stop watching; the last release of a channel unsubscribes it. Idempotent. */
  release(): void;
}

/** How a key is watched. */
export interface WatchKeyOptions {
  /** The canary's own channels: left out of {@link FeedSource.channelCount}. */
  readonly internal?: boolean;
  /**
   * Events of this key may have been missed although the feed as a whole stayed up: on a
   * cluster, its channel moved to another master (failover, slot move) or that master's
   * subscriber reconnected. The watcher re-reads and resends (RESYNC). A single Redis reports
   * reconnects to the feed as a whole instead (`onReconnect`), and never calls this.
   */
  readonly onResync?: () => void;
}

/** The live feed's view of its keyspace source. */
export interface FeedSource {
  /** 'polling' while notifications cannot be relied on (anywhere, on a cluster). */
  readonly mode: FeedMode;
  /** Every subscriber connection is up and subscribed to every watched channel. */
  readonly subscribed: boolean;
  /** Channels subscribed or to be subscribed for watchers, the canaries' not counted. */
  readonly channelCount: number;
  /** Subscriber connections held (one per master on a cluster). */
  readonly connectionCount: number;
  /** Connect, configure, go live, and hear a first canary round. */
  start(): Promise<void>;
  /** `onHint` runs on every keyspace event of `key`, with the event's name. */
  watch(key: string, onHint: (event: string) => void, options?: WatchKeyOptions): KeyWatch;
  /** Forget every channel and close every subscriber connection. */
  stop(): Promise<void>;
}
