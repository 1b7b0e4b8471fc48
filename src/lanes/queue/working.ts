/**
 * `Queue`'s working calls, the workers' hot path: claim, complete, completeAndClaim, retry,
 * lease extension and job watches (DESIGN.md §3 and §4.4). The contracts are on `Queue`'s
 * methods (queue.ts), which delegate here.
 */
import { randomUUID } from 'node:crypto';
import { Defaults } from '../defaults.js';
import {
  badInput,
  errorFromStatus,
  inBatch,
  jobNotFound,
  type RingmasterError,
} from '../errors.js';
import type { JobReply } from '../scripts/commands.js';
import type { Job, JobLog } from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import { decodeClaims, decodeJob } from './jobs.js';

/** What {@link Queue.completeAndClaim} answers. */
export interface CompleteAndClaimResult<Payload = unknown, Result = unknown> {
  /** Per completion, in order: null when it completed, else why not (JOB_NOT_FOUND, LEASE_LOST). */
  readonly refused: (RingmasterError | null)[];
  /** When the completions were recorded (ms since the epoch, Redis clock). */
  readonly finishedAt: number;
  /** The jobs claimed, leased, in rota order. */
  readonly claimed: Job<Payload, Result>[];
  /**
   * When fewer jobs were claimed than asked on a running queue: the earliest run-at time of a
   * delayed job or reopening of a rate window (DESIGN.md §3 "Rate limits"; ms since the epoch,
   * Redis clock; compare it with `finishedAt`, the same
   * clock), so a worker waits no longer than until then; else null (no delayed job, the queue
   * is paused, or every claim was served).
   */
  readonly nextRunAt: number | null;
}

/** What {@link Queue.retry} takes besides the job and its token. */
export interface RetryOptions {
  /** Why it failed (kept as lastError and in the job's errors; cut to 1,024 characters). */
  readonly error?: string | null | undefined;
  /** The failure's stack (kept in the job's errors; cut to 8,192 characters). */
  readonly stack?: string | null | undefined;
  /**
   * Wait this long (ms, 0..2,592,000,000) before the job runs again, overriding its backoff
   * policy; 0 = at once. Default: the policy (none: at once).
   */
  readonly delayMs?: number | undefined;
}

// The names a retry's options may hold (`validate.options` refuses others).
const RETRY: validate.OptionNames<RetryOptions> = { error: true, stack: true, delayMs: true };

/** What {@link Queue.complete} takes besides the job and its token. */
export interface CompleteOptions<Result = unknown> {
  /**
   * What the job's processor returned: a JSON value by a payload's rules (DESIGN.md §5), kept
   * with the completed job while its retention keeps it; undefined or null for none.
   */
  readonly result?: Result | undefined;
}

// The names a completion's options may hold.
const COMPLETE: validate.OptionNames<CompleteOptions> = { result: true };

/** One completion of {@link Queue.completeAndClaim}: a job, its lease token and its result. */
export interface Completion<Result = unknown> {
  readonly id: string;
  readonly token: string;
  /** As {@link CompleteOptions.result}. */
  readonly result?: Result | undefined;
}

/** The options of {@link Queue.completeAndClaim}. */
export interface CompleteAndClaimOptions {
  claim?: number | undefined;
  leaseMs?: number | undefined;
  tokens?: readonly string[] | undefined;
  /** The claiming worker's id, kept with each job it claims (DESIGN.md §4.9 "Workers"). */
  workerId?: string | undefined;
}

/** The options of {@link Queue.claim}. */
export interface ClaimOptions {
  leaseMs?: number | undefined;
  token?: string | undefined;
  /** The claiming worker's id, kept with the job while it holds it (DESIGN.md §4.9). */
  workerId?: string | undefined;
}

/** What a worker says of itself at a heartbeat ({@link Queue.workerHeartbeat}). */
export interface WorkerHeartbeat {
  /** Its id (1..200 UTF-8 bytes, no control characters). */
  readonly id: string;
  readonly hostname?: string | null | undefined;
  readonly pid?: number | null | undefined;
  readonly concurrency?: number | null | undefined;
  /** Jobs it holds now (count); null or absent: a client whose leases are counted instead. */
  readonly active?: number | null | undefined;
  readonly version?: string | null | undefined;
  /** How often it beats (ms, 1..86,400,000); it lapses 3 beats after this one. */
  readonly heartbeatMs: number;
  /** A worker starting now: its startedAt is this beat (default false: kept). */
  readonly fresh?: boolean | undefined;
}

const HEARTBEAT: validate.OptionNames<WorkerHeartbeat> = {
  id: true,
  hostname: true,
  pid: true,
  concurrency: true,
  active: true,
  version: true,
  heartbeatMs: true,
  fresh: true,
};

/** A count a heartbeat reports, or null: a non-negative safe integer. */
function countOrNull(argument: string, value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw badInput(argument, 'must be a non-negative integer');
  }
  return value;
}

/** A text a heartbeat reports, or null: at most 256 UTF-8 bytes. */
function textOrNull(argument: string, value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  return validate.groupId(value, argument);
}

export class Working {
  constructor(private readonly core: QueueCore) {}

  async claim(options: ClaimOptions = {}): Promise<Job | null> {
    const opts = validate.options('options', options, {
      leaseMs: true,
      token: true,
      workerId: true,
    });
    const leaseMs = validate.leaseMs(opts.leaseMs ?? Defaults.leaseMs);
    const token = opts.token === undefined ? randomUUID() : validate.token(opts.token);
    const workerId = opts.workerId === undefined ? null : validate.workerId(opts.workerId);
    const reply = await this.core.laidOut(() =>
      this.core.commands.claim({
        leaseMs,
        token,
        defaultMaxAttempts: Defaults.maxAttempts,
        promoteBatch: Defaults.promoteBatch,
        workerId,
      }),
    );
    return decodeClaims(this.core.name, reply, [token], workerId)[0] ?? null;
  }

  async workerHeartbeat(beat: WorkerHeartbeat): Promise<number> {
    const b = validate.options('beat', beat, HEARTBEAT);
    const id = validate.workerId(b.id, 'id');
    const heartbeatMs = validate.durationMs('heartbeatMs', b.heartbeatMs);
    const [now] = await this.core.commands.workerBeat({
      id,
      hostname: textOrNull('hostname', b.hostname),
      pid: countOrNull('pid', b.pid),
      concurrency: countOrNull('concurrency', b.concurrency),
      active: countOrNull('active', b.active),
      version: textOrNull('version', b.version),
      heartbeatMs,
      fresh: b.fresh === true,
    });
    return Number(now);
  }

  async removeWorker(id: string): Promise<boolean> {
    return (await this.core.commands.workerGone(validate.workerId(id, 'id'))) === 1;
  }

  async complete(id: string, token: string, options: CompleteOptions = {}): Promise<Job> {
    const t = validate.token(token);
    const opts = validate.options('options', options, COMPLETE);
    const result = validate.result(opts.result);
    const jobId = validate.jobId(this.core.name, id);
    return this.jobFrom(jobId, await this.core.commands.complete({ id: jobId, token: t, result }));
  }

  async completeAndClaim(
    completions: readonly Completion[],
    options: CompleteAndClaimOptions = {},
  ): Promise<CompleteAndClaimResult> {
    if (!Array.isArray(completions)) throw badInput('completions', 'must be an array');
    validate.batchSize('completions', completions.length);
    const opts = validate.options('options', options, {
      claim: true,
      leaseMs: true,
      tokens: true,
      workerId: true,
    });
    if (opts.tokens != null && !Array.isArray(opts.tokens)) {
      throw badInput('tokens', 'must be an array of lease tokens');
    }
    const claim = validate.batchSize('claim', opts.claim ?? opts.tokens?.length ?? 1);
    const leaseMs = validate.leaseMs(opts.leaseMs ?? Defaults.leaseMs);
    const tokens = opts.tokens == null ? [] : Array.from(opts.tokens, (t) => validate.token(t));
    if (opts.tokens != null && tokens.length !== claim) {
      throw badInput('tokens', `must hold one token per claim (${claim})`);
    }
    while (tokens.length < claim) tokens.push(randomUUID());
    const workerId = opts.workerId === undefined ? null : validate.workerId(opts.workerId);
    const refused: (RingmasterError | null)[] = [];
    const sent: { id: string; token: string; result: string }[] = [];
    const sentAt: number[] = [];
    for (const [i, c] of completions.entries()) {
      if (c === null || typeof c !== 'object') {
        throw badInput('completions', 'each must be an object { id, token, result? }');
      }
      validate.options(`completions[${i}]`, c, { id: true, token: true, result: true });
      const token = validate.token(c.token);
      let result: string;
      try {
        result = validate.result(c.result);
      } catch (error) {
        throw inBatch(`completions[${i}]`, error);
      }
      try {
        sent.push({ id: validate.jobId(this.core.name, c.id), token, result });
        sentAt.push(i);
        refused.push(null);
      } catch (error) {
        refused.push(error as RingmasterError);
      }
    }
    const send = () =>
      this.core.commands.completeAndClaim({
        completions: sent,
        claimTokens: tokens,
        leaseMs,
        defaultMaxAttempts: Defaults.maxAttempts,
        promoteBatch: Defaults.promoteBatch,
        workerId,
      });
    // Completions alone read no payload (complete is not refused either): only a claim asks.
    const [finishedAt, statuses, claimedAt, leaseUntil, claimed, nextRunAt] =
      claim > 0 ? await this.core.laidOut(send) : await send();
    statuses.forEach((status, j) => {
      const c = sent[j] as { id: string };
      refused[sentAt[j] as number] = errorFromStatus(status, this.core.name, c.id) ?? null;
    });
    return {
      refused,
      finishedAt,
      claimed: decodeClaims(this.core.name, [claimedAt, leaseUntil, claimed], tokens, workerId),
      nextRunAt: nextRunAt ?? null,
    };
  }

  async retry(id: string, token: string, options: RetryOptions | string = {}): Promise<Job> {
    const t = validate.token(token);
    if (options !== null && typeof options !== 'object' && typeof options !== 'string') {
      throw badInput('error', 'must be a string');
    }
    const opts: RetryOptions =
      typeof options === 'string'
        ? { error: options }
        : validate.options('options', options, RETRY);
    const error = validate.failureText('error', opts.error, Defaults.errorMessageLength);
    const stack = validate.failureText('stack', opts.stack, Defaults.errorStackLength);
    const delayMs = opts.delayMs == null ? undefined : validate.delayMs(opts.delayMs);
    const jobId = validate.jobId(this.core.name, id);
    return this.jobFrom(
      jobId,
      await this.core.commands.retry({
        id: jobId,
        token: t,
        error,
        stack,
        delayMs,
        r: Math.random(),
      }),
    );
  }

  async extendLease(id: string, token: string, leaseMs: number): Promise<Job> {
    // Malformed input first (BAD_USER_INPUT), then whether the id can name a job at all.
    const t = validate.token(token);
    const ms = validate.leaseMs(leaseMs);
    const jobId = validate.jobId(this.core.name, id);
    return this.jobFrom(
      jobId,
      await this.core.commands.extendLease({ id: jobId, token: t, leaseMs: ms }),
    );
  }

  async updateJobProgress(id: string, token: string, progress: unknown): Promise<Job> {
    const t = validate.token(token);
    const text = validate.progress(progress);
    const jobId = validate.jobId(this.core.name, id);
    return this.jobFrom(
      jobId,
      await this.core.commands.updateJobProgress({ id: jobId, token: t, progress: text }),
    );
  }

  async addJobLog(id: string, token: string, line: string): Promise<JobLog> {
    const t = validate.token(token);
    const text = validate.logLine(line);
    const jobId = validate.jobId(this.core.name, id);
    const reply = await this.core.commands.addJobLog({
      id: jobId,
      token: t,
      line: text,
      kept: Defaults.logsKept,
    });
    return { at: Number(this.answered(jobId, reply)[1]), line: text };
  }

  async watchJobs(ids: readonly string[], ttlMs: number): Promise<number> {
    if (!Array.isArray(ids)) throw badInput('ids', 'must be an array of job ids');
    validate.batchSize('ids', ids.length);
    if (ids.length === 0) throw badInput('ids', 'must name at least one job');
    // Array.from visits a hole (map skips it): undefined, no job id, JOB_NOT_FOUND.
    const jobIds = Array.from(ids, (id) => validate.jobId(this.core.name, id));
    return this.core.commands.watchJobs({
      ids: jobIds,
      ttlMs: validate.durationMs('ttlMs', ttlMs),
    });
  }

  private jobFrom(id: string, reply: JobReply | number): Job {
    const [jobId, fields] = this.answered(id, reply);
    return decodeJob(this.core.name, jobId, fields);
  }

  /** A lease-checked script's reply, or the refusal its status code stands for (errors.ts). */
  private answered<T>(id: string, reply: T | number): T {
    if (typeof reply === 'number') {
      throw errorFromStatus(reply, this.core.name, id) ?? jobNotFound(this.core.name, id);
    }
    return reply;
  }
}
