/**
 * A worker for programs that process jobs: up to `concurrency` jobs at once through an async
 * processor; complete on success, retry on throw, the lease extended while the processor runs.
 * When no group is serviceable it parks on the queue's wake list (a blocking pop on its own
 * connection) and wakes as soon as a script re-rings a group (DESIGN.md §1 "wake").
 *
 * Nothing is lost if the process dies: a claimed job's lease expires and the reaper
 * (`Queue.reap`, run by the server) gives it back with its permit.
 */
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { ErrorCode, RingmasterError } from './errors.js';
import { WAKE_LENGTH } from './keys.js';
import { Defaults, type Queue } from './queue.js';
import type { Job } from './types.js';
import * as validate from './validate.js';

/**
 * Processes one job. Resolve to complete it; throw to retry it (its message becomes the job's
 * lastError). `signal` aborts when the lease is lost (the job was reaped and may run
 * elsewhere): stop work that should not be done twice.
 */
export type Processor = (job: Job, signal: AbortSignal) => Promise<unknown>;

export interface WorkerOptions {
  /** Jobs processed at once (count, 1..10,000). Default 1. */
  readonly concurrency?: number;
  /** Lease per claim (ms). Default 30,000. */
  readonly leaseMs?: number;
  /** How often a running job's lease is extended (ms). Default leaseMs / 3. */
  readonly extendEveryMs?: number;
  /**
   * Longest park on the wake list before claiming again anyway (ms), so a lost wake token
   * (trimmed, or pushed before a restart) costs at most this much latency. Default 5,000.
   */
  readonly parkTimeoutMs?: number;
  /** Start claiming at once. Default true; else call {@link Worker.run}. */
  readonly autorun?: boolean;
}

interface WorkerEvents {
  /** A job completed (the job as it was when completed). */
  completed: [job: Job];
  /** The processor threw; the job was retried or is now dead (see job.state). */
  failed: [job: Job, error: Error];
  /** A job's lease was lost while it ran; its outcome was not recorded here. */
  leaseLost: [job: Job];
  /** A Redis or internal error; the worker backs off and goes on. */
  error: [error: Error];
}

const BACKOFF_MS = [100, 250, 500, 1_000, 2_000, 5_000];

export class Worker extends EventEmitter<WorkerEvents> {
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly extendEveryMs: number;
  private readonly parkTimeoutSec: number;
  private readonly blocking: Redis;
  /**
   * Handlers in flight, by lease token, not job id: a job whose lease was lost can be claimed
   * again by this same worker while its stale run is still going, and both runs hold a slot.
   */
  private readonly running = new Map<number, Promise<void>>();
  private nextSlot = 0;
  private readonly closed = new AbortController();
  private slotFreed: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private closing: Promise<void> | null = null;

  /**
   * @param queue the queue to claim from (its connection is used for every script call)
   * @param processor called once per claimed job
   * @throws RingmasterError BAD_USER_INPUT for out-of-range options
   */
  constructor(
    readonly queue: Queue,
    private readonly processor: Processor,
    options: WorkerOptions = {},
  ) {
    super();
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 10_000) {
      throw new RingmasterError(
        ErrorCode.BAD_USER_INPUT,
        'concurrency: must be an integer from 1 to 10000',
      );
    }
    this.concurrency = concurrency;
    this.leaseMs = validate.leaseMs(options.leaseMs ?? Defaults.leaseMs);
    this.extendEveryMs = Math.max(1, Math.floor(options.extendEveryMs ?? this.leaseMs / 3));
    this.parkTimeoutSec = Math.max(0.01, (options.parkTimeoutMs ?? 5_000) / 1000);
    this.blocking = queue.redis.duplicate();
    // Without a listener an 'error' event would crash the process; errors surface through
    // the calls that fail instead.
    this.blocking.on('error', () => {});
    if (options.autorun ?? true) this.run();
  }

  /** Jobs running now (count). */
  get active(): number {
    return this.running.size;
  }

  /** Start the claim loop (once; later calls return the same promise). */
  run(): Promise<void> {
    this.loop ??= this.claimLoop();
    return this.loop;
  }

  /**
   * Stop claiming, let the jobs in flight finish (each completed or retried as usual), then
   * close the worker's blocking connection. The queue's own connection is left open.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed.abort();
      this.blocking.disconnect();
      this.slotFreed?.();
      await this.loop;
      await Promise.all(this.running.values());
    })();
    return this.closing;
  }

  private async claimLoop(): Promise<void> {
    let failures = 0;
    let woken = false;
    while (!this.closed.signal.aborted) {
      try {
        const filled = await this.fill();
        failures = 0;
        if (this.closed.signal.aborted) break;
        if (filled) {
          // Woken by a single token and still finding work: more may be waiting, so pass a
          // token on to the next parked worker.
          if (woken) await this.passWake();
          woken = false;
          await this.untilSlotFree();
        } else {
          // Null on the park timeout: then no token was taken, and none is passed on.
          woken = (await this.blocking.blpop(this.queue.keys.wake, this.parkTimeoutSec)) !== null;
        }
      } catch (error) {
        if (this.closed.signal.aborted) break;
        this.emit('error', asError(error));
        const delay = BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)] as number;
        await sleep(delay, undefined, { signal: this.closed.signal }).catch(() => {});
      }
    }
  }

  /** Claim until every slot is busy (true) or nothing is serviceable (false). */
  private async fill(): Promise<boolean> {
    while (this.running.size < this.concurrency) {
      if (this.closed.signal.aborted) return false;
      const job = await this.queue.claim({ leaseMs: this.leaseMs });
      if (!job) return false;
      // Slots, not job ids, are counted: a job whose lease was lost can be re-claimed by this
      // same worker while its first run still goes on, and both runs hold a slot.
      const slot = this.nextSlot++;
      const done = this.runSlot(job).finally(() => {
        this.running.delete(slot);
        this.slotFreed?.();
      });
      this.running.set(slot, done);
    }
    return true;
  }

  private untilSlotFree(): Promise<void> {
    if (this.running.size < this.concurrency || this.closed.signal.aborted) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.slotFreed = () => {
        this.slotFreed = null;
        resolve();
      };
    });
  }

  private async passWake(): Promise<void> {
    await this.queue.redis
      .multi()
      .lpush(this.queue.keys.wake, '1')
      .ltrim(this.queue.keys.wake, 0, WAKE_LENGTH - 1)
      .exec();
  }

  /**
   * One slot: run a job, then settle it. A success is completed together with the claim of the
   * slot's next job (`completeAndClaim`, one round trip), so a busy worker spends one Redis
   * call per job; the slot ends when nothing is serviceable or the worker is closing.
   */
  private async runSlot(first: Job): Promise<void> {
    let job: Job | null = first;
    while (job) {
      const failure = await this.execute(job);
      job = await this.settle(job, failure);
    }
  }

  /** Run the processor with the lease kept alive; resolves to its error, or null. */
  private async execute(job: Job): Promise<Error | null> {
    const token = job.token as string;
    const lease = new AbortController();
    const extender = setInterval(() => {
      this.queue.extendLease(job.id, token, this.leaseMs).catch((error: unknown) => {
        if (error instanceof RingmasterError && error.code !== ErrorCode.BAD_USER_INPUT) {
          clearInterval(extender);
          lease.abort(error);
        } else {
          this.emit('error', asError(error));
        }
      });
    }, this.extendEveryMs);
    extender.unref();
    try {
      await this.processor(job, lease.signal);
      return null;
    } catch (error) {
      return asError(error);
    } finally {
      clearInterval(extender);
    }
  }

  /** Record the outcome of `job`; returns the slot's next job, or null to free the slot. */
  private async settle(job: Job, failure: Error | null): Promise<Job | null> {
    const token = job.token as string;
    try {
      if (failure) {
        const retried = await this.queue.retry(job.id, token, failure.message);
        this.emit('failed', retried, failure);
        return null;
      }
      if (this.closed.signal.aborted) {
        this.emit('completed', await this.queue.complete(job.id, token));
        return null;
      }
      const { completed, next } = await this.queue.completeAndClaim(job.id, token, {
        leaseMs: this.leaseMs,
      });
      if (completed instanceof RingmasterError) this.emit('leaseLost', job);
      else this.emit('completed', completed);
      return next;
    } catch (error) {
      if (error instanceof RingmasterError && error.code !== ErrorCode.BAD_USER_INPUT) {
        this.emit('leaseLost', job);
      } else {
        // Redis unreachable: the lease will expire and the reaper gives the job back.
        this.emit('error', asError(error));
      }
      return null;
    }
  }
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
