/**
 * `Queue`'s producing calls: enqueue and enqueueMany (DESIGN.md §3, enqueue), with the
 * validation of one enqueue's arguments, the idempotency key's request fingerprint and the
 * runAt check on the queue's Redis clock. The contracts are on `Queue`'s methods (queue.ts),
 * which delegate here.
 */
import { createHash } from 'node:crypto';
import { Defaults } from '../defaults.js';
import { badInput, ErrorCode, inBatch, RingmasterError } from '../errors.js';
import type { BackoffArgs, EnqueueArgs } from '../scripts/commands.js';
import type { Job } from '../types.js';
import * as validate from '../validate.js';
import type { QueueCore } from './core.js';
import { decodeJob } from './jobs.js';
import { jobCost } from './rateLimits.js';

/** Options of {@link Queue.enqueue}. */
export interface EnqueueOptions {
  /** Claims before the job is dead, 1..100 (default 3). */
  readonly maxAttempts?: number | undefined;
  /** Idempotency key: 1–256 UTF-8 bytes, no control characters. */
  readonly key?: string | undefined;
  /** How long the key is remembered (ms, 1..2,592,000,000; default 86,400,000); only with `key`. */
  readonly keyTtlMs?: number | undefined;
  /** Run no sooner than this many ms from now (Redis clock), 0..2,592,000,000. */
  readonly delayMs?: number | undefined;
  /** Run no sooner than this time (ms since the epoch, Redis clock), within 30 days of now. */
  readonly runAt?: number | undefined;
  /** How long a failed attempt waits before the job runs again (DESIGN.md §3, backoff). */
  readonly backoff?: BackoffPolicyInput | undefined;
  /**
   * Its place in its group's lane: 1 (runs first) to 9 (runs last), default 5; FIFO within a
   * priority (DESIGN.md §3, "Priorities").
   */
  readonly priority?: number | undefined;
  /**
   * Tokens its claim takes from its group's rate-limit bucket, 1..1,000,000 (default 1); at
   * most the group's burst when it has a rate limit (DESIGN.md §3, "Rate limits").
   */
  readonly cost?: number | undefined;
  /**
   * Debounce (DESIGN.md §3, "Debounce"): the job runs `windowMs` (1..2,592,000,000 ms) after the
   * last enqueue with `key` (1–256 UTF-8 bytes, no control characters); while it is pending or
   * delayed, an enqueue with the same key replaces its payload and moves its run time instead
   * of making a job. Not with `key`, `delayMs` or `runAt`.
   */
  readonly debounce?: DebounceInput | undefined;
}

/** An enqueue's debounce, {@link EnqueueOptions.debounce}. */
export interface DebounceInput {
  readonly key: string;
  /** ms, 1..2,592,000,000. */
  readonly windowMs: number;
}

/** A backoff policy as given to {@link Queue.enqueue}: `maxDelayMs` and `jitter` optional. */
export interface BackoffPolicyInput {
  readonly type: 'FIXED' | 'EXPONENTIAL';
  /** ms, 0..2,592,000,000. */
  readonly delayMs: number;
  /** ms, delayMs..2,592,000,000, or null/absent for no cap (30 days at most). */
  readonly maxDelayMs?: number | null | undefined;
  /** 0..1 (default 0): the wait is cut by up to this fraction, at random. */
  readonly jitter?: number | undefined;
}

// The names each options object may hold (`validate.options` refuses others).
const ENQUEUE: validate.OptionNames<EnqueueOptions> = {
  maxAttempts: true,
  key: true,
  keyTtlMs: true,
  delayMs: true,
  runAt: true,
  backoff: true,
  priority: true,
  cost: true,
  debounce: true,
};
const ENQUEUE_JOB = { group: true, payload: true, options: true } as const;

/**
 * What an idempotency key's record compares: a SHA-256 of the request's group, maxAttempts and
 * payload JSON text (newline-separated: a group id holds no control characters, and JSON text
 * no raw newline), then its delay (`delayMs` or `runAt` as given) and backoff policy when it has
 * either or a priority other than the default, then that priority, hex. A request with none of
 * them hashes as before they existed, so keys recorded then still match (a priority of 5 is
 * the default's request). A cost other than 1 is appended last (`cost <n>`), so a request
 * without one hashes as before costs existed.
 */
function requestFingerprint(
  group: string,
  maxAttempts: number,
  payload: string,
  timing: {
    delayMs?: number | undefined;
    runAt?: number | undefined;
    backoff?: BackoffArgs | undefined;
    priority?: number | undefined;
    cost?: number | undefined;
  },
): string {
  let text = `${group}\n${maxAttempts}\n${payload}`;
  const { delayMs, runAt, backoff, priority } = timing;
  if (
    delayMs !== undefined ||
    runAt !== undefined ||
    backoff !== undefined ||
    priority !== undefined
  ) {
    const delay =
      delayMs !== undefined ? `delayMs ${delayMs}` : runAt !== undefined ? `runAt ${runAt}` : '';
    const policy = backoff
      ? `${backoff.type} ${backoff.delayMs} ${backoff.maxDelayMs ?? ''} ${backoff.jitter}`
      : '';
    text += `\n${delay}\n${policy}`;
    if (priority !== undefined) text += `\npriority ${priority}`;
  }
  if (timing.cost !== undefined) text += `\ncost ${timing.cost}`;
  return createHash('sha256').update(text).digest('hex');
}

/**
 * One enqueue's arguments, validated as DESIGN.md §5 says (BAD_USER_INPUT naming the option):
 * the group, the payload as JSON text, maxAttempts (default 3), the key with its ttl and the
 * request's fingerprint, one of delayMs and runAt, the backoff policy with its defaults, the
 * priority (1..9; the default 5 as none).
 * Used by `Queue.enqueue` and, per job, by `Queue.enqueueMany`.
 */
function enqueueArgs(group: unknown, payload: unknown, options: EnqueueOptions): EnqueueArgs {
  const g = validate.groupId(group);
  const text = validate.payload(payload);
  const opts = validate.options('options', options, ENQUEUE);
  const maxAttempts = validate.maxAttempts(opts.maxAttempts ?? Defaults.maxAttempts);
  const name = opts.key === undefined ? undefined : validate.idempotencyKey(opts.key);
  if (name === undefined && opts.keyTtlMs !== undefined) {
    throw badInput('keyTtlMs', 'applies only to an enqueue with a key');
  }
  const delayMs = opts.delayMs == null ? undefined : validate.delayMs(opts.delayMs);
  const runAt = opts.runAt == null ? undefined : validate.runAt(opts.runAt);
  if (delayMs !== undefined && runAt !== undefined) {
    throw badInput('runAt', 'cannot be given with delayMs: give one of them');
  }
  const backoff = opts.backoff == null ? undefined : validate.backoff(opts.backoff);
  // The default is sent as none: its job is written as before priorities (DESIGN.md §3).
  const given = opts.priority == null ? Defaults.priority : validate.priority(opts.priority);
  const priority = given === Defaults.priority ? undefined : given;
  const cost = jobCost(opts.cost);
  const debounce = opts.debounce == null ? undefined : validate.debounce(opts.debounce);
  if (debounce !== undefined) {
    // A debounced job's run time is its window's; an idempotency key would answer the first
    // job unchanged where debounce replaces it: one or the other (DESIGN.md §3, "Debounce").
    if (name !== undefined) {
      throw badInput('debounce', 'cannot be given with an idempotency key (key): give one of them');
    }
    if (delayMs !== undefined || runAt !== undefined) {
      throw badInput(
        'debounce',
        `cannot be given with ${delayMs !== undefined ? 'delayMs' : 'runAt'}: a debounced job runs debounce.windowMs after the last enqueue with its key`,
      );
    }
    return {
      group: g,
      payload: text,
      maxAttempts,
      key: undefined,
      delayMs: debounce.windowMs,
      runAt: undefined,
      backoff,
      priority,
      cost,
      debounce,
    };
  }
  const key =
    name === undefined
      ? undefined
      : {
          name,
          ttlMs: validate.keyTtlMs(opts.keyTtlMs ?? Defaults.keyTtlMs),
          fingerprint: requestFingerprint(g, maxAttempts, text, {
            delayMs,
            runAt,
            backoff,
            priority,
            cost,
          }),
        };
  return { group: g, payload: text, maxAttempts, key, delayMs, runAt, backoff, priority, cost };
}

/** BAD_USER_INPUT `argument`: an enqueue's runAt more than 30 days from `now` (Redis clock). */
function runAtOutOfRange(argument: string, now: string | number | undefined): RingmasterError {
  return badInput(
    argument,
    // A GraphQL client reads this: it names no Redis (DESIGN.md §5), only the clock's value.
    `must be within ${validate.Limits.maxDelayMs} ms (30 days) of now: ${now} ms since the epoch by the queue's clock`,
  );
}

/** BAD_USER_INPUT `argument`: a job's cost above the burst of its group's rate limit. */
function costOverBurst(argument: string, burst: string | number | undefined): RingmasterError {
  return badInput(
    argument,
    `must be at most the burst of the group's rate limit (${burst} tokens): a claim could never take it`,
  );
}

/**
 * GROUP_FULL: the enqueue would leave `group` holding more pending + delayed jobs than its
 * backlog bound (DESIGN.md §3, "Backlog bounds"); nothing was written.
 */
function groupFull(
  group: string,
  bound: string | number | undefined,
  held: string | number | undefined,
  adding: number,
): RingmasterError {
  return new RingmasterError(
    ErrorCode.GROUP_FULL,
    `group ${JSON.stringify(group)} is full: it holds ${held} pending and delayed jobs and its backlog bound is ${bound}, so ${adding} more would pass it; nothing was enqueued (retry once it drains, or raise its bound with setMaxPending)`,
    'group',
  );
}

export class Producing {
  constructor(private readonly core: QueueCore) {}

  async enqueue(group: string, payload?: unknown, options: EnqueueOptions = {}): Promise<Job> {
    const [job] = (await this.judgedRunAts(
      [enqueueArgs(group, payload, options)],
      () => 'runAt',
    )) as [EnqueueArgs];
    const [id, fields, outcome] = await this.core.registered(() =>
      this.core.laidOut(() =>
        this.core.commands.enqueue(job, this.core.connection.state.idFloor(this.core.keys.base)),
      ),
    );
    if (outcome === 0) this.core.connection.state.noteIds(this.core.keys.base, [id]);
    if (outcome === 2) throw this.keyConflict('key', `job ${id}`);
    if (outcome === 3) throw runAtOutOfRange('runAt', fields[1]);
    if (outcome === 4) throw groupFull(job.group, fields[0], fields[1], 1);
    if (outcome === 5) throw this.debounceOtherGroup('debounce.key', `job ${id}`, fields[1]);
    if (outcome === 7) throw costOverBurst('cost', fields[1]);
    return this.enqueued(id, fields, outcome);
  }

  async enqueueMany(
    jobs: readonly { group: string; payload?: unknown; options?: EnqueueOptions | undefined }[],
  ): Promise<Job[]> {
    if (!Array.isArray(jobs)) throw badInput('jobs', 'must be an array of jobs');
    if (jobs.length > validate.Limits.maxEnqueueBatch) {
      throw badInput('jobs', `must hold at most ${validate.Limits.maxEnqueueBatch} jobs`);
    }
    // Summed as the jobs are read, so a call far over the bound is refused at the job that
    // crosses it, before the rest is serialised.
    let payloadBytes = 0;
    // Array.from, not map: map skips a hole ([, job]), which would be sent; here it reads as
    // undefined, refused as `jobs[i]` like any job that is not an object.
    const args = Array.from(jobs, (job: unknown, i) => {
      const at = `jobs[${i}]`;
      if (job === null || typeof job !== 'object' || Array.isArray(job)) {
        throw badInput(at, 'must be an object { group, payload?, options? }');
      }
      for (const key of Object.keys(job)) {
        // An enqueue option beside `options` (`{ group, maxAttempts: 1 }`) would be ignored.
        if (Object.hasOwn(ENQUEUE, key)) {
          throw badInput(
            `${at}.${key}`,
            `is not a field of a job: give it in options (options.${key})`,
          );
        }
      }
      const { group, payload, options } = validate.options(
        at,
        job as Record<string, unknown>,
        ENQUEUE_JOB,
      );
      let parsed: EnqueueArgs;
      try {
        parsed = enqueueArgs(group, payload, options as EnqueueOptions);
      } catch (error) {
        throw inBatch(at, error);
      }
      payloadBytes += Buffer.byteLength(parsed.payload, 'utf8');
      if (payloadBytes > validate.Limits.enqueueBatchPayloadBytes) {
        throw badInput(
          'jobs',
          `payloads total ${payloadBytes} bytes of JSON text by ${at}, over the ${validate.Limits.enqueueBatchPayloadBytes} bytes one call may send: split the jobs into smaller calls`,
        );
      }
      return parsed;
    });
    if (args.length === 0) return [];
    const judged = await this.judgedRunAts(args, (i) => `jobs[${i}].runAt`);
    const reply = await this.core.registered(() =>
      this.core.laidOut(() =>
        this.core.commands.enqueueMany(
          judged,
          this.core.connection.state.idFloor(this.core.keys.base),
        ),
      ),
    );
    if (reply[0] === 2) {
      const [, index, id, first] = reply;
      throw this.keyConflict(
        `jobs[${index - 1}].key`,
        id === null ? `jobs[${(first ?? 1) - 1}] of this call` : `job ${id}`,
      );
    }
    if (reply[0] === 3) throw runAtOutOfRange(`jobs[${reply[1] - 1}].runAt`, reply[2]);
    if (reply[0] === 4) {
      const [, , group, bound, held, adding] = reply;
      throw groupFull(group, bound, held, adding);
    }
    if (reply[0] === 5) {
      const [, index, id, group, first] = reply;
      throw this.debounceOtherGroup(
        `jobs[${index - 1}].debounce.key`,
        id === null ? `jobs[${(first ?? 1) - 1}] of this call` : `job ${id}`,
        group,
      );
    }
    if (reply[0] === 7) throw costOverBurst(`jobs[${reply[1] - 1}].cost`, reply[2]);
    this.core.connection.state.noteIds(
      this.core.keys.base,
      reply[1].map(([id]) => id),
    );
    return reply[1].map(([id, fields, outcome]) => this.enqueued(id, fields, outcome));
  }

  /**
   * An enqueue script's answer for one job, decoded (outcome 0 new, 1 the key's job, 6 the
   * debounce key's job, replaced).
   */
  private enqueued(id: string, fields: string[], outcome: number): Job {
    const job = decodeJob(this.core.name, id, fields);
    // A duplicate of a job being run: its lease token is its worker's, not the producer's.
    return outcome === 1 ? { ...job, token: null } : job;
  }

  /** BAD_USER_INPUT `argument`: a debounce key whose waiting job (`by`) is of another group. */
  private debounceOtherGroup(
    argument: string,
    by: string,
    group: string | undefined,
  ): RingmasterError {
    return badInput(
      argument,
      `is the debounce key of ${by} of group ${JSON.stringify(group ?? '')} in queue ${this.core.name}, still pending or delayed: a debounce key is the queue's, not a group's; use another key for this group`,
    );
  }

  /**
   * Judge the jobs' `runAt`s on the queue's Redis clock before anything is registered or
   * written (DESIGN.md §3, "Registration"): one read of the clock (`Commands.clock`, the queue's
   * node) when a job has a runAt, none otherwise. A runAt more than 30 days from that now is
   * refused (BAD_USER_INPUT `argumentOf(i)`); a runAt at or before it is past for the script too
   * (its clock reads later), so it is sent as no runAt, which the script treats alike (a runAt
   * now or past enqueues as without one) and cannot refuse. So the script's own range check
   * can refuse only a runAt later than now but within a hair of the 30-day edge on a clock that
   * stepped back between the two reads (DESIGN.md's residual). The fingerprints of idempotency
   * keys keep the runAt as given.
   */
  private async judgedRunAts(
    jobs: EnqueueArgs[],
    argumentOf: (i: number) => string,
  ): Promise<EnqueueArgs[]> {
    if (jobs.every((job) => job.runAt === undefined)) return jobs;
    const now = await this.core.commands.clock();
    return jobs.map((job, i) => {
      if (job.runAt === undefined) return job;
      if (Math.abs(job.runAt - now) > validate.Limits.maxDelayMs) {
        throw runAtOutOfRange(argumentOf(i), now);
      }
      return job.runAt <= now ? { ...job, runAt: undefined } : job;
    });
  }

  /** BAD_USER_INPUT `argument`: an idempotency key used for another request (by `by`). */
  private keyConflict(argument: string, by: string): RingmasterError {
    return badInput(
      argument,
      `was used for ${by} of queue ${this.core.name} with a different group, payload, maxAttempts, delay, backoff or priority; use a new key for a new job`,
    );
  }
}
