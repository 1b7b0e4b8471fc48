/**
 * One queue's API: the scripts of DESIGN.md §3 plus the O(1)/O(page) reads of §2 and §4.
 * Every argument is validated first (DESIGN.md §5), so a rejected call sends nothing to Redis;
 * every options object refuses a value that is not an object and a name it does not know
 * (BAD_USER_INPUT `options.<name>`, `validate.options`; §5 "Options objects").
 *
 * Errors: {@link RingmasterError} with BAD_USER_INPUT, JOB_NOT_FOUND, LEASE_LOST or
 * DATA_OUT_OF_RANGE (a number stored in Redis that a script cannot hold exactly); with
 * REDIS_OUT_OF_MEMORY when Redis, at maxmemory, refused a call that may add memory (enqueue;
 * the steering calls, claims, completions, retries and lease extensions still run), and with
 * REDIS_UNAVAILABLE when Redis cannot be reached or cannot serve now (`fromRedisError`, applied
 * to every method below). Any other Redis error (WRONGTYPE on a key written by another writer,
 * say) is passed through from ioredis unchanged.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Defaults } from '../defaults.js';
import {
  badInput,
  codeRedisFailures,
  ErrorCode,
  errorFromStatus,
  jobNotFound,
  RingmasterError,
} from '../errors.js';
import { JOB_LAYOUT, type QueueKeys, queueKeys, queuesKey } from '../keys.js';
import type { RedisClient } from '../redis/client.js';
import type { Connection } from '../redis/connection.js';
import { closeConnection, type RedisConnection } from '../redis/connectionOption.js';
import {
  type BackoffArgs,
  Commands,
  type EnqueueArgs,
  type GroupReply,
  type HistoryArgs,
  type JobReply,
  type RetentionReply,
  type SnapshotReply,
} from '../scripts/commands.js';
import type {
  GroupInfo,
  GroupPage,
  Job,
  JobActionResult,
  JobError,
  JobPage,
  JobState,
  QueueCounts,
  QueueRetention,
  QueueSnapshot,
  QueueState,
  QueueStats,
  RateLimit,
  RetentionChange,
  SteeringOptions,
} from '../types.js';
import * as validate from '../validate.js';
import { type HistoryPage, readGroupHistory, readHistory } from './history.js';
import { decodeClaims, decodeJob, decodeJobPage } from './jobs.js';
import { decodeMetrics, METRICS_HEAD_STEPS, type QueueMetrics } from './metrics.js';
import type { AppliedOverrides, OverrideKind, TimedSteeringOptions } from './overrides.js';
import * as overrides from './overrides.js';
import { type QueueOptions, queueArguments } from './queueArguments.js';
import { rateLimit } from './rateLimits.js';
import { type ReconcileReport, reconcile, UNSETTLED } from './reconcile.js';
import { GROUP_FIELD_COUNT, groupInfo, parseCount, retentionFrom, statsFrom } from './state.js';

/** What {@link Queue.completeAndClaim} answers. */
export interface CompleteAndClaimResult {
  /** Per completion, in order: null when it completed, else why not (JOB_NOT_FOUND, LEASE_LOST). */
  readonly refused: (RingmasterError | null)[];
  /** When the completions were recorded (ms since the epoch, Redis clock). */
  readonly finishedAt: number;
  /** The jobs claimed, leased, in rota order. */
  readonly claimed: Job[];
  /**
   * When fewer jobs were claimed than asked on a running queue: the earliest run-at time of a
   * delayed job or reopening of a rate window (DESIGN.md §3 "Rate limits"; ms since the epoch,
   * Redis clock; compare it with `finishedAt`, the same
   * clock), so a worker waits no longer than until then; else null (no delayed job, the queue
   * is paused, or every claim was served).
   */
  readonly nextRunAt: number | null;
}

export { REGISTRATION_REFRESH_MS } from '../redis/connection.js';
export type { QueueOptions } from './queueArguments.js';

// The names each options object of Queue's API may hold (`validate.options` refuses others).
const STEERING: validate.OptionNames<SteeringOptions> = { actor: true };
const TIMED: validate.OptionNames<TimedSteeringOptions> = { forMs: true, actor: true };
const ENQUEUE: validate.OptionNames<EnqueueOptions> = {
  maxAttempts: true,
  key: true,
  keyTtlMs: true,
  delayMs: true,
  runAt: true,
  backoff: true,
};
const ENQUEUE_JOB = { group: true, payload: true, options: true } as const;
const RETRY: validate.OptionNames<RetryOptions> = { error: true, stack: true, delayMs: true };
const RETENTION = { completed: true, dead: true } as const;
const LIMIT = { limit: true } as const;
const PAGE = { first: true, after: true } as const;
const SELECT = { ids: true, group: true, all: true } as const;

export { Defaults } from '../defaults.js';

/**
 * What an idempotency key's record compares: a SHA-256 of the request's group, maxAttempts and
 * payload JSON text (newline-separated: a group id holds no control characters, and JSON text
 * no raw newline), then its delay (`delayMs` or `runAt` as given) and backoff policy when it has
 * either, hex. A request with neither hashes as before they existed, so keys recorded then
 * still match.
 */
function requestFingerprint(
  group: string,
  maxAttempts: number,
  payload: string,
  timing: {
    delayMs?: number | undefined;
    runAt?: number | undefined;
    backoff?: BackoffArgs | undefined;
  },
): string {
  let text = `${group}\n${maxAttempts}\n${payload}`;
  const { delayMs, runAt, backoff } = timing;
  if (delayMs !== undefined || runAt !== undefined || backoff !== undefined) {
    const delay =
      delayMs !== undefined ? `delayMs ${delayMs}` : runAt !== undefined ? `runAt ${runAt}` : '';
    const policy = backoff
      ? `${backoff.type} ${backoff.delayMs} ${backoff.maxDelayMs ?? ''} ${backoff.jitter}`
      : '';
    text += `\n${delay}\n${policy}`;
  }
  return createHash('sha256').update(text).digest('hex');
}

/**
 * One enqueue's arguments, validated as DESIGN.md §5 says (BAD_USER_INPUT naming the option):
 * the group, the payload as JSON text, maxAttempts (default 3), the key with its ttl and the
 * request's fingerprint, one of delayMs and runAt, the backoff policy with its defaults.
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
  const key =
    name === undefined
      ? undefined
      : {
          name,
          ttlMs: validate.keyTtlMs(opts.keyTtlMs ?? Defaults.keyTtlMs),
          fingerprint: requestFingerprint(g, maxAttempts, text, { delayMs, runAt, backoff }),
        };
  return { group: g, payload: text, maxAttempts, key, delayMs, runAt, backoff };
}

/**
 * A refusal of one job of a batch, named by its place: BAD_USER_INPUT `group` of job 3 becomes
 * `jobs[3].group` (message `jobs[3].group: …`); any other error is passed on unchanged.
 */
function inJob(at: string, error: unknown): unknown {
  if (!(error instanceof RingmasterError) || error.code !== ErrorCode.BAD_USER_INPUT) return error;
  const argument = error.argument ?? '';
  const message = error.message.startsWith(`${argument}: `)
    ? error.message.slice(argument.length + 2)
    : error.message;
  return badInput(argument === '' ? at : `${at}.${argument}`, message);
}

/** BAD_USER_INPUT `argument`: an enqueue's runAt more than 30 days from `now` (Redis clock). */
function runAtOutOfRange(argument: string, now: string | number | undefined): RingmasterError {
  return badInput(
    argument,
    // A GraphQL client reads this: it names no Redis (DESIGN.md §5), only the clock's value.
    `must be within ${validate.Limits.maxDelayMs} ms (30 days) of now: ${now} ms since the epoch by the queue's clock`,
  );
}

/** A failed attempt's entries as `retry-12.lua` and `reap-12.lua` push them (JSON text). */
function decodeErrors(entries: readonly string[]): JobError[] {
  const errors: JobError[] = [];
  for (const entry of entries) {
    try {
      const e = JSON.parse(entry) as Record<string, unknown>;
      errors.push({
        attempt: typeof e.attempt === 'number' ? e.attempt : 0,
        at: typeof e.at === 'number' ? e.at : 0,
        message: typeof e.message === 'string' ? e.message : '',
        stack: typeof e.stack === 'string' ? e.stack : null,
      });
    } catch {
      // Another writer's entry that is not JSON: not one of ours, skipped.
    }
  }
  return errors;
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

/** {@link Queue.promote}'s answer: the job after the call, and whether it was moved. */
export interface PromotedJob extends Job {
  /** True when it was delayed and is now pending; false when it was not delayed (unchanged). */
  readonly promoted: boolean;
}

export class Queue {
  /** The queue name (validated). */
  readonly name: string;
  /** The key prefix `P` its keys are under (DESIGN.md §2; `QueueOptions.prefix`). */
  readonly prefix: string;
  /** Its keys (DESIGN.md §2). */
  readonly keys: QueueKeys;
  /** The connection shared by all calls (not used for blocking commands). */
  readonly redis: RedisClient;
  private readonly connection: Connection;
  /** This handle opened `redis` (from a URL or options) and {@link close} closes it. */
  private readonly owned: boolean;
  private closing: Promise<void> | undefined;
  private readonly commands: Commands;
  private readonly registry: string;
  /** Who steering calls are recorded as when they name no actor (history, DESIGN.md §4.6). */
  readonly actor: string;
  /** The queue history stream's cap (count). */
  readonly historyMaxLen: number;

  /**
   * Two shapes (DESIGN.md §4.1, "Connections"):
   * - `new Queue(name, { connection, prefix?, actor?, historyMaxLen? })`, BullMQ's order:
   *   `connection` an ioredis client (the caller's to close), or a `redis://`/`rediss://` URL
   *   or ioredis options naming the server, from which the queue opens a `Redis` it owns and
   *   {@link close} closes;
   * - `new Queue(connection, name, { prefix?, actor?, historyMaxLen? })`: `connection` an
   *   ioredis client, or the engine's {@link Connection} on one (as `Ringmaster.queue` passes),
   *   whose registration cache the handles made on it share (a bare client's is
   *   `Connection.of(client)`, the same for every handle on it).
   *
   * The connection is shared by all calls (not used for blocking commands).
   * @throws RingmasterError BAD_USER_INPUT, one line ending with the right call, for any other
   *   shape (a first argument that is neither a name nor a client, options missing or not an
   *   object, `connection` missing or not a connection, a URL of another scheme), when `name`
   *   is not a valid queue name, or when the client moves keys (ioredis `keyPrefix`, …: see
   *   `assertPlainKeys`); nothing is opened then
   */
  constructor(name: string, options: QueueOptions & { readonly connection: RedisConnection });
  constructor(
    connection: RedisClient | Connection,
    name: string,
    options?: Omit<QueueOptions, 'connection'>,
  );
  constructor(first: string | RedisClient | Connection, second: unknown, third?: unknown) {
    const args = queueArguments(first, second, third);
    this.name = args.name;
    this.prefix = args.prefix;
    this.connection = args.connection;
    this.redis = args.connection.redis;
    this.owned = args.owned;
    this.keys = queueKeys(this.prefix, this.name);
    this.registry = queuesKey(this.prefix);
    this.commands = new Commands(this.connection, this.keys);
    this.actor = args.actor;
    this.historyMaxLen = args.historyMaxLen;
  }

  /**
   * Close the connection this handle opened from a URL or options (QUIT once the replies of
   * the calls sent before arrive; DESIGN.md §4.1, "Connections"). A handle given a client
   * (or made by `Ringmaster.queue`) closes nothing: the client is its owner's. Calls after it
   * fail as ioredis fails them on a closed connection. Resolves once closed; never throws.
   */
  close(): Promise<void> {
    this.closing ??= this.owned ? closeConnection(this.redis) : Promise.resolve();
    return this.closing;
  }

  /**
   * The history ARGV every steering script takes (`historyArgs` in includes/history.lua):
   * [actor, cap] — the call's actor, else this handle's, and the queue stream's cap (count).
   * Checks the options object first (`validate.options`, names `known`, refused as `path`), so
   * a steering call computes it before anything is sent.
   * @throws RingmasterError BAD_USER_INPUT for options that are not an object or hold an
   *   unknown name
   */
  protected historyArgs(
    options?: SteeringOptions,
    path = 'options',
    known: validate.OptionNames<SteeringOptions> = STEERING,
  ): [actor: string, cap: number] {
    const given = validate.options(path, options, known).actor;
    return [
      given == null ? this.actor : validate.actor(given, `${path}.actor`),
      this.historyMaxLen,
    ];
  }

  // ── steering (admin) ─────────────────────────────────────────────────────────────────

  /**
   * Set `group`'s limit to `limit` jobs in flight (0 parks it). De-rings it at once when
   * active >= limit; re-rings it with a wake when the new limit makes it serviceable.
   * Script: `setLimit-8.lua` . Registers the group and the queue.
   * With `options.forMs` it is a timed override (DESIGN.md §4.8): the limit reverts at Redis
   * now + forMs (ms) to the limit before the first pending timed one (null: none); without, a
   * pending limit revert is dropped (the latest plain call wins); a timed call whose revert
   * would be the limit it sets is that plain call (no override). Recorded in the history as
   * `options.actor` (default: the handle's `actor`).
   * @throws RingmasterError BAD_USER_INPUT (argument `group`, `limit` or `forMs`: 1..30 days);
   *   DATA_OUT_OF_RANGE (the group's active count); nothing is written then
   */
  async setLimit(
    group: string,
    limit: number,
    options: TimedSteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const n = validate.limit(limit);
    const history = this.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.setLimit({ group: g, limit: n, forMs: ms, history })),
    );
  }

  /**
   * Remove `group`'s limit; re-ring it if that makes it serviceable. Drops a pending timed limit
   * revert (DESIGN.md §4.8). Script: `clearLimit-8.lua`.
   */
  async clearLimit(group: string, options: SteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.historyArgs(options);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.clearLimit({ group: g, history })),
    );
  }

  /**
   * Allow `group` at most `limit.max` claims per `limit.windowMs` (fixed windows, DESIGN.md §3
   * "Rate limits"), on top of its concurrency limit. The claim that reaches `max` takes the group
   * off the ring until its window reopens (then a claim or the reaper puts it back with a wake).
   * The current window is judged under the new rate at once: a higher max (or a shorter window
   * that has ended) frees a rate-limited group now; a max at or below the claims already made
   * in the window rate-limits it now. Registers the group and the queue; recorded in the
   * history (`setRateLimit`). Script: `setRateLimit-8.lua` (runs at maxmemory).
   * @param limit `max` claims per window, an integer 1..1,000,000; `windowMs` ms, 1..2,592,000,000
   * @throws RingmasterError BAD_USER_INPUT (`group`, `rateLimit`, `max`, `windowMs`) before
   *   anything is sent; DATA_OUT_OF_RANGE (nothing written) for an active count it cannot read
   */
  async setRateLimit(
    group: string,
    limit: RateLimit,
    options?: SteeringOptions,
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const { max, windowMs } = rateLimit(limit);
    const history = this.historyArgs(options);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.setRateLimit({ group: g, max, windowMs, history })),
    );
  }

  /**
   * Remove `group`'s rate limit (its window too): a rate-limited group is freed at once,
   * re-ringed with a wake when serviceable. Recorded in the history (`clearRateLimit`).
   * Script: `clearRateLimit-8.lua` (runs at maxmemory).
   * @throws RingmasterError BAD_USER_INPUT (`group`) before anything is sent
   */
  async clearRateLimit(group: string, options?: SteeringOptions): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.historyArgs(options);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.clearRateLimit({ group: g, history })),
    );
  }

  /**
   * Pause `group`: no job of it is claimed after this returns; its backlog and active jobs
   * are untouched. Script: `pause-7.lua` . With `options.forMs` (ms, 1..30
   * days) a timed pause: at Redis now + forMs the group goes back to whether it was paused
   * before the first pending timed pause (DESIGN.md §4.8); without — or when that is "paused"
   * already, so nothing would revert — the plain pause: a pending pause revert is dropped.
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `forMs`)
   */
  async pause(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.pause({ group: g, forMs: ms, history })),
    );
  }

  /**
   * Resume `group`; it re-joins the ring only if serviceable. Script: `resume-8.lua`. With
   * `options.forMs` (ms, 1..30 days) a timed resume: at Redis now + forMs the group goes back to
   * whether it was paused before the first pending timed pause or resume — paused again, for a
   * group that was paused (DESIGN.md §4.8); it is an override of the pause kind, so a plain
   * pause or resume drops it and `cancelOverride(group, 'pause')` cancels it. Without — or
   * when that is "running", so nothing would revert (a group not paused, or under a timed
   * pause) — the plain resume: a pending pause revert is dropped.
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `forMs`)
   */
  async resume(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const history = this.historyArgs(options, 'options', TIMED);
    const ms = overrides.forMs(options?.forMs);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.resume({ group: g, forMs: ms, history })),
    );
  }

  /**
   * Pause the whole queue: once this returns no job is claimed, from any group, until
   * {@link resumeQueue}. Completions, retries, lease extensions, reaping and the promotion of
   * due delayed jobs go on, and the ring and every group's state are left as they are (the
   * queue's pause is a gate in front of the rota; DESIGN.md §3). Idempotent. Registers the
   * queue. Script: `pauseQueue-1.lua` (runs at maxmemory). Recorded in the history (DESIGN.md
   * §4.6) as `pauseQueue`, before and after `{ paused }`, even when it was paused already.
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns 'PAUSED'
   */
  async pauseQueue(options?: SteeringOptions): Promise<QueueState> {
    const history = this.historyArgs(options);
    await this.steered(() => this.commands.pauseQueue(history));
    return 'PAUSED';
  }

  /**
   * End the queue's pause: claims run again from the ring as it stands, and parked workers are
   * woken (a wake token is pushed when the queue was paused). Idempotent. Registers the queue.
   * Script: `resumeQueue-2.lua` (runs at maxmemory). Recorded in the history as `resumeQueue`.
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns 'RUNNING'
   */
  async resumeQueue(options?: SteeringOptions): Promise<QueueState> {
    const history = this.historyArgs(options);
    await this.steered(() => this.commands.resumeQueue(history));
    return 'RUNNING';
  }

  /**
   * Set the queue's retention of completed and/or dead jobs (DESIGN.md §2, "Retention"); a
   * policy or field left out keeps what the queue has. Nothing is trimmed at once: each
   * completion (or death) trims at most 2 jobs past the policy per job it keeps, and the reaper
   * trims by count and age every pass. Registers the queue. Script: `setRetention-1.lua`.
   * @param policies.completed completed jobs kept: `count` 0..1,000,000 (0: a completed job's
   *   hash is deleted at once, the fastest path), `ageMs` 1..31,536,000,000 ms or null (no age
   *   bound)
   * @param policies.dead dead jobs kept, the same bounds (count 0: a job that dies is counted
   *   in `stats.dead` and forgotten)
   * @param options.actor who asks (history, DESIGN.md §4.6: `setRetention`, before and after
   *   the policies in force); default this handle's `actor`
   * @returns the policies in force after, defaults filled in
   * @throws RingmasterError BAD_USER_INPUT (argument `completed` or `dead`) for a policy that is
   *   not an object or a count or age out of range; nothing is written (nor recorded) then
   */
  async setRetention(
    policies: { completed?: RetentionChange | undefined; dead?: RetentionChange | undefined } = {},
    options?: SteeringOptions,
  ): Promise<QueueRetention> {
    if (policies === null || typeof policies !== 'object') {
      throw badInput('completed', 'setRetention takes { completed?, dead? }');
    }
    validate.options('policies', policies, RETENTION);
    const history = this.historyArgs(options);
    const completed =
      policies.completed === undefined
        ? {}
        : validate.retentionChange('completed', policies.completed);
    const dead = policies.dead === undefined ? {} : validate.retentionChange('dead', policies.dead);
    const count = (n: number | undefined) => (n === undefined ? '' : String(n));
    const age = (ms: number | null | undefined) =>
      ms === undefined ? '' : ms === null ? 'none' : String(ms);
    const reply = await this.steered(() =>
      this.commands.setRetention({
        completedCount: count(completed.count),
        completedAgeMs: age(completed.ageMs),
        deadCount: count(dead.count),
        deadAgeMs: age(dead.ageMs),
        history,
      }),
    );
    return retentionReply(reply);
  }

  /**
   * Give `group` `weight` turns in a row each time the rota comes round to it: `weight` claims
   * per round of the ring (DESIGN.md §3, "Weights"); 1, the default, deletes the field. The ring
   * is not reordered, except that a group mid-round whose turns already reach a lowered weight
   * ends its round now (head to tail). Registers the group and the queue; recorded in the
   * steering history as `setWeight`. Script: `setWeight-8.lua` (runs at maxmemory).
   * @param weight turns per round, an integer 1..1,000
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `weight`); nothing is sent then
   */
  async setWeight(group: string, weight: number, options?: SteeringOptions): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const w = validate.weight(weight);
    const history = this.historyArgs(options);
    return this.groupFrom(
      g,
      await this.steered(() => this.commands.setWeight({ group: g, weight: w, history })),
    );
  }

  // ── jobs (worker) ────────────────────────────────────────────────────────────────────

  /**
   * Add a job to the tail of `group`'s lane. `payload` is any JSON value (≤ 524,288 bytes
   * as JSON text). Script: `enqueue-12.lua`.
   *
   * With `delayMs` or `runAt` in the future (Redis clock) the job is DELAYED instead: kept in
   * `P:{Q}:delayed` and its group's delayed index with its `runAt`, not pending, its group not
   * re-ringed (a group whose only work is delayed is not serviceable); once due, promotion (a
   * claim, the reaper, or {@link promote}) puts it in its lane at its FIFO place (its id).
   * A `runAt` now or past (or `delayMs` 0) enqueues as without one.
   *
   * Without `key`, delivery of the call is at least once: a call retried after its reply was
   * lost (by the caller, or by ioredis resending it after a reconnect) adds a second job. With
   * `key`, the same key within this queue answers the job it made, for
   * `keyTtlMs` after that first enqueue, and writes nothing: the job as it is now (token left
   * out: the lease is its worker's), or, once it is gone to reads, the group, payload,
   * maxAttempts and enqueuedAt it was made with (attempts 0, finishedAt and lastError null:
   * not kept): finished and past its retention age, in the state its hash says (COMPLETED or
   * DEAD); its hash deleted (trimmed or removed), state COMPLETED, standing for finished
   * (completed or dead) or removed — which one the key does not keep. The key is checked
   * before anything is written.
   * @param options.maxAttempts claims before the job is dead, 1..100 (default 3)
   * @param options.key idempotency key: 1–256 UTF-8 bytes, no control characters
   * @param options.keyTtlMs how long the key is remembered, ms, 1..2,592,000,000 (default
   *   86,400,000: 24 h); only with `key`
   * @param options.delayMs run no sooner than now + delayMs (ms, 0..2,592,000,000)
   * @param options.runAt run no sooner than this (ms since the epoch, Redis clock; within
   *   2,592,000,000 ms — 30 days — of the Redis clock's now); not with `delayMs`
   * @param options.backoff the job's retry policy (DESIGN.md §3, backoff): `{ type: 'FIXED' |
   *   'EXPONENTIAL', delayMs, maxDelayMs?, jitter? }`, stored on the job
   * @throws RingmasterError BAD_USER_INPUT for bad input (argument `runAt` also for a runAt
   *   more than 30 days from now, and for delayMs and runAt together), or (argument `key`) when
   *   the key was used within its window for a different request — another group, payload (as
   *   JSON text), maxAttempts, delay or backoff; DATA_OUT_OF_RANGE (see the script)
   */
  async enqueue(group: string, payload?: unknown, options: EnqueueOptions = {}): Promise<Job> {
    const [job] = (await this.judgedRunAts(
      [enqueueArgs(group, payload, options)],
      () => 'runAt',
    )) as [EnqueueArgs];
    const [id, fields, outcome] = await this.registered(() =>
      this.laidOut(() => this.commands.enqueue(job, this.connection.state.idFloor(this.keys.base))),
    );
    if (outcome === 0) this.connection.state.noteIds(this.keys.base, [id]);
    if (outcome === 2) throw this.keyConflict('key', `job ${id}`);
    if (outcome === 3) throw runAtOutOfRange('runAt', fields[1]);
    return this.enqueued(id, fields, outcome);
  }

  /**
   * Enqueue many jobs in one atomic call (BullMQ's `addBulk`, Sidekiq's `push_bulk`):
   * each job `{ group, payload?, options? }` exactly as {@link enqueue} would take and answer
   * it, in input order, with one script call (`enqueueMany-9.lua`) instead of one per job.
   * Every job is validated first, as enqueue validates it, and then judged by the script before
   * its first write (runAt within 30 days of the Redis clock, idempotency keys, the id counter,
   * the groups' active counts): one bad job refuses the whole call and nothing is written.
   * Ids are minted in input order, one after the other, as enqueues one by one would mint them.
   *
   * Idempotency keys: a key used before the call answers its job (token left out), as enqueue
   * does; two jobs of the call with the same key and the same request make one job, the second
   * answering the first's; a key used for a different request refuses the call.
   * @param jobs 0..1,000 jobs (`Limits.maxEnqueueBatch`) whose payloads' JSON text totals at
   *   most 16,777,216 bytes (`Limits.enqueueBatchPayloadBytes`); an empty list answers [] and
   *   sends nothing
   * @returns the jobs, in input order (PENDING, DELAYED with `runAt`, or a key's job as it is)
   * @throws RingmasterError BAD_USER_INPUT naming the job: argument `jobs` (not an array, more
   *   than 1,000, or payloads over 16,777,216 bytes in all), `jobs[i]` (not an object), `jobs[i].group`, `jobs[i].payload`,
   *   `jobs[i].maxAttempts`, `jobs[i].key`, `jobs[i].keyTtlMs`, `jobs[i].delayMs`,
   *   `jobs[i].runAt`, `jobs[i].backoff` (i from 0) — as {@link enqueue} refuses them;
   *   DATA_OUT_OF_RANGE (see the script). Nothing is written then.
   */
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
        throw inJob(at, error);
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
    const reply = await this.registered(() =>
      this.laidOut(() =>
        this.commands.enqueueMany(judged, this.connection.state.idFloor(this.keys.base)),
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
    this.connection.state.noteIds(
      this.keys.base,
      reply[1].map(([id]) => id),
    );
    return reply[1].map(([id, fields, outcome]) => this.enqueued(id, fields, outcome));
  }

  /** An enqueue script's answer for one job, decoded (outcome 0 new, 1 the key's job). */
  private enqueued(id: string, fields: string[], outcome: number): Job {
    const job = decodeJob(this.name, id, fields);
    // A duplicate of a job being run: its lease token is its worker's, not the producer's.
    return outcome === 1 ? { ...job, token: null } : job;
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
    const now = await this.commands.clock();
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
      `was used for ${by} of queue ${this.name} with a different group, payload, maxAttempts, delay or backoff; use a new key for a new job`,
    );
  }

  /**
   * Claim the next job of the rota (the head group of the ring), leased for `leaseMs` ms
   * under `token` (a random UUID when omitted). Up to `Defaults.promoteBatch` (100) delayed
   * jobs whose run-at time has come are promoted to their lanes first. Null when no group is
   * serviceable, or while the queue is paused ({@link pauseQueue}).
   * Script: `claim-10.lua`.
   */
  async claim(
    options: { leaseMs?: number | undefined; token?: string | undefined } = {},
  ): Promise<Job | null> {
    const opts = validate.options('options', options, { leaseMs: true, token: true });
    const leaseMs = validate.leaseMs(opts.leaseMs ?? Defaults.leaseMs);
    const token = opts.token === undefined ? randomUUID() : validate.token(opts.token);
    const reply = await this.laidOut(() =>
      this.commands.claim({
        leaseMs,
        token,
        defaultMaxAttempts: Defaults.maxAttempts,
        promoteBatch: Defaults.promoteBatch,
      }),
    );
    return decodeClaims(this.name, reply, [token])[0] ?? null;
  }

  /**
   * Complete active job `id` leased under `token`: its permit is released, and the job is kept
   * by the queue's completed retention (state COMPLETED with finishedAt, listed in `completed`,
   * the oldest past the policy trimmed) or, with retention count 0, its hash deleted. Returns
   * the job as it was, state COMPLETED, the same either way. Script: `complete-11.lua`.
   * @throws RingmasterError BAD_USER_INPUT (a malformed token, checked before the id),
   *   JOB_NOT_FOUND, LEASE_LOST (stale or wrong token, not active)
   */
  async complete(id: string, token: string): Promise<Job> {
    const t = validate.token(token);
    const jobId = validate.jobId(this.name, id);
    return this.jobFrom(jobId, await this.commands.complete({ id: jobId, token: t }));
  }

  /**
   * Complete the jobs a worker finished and claim jobs for its free slots, in one atomic
   * script and one round trip: each completion as {@link complete}, in order, then up to
   * `claim` claims as {@link claim}, until nothing is serviceable. The claims happen whatever
   * the completions' answers (the caller's slots are free either way). A busy worker sends one
   * call per batch of jobs, not one per job. The completed jobs are kept or deleted by the
   * queue's completed retention (as {@link complete}); before claiming, up to
   * `Defaults.promoteBatch` due delayed jobs are promoted; a paused queue claims nothing.
   * Script: `completeAndClaim-11.lua`.
   * @param completions up to 1,000 `{ id, token }`; an id that is not a decimal string is
   *   answered JOB_NOT_FOUND without being sent
   * @param options.claim jobs to claim (count, 0..1,000; default 1)
   * @param options.leaseMs their lease (ms, 1..86,400,000; default 30,000)
   * @param options.tokens their lease tokens, one per claim (default: random UUIDs)
   * @returns `refused`: per completion, null when it completed, else the RingmasterError
   *   (JOB_NOT_FOUND, LEASE_LOST) that refused it; `finishedAt`: when the completions were
   *   recorded (ms, Redis clock); `claimed`: the jobs leased, in rota order (fewer than
   *   `claim` when the ring ran out); `nextRunAt`: see {@link CompleteAndClaimResult}
   * @throws RingmasterError BAD_USER_INPUT for a bad token, count or leaseMs (nothing is done)
   */
  async completeAndClaim(
    completions: readonly { id: string; token: string }[],
    options: {
      claim?: number | undefined;
      leaseMs?: number | undefined;
      tokens?: readonly string[] | undefined;
    } = {},
  ): Promise<CompleteAndClaimResult> {
    if (!Array.isArray(completions)) throw badInput('completions', 'must be an array');
    validate.batchSize('completions', completions.length);
    const opts = validate.options('options', options, { claim: true, leaseMs: true, tokens: true });
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
    const refused: (RingmasterError | null)[] = [];
    const sent: { id: string; token: string }[] = [];
    const sentAt: number[] = [];
    for (const [i, c] of completions.entries()) {
      if (c === null || typeof c !== 'object') {
        throw badInput('completions', 'each must be an object { id, token }');
      }
      validate.options(`completions[${i}]`, c, { id: true, token: true });
      const token = validate.token(c.token);
      try {
        sent.push({ id: validate.jobId(this.name, c.id), token });
        sentAt.push(i);
        refused.push(null);
      } catch (error) {
        refused.push(error as RingmasterError);
      }
    }
    const send = () =>
      this.commands.completeAndClaim({
        completions: sent,
        claimTokens: tokens,
        leaseMs,
        defaultMaxAttempts: Defaults.maxAttempts,
        promoteBatch: Defaults.promoteBatch,
      });
    // Completions alone read no payload (complete is not refused either): only a claim asks.
    const [finishedAt, statuses, claimedAt, leaseUntil, claimed, nextRunAt] =
      claim > 0 ? await this.laidOut(send) : await send();
    statuses.forEach((status, j) => {
      const c = sent[j] as { id: string };
      refused[sentAt[j] as number] = errorFromStatus(status, this.name, c.id) ?? null;
    });
    return {
      refused,
      finishedAt,
      claimed: decodeClaims(this.name, [claimedAt, leaseUntil, claimed], tokens),
      nextRunAt: nextRunAt ?? null,
    };
  }

  /**
   * Give active job `id` back after a failed attempt: its permit is released now, the failure
   * recorded — an entry `{ attempt, at, message, stack }` on its error list (newest first, the
   * last `Defaults.errorsKept` kept; see {@link job}) and `error` as its lastError (an empty one
   * clears it: lastError is always the last attempt's reason) — and the job returns to the front of its group's lane, or
   * waits DELAYED (`runAt`) for `delayMs` when given, else for its backoff policy's wait, or
   * is DEAD once attempts reached maxAttempts (kept by the queue's dead retention, with its
   * group's dead index; a retention count of 0 forgets it at once: the answer is then the job
   * as it was). Script: `retry-12.lua`.
   * @param options `{ error, stack, delayMs }` ({@link RetryOptions}), or the error message
   *   alone (the older form `retry(id, token, error)`). `error` is cut to
   *   `Defaults.errorMessageLength` (1,024) characters, `stack` to `Defaults.errorStackLength`
   *   (8,192), before anything is sent
   * @returns the job after the retry: PENDING, DELAYED (with runAt) or DEAD
   * @throws RingmasterError BAD_USER_INPUT (a malformed token; `delayMs` not an integer in
   *   0..2,592,000,000; `error` or `stack` not a string), JOB_NOT_FOUND, LEASE_LOST,
   *   DATA_OUT_OF_RANGE
   */
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
    const jobId = validate.jobId(this.name, id);
    return this.jobFrom(
      jobId,
      await this.commands.retry({ id: jobId, token: t, error, stack, delayMs, r: Math.random() }),
    );
  }

  /**
   * Register jobs `ids` as watched until now + `ttlMs` (Redis clock; a registration only ever
   * moves later), so every script that changes one's state appends the change to its event
   * list `P:{Q}:job:<id>:events` (DESIGN.md §4.4, `jobChanged`). The live feed calls it when it
   * starts watching a job and every `ttlMs / 3` after; the reaper drops registrations past
   * their time, and the key expires with its latest registration (its TTL raised to `ttlMs`
   * when shorter or absent, never lowered). Script: `watchJobs-1.lua`. Answers the
   * registrations' end (ms, Redis clock).
   * @throws RingmasterError BAD_USER_INPUT when `ids` is empty or holds more than 1,000, or
   *   `ttlMs` is not an integer in 1..86,400,000; JOB_NOT_FOUND for an id that is not a
   *   decimal string (nothing is registered)
   */
  async watchJobs(ids: readonly string[], ttlMs: number): Promise<number> {
    if (!Array.isArray(ids)) throw badInput('ids', 'must be an array of job ids');
    validate.batchSize('ids', ids.length);
    if (ids.length === 0) throw badInput('ids', 'must name at least one job');
    // Array.from visits a hole (map skips it): undefined, no job id, JOB_NOT_FOUND.
    const jobIds = Array.from(ids, (id) => validate.jobId(this.name, id));
    return this.commands.watchJobs({ ids: jobIds, ttlMs: validate.durationMs('ttlMs', ttlMs) });
  }

  /**
   * Push active job `id`'s lease deadline to now + `leaseMs` (Redis clock).
   * Script: `extendLease-2.lua`.
   * @throws RingmasterError BAD_USER_INPUT, JOB_NOT_FOUND, LEASE_LOST
   */
  async extendLease(id: string, token: string, leaseMs: number): Promise<Job> {
    // Malformed input first (BAD_USER_INPUT), then whether the id can name a job at all.
    const t = validate.token(token);
    const ms = validate.leaseMs(leaseMs);
    const jobId = validate.jobId(this.name, id);
    return this.jobFrom(
      jobId,
      await this.commands.extendLease({ id: jobId, token: t, leaseMs: ms }),
    );
  }

  /**
   * The queue's housekeeping, in batches of `batch` (default 1,000) per script call, repeated
   * while any batch came back full: every job whose lease has passed is retried as
   * {@link retry} would (permit released exactly once; error 'lease expired'; its backoff
   * applies), due delayed jobs are promoted to their lanes, retained completed and dead
   * jobs past their retention are trimmed, and job watches past their time dropped (§4.4). Returns how many jobs were reaped (expired leases).
   * Each call removes what it counts from where it was (active, delayed, an index), so the
   * loop ends. Script: `reap-12.lua`. Then the groups no call has registered for
   * `groupGraceMs` (ms, 0..2,592,000,000; default 1 h, `Defaults.groupGraceMs`) and left idle
   * and unset are forgotten (DESIGN.md §3 "Forgetting groups"; `forgetGroups-5.lua`, 500
   * groups per call, repeated while a call comes back full and forgot one).
   * @throws RingmasterError BAD_USER_INPUT when `batch` is not an integer in 1..10,000 or
   *   `groupGraceMs` out of its range
   */
  async reap(options: { batch?: number; groupGraceMs?: number } = {}): Promise<number> {
    const opts = validate.options('options', options, { batch: true, groupGraceMs: true });
    const batch = validate.reapBatch(opts.batch ?? Defaults.reapBatch);
    const graceMs = validate.groupGraceMs(opts.groupGraceMs ?? Defaults.groupGraceMs);
    this.watchState();
    let total = 0;
    for (;;) {
      const counts = await this.commands.reap({ batch, r: Math.random() });
      total += counts[0];
      const full = Math.max(...counts) >= batch;
      if (!full) break;
    }
    const forgetBatch = Defaults.forgetBatch;
    for (;;) {
      const [forgotten, kept] = await this.commands.forgetGroups({ graceMs, batch: forgetBatch });
      // A kept group is judged again one grace later, so with a grace shorter than a call
      // it is due again at once: go on only while a call forgets something.
      if (forgotten === 0 || forgotten + kept < forgetBatch) return total;
    }
  }

  // ── operator actions (admin) ─────────────────────────────────────────────────────────

  /**
   * Put dead jobs back to work (DESIGN.md §3 and §4.1, "Operator actions"; script
   * `requeueDead-8.lua`, one atomic call): each returns to its own group's lane at its original
   * FIFO place (it runs before the jobs enqueued after it), state PENDING, attempts reset to 0
   * unless `resetAttempts` is false (kept, a job that had used them all gets one more attempt),
   * lastError and error history kept. A group this makes serviceable is re-ringed with a wake.
   * Counted in `stats.requeued`; `stats.pending` grows by the jobs added.
   *
   * One call handles at most `limit` jobs: with a group or `all`, loop while `remaining` > 0
   * (and the last call did something: an ACTIVE job that is also listed dead, damage `audit`
   * reports, is skipped every time).
   * @param select `{ ids }` (1..1,000 job ids; one that is not dead, or is ACTIVE, or is not a
   *   decimal id, is skipped), `{ group }` (its dead jobs, oldest-dead first) or `{ all: true }`
   *   (the queue's, oldest-dead first)
   * @param options.resetAttempts default true
   * @param options.limit jobs per call for a group or all, 1..1,000 (default 1,000)
   * @param steering.actor who asks (history, DESIGN.md §4.6: `requeueDead`); default this
   *   handle's `actor`. A call that sends nothing (every id malformed) records nothing
   * @returns `{ count }` requeued, `{ remaining }` dead jobs still in the group's or queue's
   *   index (0 for ids), `{ skipped }` left alone
   * @throws RingmasterError BAD_USER_INPUT (argument `ids`, `group`, `limit` or
   *   `resetAttempts`): ids empty, over 1,000 or not an array, ids with a group or all, none of
   *   them, a bad group id or limit; DATA_OUT_OF_RANGE (see the script)
   */
  async requeueDead(
    select: { ids: readonly string[] } | { group: string } | { all: true },
    options: { resetAttempts?: boolean | undefined; limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    const chosen = selection(select, false);
    const opts = validate.options('options', options, { resetAttempts: true, limit: true });
    const history = this.historyArgs(steering, 'steering');
    const resetAttempts = opts.resetAttempts ?? true;
    if (typeof resetAttempts !== 'boolean') throw badInput('resetAttempts', 'must be a boolean');
    const limit = validate.actionLimit(opts.limit ?? Defaults.actionLimit);
    if ('ids' in chosen && chosen.ids.length === 0) {
      return { count: 0, remaining: 0, skipped: chosen.malformed };
    }
    const [count, remaining, skipped] = await this.commands.requeueDead({
      resetAttempts,
      limit,
      select: chosen,
      history,
    });
    return { count, remaining, skipped: skipped + ('ids' in chosen ? chosen.malformed : 0) };
  }

  /**
   * Delete jobs that are not running (DESIGN.md §3 and §4.1, "Operator actions"; script
   * `removeJobs-10.lua`, one atomic call): PENDING, DELAYED, DEAD or retained COMPLETED. Each
   * leaves every index it is in and its hash and error history are deleted; a group whose lane
   * this empties leaves the ring. ACTIVE jobs are never touched. Counted in `stats.removed`;
   * `stats.pending` and `stats.delayed` shrink by the jobs taken from lanes and `delayed`.
   * An idempotency key of a removed job answers as for a job whose hash is gone (DESIGN.md §3,
   * enqueue).
   *
   * One call handles at most `limit` jobs of a group or the queue: loop while `remaining` > 0
   * (and the last call did something).
   * @param select `{ ids }` (1..1,000 job ids, optionally only those in `state`; an ACTIVE, a
   *   missing or a malformed id, or a job in another state, is skipped), `{ group, state }` (the
   *   group's jobs in that state: its lane in run order, else oldest first) or
   *   `{ all: true, state }` (DELAYED, DEAD or COMPLETED of the whole queue, oldest first)
   * @param options.limit jobs per call for a group or all, 1..1,000 (default 1,000)
   * @param steering.actor who asks (history, DESIGN.md §4.6: `removeJobs`, or `purgeGroup` for a
   *   group's PENDING); default this handle's `actor`. A call that sends nothing records nothing
   * @returns `{ count }` removed, `{ remaining }` jobs still in the group's or queue's index of
   *   that state (0 for ids), `{ skipped }` left alone
   * @throws RingmasterError BAD_USER_INPUT (argument `ids`, `group`, `state` or `limit`): ids
   *   empty, over 1,000 or not an array, ids with a group or all, none of them, an unknown
   *   state, ACTIVE, no state for a group or all, PENDING for all; DATA_OUT_OF_RANGE (see the
   *   script)
   */
  async removeJobs(
    select:
      | { ids: readonly string[]; state?: JobState | undefined }
      | { group: string; state: JobState }
      | { all: true; state: JobState },
    options: { limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    const chosen = selection(select, true);
    const raw = (select as { state?: unknown }).state;
    let state: 'pending' | 'delayed' | 'dead' | 'completed' | '' = '';
    if (raw === undefined && !('ids' in chosen)) {
      throw badInput(
        'state',
        'is required with a group or all: PENDING, DELAYED, DEAD or COMPLETED',
      );
    }
    if (raw !== undefined || !('ids' in chosen)) {
      const s = validate.jobState(raw);
      if (s === 'ACTIVE') throw badInput('state', 'ACTIVE jobs cannot be removed');
      if (s === 'PENDING' && 'all' in chosen) {
        throw badInput('state', 'PENDING jobs are removed by group (a lane is a group’s)');
      }
      state = s.toLowerCase() as typeof state;
    }
    const opts = validate.options('options', options, LIMIT);
    const limit = validate.actionLimit(opts.limit ?? Defaults.actionLimit);
    const history = this.historyArgs(steering, 'steering');
    if ('ids' in chosen && chosen.ids.length === 0) {
      return { count: 0, remaining: 0, skipped: chosen.malformed };
    }
    const [count, remaining, skipped] = await this.commands.removeJobs({
      state,
      limit,
      select: chosen,
      history,
    });
    return { count, remaining, skipped: skipped + ('ids' in chosen ? chosen.malformed : 0) };
  }

  /**
   * Delete a group's backlog: {@link removeJobs} of its PENDING jobs, up to `limit` per call,
   * in run order. Its active jobs run on; its delayed and dead jobs stay. The group leaves the
   * ring once its lane is empty. Recorded in the history as `purgeGroup` (DESIGN.md §4.6).
   * @param steering.actor who asks (history); default this handle's `actor`
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `limit`)
   */
  purgeGroup(
    group: string,
    options: { limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    return this.removeJobs({ group, state: 'PENDING' }, options, steering);
  }

  /**
   * Promote delayed job `id` now (admin): it goes to its group's lane at its FIFO place, as if
   * its run-at time had come, and its group is re-ringed with a wake if that makes it
   * serviceable. A job that exists but is not DELAYED is returned unchanged, with `promoted`
   * false. Script: `promoteJob-8.lua`. Recorded in the history as `promoteJob` (DESIGN.md
   * §4.6; not when the job is not found or the call is refused).
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns the job after the call (PENDING when promoted) and whether it was moved
   * @throws RingmasterError JOB_NOT_FOUND (no such job, a completed or dead job past its
   *   retention age, which every read calls gone (DESIGN.md §2 Retention), or an id that is not
   *   a decimal string), DATA_OUT_OF_RANGE (its group's active count cannot be counted exactly;
   *   nothing changed)
   */
  async promote(id: string, options?: SteeringOptions): Promise<PromotedJob> {
    const history = this.historyArgs(options);
    const jobId = validate.jobId(this.name, id);
    const reply = await this.commands.promoteJob({ id: jobId, history });
    if (typeof reply === 'number') {
      throw errorFromStatus(reply, this.name, jobId) ?? jobNotFound(this.name, jobId);
    }
    const [replyId, fields, promoted] = reply;
    return { ...decodeJob(this.name, replyId, fields), promoted: promoted === 1 };
  }

  // ── audit and repair ─────────────────────────────────────────────────────────────────

  /**
   * Check invariants I1–I3 over every group of the queue and report each difference: active
   * counts that disagree with the live leases, groups off the ring that are serviceable (or on
   * it when they are not, or on it twice), leases without active jobs, limits that are not
   * integers, drifted totals. Writes nothing. O(groups), in batches (see `reconcile.ts`).
   * A total is reported only from a recount the queue did not change during; on a queue that
   * never stands still each total comes back as a TOTALS finding whose `found` starts with
   * `unsettled` ({@link UNSETTLED}): not checked.
   */
  audit(): Promise<ReconcileReport> {
    return reconcile(this.redis, this.keys, this.commands, 'audit');
  }

  /**
   * Fix what {@link audit} reports: active counts re-derived from the live leases, ring
   * membership from I1, duplicates removed, leases re-attached, totals recounted. Works in
   * bounded batches (each one atomic script), so even 100,000 groups never block Redis for
   * long. Returns what it changed, in the shape of an audit. A total is written only when no
   * script changed the queue while it was recounted (a WATCH on `stats`), so a repair never
   * writes a wrong one; on a queue that never stands still the totals are left as stored and
   * reported `unsettled` ({@link UNSETTLED}) — repair again when it is quieter.
   *
   * Each step records what it changed in the history in the same atomic script (or, for the
   * totals, the same MULTI/EXEC) that changes it (DESIGN.md §4.6, action `repair`): one entry
   * per group a step changed (group '' for what is no group's: a payload whose job is gone, the
   * totals), before/after the fields it changed, detail `{ step, changes }`. So a group's
   * history shows what a repair changed of it, and a repair that fails part way leaves entries
   * for exactly the steps that ran. A repair that changed nothing records nothing.
   * @param options.actor who asks (history); default this handle's `actor`
   */
  repair(options?: SteeringOptions): Promise<ReconcileReport> {
    return reconcile(this.redis, this.keys, this.commands, 'repair', this.historyArgs(options));
  }

  // ── reads (O(1) or O(page); they register nothing) ──────────────────────────────────

  /**
   * The steering history (DESIGN.md §4.6), newest first: the queue's entries, O(log n + page)
   * (one XREVRANGE from the entry the cursor names, exclusive, and one XLEN); or with `group`
   * that group's, read from the queue's stream (no stream per group) in chunks of 200 newest
   * first, keeping the group's entries: O(entries scanned), at most the queue's cap, and
   * `totalCount` is then the queue stream's length (`readGroupHistory`). An entry's
   * before/after/detail are the JSON objects its script recorded (null when absent).
   * @param options.group a group id: its history only
   * @param options.first page size 1..500 (default 20)
   * @param options.after a cursor from a page (`endCursor`): the entries older than it
   * @throws RingmasterError BAD_USER_INPUT for a bad group id, `first` or cursor
   */
  async history(
    options: {
      group?: string | undefined;
      first?: number | undefined;
      after?: string | null | undefined;
    } = {},
  ): Promise<HistoryPage> {
    const opts = validate.options('options', options, { group: true, ...PAGE });
    if (opts.group === undefined)
      return readHistory(this.redis, this.keys.history, this.name, opts);
    const group = validate.groupId(opts.group, 'group');
    return readGroupHistory(this.redis, this.keys.history, this.name, group, opts);
  }

  /** One group; an unknown id reads as empty (limit null, zeros). */
  async group(id: string): Promise<GroupInfo> {
    const g = validate.groupId(id, 'id');
    const [info] = await this.readGroups([g]);
    return info as GroupInfo;
  }

  /**
   * A page of registered groups ordered by id (Redis byte order), after the group the cursor
   * `after` names; with `prefix`, only the groups whose id starts with it. O(log groups + page):
   * `ZRANGEBYLEX` with `ZCARD` (or, for a prefix, `ZLEXCOUNT` over `[prefix` … `[prefix\xff` —
   * no UTF-8 text holds byte 0xff, so every match sorts inside those bounds and nothing else does).
   * @param options.first page size 1..500 (default 50)
   * @param options.prefix a group id prefix (validated as a group id)
   * @throws RingmasterError BAD_USER_INPUT for a bad `first`, prefix or cursor
   */
  async groups(
    options: {
      first?: number | undefined;
      after?: string | null | undefined;
      prefix?: string | undefined;
    } = {},
  ): Promise<GroupPage> {
    options = validate.options('options', options, { prefix: true, ...PAGE });
    const first = validate.pageSize(options.first ?? Defaults.pageSize);
    const bytes = (text: string) => Buffer.from(text, 'utf8');
    const prefixText =
      options.prefix === undefined ? null : validate.groupId(options.prefix, 'prefix');
    const listing = ['groups', this.name, prefixText] as const;
    const after =
      options.after == null ? null : bytes(validate.cursor.decode(options.after, listing));
    const prefix = prefixText === null ? null : bytes(prefixText);
    const lowest = prefix === null ? bytes('-') : Buffer.concat([bytes('['), prefix]);
    const highest =
      prefix === null ? bytes('+') : Buffer.concat([bytes('['), prefix, Buffer.from([0xff])]);
    // Resume after the cursor; a cursor before the prefix's range starts at the range.
    const min =
      after !== null && (prefix === null || Buffer.compare(after, prefix) >= 0)
        ? Buffer.concat([bytes('('), after])
        : lowest;
    const [ids, totalCount] = await Promise.all([
      this.redis.zrangebylex(this.keys.groups, min, highest, 'LIMIT', 0, first + 1),
      prefix === null
        ? this.redis.zcard(this.keys.groups)
        : this.redis.zlexcount(this.keys.groups, lowest, highest),
    ]);
    const pageIds = ids.slice(0, first);
    const groups = await this.readGroups(pageIds);
    const cursors = pageIds.map(validate.cursor.encoder(listing));
    return {
      groups,
      cursors,
      hasNextPage: ids.length > first,
      endCursor: cursors.at(-1) ?? null,
      totalCount,
    };
  }

  /**
   * One moment of the queue: the ring, the totals, the counters, a page of groups (as
   * {@link groups} pages them) and the groups named in `ids`, all read by one script
   * (`readSnapshot-10.lua`), so no claim or steering call lands between two of the reads and
   * every part agrees with every other. O(ring + page + ids), O(ringFirst + page + ids) with
   * `ringFirst`. The admin console's one source for what it shows at a moment.
   * @param options.first page size 1..500 (default 50)
   * @param options.after a cursor from a page (`endCursor`)
   * @param options.prefix only the groups whose id starts with it
   * @param options.ids up to 20 group ids to read besides the page (`picked`, in this order)
   * @param options.ringFirst only the ring's first n groups in `ring` (an integer ≥ 0; default:
   *   the whole ring); `ringSize` is its length either way
   * @throws RingmasterError BAD_USER_INPUT for a bad `first`, cursor, prefix, id, too many ids or
   *   a bad `ringFirst`
   */
  async snapshot(
    options: {
      first?: number | undefined;
      after?: string | null | undefined;
      prefix?: string | undefined;
      ids?: readonly string[] | undefined;
      ringFirst?: number | null | undefined;
    } = {},
  ): Promise<QueueSnapshot> {
    options = validate.options('options', options, {
      prefix: true,
      ids: true,
      ringFirst: true,
      ...PAGE,
    });
    const ringFirst = options.ringFirst ?? -1;
    if (options.ringFirst != null && !(Number.isSafeInteger(ringFirst) && ringFirst >= 0)) {
      throw badInput('ringFirst', `must be an integer of 0 or more, got ${String(ringFirst)}`);
    }
    const first = validate.pageSize(options.first ?? Defaults.pageSize);
    const prefix = options.prefix === undefined ? null : validate.groupId(options.prefix, 'prefix');
    // The same listing as `groups` with this prefix: their cursors go from one to the other.
    const listing = ['groups', this.name, prefix] as const;
    const after = options.after == null ? null : validate.cursor.decode(options.after, listing);
    const ids = options.ids ?? [];
    if (!Array.isArray(ids)) throw badInput('ids', 'must be an array of group ids');
    if (ids.length > validate.Limits.maxPicked) {
      throw badInput('ids', `may name at most ${validate.Limits.maxPicked} groups`);
    }
    const picked = Array.from(ids, (id) => validate.groupId(id, 'ids'));
    // Resume after the cursor; a cursor before the prefix's range starts at the range (as
    // `groups` does; compared as bytes, the order Redis keeps).
    const bytes = (text: string) => Buffer.from(text, 'utf8');
    const min =
      after !== null && (prefix === null || Buffer.compare(bytes(after), bytes(prefix)) >= 0)
        ? `(${after}`
        : prefix === null
          ? '-'
          : `[${prefix}`;
    const [at, ring, total, ids1, pageFields, pickedFields, cards, flatStats, queuePaused, size] =
      (await this.commands.readSnapshot({
        first,
        min,
        prefix: prefix ?? '',
        ringFirst,
        picked,
      })) as SnapshotReply;
    const pageIds = ids1.slice(0, first);
    const cursors = pageIds.map(validate.cursor.encoder(listing));
    const stats: Record<string, string> = {};
    for (let i = 0; i + 1 < flatStats.length; i += 2) {
      stats[flatStats[i] as string] = flatStats[i + 1] as string;
    }
    const [groups, paused, active, dead, completed] = cards;
    return {
      at: Number(at),
      paused: queuePaused === 1,
      ring,
      ringSize: size,
      counts: {
        groups,
        onRing: size,
        paused,
        saturated: parseCount(stats.saturated),
        pending: parseCount(stats.pending),
        delayed: parseCount(stats.delayed),
        active,
        dead,
        completed,
      },
      stats: statsFrom(stats),
      page: {
        groups: this.groupsFrom(pageIds, pageFields),
        cursors,
        hasNextPage: ids1.length > first,
        endCursor: cursors.at(-1) ?? null,
        totalCount: total,
      },
      picked: this.groupsFrom(picked, pickedFields),
    };
  }

  /**
   * Whether the queue is in the registry (`P:queues`): something was ever enqueued to it or
   * steered in it (a limit set before the first job counts). False for a name never used,
   * whose reads are all zeros like an empty queue's. O(1).
   */
  async known(): Promise<boolean> {
    return (await this.redis.sismember(this.registry, this.name)) === 1;
  }

  /** The ring, head first. O(ring). */
  ring(): Promise<string[]> {
    return this.redis.lrange(this.keys.ring, 0, -1);
  }

  /** Paused group ids, sorted. O(paused). */
  async paused(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.paused)).sort();
  }

  /** Groups with active > 0, sorted by id. O(groups with active work). */
  async activeGroups(): Promise<GroupInfo[]> {
    const all = await this.redis.hgetall(this.keys.gactive);
    const ids = Object.keys(all)
      .filter((id) => parseCount(all[id]) > 0)
      .sort();
    return this.readGroups(ids);
  }

  /**
   * Queue-wide totals of one instant, in one read-only script (`readCounts-8.lua`): counters
   * and cardinalities, never a scan; O(1) in groups, O(log n) in jobs. `delayed` is the stats
   * total; `dead` and `completed` count the jobs the retention policies keep, leaving out those
   * past their age that no trim has reached yet, as {@link job} and {@link jobs} do (DESIGN.md §2,
   * "Retention").
   */
  async counts(): Promise<QueueCounts> {
    const [groups, onRing, paused, saturated, pending, delayed, active, dead, completed] =
      await this.commands.readCounts();
    return {
      groups: Number(groups),
      onRing: Number(onRing),
      paused: Number(paused),
      saturated: parseCount(saturated),
      pending: parseCount(pending),
      delayed: parseCount(delayed),
      active: Number(active),
      dead: Number(dead),
      completed: Number(completed),
    };
  }

  /**
   * RUNNING, or PAUSED between {@link pauseQueue} and {@link resumeQueue} (`paused` in
   * `P:{Q}:settings`). O(1); registers nothing.
   */
  async state(): Promise<QueueState> {
    return (await this.redis.hget(this.keys.settings, 'paused')) === '1' ? 'PAUSED' : 'RUNNING';
  }

  /**
   * The queue's retention of completed and dead jobs (`P:{Q}:settings`), the defaults
   * (`Defaults.completedRetention`, `Defaults.deadRetention`) where none is set; read as the
   * scripts read it. O(1); registers nothing.
   */
  async retention(): Promise<QueueRetention> {
    const [completedCount, completedAgeMs, deadCount, deadAgeMs] = await this.redis.hmget(
      this.keys.settings,
      'completedCount',
      'completedAgeMs',
      'deadCount',
      'deadAgeMs',
    );
    return {
      completed: retentionFrom(Defaults.completedRetention, completedCount, completedAgeMs),
      dead: retentionFrom(Defaults.deadRetention, deadCount, deadAgeMs),
    };
  }

  /** Event counters since the queue was created. O(1). */
  async stats(): Promise<QueueStats> {
    return statsFrom(await this.redis.hgetall(this.keys.stats));
  }

  /**
   * The queue's numbers for monitoring (DESIGN.md §4.7, `GET /metrics`), read by one script
   * (`readMetrics-7.lua`) so they agree: group and job totals, the event counters and the
   * oldest pending job. O(1) in groups and jobs; it mends at most `maxSteps` (default
   * {@link METRICS_HEAD_STEPS}, 1..10,000) stale entries of the oldest-pending index
   * (`P:{Q}:heads`) and answers `oldestPending` null with `settled` false when more are left.
   * Registers nothing.
   * @throws RingmasterError BAD_USER_INPUT (`maxSteps`) for a count out of range
   */
  async metrics(options: { maxSteps?: number } = {}): Promise<QueueMetrics> {
    const maxSteps =
      validate.options('options', options, { maxSteps: true }).maxSteps ?? METRICS_HEAD_STEPS;
    validate.integerIn('maxSteps', maxSteps, 1, validate.Limits.maxMetricsSteps);
    return decodeMetrics(await this.commands.readMetrics({ maxSteps }));
  }

  /**
   * Job `id` with its `backoff` policy (null for none) and its `errors` (failed attempts,
   * newest first, at most `Defaults.errorsKept`), or null when there is no such job (gone:
   * completed without retention, trimmed, removed, or completed or dead and past its
   * retention's age on the Redis clock though no trim has reached it yet — DESIGN.md §2,
   * "Retention"). O(1) plus the bounded error list, in one read-only script (`readJob-4.lua`),
   * which runs at maxmemory too.
   */
  async job(id: string): Promise<Job | null> {
    let jobId: string;
    try {
      jobId = validate.jobId(this.name, id);
    } catch {
      return null;
    }
    const [fields, entries] = await this.commands.readJob({ id: jobId });
    if (fields.length === 0) return null;
    return { ...decodeJob(this.name, jobId, fields), errors: decodeErrors(entries) };
  }

  /**
   * A page of the queue's jobs in `state` (DESIGN.md §4.1; one script, `readJobs-4.lua`),
   * cursor-paged at O(log n + page) however deep the page:
   * - PENDING: a group's lane (a group is required), in run order;
   * - DELAYED: the queue's (or the group's) delayed jobs by run-at time, soonest first;
   * - ACTIVE: the queue's active jobs by lease deadline, soonest first; with a group, the
   *   queue's are walked and those leased to the group kept: O(active jobs), bounded by the
   *   workers' concurrency, not by any backlog;
   * - DEAD, COMPLETED (retained): the queue's (or the group's), newest first; only the jobs
   *   the retention keeps now: one past its age (Redis clock) that no trim has reached yet is
   *   left out, as {@link job} reads it as gone.
   * A cursor whose job has since left the index (claimed, promoted, removed…) still works: the
   * page continues from where that job was. `totalCount` is the index's size (ACTIVE with a
   * group: the group's active count; DEAD and COMPLETED: the jobs within the retention age,
   * exact, by a ZCOUNT of the finish-time scores, O(log n)). Jobs carry no `errors` (read one
   * with {@link job}).
   * @param options.first page size 1..500 (default 50)
   * @param options.after a cursor from a page (`cursors`, `endCursor`)
   * @throws RingmasterError BAD_USER_INPUT (argument `state`, `group`, `first` or `after`): an
   *   unknown state, PENDING without a group, a bad group id, page size or cursor
   */
  async jobs(options: {
    state: JobState;
    group?: string | undefined;
    first?: number | undefined;
    after?: string | null | undefined;
  }): Promise<JobPage> {
    const opts = validate.options('options', options, {
      state: true,
      group: true,
      ...PAGE,
    });
    const state = validate.jobState(opts.state);
    const group = opts.group == null ? null : validate.groupId(opts.group);
    const first = validate.pageSize(opts.first ?? Defaults.pageSize);
    const listing = ['jobs', this.name, state, group] as const;
    const after = opts.after == null ? null : validate.jobCursor.decode(opts.after, listing);
    const k = this.keys;
    let index: string;
    let order: 'asc' | 'desc' = 'asc';
    let filter = '';
    let kind: '' | 'completed' | 'dead' = '';
    switch (state) {
      case 'PENDING':
        if (group === null) throw badInput('group', 'is required for PENDING jobs (a lane)');
        index = k.lane(group);
        break;
      case 'DELAYED':
        index = group === null ? k.delayed : k.groupDelayed(group);
        break;
      case 'ACTIVE':
        index = k.active;
        filter = group ?? '';
        break;
      case 'DEAD':
        index = group === null ? k.dead : k.groupDead(group);
        order = 'desc';
        kind = 'dead';
        break;
      case 'COMPLETED':
        index = group === null ? k.completed : k.groupCompleted(group);
        order = 'desc';
        kind = 'completed';
        break;
    }
    const reply = await this.commands.readJobs({
      index,
      order,
      first,
      afterScore: after?.score ?? '',
      afterId: after?.id ?? '',
      group: filter,
      kind,
    });
    return decodeJobPage(this.name, listing, reply);
  }

  // ── internals ────────────────────────────────────────────────────────────────────────

  /**
   * {@link registered} for a steering script: the registry's SADD goes through `register-1.lua`,
   * which Redis runs at maxmemory as it runs the steering scripts, so registering never fails a
   * pause or setLimit during a memory incident (Redis refuses a plain SADD there even for a name
   * the set holds already).
   */
  private steered<T>(run: () => Promise<T>): Promise<T> {
    return this.registered(run, () =>
      this.commands.register({ registry: this.registry, queue: this.name }),
    );
  }

  /**
   * Run `run` once the queue's job layout is known to be this version's on this connection
   * ({@link askLayout}, asked before the first enqueue or claim; a marked queue is not asked
   * again on the connection, an unmarked one is, see redis/connection.ts `laidOut`).
   * @throws RingmasterError LAYOUT_MISMATCH
   */
  private laidOut<T>(run: () => Promise<T>): Promise<T> {
    return this.connection.laidOut(this.keys.base, () => this.askLayout(), run);
  }

  /**
   * Check that the queue's jobs are of this version's job layout (DESIGN.md §2, "Job layout"),
   * as enqueue and claim do before their first call on a connection (`checkLayout-9.lua`; once
   * the queue is marked, not asked again on this connection). Call it at start to fail there
   * rather than at the first enqueue or claim. Writes nothing but the mark of an empty queue.
   * @throws RingmasterError LAYOUT_MISMATCH, in one line saying what to do
   */
  async checkLayout(): Promise<void> {
    await this.laidOut(async () => undefined);
  }

  /**
   * Refuse a queue whose jobs are of another job layout (DESIGN.md §2, "Job layout"): asked once
   * per queue and connection by {@link laidOut}, before the first enqueue or claim. An empty
   * queue without a mark is marked as this layout (`checkLayout-9.lua`). Answers whether the
   * queue is marked (a queue that never minted an id is not, and is asked again next time).
   * @throws RingmasterError LAYOUT_MISMATCH, in one line saying what to do
   */
  private async askLayout(): Promise<boolean> {
    const [status, found, ...counts] = await this.commands.checkLayout({ layout: JOB_LAYOUT });
    if (status === 0) return found === JOB_LAYOUT;
    if (status === 1) {
      throw new RingmasterError(
        ErrorCode.LAYOUT_MISMATCH,
        `queue ${this.name} is marked with job layout ${found} (${this.keys.settings} layout), not ` +
          `this version's ${JOB_LAYOUT}: run the version of Ringmaster that wrote it, or use another queue`,
      );
    }
    const whatToDo =
      'which this version would run without their payloads, so it refuses to enqueue or claim ' +
      'there: let the previous version finish them and remove the completed and dead ones ' +
      '(removeJobs), or send new jobs to a new queue';
    if (status === 3) {
      const [ring, active, delayed, gactive] = counts;
      throw new RingmasterError(
        ErrorCode.LAYOUT_MISMATCH,
        `queue ${this.name} has no job layout mark and its totals count no job, yet it holds ` +
          `jobs (${ring} groups on the ring, ${active} active, ${delayed} delayed, ${gactive} ` +
          `groups with active jobs): jobs written ` +
          `by an older Ringmaster or by another program, ${whatToDo}`,
      );
    }
    const [pending, delayed, active, completed, dead] = counts;
    throw new RingmasterError(
      ErrorCode.LAYOUT_MISMATCH,
      `queue ${this.name} holds jobs of an older job layout (payloads in the job ` +
        `hashes: ${pending} pending, ${delayed} delayed, ${active} active, ${completed} completed, ` +
        `${dead} dead), ${whatToDo}`,
    );
  }

  /**
   * Register the queue in `P:queues`, then run the registering script `run`: the SADD is
   * answered before the script is sent, so a call whose SADD fails (a registry key of the
   * wrong type, an ACL that may not write it, a cluster node answering MOVED for it: `P:queues`
   * is outside the queue's slot, so it cannot be inside the script) reports that error having
   * changed nothing, and a call that reports success is in the registry the reaper and
   * `Ringmaster.queues` read. Once answered, the SADD is not sent again for this queue on this
   * connection for {@link REGISTRATION_REFRESH_MS}: the registry only ever needs the name once,
   * so the wait costs one round trip per queue per connection every 5 s, not one per call.
   * Calls made while a SADD is on the wire wait for that one rather than sending their own.
   */
  private registered<T>(
    run: () => Promise<T>,
    register: () => Promise<unknown> = () => this.redis.sadd(this.registry, this.name),
  ): Promise<T> {
    // Only after a call that succeeded: a refused one has written nothing, the epoch included.
    return this.connection.registered(this.registry, this.name, register, run).then((result) => {
      this.watchState();
      return result;
    });
  }

  /**
   * The queue is written or reaped: its connection remembers its epoch, and asks Redis again
   * whether it still holds the queue when the last ask is a second old (stateLoss.ts; DESIGN.md
   * §3, "A Redis that lost a queue's state"). Sends nothing most of the time; never waits.
   */
  private watchState(): void {
    this.connection.state.touch(this.keys.base, () => ({
      queue: this.name,
      check: (p) => this.commands.checkEpoch(p),
    }));
  }

  // ── timed overrides (DESIGN.md §4.8) ─────────────────────────────────────────────────

  /**
   * Drop `group`'s pending timed override of `kind` ('limit' or 'pause'): the value it set
   * stays and nothing reverts it. Recorded in the history when one was pending; otherwise
   * nothing is written. Script: `cancelOverride-4.lua`.
   * @returns the group after the call
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `kind`)
   */
  async cancelOverride(
    group: string,
    kind: OverrideKind,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    const g = validate.groupId(group);
    const k = overrides.overrideKind(kind);
    const history = this.historyArgs(options);
    return this.groupFrom(g, await this.commands.cancelOverride({ group: g, kind: k, history }));
  }

  /**
   * Revert every timed override whose deadline (Redis clock) has come, each as the plain call
   * it stands for (setLimit, clearLimit, pause, resume), recorded in the history as action
   * `revert` by actor 'timer'. Script: `applyOverrides-6.lua`, at most `batch` per call (O(batch
   * · log n)), called again while a call comes back full. The {@link Reaper} runs it every pass.
   * @param options.batch overrides per script call (count, 1..10,000; default 100)
   * @returns how many were reverted, and when the next pending one is due (ms, or null)
   */
  async applyOverrides(options: { batch?: number } = {}): Promise<AppliedOverrides> {
    const opts = validate.options('options', options, { batch: true });
    const batch = validate.reapBatch(opts.batch ?? overrides.APPLY_OVERRIDES_BATCH);
    // The one caller recorded as the timer, which no options may name (validate.actor).
    const history: HistoryArgs = [overrides.TIMER_ACTOR, this.historyMaxLen];
    let applied = 0;
    for (;;) {
      const [n, next] = await this.commands.applyOverrides({ batch, history });
      applied += n;
      if (n < batch) return { applied, nextAt: next === null ? null : Number(next) };
    }
  }

  /**
   * The {@link Reaper}'s per-queue lock (DESIGN.md §3, "reap"): take it for one pass as
   * `holder`, when no pass holds it and the last one began `intervalMs` or more ago (Redis
   * clock). Script: `reaperLock-2.lua`. Saves work only; {@link reap} needs no lock.
   * @param lockMs how long the lock lives if its holder never releases it (ms)
   * @returns true when taken: release it with {@link releaseReaping}
   */
  async lockReaping(holder: string, intervalMs: number, lockMs: number): Promise<boolean> {
    return (await this.commands.reaperLock({ id: holder, intervalMs, lockMs })) === 1;
  }

  /** Release the lock {@link lockReaping} gave `holder` (if it is still its). `reaperUnlock-1.lua`. */
  async releaseReaping(holder: string): Promise<void> {
    await this.commands.reaperUnlock({ id: holder });
  }

  /**
   * Redis' clock now (ms since the epoch, TIME): the clock every deadline is measured on
   * (timed overrides' `until`, leases, run-at times), read on the queue's node (on a cluster,
   * the master of the queue's slot, as `Commands.clock`). One round trip; writes nothing.
   */
  clock(): Promise<number> {
    return this.commands.clock();
  }

  private groupFrom(id: string, fields: GroupReply): GroupInfo {
    return groupInfo(this.name, id, fields);
  }

  private jobFrom(id: string, reply: JobReply | number): Job {
    if (typeof reply === 'number') {
      throw errorFromStatus(reply, this.name, id) ?? jobNotFound(this.name, id);
    }
    return decodeJob(this.name, reply[0], reply[1]);
  }

  /**
   * Read several groups in one MULTI: 4 O(1) commands each, applied atomically so no script
   * can run between them and a group is never read half before and half after a change.
   */
  private async readGroups(ids: string[]): Promise<GroupInfo[]> {
    if (ids.length === 0) return [];
    // One script, not a MULTI of four commands a group: a fraction of the client's work.
    return this.groupsFrom(ids, await this.commands.readGroups({ groups: ids }));
  }

  /** Groups from a script's flat fields, GROUP_FIELD_COUNT per id (includes/groupReply.lua). */
  private groupsFrom(ids: readonly string[], flat: (string | number | null)[]): GroupInfo[] {
    return ids.map((id, i) =>
      groupInfo(this.name, id, flat.slice(i * GROUP_FIELD_COUNT, (i + 1) * GROUP_FIELD_COUNT)),
    );
  }
}

/**
 * An operator action's selection, validated: ids (well-formed ones, and how many were not),
 * a group, or all. Exactly one must be given (`withState`: removeJobs, whose selection also
 * carries a state, checked by the caller).
 */
function selection(
  select: unknown,
  withState: boolean,
): { ids: string[]; malformed: number } | { group: string } | { all: true } {
  if (select === null || typeof select !== 'object') {
    throw badInput('ids', `give ids, a group or all${withState ? ' (with a state)' : ''}`);
  }
  const s = validate.options(
    'select',
    select as { ids?: unknown; group?: unknown; all?: unknown; state?: unknown },
    // Without a state (requeueDead) `state` is not a name: the cast only widens the list's type.
    (withState ? { ...SELECT, state: true } : SELECT) as validate.OptionNames<{ state?: unknown }> &
      typeof SELECT,
  );
  const given = [s.ids, s.group, s.all].filter((v) => v !== undefined && v !== null).length;
  if (s.all !== undefined && s.all !== null && s.all !== true) {
    throw badInput('all', 'must be true when given');
  }
  if (given !== 1) {
    throw badInput(
      s.ids !== undefined && s.ids !== null ? 'ids' : 'group',
      given === 0 ? 'give ids, a group or all' : 'give one of ids, a group or all, not several',
    );
  }
  if (s.ids !== undefined && s.ids !== null) return validate.actionIds(s.ids);
  if (s.group !== undefined && s.group !== null) return { group: validate.groupId(s.group) };
  return { all: true };
}

/** {@link QueueRetention} from `setRetention-1.lua`'s reply. */
function retentionReply([
  completedCount,
  completedAgeMs,
  deadCount,
  deadAgeMs,
]: RetentionReply): QueueRetention {
  return {
    completed: { count: Number(completedCount), ageMs: completedAgeMs ?? null },
    dead: { count: Number(deadCount), ageMs: deadAgeMs ?? null },
  };
}

// Every method: a Redis failure rejects as RingmasterError REDIS_OUT_OF_MEMORY/REDIS_UNAVAILABLE/
// REDIS_NOT_PERMITTED (the grant naming this queue's prefix).
codeRedisFailures(
  Queue,
  (queue) => queue.name,
  (queue) => queue.prefix,
);
