/** Shapes the engine returns (DESIGN.md §1, §4). Times are ms since the epoch, Redis clock. */

/**
 * A job's place (invariant I4): its lane (PENDING), `delayed` (DELAYED: waiting for its run-at
 * time, a delayed enqueue or a retry's backoff), `active`, `dead`, or COMPLETED (kept in
 * `completed` by the retention policy, else its hash is deleted).
 */
export type JobState = 'PENDING' | 'DELAYED' | 'ACTIVE' | 'COMPLETED' | 'DEAD';

/**
 * How long a failed attempt with attempts left waits before it returns to its lane (DESIGN.md
 * §3, retry). FIXED waits `delayMs` every time; EXPONENTIAL waits `delayMs × 2^(attempt − 1)`,
 * capped at `maxDelayMs`. With `jitter` j (0..1) the wait is drawn uniformly from
 * [wait × (1 − j), wait].
 */
export interface BackoffPolicy {
  readonly type: 'FIXED' | 'EXPONENTIAL';
  /** ms, 0..2,592,000,000 (30 days). */
  readonly delayMs: number;
  /** The longest wait (ms), or null for no cap (EXPONENTIAL only matters). */
  readonly maxDelayMs: number | null;
  /** 0..1; 0 for none. */
  readonly jitter: number;
}

/** One failed attempt of a job, as kept in `P:{Q}:job:<id>:errors` (bounded, newest first). */
export interface JobError {
  /** The attempt that failed (1-based count). */
  readonly attempt: number;
  /** When it failed (ms since the epoch, Redis clock). */
  readonly at: number;
  /** The error's message (≤ 1,024 characters), or 'lease expired' for a reaped job. */
  readonly message: string;
  /** Its stack (≤ 8,192 characters), or null when none was given. */
  readonly stack: string | null;
}

/**
 * How many completed (or dead) jobs a queue keeps (DESIGN.md §2, retention): a job is kept
 * while it is among the newest `count` and, with `ageMs`, finished less than `ageMs` ago.
 * `count` 0 keeps none (completed: the fastest path, the hash is deleted at once).
 */
export interface RetentionPolicy {
  /** Jobs kept, 0..1,000,000. */
  readonly count: number;
  /** The longest a job is kept (ms), or null for no age bound. */
  readonly ageMs: number | null;
}

/** A queue's retention policies (`P:{Q}:settings`), the defaults where none was set. */
export interface QueueRetention {
  readonly completed: RetentionPolicy;
  readonly dead: RetentionPolicy;
}

/**
 * A change to one retention policy (`Queue.setRetention`): a field left out keeps what the
 * queue has (the default where nothing was set).
 */
export interface RetentionChange {
  /** Jobs kept, an integer 0..1,000,000 (0: none; completed jobs are then deleted at once). */
  readonly count?: number;
  /** The longest a job is kept, ms, an integer 1..31,536,000,000 (365 days); null: no age bound. */
  readonly ageMs?: number | null;
}

/**
 * Whether a queue's claims run (`Queue.state`): PAUSED after `Queue.pauseQueue`, until
 * `Queue.resumeQueue` — no group is served, completions and everything else go on.
 */
export type QueueState = 'RUNNING' | 'PAUSED';

/**
 * A group's standing, by precedence: PAUSED if paused; else SATURATED if a limit is set and
 * active >= limit; else RATE_LIMITED while its bucket is short of its head's cost (`rateLimitedUntil`);
 * else READY if it has pending work; else IDLE (DESIGN.md §4).
 */
export type GroupState = 'PAUSED' | 'SATURATED' | 'RATE_LIMITED' | 'READY' | 'IDLE';

/**
 * One job, as stored in `P:{Q}:job:<id>`. `Payload` and `Result` type what it carries: the
 * engine stores JSON and checks no shape, so they are what its producers and processor agree on
 * (`Queue<Payload, Result>`, `Worker<Payload, Result>`; DESIGN.md §4.1).
 */
export interface Job<Payload = unknown, Result = unknown> {
  /** Decimal string from `P:{Q}:seq` (another writer's ids may be any string). */
  readonly id: string;
  readonly queue: string;
  readonly group: string;
  /** The JSON value enqueued, or null for none. */
  readonly payload: Payload;
  /**
   * What its processor returned (JSON), kept while the completed job is (DESIGN.md §2, "Job
   * layout"); null for none, and on a job that is not COMPLETED.
   */
  readonly result: Result | null;
  /**
   * What its processor last reported (`updateJobProgress`: a number 0–100 or an object; DESIGN.md
   * §3, "Progress and logs"), kept across retries and with the job; null before any.
   */
  readonly progress: JobProgress | null;
  readonly state: JobState;
  /** Claims so far (count). */
  readonly attempts: number;
  /** Claims allowed before the job is dead (count). */
  readonly maxAttempts: number;
  /** The lease token while ACTIVE, else null. */
  readonly token: string | null;
  /** Lease deadline (ms) while ACTIVE, else null. */
  readonly leaseUntil: number | null;
  readonly enqueuedAt: number | null;
  /** When it runs (ms, Redis clock) while DELAYED, else null. */
  readonly runAt: number | null;
  readonly claimedAt: number | null;
  /** When it completed or died (ms). */
  readonly finishedAt: number | null;
  /** Why the last attempt failed (the worker's error message, or 'lease expired'). */
  readonly lastError: string | null;
  /**
   * The id of the worker holding it while ACTIVE (the claim's `workerId`, DESIGN.md §4.9
   * "Workers"), else null; undefined where it was not read.
   */
  readonly workerId?: string | null;
  /**
   * Its retry policy, or null for none (a failed attempt returns to its lane at once);
   * undefined where it was not read (the claim scripts do not return it).
   */
  readonly backoff?: BackoffPolicy | null;
  /**
   * Its place in its group's lane, 1 (runs first) to 9 (last), 5 by default (DESIGN.md §3,
   * "Priorities"); undefined where it was not read (the claim scripts do not return it).
   */
  readonly priority?: number;
  /**
   * Tokens its claim takes from its group's rate-limit bucket (DESIGN.md §3, "Rate limits"), 1
   * by default; undefined where it was not read (the claim scripts do not return it).
   */
  readonly cost?: number;
  /**
   * The debounce key it was enqueued with (DESIGN.md §3, "Debounce"); absent for none. While it
   * is PENDING or DELAYED, an enqueue with that key replaces its payload and run time.
   */
  readonly debounceKey?: string;
  /**
   * Its failed attempts, newest first (bounded: `Defaults.errorsKept`). Read by `Queue.job`
   * only; undefined on jobs from lists and from the job scripts.
   */
  readonly errors?: readonly JobError[];
}

/** A job's progress: a number from 0 to 100, or a JSON object (DESIGN.md §3, "Progress and logs"). */
export type JobProgress = number | { readonly [key: string]: unknown };

/** One line of a job's log (DESIGN.md §3, "Progress and logs"). */
export interface JobLog {
  /** When it was added (ms since the epoch, Redis clock). */
  readonly at: number;
  readonly line: string;
}

/** A page of a job's log, oldest first (`Queue.jobLogs`). */
export interface JobLogPage {
  readonly logs: JobLog[];
  /** One opaque cursor per line: pass one as `after` for the lines after it. */
  readonly cursors: string[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  /** Lines the log keeps now (count, at most `Defaults.logsKept`). */
  readonly totalCount: number;
}

/** One group's state (DESIGN.md §4 `Group`). */
export interface GroupInfo {
  readonly id: string;
  readonly queue: string;
  /** null = no limit (also when the stored field is not a non-negative integer). */
  readonly limit: number | null;
  /** Jobs in flight (count). */
  readonly active: number;
  /** Jobs waiting in the lane (count). */
  readonly pending: number;
  readonly paused: boolean;
  /** Derived from invariant I1, not read from the ring (`Queue.audit` checks the ring). */
  readonly onRing: boolean;
  readonly state: GroupState;
  /** Turns per round of the ring (count, ≥ 1; 1 when none is set). DESIGN.md §3, weights. */
  readonly weight: number;
  /** Its token bucket: `max` tokens per `windowMs`, `burst` held at most; null = no rate limit. */
  readonly rateLimit: RateLimit | null;
  /**
   * While the group is at its rate: when the token it needs comes (ms, Redis clock, after the read's
   * now); else null — also once that time has come, though no claim has put the group back yet.
   */
  readonly rateLimitedUntil: number | null;
  /**
   * When the token it waited for came (ms, Redis clock, at or before the read's now) while
   * the group still waits off the ring for the next claim (or reaper pass) to put it back
   * (DESIGN.md §3 "Rate limits"); null otherwise. Such a group is not rate-limited: READY (or
   * IDLE) with `onRing` false.
   */
  readonly rateReopenedAt: number | null;
  /** A timed setLimit's pending revert, or null. DESIGN.md §4.8, timed overrides. */
  readonly limitOverride: TimedOverride | null;
  /** A timed pause's pending revert, or null. */
  readonly pauseOverride: TimedOverride | null;
  /**
   * Permits of the queue's cap it is owed first while they are scarce (count, 0 for none;
   * `setReserve`). DESIGN.md §3, "The queue's cap and reserves".
   */
  readonly reserve: number;
  /**
   * Its own backlog bound: the most pending + delayed jobs an enqueue may leave it holding
   * (count), or null for none (the queue's default, `Queue.defaultMaxPending`, applies then;
   * `setMaxPending`). DESIGN.md §3, "Backlog bounds".
   */
  readonly maxPending: number | null;
}

/**
 * What `Queue.topGroups` ranks by (DESIGN.md §3, "Group rankings"): PENDING, most pending jobs
 * first; OLDEST_PENDING, the group whose oldest pending job was enqueued first (lowest id) first;
 * ACTIVE, most active jobs first. Equal counts rank in group order (bytes).
 */
export type GroupRanking = 'PENDING' | 'OLDEST_PENDING' | 'ACTIVE';

/** A group of `Queue.topGroups`: its fields, with its oldest pending job. */
export interface TopGroup extends GroupInfo {
  /** The id of its oldest pending job (the lowest id in its lane), or null with none pending. */
  readonly oldestPendingId: string | null;
  /** When that job was enqueued (ms since the epoch, Redis clock); null for none or unknown. */
  readonly oldestPendingAt: number | null;
  /** The read's now − {@link oldestPendingAt} (ms, ≥ 0), or null when that is null. */
  readonly oldestPendingAgeMs: number | null;
}

/** The queue's cap as it stands (DESIGN.md §3, "The queue's cap and reserves"). */
export interface QueueCap {
  /** The most jobs of the queue in flight at once (count), or null for no cap. */
  readonly limit: number | null;
  /** Jobs of the queue in flight now (count: ZCARD `active`). */
  readonly active: number;
  /** The sum of the groups' reserves (count). */
  readonly reserved: number;
  /** The cap's pending timed revert (`setQueueLimit` with `forMs`), or null. DESIGN.md §4.8. */
  readonly override: TimedOverride | null;
}

/** A group's rate limit (DESIGN.md §3, rate limits). */
export interface RateLimit {
  /** Tokens refilled per window (count, ≥ 1): the sustained rate, `max` job costs per window. */
  readonly max: number;
  /** The window's length (ms). */
  readonly windowMs: number;
  /** Tokens the bucket holds at most (count, ≥ 1): the largest burst; `max` unless set. */
  readonly burst: number;
}

/** A rate limit as `Queue.setRateLimit` takes it: `burst` defaults to `max`. */
export interface RateLimitInput {
  readonly max: number;
  readonly windowMs: number;
  readonly burst?: number | undefined;
}

/**
 * A timed override's pending revert (`P:{Q}:goverride`, JSON): at `until` the value goes back to
 * `revertTo` — for a limit, the limit before the override (null = none); for a pause, whether the
 * group was paused before it.
 */
export interface TimedOverride {
  /** When it reverts (ms, Redis clock). */
  readonly until: number;
  readonly revertTo: number | boolean | null;
  /** When the override was set (ms, Redis clock). */
  readonly setAt: number;
  /** Who set it (the history's actor). */
  readonly actor: string;
}

/** A page of groups ordered by id (DESIGN.md §4 `GroupConnection`). */
export interface GroupPage {
  readonly groups: GroupInfo[];
  /** Opaque cursor per group, same order as `groups`. */
  readonly cursors: string[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  /** Groups in the registry (count). */
  readonly totalCount: number;
}

/** Queue-wide totals (DESIGN.md §4 `QueueCounts`), each O(1) to read. */
export interface QueueCounts {
  readonly groups: number;
  /**
   * Groups on the rota at every priority level (the ring and `levels`, DESIGN.md §3 "Levels"):
   * the serviceable ones, `Queue.ring()`'s length.
   */
  readonly onRing: number;
  /** Paused groups (the queue's own pause is `QueueSnapshot.paused` / `Queue.state`). */
  readonly paused: number;
  /** Groups with a limit and active >= limit, paused or not. */
  readonly saturated: number;
  readonly pending: number;
  /** Jobs waiting for their run-at time (`stats.delayed`). */
  readonly delayed: number;
  readonly active: number;
  /** Dead jobs the dead retention keeps now (past its age: not counted, as not read). */
  readonly dead: number;
  /** Completed jobs the completed retention keeps now (past its age: not counted, as not read). */
  readonly completed: number;
}

/** Event counters of `P:{Q}:stats` since the queue was created (counts). */
export interface QueueStats {
  readonly enqueued: number;
  readonly claimed: number;
  readonly completed: number;
  /** Retries a worker asked for; an expired lease taken back counts in `reaped` instead. */
  readonly retried: number;
  readonly reaped: number;
  readonly dead: number;
  /** Jobs an operator removed or purged, in any state (`Queue.removeJobs`, `purgeGroup`). */
  readonly removed: number;
  /** Dead jobs an operator put back in their lanes (`Queue.requeueDead`). */
  readonly requeued: number;
}

/**
 * One minute of a queue's throughput (`Queue.throughput`; DESIGN.md §3, "Throughput history"):
 * the events counted in the minute that starts at `at`, each a count.
 */
export interface ThroughputPoint {
  /** The minute's start (ms since the epoch, Redis clock; a multiple of 60,000). */
  readonly at: number;
  /** Jobs created (`enqueue`, `enqueueMany`; not a dead job requeued). */
  readonly enqueued: number;
  /** Jobs claimed by a worker. */
  readonly claimed: number;
  /** Jobs completed. */
  readonly completed: number;
  /**
   * Failed attempts: retries a worker asked for (whether the job waits, runs again or dies)
   * plus expired leases the reaper took back; each attempt counted once.
   */
  readonly failed: number;
}

/**
 * A page of jobs of one state (`Queue.jobs`, DESIGN.md §4.1), in the order of its index:
 * PENDING by run order, DELAYED by run-at time, ACTIVE by lease deadline, DEAD and COMPLETED
 * newest first.
 */
export interface JobPage<Payload = unknown, Result = unknown> {
  readonly jobs: Job<Payload, Result>[];
  /** Opaque cursor per job, same order as `jobs` (the job's index score and id). */
  readonly cursors: string[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  /**
   * Jobs in the index read (count, its ZCARD); for ACTIVE with a group, the group's active
   * count.
   */
  readonly totalCount: number;
}

/**
 * What an operator action did (`Queue.requeueDead`, `removeJobs`, `purgeGroup`; DESIGN.md
 * §4.1): each call handles at most its `limit` of jobs, so a caller loops until `remaining` is
 * 0 (or a call does nothing: `count` 0).
 */
export interface JobActionResult {
  /** Jobs requeued or removed by this call (count). */
  readonly count: number;
  /**
   * Jobs still matching the selection after this call (count): for a group or the whole
   * queue, the index's size; 0 for a list of ids.
   */
  readonly remaining: number;
  /**
   * Jobs looked at and left alone (count): ACTIVE jobs (never touched), ids that name no job
   * or a job not in the state asked for, and stale index entries (see the scripts).
   */
  readonly skipped: number;
}

/**
 * One moment of a queue (`Queue.snapshot`): every field read by one script, so they agree with
 * each other — a group on `ring` is READY in `page` and `picked`, `counts.onRing` is
 * `ring.length`. An admin console draws all its panels from one of these.
 */
export interface QueueSnapshot {
  /** When it was read (ms since the epoch, Redis clock). */
  readonly at: number;
  /** The queue is paused (`Queue.pauseQueue`): nothing is claimed, the ring stands as it is. */
  readonly paused: boolean;
  /**
   * The rota in claim order, head first (its first `ringFirst` groups when asked so): the groups
   * of levels 1–4, the ring, those of levels 6–9 (DESIGN.md §3, "Levels").
   */
  readonly ring: string[];
  /** The level of each group of `ring`, 1–9 (5 on the ring itself). */
  readonly ringLevels: number[];
  /** The rota's length. */
  readonly ringSize: number;
  readonly counts: QueueCounts;
  readonly stats: QueueStats;
  /** The page of groups asked for (as `Queue.groups` pages them). */
  readonly page: GroupPage;
  /** The groups asked for by id, in the order asked (an unknown id reads as empty). */
  readonly picked: GroupInfo[];
}

/** What every steering call (setLimit, pause, …, DESIGN.md §4.6) may say besides its arguments. */
export interface SteeringOptions {
  /**
   * Who asks, recorded in the history: a token's name or role over the API. Default: the
   * queue handle's `actor` option.
   */
  readonly actor?: string;
}

/**
 * One group on the rota and the level it stands at: its lane head's priority, 1 (first) … 9
 * (DESIGN.md §3, "Levels"); 5, the default, for a group on the ring.
 */
export interface RotaEntry {
  readonly group: string;
  readonly level: number;
}

/**
 * A schedule (DESIGN.md §3, "Schedules"): a job enqueued into `group` on every tick, one of
 * `everyMs` (an interval) and `cron` (a cron expression in `timezone`, UTC when null).
 */
export interface Schedule<Payload = unknown> {
  readonly queue: string;
  readonly id: string;
  readonly group: string;
  /** The interval between ticks (ms), or null for a cron schedule. */
  readonly everyMs: number | null;
  /** The cron expression (5 fields, or 6 with seconds first), or null for an interval. */
  readonly cron: string | null;
  /** The IANA time zone the cron expression is read in; null for UTC (or an interval). */
  readonly timezone: string | null;
  /** Each job's payload (null for none). */
  readonly payload: Payload | null;
  /** Each job's maxAttempts. */
  readonly maxAttempts: number;
  /** Each job's retry policy, or null. */
  readonly backoff: BackoffPolicy | null;
  /** Each job's priority (1..9). */
  readonly priority: number;
  /** When the next tick is due (ms since the epoch, Redis clock). */
  readonly nextRunAt: number;
  /** The last tick fired (ms, the tick's own time), or null before the first. */
  readonly lastRunAt: number | null;
  /** The job the last tick enqueued, or null before the first. */
  readonly lastJobId: string | null;
}

/** A page of schedules ordered by id (DESIGN.md §4.2 `ScheduleConnection`). */
export interface SchedulePage {
  readonly schedules: Schedule[];
  /** Opaque cursor per schedule, same order as `schedules`. */
  readonly cursors: string[];
  /**
   * The ids on this page whose definition is not one (another writer's; DESIGN.md §3,
   * "Schedules"), by id: not in `schedules`, counted in `totalCount`, before `endCursor`.
   */
  readonly unreadable: string[];
  readonly hasNextPage: boolean;
  /** After the page's last id, listed or unreadable; null for an empty page. */
  readonly endCursor: string | null;
  /** Schedules of the queue (count). */
  readonly totalCount: number;
}

/**
 * A live worker of a queue (DESIGN.md §4.9 "Workers"), as its last heartbeat registered it.
 * Times are ms since the epoch on the Redis clock.
 */
export interface WorkerInfo {
  readonly id: string;
  /** Its host's name; null for a GraphQL client, which does not say. */
  readonly hostname: string | null;
  /** Its process id; null for a GraphQL client. */
  readonly pid: number | null;
  /** Jobs it runs at once (count); null for a GraphQL client. */
  readonly concurrency: number | null;
  /**
   * Jobs it holds now (count): as a `Worker` reported it at its last heartbeat, or, for a
   * GraphQL client, the active jobs whose lease names it.
   */
  readonly active: number;
  /** When it started (its first heartbeat since it started; a client's first claim). */
  readonly startedAt: number;
  /** Its last heartbeat (a client's last claim). */
  readonly lastSeenAt: number;
  /** The Ringmaster version it runs; null when unknown. */
  readonly version: string | null;
  /** How often it beats (ms); it is gone 3 beats after the last. */
  readonly heartbeatMs: number;
  /** When it lapses without another beat (ms). */
  readonly lapsesAt: number;
  /** Registered by claims over GraphQL (`claim(workerId:)`), not by a `Worker`. */
  readonly client: boolean;
}
