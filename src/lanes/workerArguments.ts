/**
 * What `new Worker(…)` was given, read into one shape (DESIGN.md §4.1, "Connections"): a queue
 * name, the processor and `{ connection, prefix?, … }` (BullMQ's order), or a `Queue`, the
 * processor and options.
 */
import { Defaults } from './defaults.js';
import { badInput } from './errors.js';
import { Queue } from './queue/queue.js';
import type { RedisClient } from './redis/client.js';
import { openConnection, type RedisConnection } from './redis/connectionOption.js';
import * as validate from './validate.js';

/** Options of {@link Worker}'s constructor (each refused as `options.<name>` when unknown). */
export interface WorkerOptions {
  /**
   * With `new Worker(name, processor, options)` only, and required there: the connection of
   * the queue the worker opens ({@link RedisConnection}; from a URL or options the worker owns
   * it and its `close()` closes it).
   */
  readonly connection?: RedisConnection;
  /**
   * With `new Worker(name, processor, options)` only: the queue's key prefix, 1 to 64 of
   * A-Z a-z 0-9 . _ - : (BAD_USER_INPUT `prefix` otherwise). Default `emq`.
   */
  readonly prefix?: string;
  /** Jobs processed at once (count, 1..10,000). Default 1. */
  readonly concurrency?: number;
  /** Lease per claim (ms). Default 30,000. */
  readonly leaseMs?: number;
  /**
   * How often a running job's lease is extended (ms, 1..86,400,000). Default leaseMs / 3. At
   * leaseMs or more, leases lapse while jobs run: the reaper takes them back.
   */
  readonly extendEveryMs?: number;
  /**
   * Longest park on the wake list before claiming again anyway (ms), so a lost wake token
   * (trimmed, or pushed before a restart) costs at most this much latency. A park also ends
   * when the earliest delayed job falls due (or a rate window reopens), so a delayed job waits
   * no longer for a parked worker than for its run-at time. 1..86,400,000; default 5,000.
   */
  readonly parkTimeoutMs?: number;
  /** Start claiming at once. Default true; else call `Worker.run`. */
  readonly autorun?: boolean;
  /**
   * The worker's id in the queue's worker registry and on each job it claims (`Job.workerId`,
   * DESIGN.md §4.9 "Workers"): 1..200 UTF-8 bytes, no control characters. Default
   * `<hostname>:<pid>:<8 random hex digits>`. Two live workers must not share one.
   */
  readonly id?: string;
  /**
   * How often the worker beats in the registry (ms, 1..86,400,000); it is gone from it 3 beats
   * after its last (a crash), at once when it closes. Default 5,000.
   */
  readonly heartbeatMs?: number;
  /**
   * Reaping of this worker's queue (src/lanes/reaper.ts): expired leases — of workers that
   * crashed, hung or lost Redis — are retried with their permits released. `intervalMs` (ms,
   * 1..86,400,000, default 1,000) and `batch` (count, 1..10,000, default 1,000) as in
   * `ReaperOptions`. Default on; `false` turns it off, for a deployment whose API server
   * (or a `Reaper` of its own) reaps. Runs from `Worker.run` until `Worker.close`.
   */
  readonly reaper?: false | { readonly intervalMs?: number; readonly batch?: number };
}

/** The right call, ending every refusal of a shape. */
const WORKER_EXAMPLE =
  "new Worker('orders', async (job) => { … }, { connection: new Redis(url), concurrency: 4 })";

/** The names a {@link WorkerOptions} given with a `Queue` may hold. */
const WORKER_OPTIONS: validate.OptionNames<Omit<WorkerOptions, 'connection' | 'prefix'>> = {
  concurrency: true,
  leaseMs: true,
  extendEveryMs: true,
  parkTimeoutMs: true,
  autorun: true,
  reaper: true,
  id: true,
  heartbeatMs: true,
};

/** A Worker's constructor arguments, checked; the queue is opened by {@link openQueue}. */
export interface WorkerArguments {
  /** The worker's options, their names checked (their values are the constructor's to check). */
  readonly options: WorkerOptions;
  /** The queue given, or, for a name, the queue to open once every option is checked. */
  readonly queue: Queue | { readonly name: string; readonly connection: unknown };
}

/**
 * Read `new Worker(first, processor, options)`'s shape and option names.
 * @throws RingmasterError BAD_USER_INPUT, one line ending with the right call: `queue` when
 *   the first argument is neither a queue name nor a `Queue`; `options` when a name comes with
 *   options that are not an object; `options.connection` when it is missing after a name, or
 *   given with a `Queue` (so is `options.prefix`); `options.<name>` for an unknown option
 */
export function workerArguments(first: unknown, given: unknown): WorkerArguments {
  if (first instanceof Queue) {
    for (const name of ['connection', 'prefix'] as const) {
      if (typeof given === 'object' && given !== null && Object.hasOwn(given, name)) {
        throw badInput(
          `options.${name}`,
          `is not an option when a Queue comes first (the Queue has its ${name}): new Worker(queue, processor, options) or ${WORKER_EXAMPLE}`,
        );
      }
    }
    const options = validate.options('options', given as WorkerOptions | undefined, WORKER_OPTIONS);
    return { options, queue: first };
  }
  if (typeof first !== 'string') {
    throw badInput(
      'queue',
      `new Worker takes a queue name (with { connection } options) or a Queue first, not ${validate.kindOf(first)}: ${WORKER_EXAMPLE}`,
    );
  }
  if (given === undefined || given === null) {
    throw badInput('options.connection', `is required after a queue name: ${WORKER_EXAMPLE}`);
  }
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw badInput(
      'options',
      `new Worker(name, processor, options) takes { connection, concurrency?, … } third, not ${validate.kindOf(given)}: ${WORKER_EXAMPLE}`,
    );
  }
  const { connection, prefix, ...rest } = given as WorkerOptions;
  // Names checked first, so a misspelt connection is named as such, not as missing.
  const options = validate.options('options', rest, WORKER_OPTIONS, ['connection', 'prefix']);
  if (connection === undefined) {
    throw badInput('options.connection', `is required after a queue name: ${WORKER_EXAMPLE}`);
  }
  return {
    options: { ...options, ...(prefix === undefined ? {} : { prefix }) },
    queue: { name: first, connection },
  };
}

/**
 * The worker's queue: the `Queue` given, or one on the name and the connection, opened now
 * ({@link openConnection}); `owned` is that connection when the worker opened it from a URL or
 * options (its `close()` closes it), else null.
 * @throws RingmasterError BAD_USER_INPUT `queue` for an invalid name, `prefix` for a prefix
 *   not 1 to 64 of A-Z a-z 0-9 . _ - :, `options.connection` for a connection of the wrong kind (one line ending with the right call); nothing is opened then
 */
export function openQueue(args: WorkerArguments): {
  readonly queue: Queue;
  readonly owned: RedisClient | null;
} {
  const { queue } = args;
  if (queue instanceof Queue) return { queue, owned: null };
  const name = validate.queueName(queue.name);
  // Before the connection is opened: a refused prefix opens nothing.
  const prefix =
    args.options.prefix === undefined ? Defaults.prefix : validate.keyPrefix(args.options.prefix);
  const opened = openConnection(queue.connection, 'options.connection', WORKER_EXAMPLE, prefix);
  return {
    queue: new Queue(opened.redis, name, { prefix }),
    owned: opened.owned ? opened.redis : null,
  };
}
