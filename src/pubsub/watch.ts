/**
 * One watched thing (a queue's ring, or one group): the keys whose events hint at a change, the
 * shared coalesced read, the safety timer, and the listeners the result fans out to. Every
 * listener of the same thing shares this one watch, so a hint costs one read however many
 * listen (DESIGN.md §4).
 *
 * A watch reads once its channels are subscribed (so no change can fall between the first read
 * and the subscription), then on every hint, at its turn in the feed's {@link RereadScheduler}
 * (the safety re-read, or the poll), and, forced, after a reconnect or when its channels moved
 * to another master of a cluster.
 */
import type { Logger } from 'pino';
import { CoalescedRead } from './coalesce.js';
import type { RereadScheduler } from './rereads.js';
import type { FeedSource, KeyWatch } from './source.js';

/** Where a watch's results go: each listener keeps only the latest (see ConflatingStream). */
export interface WatchListener<T> {
  offer(value: T, forced: boolean): void;
}

export interface WatchOptions<T> {
  readonly source: FeedSource;
  /** Keys whose keyspace events hint that `read` may return something new. */
  readonly keys: readonly string[];
  readonly read: () => Promise<T>;
  readonly equals: (a: T, b: T) => boolean;
  readonly throttleMs: number;
  readonly retryMs: number;
  /** Where the watch takes its turn for the safety re-read / poll. */
  readonly rereads: RereadScheduler;
  readonly logger: Logger;
  /** Called when the last listener leaves, after the watch released everything. */
  readonly onEmpty: () => void;
}

export class Watch<T> {
  private readonly listeners = new Set<WatchListener<T>>();
  private readonly keyWatches: KeyWatch[];
  private readonly reader: CoalescedRead<T>;
  private last: { value: T } | undefined;
  private readonly unschedule: () => void;
  private disposed = false;
  private failing = false;

  constructor(private readonly options: WatchOptions<T>) {
    this.reader = new CoalescedRead<T>({
      read: options.read,
      throttleMs: options.throttleMs,
      retryMs: options.retryMs,
      onValue: (value, forced) => this.deliver(value, forced),
      onError: (error) => this.readFailed(error),
    });
    const hint = () => this.reader.request();
    // A channel moved to another master (cluster): what happened meanwhile may be unheard.
    const onResync = () => this.resync();
    this.keyWatches = options.keys.map((key) => options.source.watch(key, hint, { onResync }));
    void Promise.all(this.keyWatches.map((w) => w.ready)).then(() => this.reader.request());
    this.unschedule = options.rereads.add(() => this.reader.request());
  }

  /** Listeners (count). */
  get size(): number {
    return this.listeners.size;
  }

  /**
   * Add a listener; it is offered the last value read at once, if there is one. Remove it with
   * {@link remove}.
   */
  add(listener: WatchListener<T>): void {
    this.listeners.add(listener);
    if (this.last !== undefined) listener.offer(this.last.value, false);
  }

  /** Remove a listener (again: nothing); the last removal disposes the watch. */
  remove(listener: WatchListener<T>): void {
    if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
    this.dispose();
    this.options.onEmpty();
  }

  /** Re-read and deliver the result to every listener even if nothing changed. */
  resync(): void {
    this.reader.request(true);
  }

  /** Release the channels and timers; results of a read in flight are dropped. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.unschedule();
    this.reader.stop();
    for (const keyWatch of this.keyWatches) keyWatch.release();
  }

  private deliver(value: T, forced: boolean): void {
    if (this.failing) {
      this.failing = false;
      this.options.logger.info('re-read succeeded again');
    }
    const changed = this.last === undefined || !this.options.equals(this.last.value, value);
    this.last = { value };
    if (!changed && !forced) return;
    for (const listener of this.listeners) listener.offer(value, forced);
  }

  private readFailed(error: unknown): void {
    const log = this.options.logger;
    const err = error instanceof Error ? error.message : String(error);
    if (this.failing) {
      log.debug({ err }, 're-read failed again; retrying');
    } else {
      this.failing = true;
      log.warn({ err, retryMs: this.options.retryMs }, 're-read failed; retrying');
    }
  }
}
