/**
 * One subscriber's stream with conflation (DESIGN.md §4): it holds at most the latest state
 * offered to it, never a queue of them. Each pull renders that state against the last one this
 * subscriber was sent (`render` may say "nothing to send", and the pull keeps waiting).
 *
 * It is a hand-made AsyncGenerator rather than an `async function*`, because a generator
 * suspended in an `await` cannot be interrupted: its `return()` would wait for the next state,
 * which may never come, and the subscription would leak. Here `return()` (and `throw()`, and the
 * abort signal) end the stream at once, settle a pending `next()` as done, and release what the
 * stream holds, exactly once.
 *
 * A stream may also end by itself after an event that is its last (`isLast`: a job that reached
 * a final state): that event is handed out, and the stream then ends as if returned.
 */

/**
 * Turn the latest state into the event to send, or undefined when there is nothing to send.
 * @param previous the last state sent to this subscriber (undefined before the first)
 * @param forced a forced delivery (a resync) was offered since the last pull
 */
export type Render<T, E> = (
  value: T,
  previous: { value: T } | undefined,
  forced: boolean,
) => E | undefined;

export class ConflatingStream<T, E> implements AsyncGenerator<E, undefined, unknown> {
  private latest: { value: T } | undefined;
  private forced = false;
  private sent: { value: T } | undefined;
  private readonly waiters: Array<(result: IteratorResult<E, undefined>) => void> = [];
  private closed = false;
  /** The event just taken was the last one: the stream ends once it is handed out. */
  private ending = false;

  /**
   * @param render see {@link Render}
   * @param isLast whether an event is the stream's last (default: none is)
   */
  constructor(
    private readonly render: Render<T, E>,
    private readonly isLast?: (event: E) => boolean,
  ) {}

  /**
   * Called once when the stream ends, however it ends; nothing here. A subclass overrides it to
   * release what it holds, keeping no closure per stream (the live feed's FeedStream).
   */
  protected ended(): void {}

  /** Whether the stream has ended. */
  get done(): boolean {
    return this.closed;
  }

  /** Replace the pending state with `value` (conflation); `forced` sticks until the next pull. */
  offer(value: T, forced: boolean): void {
    if (this.closed) return;
    this.latest = { value };
    this.forced ||= forced;
    while (this.waiters.length > 0) {
      const event = this.take();
      if (event === undefined) return;
      this.waiters.shift()?.({ value: event, done: false });
      if (this.ending) {
        this.close();
        return;
      }
    }
  }

  /** End the stream: pending and later pulls are done. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.latest = undefined;
    for (const resolve of this.waiters.splice(0)) resolve({ value: undefined, done: true });
    this.ended();
  }

  next(): Promise<IteratorResult<E, undefined>> {
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    if (this.waiters.length === 0) {
      const event = this.take();
      if (event !== undefined) {
        if (this.ending) this.close();
        return Promise.resolve({ value: event, done: false });
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  return(): Promise<IteratorResult<E, undefined>> {
    this.close();
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<E, undefined>> {
    this.close();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private take(): E | undefined {
    const latest = this.latest;
    if (latest === undefined) return undefined;
    const forced = this.forced;
    this.latest = undefined;
    this.forced = false;
    const event = this.render(latest.value, this.sent, forced);
    if (event !== undefined) {
      this.sent = latest;
      if (this.isLast?.(event)) this.ending = true;
    }
    return event;
  }
}
