/**
 * A coalesced re-read (DESIGN.md §4): any number of requests become at most one read per
 * throttle window, and a request that arrives while a read is in flight causes exactly one more
 * read after it, so the last state is always read after the last hint.
 */

export interface CoalescedReadOptions<T> {
  /** The read; its result goes to `onValue`. */
  read(): Promise<T>;
  /** At most one read starts per window (ms). */
  throttleMs: number;
  /** After a failed read, the next one waits this long (ms). */
  retryMs: number;
  /** A read's result; `forced` when a forced request was pending when the read started. */
  onValue(value: T, forced: boolean): void;
  onError(error: unknown): void;
}

export class CoalescedRead<T> {
  private dirty = false;
  private forced = false;
  private inFlight = false;
  private stopped = false;
  /** When the next read may start (performance.now() ms). */
  private notBefore = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: CoalescedReadOptions<T>) {}

  /**
   * Ask for a read. `force` marks the read's result as forced (delivered even if unchanged);
   * a forced request is never lost to coalescing or to a failed read.
   */
  request(force = false): void {
    if (this.stopped) return;
    this.dirty = true;
    if (force) this.forced = true;
    this.schedule();
  }

  /** Cancel the pending read; results of a read in flight are dropped. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(): void {
    if (this.stopped || !this.dirty || this.inFlight || this.timer) return;
    const wait = this.notBefore - performance.now();
    if (wait <= 0) {
      void this.run();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.schedule();
    }, wait);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    const forced = this.forced;
    this.dirty = false;
    this.forced = false;
    this.inFlight = true;
    this.notBefore = performance.now() + this.options.throttleMs;
    let value: T;
    try {
      value = await this.options.read();
    } catch (error) {
      this.inFlight = false;
      if (this.stopped) return;
      this.dirty = true;
      this.forced ||= forced;
      this.notBefore = performance.now() + this.options.retryMs;
      this.options.onError(error);
      this.schedule();
      return;
    }
    this.inFlight = false;
    if (this.stopped) return;
    this.options.onValue(value, forced);
    this.schedule();
  }
}
