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
 *
 * Besides `next()`, a consumer may pull it ({@link Pullable}) with a {@link PullSink}: the same
 * steps, handed over by a plain call instead of a promise, so a state offered to a thousand
 * waiting subscribers reaches each one's consumer within `offer`'s own loop (the WebSocket
 * fan-out, `src/server/wsServer.ts`), not in a thousand promise reactions.
 */

/**
 * Where a {@link Pullable} stream hands its next step. Exactly one of the three is called once
 * per pull, possibly before the pull returns.
 */
export interface PullSink<E> {
  /** the next event */
  onEvent(event: E): void;
  /** the stream ended (as `next()` resolving `done`) */
  onEnd(): void;
  /** the stream failed (as `next()` rejecting) */
  onError(error: unknown): void;
}

/** The key of {@link Pullable}'s method: a symbol, so no stream has it by chance of a name. */
export const PULL: unique symbol = Symbol('Pullable.pull');

/**
 * A stream that can hand out its next step without a promise. `stream[PULL](sink)` asks for one
 * step, as `next()` does: the sink is called at once when one is ready, else when it comes. At
 * most one pull (or `next()`) may be pending at a time.
 */
export interface Pullable<E> {
  [PULL](sink: PullSink<E>): void;
}

/** Whether `stream` can be pulled (see {@link Pullable}). */
export function isPullable<E>(stream: object): stream is Pullable<E> {
  return typeof (stream as Partial<Pullable<E>>)[PULL] === 'function';
}

/** A pending `next()`, as a sink: its promise's resolve and reject. */
class PromiseSink<E> implements PullSink<E> {
  constructor(
    private readonly resolve: (result: IteratorResult<E, undefined>) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  onEvent(event: E): void {
    this.resolve({ value: event, done: false });
  }

  onEnd(): void {
    this.resolve({ value: undefined, done: true });
  }

  onError(error: unknown): void {
    this.reject(error);
  }
}

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

export class ConflatingStream<T, E> implements AsyncGenerator<E, undefined, unknown>, Pullable<E> {
  private latest: { value: T } | undefined;
  private forced = false;
  private sent: { value: T } | undefined;
  /** pulls waiting for an event, in order */
  private readonly waiters: PullSink<E>[] = [];
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
      this.waiters.shift()?.onEvent(event);
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
    for (const sink of this.waiters.splice(0)) sink.onEnd();
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
    return new Promise((resolve, reject) => this.waiters.push(new PromiseSink(resolve, reject)));
  }

  /**
   * {@link Pullable}'s pull: `sink` gets the next event at once when one is ready (an event that
   * is the stream's last is handed out after the stream has ended, as `next()` does), else from
   * the `offer` that brings one, or `onEnd` when the stream ends first. Never `onError`.
   */
  [PULL](sink: PullSink<E>): void {
    if (this.closed) {
      sink.onEnd();
      return;
    }
    if (this.waiters.length === 0) {
      const event = this.take();
      if (event !== undefined) {
        if (this.ending) this.close();
        sink.onEvent(event);
        return;
      }
    }
    this.waiters.push(sink);
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
