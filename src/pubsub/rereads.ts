/**
 * The safety re-reads (and, when the feed polls, the polls) of every watch, from one timer
 * (a bound on what subscribers may make the server hold). One `setInterval` per watch, all started together, made a
 * burst every period and a cost that grew with the watches without bound: 5,000 watches at a
 * 5 s period was a steady 1,000 reads a second.
 *
 * Here the watches take turns, round-robin: each tick re-reads the next few, as many as keep
 * every watch at one re-read per period, spread evenly over it. And at most `maxPerSecond` a
 * second in all: past `maxPerSecond × period` watches the period stretches instead
 * (`effectivePeriodMs`), so the Redis cost of re-reads stays bounded however many watch. A new
 * watch joins at the back of the turn: it has just been read, and is re-read one period later.
 *
 * A re-read here is only a request to the watch's coalesced read: a watch already reading, or
 * read by a hint moments ago, costs nothing more.
 */

/** Ticks are at least this far apart (ms): a busy tick serves several watches. */
const MIN_TICK_MS = 10;
/** …and at most this far, so a change of period or of the number of watches is soon applied. */
const MAX_TICK_MS = 1_000;
/** A stalled event loop does not turn into a burst: at most this many ticks' worth is due. */
const MAX_CATCH_UP_TICKS = 2;

export interface RereadSchedulerOptions {
  /** How often each watch is re-read when few are (ms). */
  periodMs: number;
  /** Re-reads started per second, all watches together, at most (may be Infinity). */
  maxPerSecond: number;
}

interface Entry {
  readonly reread: () => void;
  removed: boolean;
}

export class RereadScheduler {
  private periodMs: number;
  private readonly maxPerSecond: number;
  /** The turn: entries from `head` on; removed ones are dropped when their turn comes. */
  private queue: Entry[] = [];
  private head = 0;
  private active = 0;
  /** Re-reads owed (fractional), carried from tick to tick. */
  private due = 0;
  private lastTick = 0;
  private timer: NodeJS.Timeout | undefined;
  private issued = 0;
  private stopped = false;

  constructor(options: RereadSchedulerOptions) {
    if (!(options.periodMs > 0)) {
      throw new RangeError(`RereadScheduler: periodMs must be > 0, got ${options.periodMs}`);
    }
    if (!(options.maxPerSecond > 0)) {
      throw new RangeError(
        `RereadScheduler: maxPerSecond must be > 0, got ${options.maxPerSecond}`,
      );
    }
    this.periodMs = options.periodMs;
    this.maxPerSecond = options.maxPerSecond;
  }

  /** Re-reads started so far (count). */
  get count(): number {
    return this.issued;
  }

  /** Watches taking turns (count). */
  get size(): number {
    return this.active;
  }

  /** The period each watch is re-read at now: `periodMs`, or longer past the cap (ms). */
  get effectivePeriodMs(): number {
    return Math.max(this.periodMs, (this.active * 1_000) / this.maxPerSecond);
  }

  /**
   * Give `reread` a turn, first one period from now.
   * @returns its removal (idempotent)
   */
  add(reread: () => void): () => void {
    const entry: Entry = { reread, removed: false };
    this.queue.push(entry);
    this.active++;
    if (this.timer === undefined && !this.stopped) {
      this.lastTick = performance.now();
      this.arm();
    }
    return () => {
      if (entry.removed || this.stopped) return;
      entry.removed = true;
      this.active--;
      if (this.active === 0) this.idle();
    };
  }

  /** Re-read every watch each `periodMs` from now on (the mode changed). */
  setPeriod(periodMs: number): void {
    if (!(periodMs > 0)) throw new RangeError(`RereadScheduler: periodMs must be > 0`);
    this.periodMs = periodMs;
    // What was owed at the old period is not owed at the new one: the next turn starts afresh.
    this.due = 0;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.arm();
    }
  }

  /** No more re-reads. */
  stop(): void {
    this.stopped = true;
    this.idle();
    this.active = 0;
  }

  private idle(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue = [];
    this.head = 0;
    this.due = 0;
  }

  private tickMs(): number {
    const perWatch = this.effectivePeriodMs / Math.max(1, this.active);
    return Math.min(MAX_TICK_MS, Math.max(MIN_TICK_MS, perWatch));
  }

  private arm(): void {
    this.timer = setTimeout(() => this.tick(), this.tickMs());
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    if (this.stopped || this.active === 0) return;
    const now = performance.now();
    const elapsed = Math.min(now - this.lastTick, MAX_CATCH_UP_TICKS * this.tickMs());
    this.lastTick = now;
    this.due += (this.active * elapsed) / this.effectivePeriodMs;
    let n = Math.min(Math.floor(this.due), this.active);
    this.due = Math.min(this.due - n, 1);
    while (n > 0) {
      const entry = this.next();
      if (entry === undefined) break;
      n--;
      this.issued++;
      entry.reread();
    }
    if (!this.stopped && this.active > 0) this.arm();
  }

  /** The next live entry, moved to the back of the turn. */
  private next(): Entry | undefined {
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head++] as Entry;
      if (entry.removed) continue;
      this.queue.push(entry);
      this.compact();
      return entry;
    }
    return undefined;
  }

  /** Drop the served prefix once it outweighs the rest (amortised O(1) per turn). */
  private compact(): void {
    if (this.head > 1_024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }
}
