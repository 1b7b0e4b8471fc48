/**
 * The reaper loop (DESIGN.md §3 "reap"): every `intervalMs`, each queue's expired leases are
 * retried with their permits released, its due delayed jobs promoted to their lanes and its
 * completed and dead jobs past their retention trimmed (`Queue.reap`, script `reap-12.lua`,
 * deadlines on the Redis clock; each repeated while a batch comes back full). The engine's, so any process can run it: the API server reaps every registered queue,
 * and each `Worker` reaps its own queue by default, so a deployment of workers alone still gets a
 * crashed worker's jobs and permits back. Each reap of a queue also applies its timed overrides
 * whose deadline has come (`Queue.applyOverrides`, DESIGN.md §4.8), so a revert lands within an
 * interval of its deadline, or on the first pass after a time when nothing ran.
 *
 * Many processes may run it at once, each at its own interval (DESIGN.md §3, "reap", says how
 * they share a queue): a pass skips a queue whose last pass, by any reaper, began less than its
 * own interval ago (`P:{Q}:reapedAt`), and one whose lock `P:{Q}:reaper` another reaper holds
 * for the pass it is running; it releases its own lock when its pass of the queue ends. So a
 * reaper with a long interval never holds back one with a short one. The lock saves work only
 * (each reap is one atomic script, test/faults/two-servers).
 *
 * One queue cannot stop the others: a queue whose reap Redis refuses (a key of the wrong type,
 * say) is reported and passed over, and the pass goes on to the next queue. A lost connection
 * ends the pass; the next tick tries again. Ticks never overlap.
 *
 * On a Redis Cluster the queues live on several masters, and one may be failing over (calls to
 * it wait up to the client's redirection budget, `clusterOptions`). So a pass reaps each
 * master's queues in turn but the masters side by side: a master that does not answer holds
 * back only its own queues. And the registry (`P:queues`, on one master of its own) failing
 * soft: when it cannot be read, the pass reaps the list it last read (reported through
 * `onError` with queue null), since the queues it named still need reaping.
 */
import { hostname } from 'node:os';
import { ReplyError } from 'ioredis';
import { badInput, ErrorCode, mapError, RingmasterError } from './errors.js';
import { Defaults, Queue } from './queue/queue.js';
import { masterKeyOf, type RedisClient } from './redis/client.js';
import { unavailableWhere } from './redis/unavailable.js';
import { Ringmaster } from './ringmaster.js';
import * as validate from './validate.js';

/** Options of {@link Reaper}. Every field is optional. */
export interface ReaperOptions {
  /**
   * Time between passes (ms, 1..86,400,000), counted from the end of one to the start of the
   * next. A pass skips a queue whose last pass (by any reaper) began less than this ago, Redis
   * clock; a reaper with a shorter interval still reaps it at its own pace. Default 1,000.
   */
  readonly intervalMs?: number;
  /** Expired leases taken back per script call (count, 1..10,000). Default 1,000. */
  readonly batch?: number;
  /**
   * How long a group stays registered after the last call that registered it (ms,
   * 0..2,592,000,000): once that long unseen, and idle and unset, a pass forgets it (DESIGN.md
   * §3, "Forgetting groups"). Default 3,600,000 (1 h, `Defaults.groupGraceMs`).
   */
  readonly groupGraceMs?: number;
  /**
   * The queues to reap, by name. Default: every queue registered in `P:queues`
   * ({@link Ringmaster.queues}), read again at each pass. Ignored when the reaper is built on a
   * single {@link Queue}.
   */
  readonly queues?: readonly string[];
  /** Called after a pass reaped `reaped` (> 0) jobs of `queue`. */
  readonly onReaped?: (queue: string, reaped: number) => void;
  /**
   * Called when reaping `queue` fails (Redis refused it), once per queue and message until it
   * is reaped again; with `queue` null, every time, when a whole pass failed (Redis
   * unreachable) or the registry could not be read for an outage (the pass then reaps the
   * queues it last read there), and once per message until it is read again when Redis refused
   * the read (REDIS_NOT_PERMITTED, a key of the wrong type). Default: none (the next pass tries
   * again either way). A Redis failure comes as RingmasterError REDIS_UNAVAILABLE,
   * REDIS_OUT_OF_MEMORY or REDIS_NOT_PERMITTED (`mapError`), whichever command
   * failed (the lock's own script too), the ioredis error as `cause`. CONNECTION_CLOSED
   * (its `Ringmaster` or `Queue` closed, or its client ended) is reported once, with queue null,
   * and the reaper stops for good.
   */
  readonly onError?: (error: Error, queue: string | null) => void;
  /** Called when a queue whose reap had failed ({@link onError}) is reaped again. */
  readonly onRecovered?: (queue: string) => void;
}

let reapers = 0;

/**
 * How long a queue's lock lives if its holder never releases it (ms): a holder that died mid-pass
 * holds the queue's other reapers back this long at most. Longer than a pass of any queue but a
 * huge backlog; a pass that outlives it only overlaps the next one (wasted work, no harm).
 */
export const LOCK_MS = 5_000;

export class Reaper {
  /** This reaper's value in the lock keys: `host:pid:n`, for an operator reading `P:{Q}:reaper`. */
  readonly id = `${hostname()}:${process.pid}:${++reapers}`;
  private readonly redis: RedisClient;
  private readonly intervalMs: number;
  private readonly batch: number;
  private readonly groupGraceMs: number;
  private readonly targets: () => Promise<Queue[]>;
  private readonly options: ReaperOptions;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private started = false;
  private closed = false;
  /** Queues whose last reap Redis refused → its message (reported once per change, not per pass). */
  private readonly failing = new Map<string, string>();
  /** The message of the registry read's last refusal, reported once until a read succeeds. */
  private registryRefused: string | null = null;
  /** The queues of the last pass, reaped again when the registry cannot be read. */
  private lastQueues: Queue[] = [];

  /**
   * @param source an engine (reap its registered queues, or `options.queues`) or one queue
   * @throws RingmasterError BAD_USER_INPUT for a `source` that is neither (`source`: an ioredis
   *   client, an options object), an out-of-range `intervalMs`, `batch` or `groupGraceMs`, an
   *   invalid name (or a hole) in `queues` or `queues` not an array, a hook (`onReaped`,
   *   `onError`, `onRecovered`) that is given and not a function, or options that are not an
   *   object or hold an unknown name (`options.<name>`)
   */
  constructor(source: Ringmaster | Queue, reaperOptions: ReaperOptions = {}) {
    if (!(source instanceof Ringmaster) && !(source instanceof Queue)) {
      throw badInput(
        'source',
        `must be a Ringmaster or a Queue (new Reaper(engine | queue, options)), not ${validate.kindOf(source)}`,
      );
    }
    const options = validate.options('options', reaperOptions, {
      intervalMs: true,
      batch: true,
      groupGraceMs: true,
      queues: true,
      onReaped: true,
      onError: true,
      onRecovered: true,
    });
    for (const hook of ['onReaped', 'onError', 'onRecovered'] as const) {
      validate.callback(hook, options[hook], true);
    }
    this.options = options;
    this.intervalMs = validate.durationMs('intervalMs', options.intervalMs ?? 1_000);
    this.batch = validate.reapBatch(options.batch ?? Defaults.reapBatch);
    this.groupGraceMs = validate.groupGraceMs(options.groupGraceMs ?? Defaults.groupGraceMs);
    this.redis = source.redis;
    if (source instanceof Queue) {
      this.targets = async () => [source];
    } else if (options.queues !== undefined) {
      if (!Array.isArray(options.queues)) {
        throw badInput('queues', 'must be an array of queue names');
      }
      // Array.from visits a hole (map skips it): undefined, refused as a queue name.
      const fixed = Array.from(options.queues, (name) => source.queue(name));
      this.targets = async () => fixed;
    } else {
      this.targets = async () => (await source.queues()).map((name) => source.queue(name));
    }
  }

  /** Start passes every `intervalMs` (the first one interval from now). Idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.schedule();
  }

  /**
   * One pass now, as a tick runs it: each queue due by this reaper's interval whose lock it takes
   * is reaped. Returns
   * the jobs reaped (count). Failures go to the hooks, never thrown.
   */
  async reapOnce(): Promise<number> {
    let queues: Queue[];
    try {
      queues = await this.targets();
      this.lastQueues = queues;
      this.registryRefused = null;
    } catch (error) {
      // An outage is reported every pass; a refusal (an ACL, a key of the wrong type), which
      // every pass meets alike, once per message until the registry is read again.
      const mapped = mapError(error, unavailableWhere(this.redis, error));
      if (this.endedBy(mapped)) return 0;
      const outage =
        mapped instanceof RingmasterError && mapped.code === ErrorCode.REDIS_UNAVAILABLE;
      if (outage || this.registryRefused !== mapped.message) this.options.onError?.(mapped, null);
      this.registryRefused = outage ? null : mapped.message;
      // The registry failed soft: the queues it named last time still need reaping.
      queues = this.lastQueues;
    }
    // One run per master (a single Redis: one run), side by side.
    const byMaster = new Map<string, Queue[]>();
    for (const queue of queues) {
      const master = masterKeyOf(this.redis, queue.keys.base);
      byMaster.set(master, [...(byMaster.get(master) ?? []), queue]);
    }
    let lost: Error | null = null;
    const totals = await Promise.all(
      [...byMaster.values()].map(async (own) => {
        let total = 0;
        for (const queue of own) {
          if (lost !== null) break;
          let reaped: number;
          try {
            if (!(await queue.lockReaping(this.id, this.intervalMs, LOCK_MS))) continue;
            try {
              // Timed overrides due by now revert on this pass too (DESIGN.md §4.8; flat cost),
              // sent with the reap on the same connection: one round trip for both scripts.
              // So are the schedules' due ticks (DESIGN.md §3, "Schedules"): one read when none
              // is due.
              [reaped] = await Promise.all([
                queue.reap({ batch: this.batch, groupGraceMs: this.groupGraceMs }),
                queue.applyOverrides(),
                queue.tickSchedules(),
              ]);
            } finally {
              // A release that fails (Redis gone) leaves the lock to expire after LOCK_MS.
              await queue.releaseReaping(this.id).catch(() => undefined);
            }
          } catch (error) {
            // Redis refused this queue (WRONGTYPE on one of its keys, say): the others are
            // still reaped. A lost connection fails them all alike: end the pass, the next one
            // retries. (A Cluster stays 'ready' while one master fails over: that master's
            // queues are reported one by one, and the other masters' are reaped.)
            if (!(error instanceof ReplyError) && this.redis.status !== 'ready') {
              lost ??= mapError(error, unavailableWhere(this.redis, error));
              break;
            }
            const message = error instanceof Error ? error.message : String(error);
            if (this.failing.get(queue.name) !== message) {
              this.failing.set(queue.name, message);
              this.options.onError?.(mapError(error), queue.name);
            }
            continue;
          }
          if (this.failing.delete(queue.name)) this.options.onRecovered?.(queue.name);
          if (reaped > 0) this.options.onReaped?.(queue.name, reaped);
          total += reaped;
        }
        return total;
      }),
    );
    const total = totals.reduce((sum, n) => sum + n, 0);
    if (lost !== null) {
      if (!this.endedBy(lost)) this.options.onError?.(lost, null);
      return total;
    }
    // Forget queues no longer reaped here, so the map holds only queues still reaped.
    if (this.failing.size > 0) {
      const current = new Set(queues.map((q) => q.name));
      for (const name of this.failing.keys()) if (!current.has(name)) this.failing.delete(name);
    }
    return total;
  }

  /**
   * Its connection has ended (CONNECTION_CLOSED): no pass can reap again, so report `error` once
   * (queue null) and stop for good, as {@link close} does, rather than fail every pass.
   */
  private endedBy(error: Error): boolean {
    if (!(error instanceof RingmasterError) || error.code !== ErrorCode.CONNECTION_CLOSED) {
      return false;
    }
    this.closed = true;
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.options.onError?.(error, null);
    return true;
  }

  /** Stop ticking and wait for a pass in progress; {@link start} may start it again. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Stop for good (as {@link stop}; {@link start} does nothing afterwards). */
  close(): Promise<void> {
    this.closed = true;
    return this.stop();
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.reapOnce()
        .then(() => undefined)
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.intervalMs);
    this.timer.unref();
  }
}
