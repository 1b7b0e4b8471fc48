/**
 * One queue's API: the scripts of DESIGN.md §3 plus the O(1)/O(page) reads of §2 and §4.
 * Every argument is validated first (DESIGN.md §5), so a rejected call sends nothing to Redis;
 * every options object refuses a value that is not an object and a name it does not know
 * (BAD_USER_INPUT `options.<name>`, `validate.options`; §5 "Options objects").
 *
 * Errors: `RingmasterError` with BAD_USER_INPUT, JOB_NOT_FOUND, LEASE_LOST or
 * DATA_OUT_OF_RANGE (a number stored in Redis that a script cannot hold exactly); with
 * REDIS_OUT_OF_MEMORY when Redis, at maxmemory, refused a call that may add memory (enqueue;
 * the steering calls, claims, completions, retries and lease extensions still run), with
 * REDIS_UNAVAILABLE when Redis cannot be reached or cannot serve now, and with
 * REDIS_NOT_PERMITTED, naming this queue's prefix in the grant, when its ACL refuses; with
 * CONNECTION_CLOSED, nothing sent, once its connection has ended (`close()`, `quit()`,
 * `disconnect()`: `redis/ended.ts`): every method below goes through `call`, which maps them
 * (`codedRedisFailure`) and names the queue (`RingmasterError.queue`). Any other Redis error (WRONGTYPE on a key written
 * by another writer, say) is passed through from ioredis unchanged.
 *
 * This file is the API: each method's contract, and a one-line delegation to the part that
 * does it, all sharing one {@link QueueCore} (`core.ts`: the names, keys, connection, scripts,
 * actor and history cap, and the history ARGV, registration and job-layout helpers):
 * `steering.ts` (limits, rate limits, pauses, timed overrides, the queue's pause, retention,
 * weights), `producing.ts` (enqueue, enqueueMany), `working.ts` (claim, complete,
 * completeAndClaim, retry, lease extension, job watches), `operatorActions.ts` (requeueDead,
 * removeJobs, purgeGroup, promote, audit, repair), `reads.ts` (every read) and `upkeep.ts`
 * (reap, the reaper's lock, the clock, the layout check).
 */
import { type QueueKeys, queueKeys, queuesKey } from '../keys.js';
import type { RedisClient } from '../redis/client.js';
import type { Connection } from '../redis/connection.js';
import { closeConnection, type RedisConnection } from '../redis/connectionOption.js';
import { callOpen } from '../redis/ended.js';
import { Commands } from '../scripts/commands.js';
import type {
  GroupInfo,
  GroupPage,
  GroupRanking,
  Job,
  JobActionResult,
  JobLog,
  JobLogPage,
  JobPage,
  JobProgress,
  JobState,
  QueueCap,
  QueueCounts,
  QueueRetention,
  QueueSnapshot,
  QueueState,
  QueueStats,
  RateLimitInput,
  RetentionChange,
  RotaEntry,
  Schedule,
  SchedulePage,
  SteeringOptions,
  ThroughputPoint,
  TopGroup,
  WorkerInfo,
} from '../types.js';
import { QueueCore } from './core.js';
import type { HistoryPage } from './history.js';
import { METRICS_HEAD_STEPS, type QueueMetrics } from './metrics.js';
import { OperatorActions, type PromotedJob, type RemoveSelection } from './operatorActions.js';
import type { AppliedOverrides, OverrideKind, TimedSteeringOptions } from './overrides.js';
import type { JobPlace } from './place.js';
import { type EnqueueOptions, Producing } from './producing.js';
import { type QueueOptions, queueArguments } from './queueArguments.js';
import { type GroupsOptions, type HistoryOptions, Reads, type SnapshotOptions } from './reads.js';
import { type ReconcileReport, UNSETTLED } from './reconcile.js';
import { type ScheduleInput, type SchedulesOptions, Scheduling } from './scheduling.js';
import { Steering } from './steering.js';
import type { LayoutUpgrade, LayoutUpgradeOptions } from './upgrade.js';
import { Upkeep } from './upkeep.js';
import {
  type ClaimOptions,
  type CompleteAndClaimOptions,
  type CompleteAndClaimResult,
  type CompleteOptions,
  type Completion,
  type RetryOptions,
  type WorkerHeartbeat,
  Working,
} from './working.js';

export { Defaults } from '../defaults.js';
export { REGISTRATION_REFRESH_MS } from '../redis/connection.js';
export type { PromotedJob } from './operatorActions.js';
export type { BackoffPolicyInput, DebounceInput, EnqueueOptions } from './producing.js';
export type { QueueOptions } from './queueArguments.js';
export type { ScheduleInput, SchedulesOptions } from './scheduling.js';
export type {
  ClaimOptions,
  CompleteAndClaimResult,
  CompleteOptions,
  Completion,
  RetryOptions,
  WorkerHeartbeat,
} from './working.js';

/**
 * `Payload` types what {@link enqueue} takes and `Result` what a processor returns
 * ({@link complete}'s `result`); every job it answers is a `Job<Payload, Result>`. Neither is
 * checked at run time beyond JSON's rules (DESIGN.md §4.1, "Typed jobs").
 */
export class Queue<Payload = unknown, Result = unknown> {
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
  // The parts that do the work, by role, sharing one QueueCore (made in the constructor).
  private readonly steering: Steering;
  private readonly producing: Producing;
  private readonly working: Working;
  private readonly actions: OperatorActions;
  private readonly reads: Reads;
  private readonly upkeep: Upkeep;
  private readonly scheduling: Scheduling;

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
    const core = new QueueCore(
      this.name,
      this.prefix,
      this.keys,
      this.registry,
      this.connection,
      this.commands,
      this.actor,
      this.historyMaxLen,
    );
    this.steering = new Steering(core);
    this.producing = new Producing(core);
    this.working = new Working(core);
    this.actions = new OperatorActions(core);
    this.reads = new Reads(core);
    this.upkeep = new Upkeep(core);
    this.scheduling = new Scheduling(core);
  }

  /**
   * Close the connection this handle opened from a URL or options (QUIT once the replies of
   * the calls sent before arrive; DESIGN.md §4.1, "Connections"). A handle given a client
   * (or made by `Ringmaster.queue`) closes nothing: the client is its owner's. Once it is closed, calls
   * are refused at once, nothing sent, with RingmasterError CONNECTION_CLOSED ("Redis
   * connection closed: … make a new Queue"), as are a handle's calls once the client it was
   * given has ended (`quit()`, `disconnect()`); a handle given a client keeps working after its
   * own `close()`. Resolves once closed; never throws.
   */
  close(): Promise<void> {
    this.closing ??= this.owned ? closeConnection(this.redis) : Promise.resolve();
    return this.closing;
  }

  /** The one way every method below reaches Redis (`callOpen`), its errors naming this queue. */
  private call<T>(run: () => Promise<T>): Promise<T> {
    return callOpen(this.redis, 'Queue', this.prefix, this.name, run);
  }

  // ── steering (admin) ──────────────────────────────────────────────────────────────────────

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
  setLimit(group: string, limit: number, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    return this.call(() => this.steering.setLimit(group, limit, options));
  }

  /**
   * Remove `group`'s limit; re-ring it if that makes it serviceable. Drops a pending timed limit
   * revert (DESIGN.md §4.8). Script: `clearLimit-8.lua`.
   */
  clearLimit(group: string, options: SteeringOptions = {}): Promise<GroupInfo> {
    return this.call(() => this.steering.clearLimit(group, options));
  }

  /**
   * Give `group` a token bucket (DESIGN.md §3 "Rate limits"), on top of its concurrency limit:
   * `limit.max` tokens refill per `limit.windowMs`, at most `limit.burst` (default `max`) held; a
   * claim takes its job's cost (1 unless enqueued with `cost`), and a group whose bucket lacks its
   * head job's cost is off the ring until enough tokens refill (then a claim or the reaper puts
   * it back with a wake). The tokens held now (under the rate before; a full bucket for a group
   * without one), at most the new burst, are judged at once: short of the head's cost they
   * rate-limit the group now, enough free it now. Registers the group and the queue; recorded in
   * the history (`setRateLimit`). Script: `setRateLimit-8.lua` (runs at maxmemory).
   * @param limit `max` tokens per window, an integer 1..1,000,000; `windowMs` ms,
   *   1..2,592,000,000; `burst` tokens, 1..1,000,000 (optional: `max`)
   * @throws RingmasterError BAD_USER_INPUT (`group`, `rateLimit`, `max`, `windowMs`, `burst`)
   *   before anything is sent; DATA_OUT_OF_RANGE (nothing written) for an active count it cannot
   *   read
   */
  setRateLimit(
    group: string,
    limit: RateLimitInput,
    options?: SteeringOptions,
  ): Promise<GroupInfo> {
    return this.call(() => this.steering.setRateLimit(group, limit, options));
  }

  /**
   * Remove `group`'s rate limit (its window too): a rate-limited group is freed at once,
   * re-ringed with a wake when serviceable. Recorded in the history (`clearRateLimit`).
   * Script: `clearRateLimit-8.lua` (runs at maxmemory).
   * @throws RingmasterError BAD_USER_INPUT (`group`) before anything is sent
   */
  clearRateLimit(group: string, options?: SteeringOptions): Promise<GroupInfo> {
    return this.call(() => this.steering.clearRateLimit(group, options));
  }

  /**
   * Pause `group`: no job of it is claimed after this returns; its backlog and active jobs
   * are untouched. Script: `pause-7.lua` . With `options.forMs` (ms, 1..30
   * days) a timed pause: at Redis now + forMs the group goes back to whether it was paused
   * before the first pending timed pause (DESIGN.md §4.8); without — or when that is "paused"
   * already, so nothing would revert — the plain pause: a pending pause revert is dropped.
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `forMs`)
   */
  pause(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    return this.call(() => this.steering.pause(group, options));
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
  resume(group: string, options: TimedSteeringOptions = {}): Promise<GroupInfo> {
    return this.call(() => this.steering.resume(group, options));
  }

  /**
   * Drop `group`'s pending timed override of `kind` ('limit' or 'pause'): the value it set
   * stays and nothing reverts it. Recorded in the history when one was pending; otherwise
   * nothing is written. Script: `cancelOverride-4.lua`.
   * @returns the group after the call
   * @throws RingmasterError BAD_USER_INPUT (argument `group` or `kind`)
   */
  cancelOverride(
    group: string,
    kind: OverrideKind,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    return this.call(() => this.steering.cancelOverride(group, kind, options));
  }

  // ── schedules (DESIGN.md §3, "Schedules") ──────────────────────────────────────────────

  /**
   * Create a schedule, or replace the one of this id: on every tick a job with the schedule's
   * payload and options is enqueued into `group` (exactly one job per tick, however many
   * reapers and workers tick). Exactly one of `everyMs` (every everyMs ms from now, phase kept)
   * and `cron` (5 fields, or 6 with seconds first, read in `timezone`, UTC by default; DESIGN.md
   * §3 gives the rule for the hour a DST change skips or repeats). A replaced schedule whose
   * everyMs, cron and timezone are unchanged keeps its next tick. Script: `upsertSchedule-3.lua`
   * after one read of the Redis clock; recorded in the history as `upsertSchedule` when it
   * changed the definition.
   * @param input `{ id, group, everyMs? | cron?, timezone?, payload?, maxAttempts?, backoff?,
   *   priority? }`, the job's options as {@link enqueue}'s
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns the schedule as it stands, `nextRunAt` its next tick (ms, Redis clock)
   * @throws RingmasterError BAD_USER_INPUT (`id`, `group`, `everyMs`, `cron`, `timezone`,
   *   `payload`, `maxAttempts`, `backoff`, `priority`; `id` when the queue holds
   *   Limits.maxSchedules schedules already), nothing written
   */
  upsertSchedule(input: ScheduleInput, options?: SteeringOptions): Promise<Schedule> {
    return this.call(() => this.scheduling.upsert(input, options));
  }

  /**
   * Remove a schedule: no tick of it fires after this call; jobs it enqueued stay. Script:
   * `removeSchedule-3.lua`, recorded in the history as `removeSchedule`.
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns whether a schedule was removed (false: there was none of this id)
   * @throws RingmasterError BAD_USER_INPUT (`id`)
   */
  removeSchedule(id: string, options?: SteeringOptions): Promise<boolean> {
    return this.call(() => this.scheduling.remove(id, options));
  }

  /**
   * A page of the queue's schedules by id (Redis byte order). O(n log n) in the queue's
   * schedules (at most Limits.maxSchedules), one script.
   * @param options.first page size 1..500 (default 50)
   * @param options.after a cursor from a page (`endCursor`)
   * @throws RingmasterError BAD_USER_INPUT for a bad `first` or cursor
   */
  schedules(options: SchedulesOptions = {}): Promise<SchedulePage> {
    return this.call(() => this.scheduling.page(options));
  }

  /**
   * Fire the schedules due by the Redis clock, read 100 at a time (again past those it cannot
   * fire, up to 1,000 read per call; DESIGN.md §3, "Schedules"): one job each, for the latest
   * tick due (ticks missed while nothing ticked fire once), each schedule moved on to its next
   * tick after now. A compare-and-set (`dueSchedules-2.lua`, then `fireSchedules-11.lua`): any
   * number of callers at once fire each tick once. The {@link Reaper} runs it every pass, and a
   * Worker without a reaper every second; an application need not call it.
   * @returns the jobs enqueued (count)
   */
  tickSchedules(): Promise<number> {
    return this.call(() => this.scheduling.tick());
  }

  /**
   * Revert every timed override whose deadline (Redis clock) has come, each as the plain call
   * it stands for (setLimit, clearLimit, pause, resume), recorded in the history as action
   * `revert` by actor 'timer'. Script: `applyOverrides-6.lua`, at most `batch` per call (O(batch
   * · log n)), called again while a call comes back full. The {@link Reaper} runs it every pass.
   * @param options.batch overrides per script call (count, 1..10,000; default 100)
   * @returns how many were reverted, and when the next pending one is due (ms, or null)
   */
  applyOverrides(options: { batch?: number } = {}): Promise<AppliedOverrides> {
    return this.call(() => this.steering.applyOverrides(options));
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
  pauseQueue(options?: SteeringOptions): Promise<QueueState> {
    return this.call(() => this.steering.pauseQueue(options));
  }

  /**
   * End the queue's pause: claims run again from the ring as it stands, and parked workers are
   * woken (a wake token is pushed when the queue was paused). Idempotent. Registers the queue.
   * Script: `resumeQueue-2.lua` (runs at maxmemory). Recorded in the history as `resumeQueue`.
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns 'RUNNING'
   */
  resumeQueue(options?: SteeringOptions): Promise<QueueState> {
    return this.call(() => this.steering.resumeQueue(options));
  }

  /**
   * Cap the whole queue at `limit` jobs in flight at once (DESIGN.md §3, "The queue's cap and
   * reserves"): a claim takes at most the cap less the jobs in flight (0 holds every claim
   * back). Nothing in flight is taken back: a cap lowered below the work in flight holds claims
   * back until enough leases end; a lease ending under the cap wakes a worker the cap held back.
   * The ring and the groups are not touched (I1 unchanged). With `options.forMs` (ms, 1..30
   * days) a timed override of kind queueLimit (DESIGN.md §4.8): it reverts at Redis now + forMs
   * to the cap before the first pending one (null: none); without, a pending revert is dropped.
   * Registers the queue; recorded in the history as `setQueueLimit` (§4.6). Script:
   * `setQueueLimit-3.lua` (runs at maxmemory).
   * @param limit a count, 0..1,000,000 (a group limit's range, `Limits.maxLimit`); at least the sum of the
   *   groups' reserves
   * @returns the cap as it stands after the call
   * @throws RingmasterError BAD_USER_INPUT (`limit`: out of range, or below the sum of the
   *   reserves; `forMs`) with nothing written
   */
  setQueueLimit(limit: number, options: TimedSteeringOptions = {}): Promise<QueueCap> {
    return this.call(() => this.steering.setQueueLimit(limit, options));
  }

  /**
   * Remove the queue's cap (the reserves stay, and count again under the next cap); wakes a
   * worker the cap held back and drops a pending timed cap (DESIGN.md §4.8). Registers the
   * queue; recorded in the history as `clearQueueLimit`. Script: `setQueueLimit-3.lua`.
   * @returns the cap as it stands after the call (limit null)
   */
  clearQueueLimit(options: SteeringOptions = {}): Promise<QueueCap> {
    return this.call(() => this.steering.clearQueueLimit(options));
  }

  /**
   * Reserve `reserve` permits of the queue's cap for `group` (0 clears it; DESIGN.md §3, "The
   * queue's cap and reserves"): while permits are scarce, a group with pending work and fewer
   * than its reserve in flight gets the next one before any group at or above its own. A reserve
   * of a group with nothing pending is lent to the others. Registers the group and the queue;
   * recorded in the history as `setReserve`. Script: `setReserve-9.lua` (runs at maxmemory).
   * @param reserve a count, 0..1,000,000 (`Limits.maxLimit`); not above the group's limit, and the sum of the
   *   reserves not above the queue's cap (nor the cap a pending timed one reverts to)
   * @returns the group after the call
   * @throws RingmasterError BAD_USER_INPUT (`group`, `reserve`) with nothing written
   */
  setReserve(group: string, reserve: number, options: SteeringOptions = {}): Promise<GroupInfo> {
    return this.call(() => this.steering.setReserve(group, reserve, options));
  }

  /**
   * Bound `group`'s backlog: an enqueue (or enqueueMany, all or nothing) that would leave it
   * holding more than `maxPending` pending + delayed jobs is refused with GROUP_FULL, nothing
   * written (DESIGN.md §3, "Backlog bounds"). null clears it (the queue's default applies
   * again). Jobs it holds already stay. Registers the group and the queue; recorded in the
   * history as `setMaxPending`. Script: `setMaxPending-8.lua` (runs at maxmemory).
   * @param maxPending a count, 0..1,000,000,000 (`Limits.maxPending`), or null to clear it
   * @returns the group after the call (`maxPending` its own bound)
   * @throws RingmasterError BAD_USER_INPUT (`group`, `maxPending`) with nothing written
   */
  setMaxPending(
    group: string,
    maxPending: number | null,
    options: SteeringOptions = {},
  ): Promise<GroupInfo> {
    return this.call(() => this.steering.setMaxPending(group, maxPending, options));
  }

  /**
   * The queue's default backlog bound: the bound of every group without its own (DESIGN.md §3,
   * "Backlog bounds"); null clears it. Registers the queue; recorded in the history as
   * `setDefaultMaxPending` (group ''). Script: `setDefaultMaxPending-1.lua` (runs at maxmemory).
   * @param maxPending a count, 0..1,000,000,000 (`Limits.maxPending`), or null to clear it
   * @returns the default after the call (null: none)
   * @throws RingmasterError BAD_USER_INPUT (`maxPending`) with nothing written
   */
  setDefaultMaxPending(
    maxPending: number | null,
    options: SteeringOptions = {},
  ): Promise<number | null> {
    return this.call(() => this.steering.setDefaultMaxPending(maxPending, options));
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
  setRetention(
    policies: { completed?: RetentionChange | undefined; dead?: RetentionChange | undefined } = {},
    options?: SteeringOptions,
  ): Promise<QueueRetention> {
    return this.call(() => this.steering.setRetention(policies, options));
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
  setWeight(group: string, weight: number, options?: SteeringOptions): Promise<GroupInfo> {
    return this.call(() => this.steering.setWeight(group, weight, options));
  }

  // ── producing ─────────────────────────────────────────────────────────────────────────────

  /**
   * Add a job to `group`'s lane, after every job of its priority and before the jobs of later
   * priorities (DESIGN.md §3, "Priorities"; at its tail with the default priority). `payload`
   * is any JSON value (≤ 524,288 bytes as JSON text). Script: `enqueue-12.lua`.
   *
   * With `delayMs` or `runAt` in the future (Redis clock) the job is DELAYED instead: kept in
   * `P:{Q}:delayed` and its group's delayed index with its `runAt`, not pending, its group not
   * re-ringed (a group whose only work is delayed is not serviceable); once due, promotion (a
   * claim, the reaper, or {@link promote}) puts it in its lane at its place (its priority,
   * then its id).
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
   * @param options.priority its place in its group's lane, an integer from 1 (runs first) to 9
   *   (runs last), default 5; FIFO within a priority (DESIGN.md §3, "Priorities")
   * @param options.debounce `{ key, windowMs }` (DESIGN.md §3, "Debounce"): the job is DELAYED
   *   by windowMs (ms, 1..2,592,000,000); while the key's job is PENDING or DELAYED, an enqueue
   *   with the key (1–256 UTF-8 bytes, per queue) answers that job with this call's payload and
   *   its runAt moved to now + windowMs (its maxAttempts, backoff and priority kept); once it
   *   has been claimed, the next makes a new job. Not with `key`, `delayMs` or `runAt`
   * @throws RingmasterError BAD_USER_INPUT for bad input (argument `runAt` also for a runAt
   *   more than 30 days from now, and for delayMs and runAt together; `debounce` with `key`,
   *   `delayMs` or `runAt`), or (argument `key`) when
   *   the key was used within its window for a different request — another group, payload (as
   *   JSON text), maxAttempts, delay, backoff or priority, or (argument `debounce.key`) when the
   *   debounce key's pending or delayed job is of another group; DATA_OUT_OF_RANGE (see the
   *   script)
   */
  enqueue(
    group: string,
    payload?: Payload,
    options: EnqueueOptions = {},
  ): Promise<Job<Payload, Result>> {
    return this.call(() => this.producing.enqueue(group, payload, options)) as Promise<
      Job<Payload, Result>
    >;
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
   *   `jobs[i].runAt`, `jobs[i].backoff`, `jobs[i].priority` (i from 0) — as {@link enqueue}
   *   refuses them;
   *   DATA_OUT_OF_RANGE (see the script). Nothing is written then.
   */
  enqueueMany(
    jobs: readonly { group: string; payload?: Payload; options?: EnqueueOptions | undefined }[],
  ): Promise<Job<Payload, Result>[]> {
    return this.call(() => this.producing.enqueueMany(jobs)) as Promise<Job<Payload, Result>[]>;
  }

  // ── working (worker) ──────────────────────────────────────────────────────────────────────

  /**
   * Claim the next job of the rota (the head group of the ring), leased for `leaseMs` ms
   * under `token` (a random UUID when omitted). Up to `Defaults.promoteBatch` (100) delayed
   * jobs whose run-at time has come are promoted to their lanes first. Null when no group is
   * serviceable, or while the queue is paused ({@link pauseQueue}). `workerId` (1..200 UTF-8
   * bytes, no control characters) is kept with the job while it is ACTIVE (`Job.workerId`,
   * DESIGN.md §4.9 "Workers"); it registers no worker ({@link workerHeartbeat} does).
   * Script: `claim-1.lua`.
   * @throws RingmasterError BAD_USER_INPUT for a bad leaseMs, token or workerId
   */
  claim(options: ClaimOptions = {}): Promise<Job<Payload, Result> | null> {
    return this.call(() => this.working.claim(options)) as Promise<Job<Payload, Result> | null>;
  }

  /**
   * Complete active job `id` leased under `token`: its permit is released, and the job is kept
   * by the queue's completed retention (state COMPLETED with finishedAt, listed in `completed`,
   * the oldest past the policy trimmed) or, with retention count 0, its hash deleted. Returns
   * the job as it was, state COMPLETED, the same either way. Script: `complete-11.lua`.
   * @throws RingmasterError BAD_USER_INPUT (a malformed token, checked before the id),
   *   JOB_NOT_FOUND, LEASE_LOST (stale or wrong token, not active)
   */
  complete(
    id: string,
    token: string,
    options: CompleteOptions<Result> = {},
  ): Promise<Job<Payload, Result>> {
    return this.call(() => this.working.complete(id, token, options)) as Promise<
      Job<Payload, Result>
    >;
  }

  /**
   * Complete the jobs a worker finished and claim jobs for its free slots, in one atomic
   * script and one round trip: each completion as {@link complete}, in order, then up to
   * `claim` claims as {@link claim}, until nothing is serviceable. The claims happen whatever
   * the completions' answers (the caller's slots are free either way). A busy worker sends one
   * call per batch of jobs, not one per job. The completed jobs are kept or deleted by the
   * queue's completed retention (as {@link complete}); before claiming, up to
   * `Defaults.promoteBatch` due delayed jobs are promoted; a paused queue claims nothing.
   * Script: `completeAndClaim-1.lua`.
   * @param completions up to 1,000 `{ id, token }`; an id that is not a decimal string is
   *   answered JOB_NOT_FOUND without being sent
   * @param options.claim jobs to claim (count, 0..1,000; default 1)
   * @param options.leaseMs their lease (ms, 1..86,400,000; default 30,000)
   * @param options.tokens their lease tokens, one per claim (default: random UUIDs)
   * @param options.workerId the claiming worker's id, kept with each job claimed (as {@link claim})
   * @returns `refused`: per completion, null when it completed, else the RingmasterError
   *   (JOB_NOT_FOUND, LEASE_LOST) that refused it; `finishedAt`: when the completions were
   *   recorded (ms, Redis clock); `claimed`: the jobs leased, in rota order (fewer than
   *   `claim` when the ring ran out); `nextRunAt`: see {@link CompleteAndClaimResult}
   * @throws RingmasterError BAD_USER_INPUT for a bad token, count or leaseMs (nothing is done)
   */
  completeAndClaim(
    completions: readonly Completion<Result>[],
    options: CompleteAndClaimOptions = {},
  ): Promise<CompleteAndClaimResult<Payload, Result>> {
    return this.call(() => this.working.completeAndClaim(completions, options)) as Promise<
      CompleteAndClaimResult<Payload, Result>
    >;
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
  retry(
    id: string,
    token: string,
    options: RetryOptions | string = {},
  ): Promise<Job<Payload, Result>> {
    return this.call(() => this.working.retry(id, token, options)) as Promise<Job<Payload, Result>>;
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
  watchJobs(ids: readonly string[], ttlMs: number): Promise<number> {
    return this.call(() => this.working.watchJobs(ids, ttlMs));
  }

  /**
   * Push active job `id`'s lease deadline to now + `leaseMs` (Redis clock).
   * Script: `extendLease-2.lua`.
   * @throws RingmasterError BAD_USER_INPUT, JOB_NOT_FOUND, LEASE_LOST
   */
  extendLease(id: string, token: string, leaseMs: number): Promise<Job<Payload, Result>> {
    return this.call(() => this.working.extendLease(id, token, leaseMs)) as Promise<
      Job<Payload, Result>
    >;
  }

  /**
   * Report active job `id`'s progress (DESIGN.md §3, "Progress and logs"): a number from 0 to
   * 100 or a JSON object (at most `Limits.progressBytes` of JSON text), kept in the job's hash
   * until the next report, across retries, and deleted with the job; a watched job's
   * `jobChanged` carries it. Returns the job with it. Script: `updateJobProgress-2.lua`.
   * @throws RingmasterError BAD_USER_INPUT (a malformed token; `progress` not a number in
   *   0..100 or an object by a payload's rules, or too long), JOB_NOT_FOUND, LEASE_LOST
   */
  updateJobProgress(
    id: string,
    token: string,
    progress: JobProgress,
  ): Promise<Job<Payload, Result>> {
    return this.call(() => this.working.updateJobProgress(id, token, progress)) as Promise<
      Job<Payload, Result>
    >;
  }

  /**
   * Append `line` (at most `Limits.logLineBytes` UTF-8 bytes) to active job `id`'s log
   * (DESIGN.md §3, "Progress and logs"): the newest `Defaults.logsKept` lines are kept, the
   * oldest dropped, and the log is deleted with the job. Read it with {@link jobLogs}.
   * Script: `addJobLog-2.lua`.
   * @returns the line as kept, with its time (ms, Redis clock)
   * @throws RingmasterError BAD_USER_INPUT (a malformed token; `line` not a string, or too
   *   long), JOB_NOT_FOUND, LEASE_LOST
   */
  addJobLog(id: string, token: string, line: string): Promise<JobLog> {
    return this.call(() => this.working.addJobLog(id, token, line));
  }

  // ── operator actions (admin) ──────────────────────────────────────────────────────────────

  /**
   * Put dead jobs back to work (DESIGN.md §3 and §4.1, "Operator actions"; script
   * `requeueDead-8.lua`, one atomic call): each returns to its own group's lane at its original
   * place (by its priority, then before the jobs enqueued after it), state PENDING, attempts reset to 0
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
  requeueDead(
    select: { ids: readonly string[] } | { group: string } | { all: true },
    options: { resetAttempts?: boolean | undefined; limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    return this.call(() => this.actions.requeueDead(select, options, steering));
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
  removeJobs(
    select: RemoveSelection,
    options: { limit?: number | undefined } = {},
    steering?: SteeringOptions,
  ): Promise<JobActionResult> {
    return this.call(() => this.actions.removeJobs(select, options, steering));
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
    return this.call(() => this.actions.purgeGroup(group, options, steering));
  }

  /**
   * Promote delayed job `id` now (admin): it goes to its group's lane at its place (by its
   * priority, then FIFO), as if its run-at time had come, and its group is re-ringed with a
   * wake if that makes it serviceable. A job that exists but is not DELAYED is returned unchanged, with `promoted`
   * false. Script: `promoteJob-8.lua`. Recorded in the history as `promoteJob` (DESIGN.md
   * §4.6; not when the job is not found or the call is refused).
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns the job after the call (PENDING when promoted) and whether it was moved
   * @throws RingmasterError JOB_NOT_FOUND (no such job, a completed or dead job past its
   *   retention age, which every read calls gone (DESIGN.md §2 Retention), or an id that is not
   *   a decimal string), DATA_OUT_OF_RANGE (its group's active count cannot be counted exactly;
   *   nothing changed)
   */
  promote(id: string, options?: SteeringOptions): Promise<PromotedJob> {
    return this.call(() => this.actions.promote(id, options));
  }

  /**
   * Give job `id` a new priority (admin; DESIGN.md §3, "Priorities"): a PENDING job moves to
   * its new place in its group's lane at once (by priority, then FIFO by id); a DELAYED job
   * keeps it for when it is promoted. A job in any other state (ACTIVE, COMPLETED, DEAD), or
   * already at that priority, is returned unchanged, as {@link promote} returns a job that is
   * not DELAYED. Script: `changeJobPriority-5.lua`. Recorded in the history as
   * `changeJobPriority` (DESIGN.md §4.6) when it changed the job.
   * @param priority an integer from 1 (runs first) to 9 (runs last)
   * @param options.actor who asks (history); default this handle's `actor`
   * @returns the job after the call
   * @throws RingmasterError BAD_USER_INPUT (argument `priority`: not an integer from 1 to 9;
   *   nothing written), JOB_NOT_FOUND (no such job, a completed or dead job past its retention
   *   age, or an id that is not a decimal string)
   */
  changeJobPriority(id: string, priority: number, options?: SteeringOptions): Promise<Job> {
    return this.call(() => this.actions.changeJobPriority(id, priority, options));
  }

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
    return this.call(() => this.actions.audit());
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
    return this.call(() => this.actions.repair(options));
  }

  // ── reads (O(1) or O(page); they register nothing) ────────────────────────────────────────

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
  history(options: HistoryOptions = {}): Promise<HistoryPage> {
    return this.call(() => this.reads.history(options));
  }

  /** One group; an unknown id reads as empty (limit null, zeros). */
  group(id: string): Promise<GroupInfo> {
    return this.call(() => this.reads.group(id));
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
  groups(options: GroupsOptions = {}): Promise<GroupPage> {
    return this.call(() => this.reads.groups(options));
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
  snapshot(options: SnapshotOptions = {}): Promise<QueueSnapshot> {
    return this.call(() => this.reads.snapshot(options));
  }

  /**
   * Whether the queue is in the registry (`P:queues`): something was ever enqueued to it or
   * steered in it (a limit set before the first job counts). False for a name never used,
   * whose reads are all zeros like an empty queue's. O(1).
   */
  known(): Promise<boolean> {
    return this.call(() => this.reads.known());
  }

  /**
   * The rota in the order claims take it (DESIGN.md §3, "Levels"): the groups of levels 1–4,
   * the ring (level 5), then levels 6–9, each level's head first. O(groups on the rota).
   */
  ring(): Promise<string[]> {
    return this.call(() => this.reads.ring());
  }

  /**
   * The rota in claim order, as {@link ring}, each group with its level: its lane head's
   * priority, 1–9, 5 on the ring (DESIGN.md §3, "Levels"). O(groups on the rota).
   */
  rota(): Promise<RotaEntry[]> {
    return this.call(() => this.reads.rota());
  }

  /** Paused group ids, sorted. O(paused). */
  paused(): Promise<string[]> {
    return this.call(() => this.reads.paused());
  }

  /** Groups with active > 0, sorted by id. O(groups with active work). */
  activeGroups(): Promise<GroupInfo[]> {
    return this.call(() => this.reads.activeGroups());
  }

  /**
   * The first `first` groups (1..100, default `Defaults.topGroups`, 10) ranked `by` (DESIGN.md
   * §3, "Group rankings"): PENDING (most pending jobs first), OLDEST_PENDING (the group whose
   * oldest pending job has the lowest id first) or ACTIVE (most active jobs first); equal counts
   * in group order (bytes). Only groups with pending (active) jobs rank. Each with its oldest
   * pending job. O(log groups + first) in one script (`readTopGroups-3.lua`); for OLDEST_PENDING it
   * mends at most {@link METRICS_HEAD_STEPS} stale entries of `P:{Q}:heads` and answers the groups
   * settled when more are left. Registers nothing.
   * @throws RingmasterError BAD_USER_INPUT (`by`, `first`)
   */
  topGroups(by: GroupRanking, first?: number): Promise<TopGroup[]> {
    return this.call(() => this.reads.topGroups(by, first));
  }

  /**
   * Queue-wide totals of one instant, in one read-only script (`readCounts-8.lua`): counters
   * and cardinalities, never a scan; O(1) in groups, O(log n) in jobs. `delayed` is the stats
   * total; `dead` and `completed` count the jobs the retention policies keep, leaving out those
   * past their age that no trim has reached yet, as {@link job} and {@link jobs} do (DESIGN.md §2,
   * "Retention").
   */
  counts(): Promise<QueueCounts> {
    return this.call(() => this.reads.counts());
  }

  /**
   * The queue's cap (`setQueueLimit`; null for none), the jobs in flight, the sum of the
   * reserves and a pending timed cap, read in one MULTI (DESIGN.md §3, "The queue's cap and
   * reserves"). O(1); registers nothing.
   */
  cap(): Promise<QueueCap> {
    return this.call(() => this.reads.cap());
  }

  /**
   * The queue's default backlog bound (`setDefaultMaxPending`), or null for none: the bound of
   * every group without its own (DESIGN.md §3, "Backlog bounds"). O(1); registers nothing.
   */
  defaultMaxPending(): Promise<number | null> {
    return this.call(() => this.reads.defaultMaxPending());
  }

  /**
   * RUNNING, or PAUSED between {@link pauseQueue} and {@link resumeQueue} (`paused` in
   * `P:{Q}:settings`). O(1); registers nothing.
   */
  state(): Promise<QueueState> {
    return this.call(() => this.reads.state());
  }

  /**
   * The queue's retention of completed and dead jobs (`P:{Q}:settings`), the defaults
   * (`Defaults.completedRetention`, `Defaults.deadRetention`) where none is set; read as the
   * scripts read it. O(1); registers nothing.
   */
  retention(): Promise<QueueRetention> {
    return this.call(() => this.reads.retention());
  }

  /** Event counters since the queue was created. O(1). */
  stats(): Promise<QueueStats> {
    return this.call(() => this.reads.stats());
  }

  /**
   * The queue's events per minute over the last `minutes` minutes (default 60, 1..1,440), oldest
   * first, the last the current minute of the Redis clock (so far): `{ at, enqueued, claimed,
   * completed, failed }`, `at` the minute's start (ms), 0s for a minute with no events. Kept in
   * Redis by the scripts that count the events, a day of minutes per queue (DESIGN.md §3,
   * "Throughput history"). One read-only script (`readThroughput-1.lua`), O(minutes); registers
   * nothing.
   * @throws RingmasterError BAD_USER_INPUT (`minutes`) for a count out of range
   */
  throughput(minutes = 60): Promise<ThroughputPoint[]> {
    return this.call(() => this.reads.throughput(minutes));
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
  metrics(options: { maxSteps?: number } = {}): Promise<QueueMetrics> {
    return this.call(() => this.reads.metrics(options));
  }

  /**
   * The queue's live workers (DESIGN.md §4.9 "Workers"), by id: each registered by its last
   * heartbeat ({@link workerHeartbeat}) and not lapsed on the Redis clock (3 heartbeats after
   * it; a lapsed one is left out before the reaper prunes it). At most 10,000
   * (`Limits.maxWorkersListed`). O(workers); for GraphQL clients (`client`) their leases are
   * counted too, O(active jobs). One read-only script (`readWorkers-3.lua`).
   */
  workers(): Promise<WorkerInfo[]> {
    return this.call(() => this.reads.workers());
  }

  /** The number of live workers ({@link workers}): O(log workers), one ZCOUNT. */
  workerCount(): Promise<number> {
    return this.call(() => this.reads.workerCount());
  }

  /**
   * Register worker `beat.id` in the queue's registry, or refresh it, until 3 × `heartbeatMs`
   * from now on the Redis clock (DESIGN.md §4.9 "Workers"). A `Worker` calls it at its start
   * and every `heartbeatMs`; the GraphQL `claim(workerId:)` calls it for a client. Answers the
   * Redis clock's now (ms). Script: `workerBeat-2.lua`.
   * @throws RingmasterError BAD_USER_INPUT for a bad id (`id`), a count that is not a
   *   non-negative integer (`pid`, `concurrency`, `active`), a text over 256 UTF-8 bytes
   *   (`hostname`, `version`) or a heartbeatMs out of 1..86,400,000
   */
  workerHeartbeat(beat: WorkerHeartbeat): Promise<number> {
    return this.call(() => this.working.workerHeartbeat(beat));
  }

  /**
   * Take worker `id` out of the registry at once (a `Worker` that closes); true when it was
   * registered. Script: `workerGone-2.lua`.
   * @throws RingmasterError BAD_USER_INPUT for a bad id
   */
  removeWorker(id: string): Promise<boolean> {
    return this.call(() => this.working.removeWorker(id));
  }

  /**
   * Job `id` with its `backoff` policy (null for none) and its `errors` (failed attempts,
   * newest first, at most `Defaults.errorsKept`), or null when there is no such job (gone:
   * completed without retention, trimmed, removed, or completed or dead and past its
   * retention's age on the Redis clock though no trim has reached it yet — DESIGN.md §2,
   * "Retention"). O(1) plus the bounded error list, in one read-only script (`readJob-4.lua`),
   * which runs at maxmemory too.
   */
  job(id: string): Promise<Job<Payload, Result> | null> {
    return this.call(() => this.reads.job(id)) as Promise<Job<Payload, Result> | null>;
  }

  /**
   * Where job `id` stands (DESIGN.md §4.1, "Where a job stands"): the job as {@link job} reads
   * it and, while PENDING, `position` (the pending jobs ahead of it in its lane, ZRANK), its
   * group (as {@link group} reads it), its group's service times from its newest retained
   * completions and `estimatedStartAt` (ms, Redis clock; null with fewer than 3 completions
   * retained, or while its group or the queue is paused or its limit is 0). Null when there is
   * no such job, as {@link job}. O(log lane + K) with K = 20 completions read, plus O(rota) for
   * a job a free permit of its group waits for (its group's place on the rota); registers
   * nothing.
   */
  jobPlace(id: string): Promise<JobPlace<Payload, Result> | null> {
    return this.call(() => this.reads.jobPlace(id)) as Promise<JobPlace<Payload, Result> | null>;
  }

  /**
   * {@link jobPlace} for several jobs at once, in the order of `ids` (null for each that is not
   * there): the jobs sent together, then one MULTI for every pending one's rank and every group's
   * completions, one read of their groups, one of the completions' claim times and at most one
   * of the rota, so a page of jobs costs a few round trips, not a few per job. O(Σ log lane +
   * groups × K), plus O(rota) once.
   * @throws RingmasterError BAD_USER_INPUT (`ids`) when `ids` is not an array or holds more
   *   than 500
   */
  jobPlaces(ids: readonly string[]): Promise<(JobPlace<Payload, Result> | null)[]> {
    return this.call(() => this.reads.jobPlaces(ids)) as Promise<
      (JobPlace<Payload, Result> | null)[]
    >;
  }

  /**
   * A page of job `id`'s log, oldest first (DESIGN.md §3, "Progress and logs"), or null when
   * there is no such job (gone as {@link job} reads it). A cursor stays good while older lines
   * are dropped. O(page), one read-only script (`readJobLogs-3.lua`).
   * @param options.first page size 1..500 (default 50)
   * @param options.after a cursor from a page of this job's log (`cursors`, `endCursor`)
   * @param options.last the newest `last` lines instead (1..500, oldest first; not with `first`
   *   or `after`); its `endCursor` pages on to the lines added after them
   * @throws RingmasterError BAD_USER_INPUT (`first`, `after`, `last`)
   */
  jobLogs(
    id: string,
    options: {
      first?: number | undefined;
      after?: string | null | undefined;
      last?: number | undefined;
    } = {},
  ): Promise<JobLogPage | null> {
    return this.call(() => this.reads.jobLogs(id, options));
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
  jobs(options: {
    state: JobState;
    group?: string | undefined;
    first?: number | undefined;
    after?: string | null | undefined;
  }): Promise<JobPage<Payload, Result>> {
    return this.call(() => this.reads.jobs(options)) as Promise<JobPage<Payload, Result>>;
  }

  // ── upkeep ────────────────────────────────────────────────────────────────────────────────

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
   * groups per call, repeated while a call comes back full and forgot one). Last, at most
   * `Defaults.workerPruneBatch` (1,000) workers whose heartbeat lapsed leave the registry
   * (DESIGN.md §4.9 "Workers"; `pruneWorkers-2.lua`, one call per pass).
   * @throws RingmasterError BAD_USER_INPUT when `batch` is not an integer in 1..10,000 or
   *   `groupGraceMs` out of its range
   */
  reap(options: { batch?: number; groupGraceMs?: number } = {}): Promise<number> {
    return this.call(() => this.upkeep.reap(options));
  }

  /**
   * Check that the queue's jobs are of this version's job layout (DESIGN.md §2, "Job layout"),
   * as enqueue and claim do before their first call on a connection (`checkLayout-9.lua`; once
   * the queue is marked, not asked again on this connection). Call it at start to fail there
   * rather than at the first enqueue or claim. Writes nothing but the mark of an empty queue.
   * @throws RingmasterError LAYOUT_MISMATCH, in one line saying what to do
   */
  checkLayout(): Promise<void> {
    return this.call(() => this.upkeep.checkLayout());
  }

  /**
   * Convert a queue written by the job layout before (payloads in the job hashes) to this
   * version's, in place (DESIGN.md §2, "Upgrading in place"): atomic steps, each visiting at most
   * `batch` job ids from where the last step stopped and moving the payloads it finds into the
   * queue's `payloads` hash; the last marks the queue, after which enqueue and claim work there,
   * and a {@link repair} then builds the indexes the version before did not keep (its report in
   * `repair`). Jobs in flight are kept (their leases and tokens untouched); until the mark, this
   * version refuses to enqueue or claim there (LAYOUT_MISMATCH). Stopped part way (a crash,
   * `maxSteps`), a call resumes where it stopped. Script: `upgradeLayout-2.lua`. A queue already
   * of this layout is done at once (and repaired).
   * @throws RingmasterError BAD_USER_INPUT for a `batch`, `maxSteps` or `actor` out of range;
   *   LAYOUT_MISMATCH when the queue is marked with another layout; DATA_OUT_OF_RANGE when its
   *   `seq` is not a non-negative integer; nothing written by any
   */
  upgradeLayout(options: LayoutUpgradeOptions = {}): Promise<LayoutUpgrade> {
    return this.call(() => this.upkeep.upgradeLayout(options));
  }

  /**
   * The {@link Reaper}'s per-queue lock (DESIGN.md §3, "reap"): take it for one pass as
   * `holder`, when no pass holds it and the last one began `intervalMs` or more ago (Redis
   * clock). Script: `reaperLock-2.lua`. Saves work only; {@link reap} needs no lock.
   * @param lockMs how long the lock lives if its holder never releases it (ms)
   * @returns true when taken: release it with {@link releaseReaping}
   */
  lockReaping(holder: string, intervalMs: number, lockMs: number): Promise<boolean> {
    return this.call(() => this.upkeep.lockReaping(holder, intervalMs, lockMs));
  }

  /** Release the lock {@link lockReaping} gave `holder` (if it is still its). `reaperUnlock-1.lua`. */
  releaseReaping(holder: string): Promise<void> {
    return this.call(() => this.upkeep.releaseReaping(holder));
  }

  /**
   * Redis' clock now (ms since the epoch, TIME): the clock every deadline is measured on
   * (timed overrides' `until`, leases, run-at times), read on the queue's node (on a cluster,
   * the master of the queue's slot, as `Commands.clock`). One round trip; writes nothing.
   */
  clock(): Promise<number> {
    return this.call(() => this.upkeep.clock());
  }
}
