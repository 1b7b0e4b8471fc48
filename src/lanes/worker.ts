/**
 * A worker for programs that process jobs: up to `concurrency` jobs at once through an async
 * processor; complete on success, retry on throw, the lease extended while the processor runs.
 * When no group is serviceable it parks on the queue's wake list (a blocking pop on its own
 * connection) and wakes as soon as a script re-rings a group (DESIGN.md §1 "wake"), or when the
 * earliest delayed job falls due or a group's rate window reopens (the claim's `nextRunAt`,
 * DESIGN.md §3 "Rate limits"): its next claim promotes it. A wake costs one claim round trip
 * before the job runs, and no more: see {@link Worker.pump} for why a woken worker sends one
 * claim, and why completions carry claims while no work is known of.
 *
 * Completions are group-committed: one `completeAndClaim` call at a time carries every job
 * finished since the last call and claims a job for every free slot, so a busy worker sends
 * one round trip per batch of jobs (a batch is whatever finished during the previous round
 * trip), and an idle one still sends each completion at once. Leases are extended by one timer
 * per worker, not one per job.
 *
 * Nothing is lost if the process dies: a claimed job's lease expires and a reaper gives it back
 * with its permit. Each worker runs a {@link Reaper} of its own queue by default (the server runs
 * one of every queue), so workers alone, with no API server, get a crashed worker's jobs back;
 * a per-queue lock in Redis keeps it to about one reap per interval however many run.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ActiveJob, RunningJob } from './activeJob.js';
import { ErrorCode, mapError, RingmasterError, readThrown, type Thrown } from './errors.js';
import { WAKE_LENGTH } from './keys.js';
import { type CompleteAndClaimResult, Defaults, type Queue } from './queue/queue.js';
import { Reaper } from './reaper.js';
import { duplicateConnection, type RedisClient } from './redis/client.js';
import { closeConnection, type RedisConnection } from './redis/connectionOption.js';
import { assertPlainKeys } from './redis/plainKeys.js';
import { unavailableWhere } from './redis/unavailable.js';
import type { Job, JobProgress } from './types.js';
import { unknownQueueLine } from './unknownQueue.js';
import * as validate from './validate.js';
import { engineVersion } from './version.js';
import { openQueue, type WorkerOptions, workerArguments } from './workerArguments.js';

/**
 * Processes one job. Resolve to complete it, with its result: a JSON value by a payload's rules
 * (DESIGN.md §5), kept with the completed job (`Job.result`; undefined keeps none); a result
 * those rules refuse fails the attempt as a throw would, its lastError the refusal (`result: …`).
 * Throw or reject to retry it, with any value (its
 * text, as `readThrown` reads it, becomes the job's lastError, and text and stack an entry of
 * its errors; its backoff policy decides when it runs again). `signal` aborts when the lease is
 * lost (the job was reaped and may run elsewhere): stop work that should not be done twice.
 * While it runs, `job.updateProgress(progress)` and `job.log(line)` report on it
 * ({@link ActiveJob}). The signal is made only for a processor
 * that declares the parameter (`processor.length >= 2`): an AbortController is the dearest
 * thing a worker allocates per job, and one that nobody can read is not worth it.
 */
export type Processor<Payload = unknown, Result = unknown> = (
  job: ActiveJob<Payload, Result>,
  signal: AbortSignal,
) => Result | Promise<Result>;

export type { WorkerOptions } from './workerArguments.js';

/** Options of {@link Worker.close}. */
export interface WorkerCloseOptions {
  /**
   * How long to wait for running processors (ms, 1..86,400,000). Default: as long as they take.
   * At the deadline each processor still running has its `signal` aborted and its job is given
   * back at once through `retry` (to the head of its lane, or dead on its last attempt, as a
   * crash and the reaper would do, only sooner); so is a job whose claim comes back after the
   * deadline, without running. `close()` then resolves, without waiting for Redis to answer
   * (a Redis that is down must not hold a shutdown): `failed` (or, if Redis cannot be reached,
   * `error`, and the reaper gives the job back when its lease lapses) may follow. A processor
   * that ends after the deadline changes nothing.
   */
  readonly timeoutMs?: number;
}

interface WorkerEvents<Payload, Result> {
  /**
   * A job completed (the job as claimed, with state COMPLETED, finishedAt and its result set;
   * `result` is what the processor returned whether or not the retention keeps it).
   */
  completed: [job: Job<Payload, Result>];
  /**
   * The processor threw; the job was retried or is now dead (see job.state). `error` is what
   * it threw when that is an Error that reads cleanly, else an Error of the recorded text with
   * the thrown value as its `cause` (`readThrown`).
   */
  failed: [job: Job<Payload, Result>, error: Error];
  /** A running job's processor reported its progress (`job.updateProgress`), now kept. */
  progress: [job: ActiveJob<Payload, Result>, progress: JobProgress];
  /** A job's lease was lost while it ran; its outcome was not recorded here. */
  leaseLost: [job: Job<Payload, Result>];
  /** This worker's reaper took back `count` jobs whose lease had expired. */
  reaped: [count: number];
  /**
   * A Redis or internal error; the worker backs off and goes on. Redis failures come as
   * RingmasterError REDIS_UNAVAILABLE or REDIS_OUT_OF_MEMORY, the ioredis error as `cause`,
   * from every source alike — its claims and completions, retries, lease extensions, its park
   * on the wake list and its reaper (`mapError`). Except CONNECTION_CLOSED (its queue's client
   * has ended: `quit()`, `disconnect()`), emitted once, after which the worker closes itself
   * (its `close()` and `run()` settle as for a close); make a new Worker on a new client.
   */
  error: [error: Error];
  /**
   * Once per start ({@link Worker.run}), when its queue is not known (not in `P:queues`:
   * nothing was ever enqueued to it or steered in it): the one line naming the queue, the
   * prefix and the queues that prefix knows (DESIGN.md §4.1). Unheard, the line goes to
   * `process.emitWarning` instead (stderr); either way the worker goes on waiting for jobs.
   */
  warning: [message: string];
}

const BACKOFF_MS = [100, 250, 500, 1_000, 2_000, 5_000];
/** What a processor that declares no `signal` parameter is passed in its place (never read). */
const NO_SIGNAL = new AbortController().signal;
/** `completeAndClaim` calls a worker keeps on the wire at once (see `Worker.pump`). */
const MAX_IN_FLIGHT = 2;
/**
 * The shortest park (s; BLPOP's timeout is in seconds, 0 meaning forever): a delayed job due
 * now but not promoted yet (more were due than one claim promotes) is claimed 10 ms later.
 */
const MIN_PARK_SEC = 0.01;
/**
 * How long (ms) after its timeout a park ends by this process' clock whatever Redis does. Redis
 * answers a blocking timeout at its next event-loop turn, up to 1/hz late (100 ms at the default
 * hz 10) and later on a loaded host; this bounds a park whose BLPOP no one will answer (one
 * dropped on a Cluster node's lost connection, see {@link Worker.waitForWake}).
 */
const PARK_GRACE_MS = 1_000;

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A job whose processor is running, and its lease's upkeep. */
interface Running {
  readonly job: Job<unknown, unknown>;
  /** Aborted when the lease is lost (the processor's `signal`); null if it takes none. */
  readonly lease: AbortController | null;
  /** The lease was lost (an extension was refused): extend it no more. */
  lost: boolean;
  /** When the lease was last taken or extended (ms, this process' clock). */
  extendedAt: number;
}

/** A job whose processor resolved, and what it returned (checked: `validate.result`). */
interface Finished {
  readonly job: Job;
  readonly result: unknown;
}

export class Worker<Payload = unknown, Result = unknown> extends EventEmitter<
  WorkerEvents<Payload, Result>
> {
  /** The queue it claims from (given, or opened on a name and `connection`). */
  readonly queue: Queue<Payload, Result>;
  /** Its id in the queue's worker registry and on the jobs it claims (DESIGN.md §4.9). */
  readonly id: string;
  /** How often it beats in the registry (ms). */
  private readonly heartbeatMs: number;
  /** When its last heartbeat was sent (ms, this process' clock); null before the first. */
  private beatAt: number | null = null;
  /** The heartbeat on the wire, if any (one at a time). */
  private beating: Promise<void> | null = null;
  /** A heartbeat of this run was answered: the next is not `fresh` (startedAt is kept). */
  private registered = false;
  /** The connection it opened from a URL or options, closed by {@link close}; else null. */
  private readonly owned: RedisClient | null;
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly extendEveryMs: number;
  private readonly parkTimeoutSec: number;
  private readonly blocking: RedisClient;
  /**
   * Processors running, by slot, not job id: a job whose lease was lost can be claimed again by
   * this same worker while its stale run is still going, and both runs hold a slot.
   */
  private readonly running = new Map<number, Running>();
  private nextSlot = 0;
  /** Jobs whose processor resolved, waiting for the next `completeAndClaim` (each holds a slot). */
  private finished: Finished[] = [];
  /** Retries on their way to Redis (each holds a slot until answered). */
  private readonly retrying = new Set<Promise<void>>();
  /** False once a claim found the ring empty; true again after a wake or the park timeout. */
  private wantWork = true;
  /**
   * Claims are sent one call at a time (no second claim behind the first) until one comes back
   * full: true at the start and after each park. A woken worker at a light load finds one job
   * or a few; a second claim sent at once would find none, and Redis would run it before it
   * sends the first one's reply (it writes replies after reading what the socket holds).
   */
  private probing = true;
  /** The last park ended on a wake token (not on its timeout). */
  private woken = false;
  /** Parks ended so far (count): a call's claim answer older than the last says nothing of now. */
  private parks = 0;
  /**
   * When the earliest delayed job falls due (ms, this process' clock), from the last claim that
   * ran out (its `nextRunAt`, taken relative to the script's own time so the clocks need not
   * agree); null for none. A park ends by then.
   */
  private dueAt: number | null = null;
  private parking = false;
  private readonly closed = new AbortController();
  /** `completeAndClaim` calls on the wire, and the jobs they claim (counts). */
  private inFlight = 0;
  private claiming = 0;
  /** Claims per call: half the slots, so two calls in flight carry two batches. */
  private readonly claimCap: number;
  /** The processor declares a `signal` parameter (see {@link Processor}). */
  private readonly wantsSignal: boolean;
  /** The queue's connection ended (CONNECTION_CLOSED), reported once: the worker closed. */
  private ended = false;
  /** Consecutive failed calls, and the wait after the last one. */
  private failures = 0;
  private backoff: Promise<void> | null = null;
  /** Resolved once closed and nothing is held any more. */
  private readonly drained = deferred();
  private extender: NodeJS.Timeout | null = null;
  private loop: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  /** Set at close's deadline: the reason every job still held, or claimed later, is given back. */
  private givenUp: Thrown | null = null;
  /** Reaps this worker's queue (null when `reaper: false`). */
  private readonly reaper: Reaper | null;
  /** Called once per claimed job (typed for its queue by the constructor). */
  private readonly processor: Processor;
  /** Each running job's kept progress report, heard as the `progress` event. */
  private readonly progressHeard = (job: RunningJob): void => {
    this.emit('progress', job as ActiveJob<Payload, Result>, job.progress as JobProgress);
  };

  /**
   * Two shapes (DESIGN.md §4.1, "Connections"):
   * - `new Worker(name, processor, { connection, prefix?, concurrency?, … })`, BullMQ's order:
   *   the worker opens the queue on `connection` (an ioredis client, the caller's to close; or
   *   a `redis://`/`rediss://` URL or ioredis options, from which it opens a `Redis` that
   *   {@link close} closes);
   * - `new Worker(queue, processor, { concurrency?, … })`: the queue's connection is used for
   *   every script call, and left open by {@link close}.
   * @param processor called once per claimed job
   * @throws RingmasterError BAD_USER_INPUT for another shape (one line ending with the right
   *   call: a first argument that is neither a name nor a `Queue`, `connection` missing or of
   *   the wrong kind, `connection` or `prefix` given with a `Queue`), a processor that is not a
   *   function (`processor`), out-of-range options, options that are not an object or hold an
   *   unknown name (`options.<name>`, `options.reaper.<name>`), or when the queue's
   *   connection moves keys (see {@link assertPlainKeys}; its options may have been edited
   *   since the Queue was made, and the blocking connection is a duplicate of it)
   */
  constructor(
    name: string,
    processor: Processor<Payload, Result>,
    options: WorkerOptions & { readonly connection: RedisConnection },
  );
  constructor(
    queue: Queue<Payload, Result>,
    processor: Processor<Payload, Result>,
    options?: Omit<WorkerOptions, 'connection' | 'prefix'>,
  );
  constructor(
    first: Queue<Payload, Result> | string,
    processor: Processor<Payload, Result>,
    workerOptions: WorkerOptions = {},
  ) {
    super();
    const args = workerArguments(first, workerOptions);
    validate.callback('processor', processor);
    const options = args.options;
    const concurrency = validate.concurrency(options.concurrency ?? 1);
    this.concurrency = concurrency;
    this.wantsSignal = processor.length >= 2;
    this.claimCap = Math.min(validate.Limits.maxBatch, Math.ceil(concurrency / MAX_IN_FLIGHT));
    this.leaseMs = validate.leaseMs(options.leaseMs ?? Defaults.leaseMs);
    this.extendEveryMs =
      options.extendEveryMs === undefined
        ? Math.max(1, Math.floor(this.leaseMs / 3))
        : validate.durationMs('extendEveryMs', options.extendEveryMs);
    const parkTimeoutMs = validate.durationMs('parkTimeoutMs', options.parkTimeoutMs ?? 5_000);
    this.id =
      options.id === undefined
        ? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
        : validate.workerId(options.id, 'options.id');
    this.heartbeatMs = validate.durationMs(
      'heartbeatMs',
      options.heartbeatMs ?? Defaults.heartbeatMs,
    );
    this.parkTimeoutSec = Math.max(MIN_PARK_SEC, parkTimeoutMs / 1000);
    const reaping =
      options.reaper === false
        ? false
        : validate.options('options.reaper', options.reaper, { intervalMs: true, batch: true });
    const { queue, owned } = openQueue(args);
    this.queue = queue as Queue<Payload, Result>;
    this.processor = processor as Processor;
    this.owned = owned;
    // Before the duplicate below: it copies the options (keyPrefix) and opens on `options.db`.
    assertPlainKeys(queue.redis);
    try {
      this.reaper =
        reaping === false
          ? null
          : new Reaper(queue, {
              ...reaping,
              onReaped: (_queue, count) => this.emit('reaped', count),
              // Once closing, nobody may be listening; the next reaper anywhere tries again.
              // Mapped by the reaper already (mapError).
              onError: (error) => {
                if (!this.closed.signal.aborted) this.fail(error);
              },
            });
    } catch (error) {
      // Refused (the reaper's options): drop the connection opened for it, never used.
      owned?.disconnect();
      throw error;
    }
    // Its own connection for BLPOP (it blocks the connection), never auto-pipelined, and never
    // sending a BLPOP again after a reconnect (see waitForWake).
    this.blocking = duplicateConnection(queue.redis, {
      enableAutoPipelining: false,
      autoResendUnfulfilledCommands: false,
    });
    // Without a listener an 'error' event would crash the process; errors surface through
    // the calls that fail instead.
    this.blocking.on('error', () => {});
    if (options.autorun ?? true) this.run();
  }

  /** Jobs running now (count). */
  get active(): number {
    return this.running.size;
  }

  /** Start claiming (once; later calls return the same promise, settled by {@link close}). */
  run(): Promise<void> {
    if (this.loop === null) {
      // A tick of half the period extends each lease every extendEveryMs/2 to extendEveryMs;
      // the same timer beats in the registry, so it ticks at least once per heartbeat.
      const extendAge = Math.max(1, Math.floor(this.extendEveryMs / 2));
      const tick = Math.min(extendAge, this.heartbeatMs);
      this.extender = setInterval(() => {
        this.extendLeases(extendAge);
        this.heartbeat(false);
      }, tick);
      this.extender.unref();
      this.heartbeat(true);
      // Without a reaper of its own the worker ticks its queue's schedules itself (DESIGN.md §3,
      // "Schedules"): one read a second, not one per job.
      const ticker =
        this.reaper === null
          ? setInterval(() => {
              this.queue.tickSchedules().catch((error: unknown) => {
                if (!this.closed.signal.aborted) this.fail(error);
              });
            }, Defaults.scheduleTickMs)
          : null;
      ticker?.unref();
      this.loop = this.drained.promise.finally(() => {
        if (this.extender) clearInterval(this.extender);
        if (ticker) clearInterval(ticker);
      });
      this.reaper?.start();
      this.pump();
      void this.warnIfUnknown();
    }
    return this.loop;
  }

  /**
   * Beat in the queue's worker registry (DESIGN.md §4.9 "Workers") when a heartbeat is due, one
   * at a time; `fresh` at the start. Not once closing: close removes the worker.
   */
  private heartbeat(first: boolean): void {
    const now = Date.now();
    if (this.closed.signal.aborted || this.beating !== null) return;
    // Due a little early rather than a tick late: the timer's tick may equal the heartbeat.
    if (!first && this.beatAt !== null && now - this.beatAt < this.heartbeatMs * 0.9) return;
    this.beatAt = now;
    // Fresh until one is answered: a first beat that failed is sent again as fresh.
    const fresh = !this.registered;
    this.beating = this.queue
      .workerHeartbeat({
        id: this.id,
        hostname: hostname(),
        pid: process.pid,
        concurrency: this.concurrency,
        active: this.running.size + this.finished.length + this.retrying.size,
        version: engineVersion(),
        heartbeatMs: this.heartbeatMs,
        fresh,
      })
      .then(
        () => {
          this.registered = true;
        },
        (error: unknown) => {
          // The next tick beats again.
          if (!this.closed.signal.aborted) this.fail(error);
        },
      )
      .finally(() => {
        this.beating = null;
      });
  }

  /**
   * Leave the registry at close, after any heartbeat on the wire; a failure is not reported
   * (the entry lapses). Sent at once when no beat is on the wire, so a QUIT sent next on the
   * same connection goes after it.
   */
  private leaveRegistry(): Promise<void> {
    if (this.beatAt === null) return Promise.resolve();
    const leave = () =>
      this.queue.removeWorker(this.id).then(
        () => undefined,
        () => undefined,
      );
    return this.beating === null ? leave() : this.beating.then(leave);
  }

  /** Say once that the queue is not known (the `warning` event); a failed check says nothing. */
  private async warnIfUnknown(): Promise<void> {
    // A Redis that cannot answer now is reported by the claims, as `error`.
    const line = await unknownQueueLine(this.queue).catch(() => null);
    if (line === null || this.closed.signal.aborted) return;
    if (this.listenerCount('warning') > 0) this.emit('warning', line);
    else process.emitWarning(line, { code: 'RINGMASTER_UNKNOWN_QUEUE' });
  }

  /**
   * Stop claiming, let the jobs in flight finish (each completed or retried as usual), then
   * close the worker's blocking connection. The queue's own connection is left open, unless
   * the worker opened it from a URL or options (`new Worker(name, processor, { connection })`):
   * then it is closed last (QUIT; with `timeoutMs`, sent without waiting for its answer). With
   * `timeoutMs`, processors still running after it are given up (see
   * {@link WorkerCloseOptions}); the first call's options apply to every later call.
   * @throws RingmasterError BAD_USER_INPUT (as a rejection) for a bad `timeoutMs`
   */
  close(options: WorkerCloseOptions = {}): Promise<void> {
    let timeoutMs: number | null;
    try {
      const opts = validate.options('options', options, { timeoutMs: true });
      timeoutMs =
        opts.timeoutMs === undefined ? null : validate.durationMs('timeoutMs', opts.timeoutMs);
    } catch (error) {
      return Promise.reject(error);
    }
    this.closing ??= (async () => {
      this.closed.abort();
      this.blocking.disconnect();
      const reaperClosed = this.reaper?.close();
      this.pump();
      const drained = Promise.all([this.loop ?? this.drained.resolve(), reaperClosed]).then(
        () => undefined,
      );
      if (timeoutMs === null) {
        await drained;
        await this.leaveRegistry();
        if (this.owned) await closeConnection(this.owned);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.giveUpRunning();
          resolve();
        }, timeoutMs);
      });
      try {
        await Promise.race([drained, deadline]);
      } finally {
        clearTimeout(timer);
      }
      // After the retries sent at the deadline (QUIT follows them), but not waited for.
      void this.leaveRegistry();
      if (this.owned) void closeConnection(this.owned);
    })();
    return this.closing;
  }

  /** Close's deadline: abort every processor still running and give its job back now. */
  private giveUpRunning(): void {
    this.givenUp = readThrown(
      new Error('the worker closed before the job finished (close timeoutMs)'),
    );
    for (const [slot, run] of this.running) {
      this.running.delete(slot);
      run.lease?.abort(this.givenUp.error);
      this.sendRetry(run.job, this.givenUp);
    }
    this.pump();
  }

  /** Slots free for new jobs (count): neither running, settling, nor being claimed. */
  private free(): number {
    return (
      this.concurrency -
      this.running.size -
      this.retrying.size -
      this.finished.length -
      this.claiming
    );
  }

  /**
   * Send what finished and claim for what is free, with at most {@link MAX_IN_FLIGHT} calls
   * on the wire; called whenever either changes. Two calls in flight let Redis run one batch
   * while this process runs the jobs of the other, and a claim of at most half the slots per
   * call keeps the two batches apart. Redis runs one connection's calls in order, so a call's
   * claims run after the completions of the calls before it: completions in flight hold no
   * slot.
   *
   * Only a worker whose last claim came back full claims on every call. Otherwise (after a park,
   * or once the ring ran dry) one call at a time claims, and a completion carries that claim
   * whenever none is on the wire: a job enqueued, or a group whose permit the completion itself
   * releases, is claimed by that same script, not one wake and one claim round trip later.
   */
  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.backoff === null) {
      const closing = this.closed.signal.aborted;
      // The completions sent now free their slots before this call's claims run.
      const done = this.finished.splice(0, validate.Limits.maxBatch);
      const eager = this.wantWork && !this.probing;
      const claim =
        closing || (!eager && this.claiming > 0)
          ? 0
          : Math.min(this.claimCap, Math.max(0, this.free()));
      // Nothing to complete and no work known of: wait for a wake (below), not poll.
      if (done.length === 0 && (claim === 0 || !this.wantWork)) break;
      this.send(done, claim);
    }
    if (this.inFlight > 0 || this.backoff !== null) return;
    if (this.closed.signal.aborted) {
      if (this.running.size === 0 && this.retrying.size === 0) this.drained.resolve();
    } else if (!this.wantWork && this.free() > 0) {
      this.park();
    }
  }

  private send(done: Finished[], claim: number): void {
    this.inFlight += 1;
    this.claiming += claim;
    const parks = this.parks;
    const completions = done.map(({ job, result }) => ({
      id: job.id,
      token: job.token as string,
      result,
    }));
    (this.queue as Queue)
      .completeAndClaim(completions, { claim, leaseMs: this.leaseMs, workerId: this.id })
      .then(
        (result) => {
          this.failures = 0;
          this.settleCall(claim, done, result, parks === this.parks);
        },
        (error: unknown) => {
          this.claiming -= claim;
          // Closing: the leases expire and the reaper gives the jobs back.
          if (!this.closed.signal.aborted) this.retryLater(done);
          // Last: with no 'error' listener this throws, and the process ends as Node's
          // EventEmitter contract says, rather than the worker retrying without a backoff.
          this.fail(error);
        },
      )
      .finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
  }

  /**
   * A call answered. `current`: no park ended since it was sent. A claim sent before a wake may
   * have run before the re-ring that pushed the token, so its "ring empty" is stale: a worker
   * that believed it would park again on a token already taken, and sit out its park timeout
   * with work waiting. Only a current answer turns claiming off or uses up the wake.
   */
  private settleCall(
    claim: number,
    done: readonly Finished[],
    result: CompleteAndClaimResult,
    current: boolean,
  ): void {
    this.claiming -= claim;
    for (const job of result.claimed) this.start(job);
    if (claim > 0) {
      // Calls answer in the order they were sent, so the last answer says how the ring is now.
      const full = result.claimed.length === claim;
      if (full) {
        // Woken by one token and still finding work: more may be waiting, so pass a token on.
        if (this.woken && current) this.passWake().catch(() => {});
        this.wantWork = true;
        this.probing = false;
        this.dueAt = null;
      } else if (current) {
        this.wantWork = false;
        this.dueAt =
          result.nextRunAt !== null
            ? Date.now() + Math.max(0, result.nextRunAt - result.finishedAt)
            : null;
      }
      if (current) this.woken = false;
    }
    this.report(done, result);
  }

  /** Redis refused or is unreachable: keep the completions and try again after a backoff. */
  private retryLater(done: readonly Finished[]): void {
    this.finished.unshift(...done);
    const delay = BACKOFF_MS[Math.min(this.failures++, BACKOFF_MS.length - 1)] as number;
    this.backoff = sleep(delay, undefined, { signal: this.closed.signal })
      .catch(() => {})
      .finally(() => {
        this.backoff = null;
        this.pump();
      });
  }

  private report(done: readonly Finished[], result: CompleteAndClaimResult): void {
    result.refused.forEach((refusal, i) => {
      const { job, result: returned } = done[i] as Finished;
      if (refusal) {
        // A number Redis holds that the script cannot count (DATA_OUT_OF_RANGE): the lease is
        // still held and nothing changed; the operator must repair the queue.
        if (isLeaseRefusal(refusal)) this.emit('leaseLost', job as Job<Payload, Result>);
        else this.emit('error', refusal);
        return;
      }
      this.emit('completed', {
        ...(job as Job<Payload, Result>),
        result: (returned ?? null) as Result | null,
        state: 'COMPLETED',
        token: null,
        leaseUntil: null,
        finishedAt: result.finishedAt,
      });
    });
  }

  /**
   * Wait on the wake list (once at a time) until a re-ring, the park timeout, or the time the
   * earliest delayed job falls due (`dueAt`), whichever comes first.
   */
  private park(): void {
    if (this.parking) return;
    this.parking = true;
    const timeoutSec =
      this.dueAt === null
        ? this.parkTimeoutSec
        : Math.min(this.parkTimeoutSec, Math.max(MIN_PARK_SEC, (this.dueAt - Date.now()) / 1000));
    void (async () => {
      try {
        // Null when the park ended without a token (its timeout, a lost connection): none is
        // passed on.
        const token = await this.waitForWake(timeoutSec);
        this.woken = token !== null;
      } catch (error) {
        if (this.closed.signal.aborted) return;
        // Its node turned replica (a failover, CLUSTER FAILOVER or REPLICAOF): Redis ends the
        // blocked pop with UNBLOCKED. Nothing was taken; claim again, now on the new master.
        if (error instanceof Error && error.message.startsWith('UNBLOCKED')) return;
        this.emit('error', mapError(error, unavailableWhere(this.blocking, error)));
        await sleep(BACKOFF_MS[0], undefined, { signal: this.closed.signal }).catch(() => {});
      } finally {
        this.parking = false;
        this.parks += 1;
        this.wantWork = true;
        this.probing = true;
        this.pump();
      }
    })();
  }

  /**
   * BLPOP the wake list for `timeoutSec` on the blocking connection: the token, or null when the
   * park ended without one (its timeout, close, or a lost connection). ioredis would send a BLPOP
   * cut by a lost connection again once reconnected, with its whole timeout, so a connection cut
   * more often than that would park the worker for ever, past its timeout and `dueAt`. So the
   * blocking connection sends nothing again (`autoResendUnfulfilledCommands: false`: the cut BLPOP
   * is dropped, unanswered) and its 'close' ends the park here, unless ioredis fails the BLPOP in
   * that same turn (`maxRetriesPerRequest` spent, the connection ended): then the park fails
   * with that error. The BLPOP is sent on a ready connection only (one queued while it
   * reconnects would go out after its park ended, and hold the connection), and the park ends
   * {@link PARK_GRACE_MS} after its timeout whatever Redis does.
   */
  private waitForWake(timeoutSec: number): Promise<string | null> {
    const blocking = this.blocking;
    const signal = this.closed.signal;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let over = false;
      const end = (token: string | null, error?: unknown) => {
        if (over) return;
        over = true;
        clearTimeout(timer);
        blocking.off('ready', send);
        blocking.off('close', cut);
        signal.removeEventListener('abort', closing);
        if (error === undefined) resolve(token);
        else reject(error);
      };
      const closing = () => end(null);
      const cut = () => setImmediate(() => end(null));
      function send() {
        blocking.off('ready', send);
        blocking.on('close', cut);
        blocking.blpop(wake, timeoutSec).then(
          (reply) => end(reply === null ? null : reply[1]),
          (error: unknown) => end(null, error),
        );
      }
      const wake = this.queue.keys.wake;
      if (signal.aborted) return end(null);
      timer = setTimeout(() => end(null), timeoutSec * 1000 + PARK_GRACE_MS);
      signal.addEventListener('abort', closing);
      // An ended connection fails the BLPOP at once: reported as the park's error.
      if (blocking.status === 'ready' || blocking.status === 'end') return send();
      blocking.on('ready', send);
      // A lazy connection (opened from a URL or options) connects on its first park.
      if (blocking.status === 'wait') blocking.connect().catch(() => undefined);
    });
  }

  private async passWake(): Promise<void> {
    await this.queue.redis
      .multi()
      .lpush(this.queue.keys.wake, '1')
      .ltrim(this.queue.keys.wake, 0, WAKE_LENGTH - 1)
      .exec();
  }

  /** Run the processor of a claimed job in a slot of its own. */
  private start(claimed: Job): void {
    // Claimed by a call still on the wire at close's deadline: given back without running.
    if (this.givenUp) {
      this.sendRetry(claimed, this.givenUp);
      return;
    }
    const job = new RunningJob(claimed, this.queue as Queue, this.progressHeard);
    const slot = this.nextSlot++;
    const lease = this.wantsSignal ? new AbortController() : null;
    const run: Running = { job, lease, lost: false, extendedAt: Date.now() };
    this.running.set(slot, run);
    let outcome: Promise<unknown>;
    try {
      // A processor typed loosely (plain JavaScript) may return a non-promise: a success.
      outcome = Promise.resolve(
        lease ? this.processor(job, lease.signal) : this.processor(job, NO_SIGNAL),
      );
    } catch (error) {
      outcome = Promise.reject(error);
    }
    // Whatever was thrown is read by readThrown, which never throws: a value String() cannot
    // convert must not leave the slot unsettled (its permit held, its lease extended forever).
    outcome.then(
      (returned) => this.settle(slot, null, returned),
      (error: unknown) => this.settle(slot, readThrown(error)),
    );
  }

  /**
   * A processor ended: queue its completion with what it `returned`, or send its retry now —
   * also when what it returned is no result (`validate.result` refuses it: DESIGN.md §5).
   */
  private settle(slot: number, failure: Thrown | null, returned?: unknown): void {
    const run = this.running.get(slot);
    // Given up by close's timeout: its job was retried already.
    if (run === undefined) return;
    this.running.delete(slot);
    if (!failure) {
      try {
        validate.result(returned);
      } catch (refusal) {
        this.sendRetry(run.job, readThrown(refusal));
        return;
      }
      this.finished.push({ job: run.job, result: returned });
      this.pump();
      return;
    }
    this.sendRetry(run.job, failure);
  }

  /** Retry a job whose processor failed (or was given up); the call holds a slot until answered. */
  private sendRetry(job: Job, failure: Thrown): void {
    const retry = this.queue
      // Strings, cut as the engine cuts them (readThrown): never refused as BAD_USER_INPUT.
      .retry(job.id, job.token as string, { error: failure.message, stack: failure.stack })
      .then(
        (retried) => {
          this.emit('failed', retried as Job<Payload, Result>, failure.error);
        },
        (error: unknown) => {
          if (isLeaseRefusal(error)) {
            this.emit('leaseLost', job as Job<Payload, Result>);
          } else {
            // Redis unreachable: the lease will expire and the reaper gives the job back.
            this.fail(error);
          }
        },
      )
      .finally(() => {
        this.retrying.delete(retry);
        this.pump();
      });
    this.retrying.add(retry);
  }

  /**
   * Report a call's failure as the 'error' event (mapped: `mapError`). When the queue's
   * connection has ended (CONNECTION_CLOSED: its client was closed) no call can succeed again,
   * so rather than back off and retry for ever the worker reports it once and closes (as
   * `close()` does: the jobs running finish, their outcomes unsent; their leases lapse and a
   * reaper gives them back). Emitted last: with no listener it throws, as Node's 'error' does.
   */
  private fail(error: unknown): void {
    const mapped = mapError(error);
    if (mapped instanceof RingmasterError && mapped.code === ErrorCode.CONNECTION_CLOSED) {
      if (this.ended) return;
      this.ended = true;
      void this.close();
    }
    this.emit('error', mapped);
  }

  /** The lease timer: extend every running job's lease not extended for `ageMs`. */
  private extendLeases(ageMs: number): void {
    const now = Date.now();
    for (const run of this.running.values()) {
      if (run.lost || now - run.extendedAt < ageMs) continue;
      run.extendedAt = now;
      const { id, token } = run.job;
      this.queue.extendLease(id, token as string, this.leaseMs).catch((error: unknown) => {
        if (isLeaseRefusal(error)) {
          run.lost = true;
          run.lease?.abort(error);
        } else {
          this.fail(error);
        }
      });
    }
  }
}

/**
 * Redis answered that the lease is gone (JOB_NOT_FOUND, LEASE_LOST), not that it failed: a
 * Redis failure (REDIS_UNAVAILABLE, REDIS_OUT_OF_MEMORY) says nothing of the lease, so the job
 * runs on and its lease is extended again on the next tick.
 */
function isLeaseRefusal(error: unknown): boolean {
  return (
    error instanceof RingmasterError &&
    (error.code === ErrorCode.JOB_NOT_FOUND || error.code === ErrorCode.LEASE_LOST)
  );
}
