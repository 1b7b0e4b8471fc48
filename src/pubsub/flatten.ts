/**
 * A stream of batches handed out one item at a time: `jobChanged` sends each state change of a
 * job as its own event, while its watch renders a read as the batch of changes it found
 * (src/pubsub/jobWatch.ts). `return()` and `throw()` end it at once, as the
 * `ConflatingStream` it wraps does: a pending `next()` settles as done, and what is
 * buffered is dropped.
 */
export class FlatStream<E> implements AsyncGenerator<E, undefined, unknown> {
  private buffer: E[] = [];
  /** `next()` calls in turn, so items come out in order however many wait. */
  private turn: Promise<unknown> = Promise.resolve();

  /** @param inner a stream that ends at once on `return()` (a {@link ConflatingStream}) */
  constructor(private readonly inner: AsyncGenerator<readonly E[], undefined, unknown>) {}

  next(): Promise<IteratorResult<E, undefined>> {
    const result = this.turn.then(() => this.pull());
    this.turn = result.catch(() => undefined);
    return result;
  }

  async return(): Promise<IteratorResult<E, undefined>> {
    this.buffer = [];
    await this.inner.return(undefined);
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<E, undefined>> {
    this.buffer = [];
    await this.inner.throw(error);
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private async pull(): Promise<IteratorResult<E, undefined>> {
    while (this.buffer.length === 0) {
      const batch = await this.inner.next();
      if (batch.done) return { value: undefined, done: true };
      this.buffer.push(...batch.value);
    }
    return { value: this.buffer.shift() as E, done: false };
  }
}
