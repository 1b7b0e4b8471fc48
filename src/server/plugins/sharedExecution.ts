/**
 * One execution per event, not per subscriber: the fan-out of one event to many subscriptions
 * costs one execution.
 *
 * A subscription event is executed against the operation's selection set once for every
 * subscriber in graphql-js' design (`MapSourceToResponseEvent`). Ringmaster's live feed hands the
 * same event object to every subscriber of a queue (`src/pubsub/ringWatch.ts` renders once per
 * distinct previous ring), so a thousand admin UIs watching one ring would run the same
 * selection a thousand times over the same object. This plugin executes each event once per
 * (event, document, operation, variables, scope) in each burst of deliveries, with the
 * arguments of one subscriber of that key (`ExecutionArgsPool`) and a context of its own (a
 * copy of what `executionContextOf` kept of that subscriber's), and gives every subscriber that
 * shares those the same result object. Nothing downstream changes a shared result: error
 * masking replaces a result that has errors rather than edit it (and `maskError`'s own edits of
 * an error are idempotent), and graphql-ws and Yoga's SSE only serialize it.
 *
 * The source stream is still made per subscriber, by the field's own `subscribe` resolver, so
 * auth and argument checks run for each; only the per-event execution is shared. An operation
 * whose variables do not coerce goes through the executor's own subscribe, unchanged, so its
 * errors are the ones every other operation gets.
 */
import { buildExecutionContext } from '@graphql-tools/executor';
import {
  createSourceEventStream,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { isPullable, PULL, type Pullable, type PullSink } from '../../pubsub/conflate.js';

type MaybePromise<T> = T | Promise<T>;

export interface SharedExecutionOptions {
  /**
   * What in the context can change a result besides the event and the operation — for
   * Ringmaster the caller's role, which field auth reads. Subscribers share a result only when
   * this key is equal.
   */
  scopeOf(context: unknown): string;
  /**
   * What of a subscriber's context the executions of its events need (a plain object; each
   * execution gets a shallow copy of its own, so a cache keyed by the context is per
   * execution, as it was per subscriber). Kept for as long as a subscriber of the key stays, so
   * leave out what belongs to the transport (the socket, the request). Default: the whole
   * context.
   */
  executionContextOf?(context: unknown): object;
}

/** `map`'s value for `key`, made by `make` and kept there when it has none. */
function entryOf<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}

/**
 * Results of the fan-out under way: event → document → "operation, variables, scope" → result.
 * Emptied once the current burst of deliveries is over (the next turn of the event loop):
 * the subscribers waiting for an event all receive it in one burst, while one that joins later
 * and is handed the same (latest) event is executed afresh, so a field that reads more than the
 * event (`Group.reason` reads the ring) is never answered from an earlier moment.
 */
class BurstCache {
  private byEvent = new WeakMap<
    object,
    WeakMap<object, Map<string, MaybePromise<ExecutionResult>>>
  >();
  private clearing = false;

  /** The result of `pooled`'s operation for `event`, executed once per burst (see above). */
  resultFor(event: unknown, pooled: PooledExecution): MaybePromise<ExecutionResult> {
    // A primitive event cannot key a WeakMap; it is cheap to execute and rare (not ours).
    if (event === null || typeof event !== 'object') return pooled.execute(event);
    const byDocument = entryOf(this.byEvent, event, () => new WeakMap());
    const byKey = entryOf(byDocument, pooled.document, () => new Map());
    let result = byKey.get(pooled.key);
    if (result === undefined) {
      result = pooled.execute(event);
      byKey.set(pooled.key, result);
      this.clearSoon();
    }
    return result;
  }

  private clearSoon(): void {
    if (this.clearing) return;
    this.clearing = true;
    setImmediate(() => {
      this.byEvent = new WeakMap();
      this.clearing = false;
    }).unref();
  }
}

/**
 * The arguments every event of one (document, key) is executed with, made from the first
 * subscriber of the key and kept until the last of its subscribers goes: without that
 * subscriber's abort signal or root (the root is the event), its context reduced to what
 * `executionContextOf` keeps. Results are shared within the key already (the key holds what
 * may change one: operation, variables, scope), so any subscriber's arguments give the same
 * result, and a subscriber's own operation context need not live as long as its stream
 * (PERFORMANCE.md §4).
 */
class ExecutionArgsPool {
  private readonly byDocument = new WeakMap<object, Map<string, PooledExecution>>();

  constructor(private readonly contextOf: (context: unknown) => object) {}

  /** The key's arguments, counted as used until `release()` (call it once). */
  acquire(document: object, key: string, args: ExecutionArgs): PooledExecution {
    const byKey = entryOf(this.byDocument, document, () => new Map());
    let entry = byKey.get(key);
    if (!entry) {
      const {
        signal: _signal,
        rootValue: _root,
        ...perEvent
      } = args as ExecutionArgs & { signal?: unknown };
      entry = new PooledExecution(
        { ...perEvent, contextValue: this.contextOf(args.contextValue) },
        document,
        key,
        byKey,
      );
      byKey.set(key, entry);
    }
    entry.users += 1;
    return entry;
  }
}

/**
 * One (document, key)'s pooled arguments and what its subscribers' streams need of it: each
 * stream holds this entry, not closures of its own over it (~0.2 KB per subscriber, and the
 * subscriber's own copy of the key; PERFORMANCE.md §5).
 */
class PooledExecution {
  /** streams that hold these arguments */
  users = 0;

  constructor(
    readonly args: ExecutionArgs,
    readonly document: object,
    readonly key: string,
    private readonly pool: Map<string, PooledExecution>,
  ) {}

  /** One execution for `event`, with a context of its own, as each subscriber's was. */
  execute(event: unknown): MaybePromise<ExecutionResult> {
    // A per-operation cache (resolvers/perExecution.ts) must not answer a later event from an
    // earlier read.
    return execute({
      ...this.args,
      contextValue: { ...(this.args.contextValue as object) },
      rootValue: event,
    });
  }

  /** A stream is done with these arguments; the last one lets them go. */
  release(): void {
    this.users -= 1;
    if (this.users === 0 && this.pool.get(this.key) === this) this.pool.delete(this.key);
  }
}

/** The envelop plugin; put it in Yoga's `plugins` (it serves HTTP/SSE and graphql-ws alike). */
export function useSharedSubscriptionExecution(options: SharedExecutionOptions): Plugin {
  const cache = new BurstCache();
  const pool = new ExecutionArgsPool(
    options.executionContextOf ?? ((context) => context as object),
  );
  return {
    onSubscribe({ subscribeFn, setSubscribeFn }) {
      setSubscribeFn(async (args: ExecutionArgs) => {
        // Variables that do not coerce: let the executor answer, with its codes and statuses.
        if (Array.isArray(buildExecutionContext(args))) return subscribeFn(args);
        let source: Awaited<ReturnType<typeof createSourceEventStream>>;
        try {
          source = await createSourceEventStream(args);
        } catch {
          // graphql-js throws (rather than answers) for a document its executor cannot start;
          // graphql-tools' subscribe answers such a document with errors: let it.
          return subscribeFn(args);
        }
        if (!isAsyncIterable(source)) return source;
        const key = `${args.operationName ?? ''}\u0000${JSON.stringify(
          args.variableValues ?? {},
        )}\u0000${options.scopeOf(args.contextValue)}`;
        const stream = new SharedExecutionStream(
          source,
          cache,
          pool.acquire(args.document, key, args),
        );
        if (typeof args.contextValue === 'object' && args.contextValue !== null) {
          sharedStreams.set(args.contextValue, stream);
        }
        return stream;
      });
    },
  };
}

const asItIs = (error: unknown): unknown => error;

/** The stream each operation's subscribe made here, by the operation's context object. */
const sharedStreams = new WeakMap<object, SharedExecutionStream>();

/**
 * The shared-execution stream the subscribe of the operation whose context is `context` made,
 * once (it is forgotten here), or undefined when that subscribe made none (the operation was
 * refused, its variables did not coerce, or it is not a subscription).
 *
 * For a transport that delivers the results itself (`ws.ts`): the stream's results are the
 * shared execution's as they are, before the pipeline's per-event hooks — error masking, the
 * only one Ringmaster's pipeline has — so such a transport must mask each result's errors
 * itself, once per result (it is shared). A failure of the source stream (none of the live
 * feed's streams fails; a fault might) is thrown as `mapError` makes it: the masking of the
 * pipeline's `onSubscribeError`.
 * @param mapError what a failure of the source stream is thrown as
 */
export function takeSharedStream(
  context: unknown,
  mapError: (error: unknown) => unknown,
): SharedStream | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  const stream = sharedStreams.get(context);
  sharedStreams.delete(context);
  if (stream) stream.mapError = mapError;
  return stream;
}

/**
 * A shared-execution stream as {@link takeSharedStream} hands it out: an async generator of
 * results that can also be pulled without a promise per step ({@link Pullable}).
 */
export type SharedStream = AsyncGenerator<ExecutionResult, undefined, unknown> &
  Pullable<ExecutionResult>;

/**
 * The source stream mapped through the shared execution. One layer, and `return()` reaches the
 * source at once (the live feed's streams release their listener there). Pulled
 * ({@link Pullable}), it pulls its source the same way when the source can be (the live feed's
 * streams), so an event reaches the consumer within the feed's delivery loop; else it waits on
 * the source's `next()`.
 */
class SharedExecutionStream implements SharedStream, PullSink<unknown> {
  private readonly iterator: AsyncIterator<unknown>;
  /** What a failure of the source becomes (takeSharedStream's `mapError`); as it is by default. */
  mapError: (error: unknown) => unknown = asItIs;

  /** Whether this stream still counts as a user of `pooled`. */
  private holding = true;
  /** The consumer of the pull under way, if one is. */
  private sink: PullSink<ExecutionResult> | undefined = undefined;

  /** @param pooled the operation's pooled arguments, held (and released once) by this stream */
  constructor(
    source: AsyncIterable<unknown>,
    private readonly cache: BurstCache,
    private readonly pooled: PooledExecution,
  ) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  /** The stream is over: its hold on the pooled arguments goes, once. */
  private ended(): void {
    if (!this.holding) return;
    this.holding = false;
    this.pooled.release();
  }

  private map(event: unknown): MaybePromise<ExecutionResult> {
    return this.cache.resultFor(event, this.pooled);
  }

  next(): Promise<IteratorResult<ExecutionResult, undefined>> {
    return this.iterator.next().then(
      (step) => {
        if (step.done) {
          this.ended();
          return { value: undefined, done: true };
        }
        const result = this.map(step.value);
        // Our resolvers are synchronous: no extra promise hop per subscriber for them.
        return result instanceof Promise
          ? result.then((value) => ({ value, done: false }))
          : { value: result, done: false };
      },
      (error: unknown) => {
        this.ended();
        throw this.mapError(error);
      },
    );
  }

  [PULL](sink: PullSink<ExecutionResult>): void {
    this.sink = sink;
    const iterator = this.iterator;
    if (isPullable<unknown>(iterator)) iterator[PULL](this);
    else
      iterator.next().then(
        (step) => this.stepped(step),
        (error: unknown) => this.onError(error),
      );
  }

  /** The source's next event, for the pull under way: its result to the consumer. */
  onEvent(event: unknown): void {
    const sink = this.takeSink();
    if (sink === undefined) return;
    let result: MaybePromise<ExecutionResult>;
    try {
      result = this.map(event);
    } catch (error) {
      // As next() rejects with it (no mapError: it is not the source's failure).
      sink.onError(error);
      return;
    }
    if (result instanceof Promise) result.then(sink.onEvent.bind(sink), sink.onError.bind(sink));
    else sink.onEvent(result);
  }

  onEnd(): void {
    this.ended();
    this.takeSink()?.onEnd();
  }

  onError(error: unknown): void {
    this.ended();
    this.takeSink()?.onError(this.mapError(error));
  }

  /** A source that cannot be pulled: its `next()`'s step, as a pull's. */
  private stepped(step: IteratorResult<unknown>): void {
    if (step.done) this.onEnd();
    else this.onEvent(step.value);
  }

  private takeSink(): PullSink<ExecutionResult> | undefined {
    const sink = this.sink;
    this.sink = undefined;
    return sink;
  }

  async return(): Promise<IteratorResult<ExecutionResult, undefined>> {
    this.ended();
    await this.iterator.return?.();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<ExecutionResult, undefined>> {
    this.ended();
    if (this.iterator.throw) await this.iterator.throw(error);
    else await this.iterator.return?.();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
