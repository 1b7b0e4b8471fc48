/**
 * One watched thing (a queue's ring, or one group): the keys whose events hint at a change, the
 * shared coalesced read, the safety timer, and the listeners the result fans out to. Every
 * listener of the same thing shares this one watch, so a hint costs one read however many
 * listen (DESIGN.md §4).
 *
 * A watch reads once its channels are subscribed (so no change can fall between the first read
 * and the subscription), then on every hint, at its turn in the feed's {@link RereadScheduler}
 * (the safety re-read, or the poll), at the moment its last value says it changes with nothing
 * written (`changesAt`: a group's rate reopening; one timer per watch), and, forced, after a
 * reconnect or when its channels moved to another master of a cluster.
 */
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
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
  /**
   * When a value read will change by itself, with nothing written to Redis (epoch ms, Redis
   * clock), or null: a group's rate reopening (`rateLimitedUntil`). The watch re-reads it then
   * ({@link CHANGE_MARGIN_MS}). Default: never.
   */
  readonly changesAt?: (value: T) => number | null;
  /** Called when a forced re-read is asked for, before it is (a ring's copy reads whole then). */
  readonly onResync?: () => void;
}

/**
 * A timed re-read ({@link WatchOptions.changesAt}) is made this long after the moment by the
 * server's clock (ms), the value judged on the Redis clock: a server clock up to this much ahead
 * of Redis' still reads the change. Each timed re-read that finds the same moment still ahead
 * (the server's clock further ahead) doubles the margin, up to the safety period, which
 * bounds it anyway; a server clock behind Redis' reads the change that much late.
 */
export const CHANGE_MARGIN_MS = 50;
/** setTimeout's longest delay (ms); a moment further away is waited for in steps. */
const MAX_TIMER_MS = 2_147_483_647;

export class Watch<T> {
  private readonly listeners = new Set<WatchListener<T>>();
  private readonly keyWatches: KeyWatch[];
  private readonly reader: CoalescedRead<T>;
  private last: { value: T } | undefined;
  private readonly unschedule: () => void;
  private disposed = false;
  private failing = false;
  /** The timed re-read ({@link WatchOptions.changesAt}): one per watch at most. */
  private changeTimer: NodeJS.Timeout | undefined;
  /** The moment it waits for (epoch ms), and the timed re-reads that found it still ahead. */
  private changeAt: number | null = null;
  private changeMisses = 0;
  /** The timer fired and its re-read has not been delivered yet. */
  private changeDue = false;

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
    this.options.onResync?.();
    this.reader.request(true);
  }

  /** Release the channels and timers; results of a read in flight are dropped. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.changeTimer);
    this.changeTimer = undefined;
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
    this.armChange(value);
    if (!changed && !forced) return;
    for (const listener of this.listeners) listener.offer(value, forced);
  }

  /**
   * Arm (or move, or clear) the one timed re-read for when `value` changes by itself. A timed
   * re-read that still finds the same moment ahead backs off (see {@link CHANGE_MARGIN_MS}).
   */
  private armChange(value: T): void {
    const at = this.options.changesAt?.(value) ?? null;
    const stillAhead = this.changeDue && at !== null && at === this.changeAt;
    this.changeDue = false;
    this.changeMisses = stillAhead ? this.changeMisses + 1 : 0;
    if (at === this.changeAt && this.changeTimer !== undefined) return;
    clearTimeout(this.changeTimer);
    this.changeTimer = undefined;
    this.changeAt = at;
    if (at === null || this.disposed) return;
    const margin = Math.min(
      CHANGE_MARGIN_MS * 2 ** Math.min(this.changeMisses, 20),
      this.options.rereads.effectivePeriodMs,
    );
    const delay = Math.max(0, at - Date.now()) + margin;
    this.changeTimer = setTimeout(
      () => {
        this.changeTimer = undefined;
        if (this.disposed) return;
        if (delay > MAX_TIMER_MS) {
          // Not there yet: wait the rest.
          const last = this.last;
          this.changeAt = null;
          if (last !== undefined) this.armChange(last.value);
          return;
        }
        this.changeDue = true;
        this.reader.request();
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    this.changeTimer.unref();
  }

  private readFailed(error: unknown): void {
    const log = this.options.logger;
    const err = errorLine(error);
    if (this.failing) {
      log.debug({ err }, 're-read failed again; retrying');
    } else {
      this.failing = true;
      log.warn({ err, retryMs: this.options.retryMs }, 're-read failed; retrying');
    }
  }
}
