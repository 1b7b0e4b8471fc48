/**
 * The engine's defaults, in one place: the key prefix and the values of DESIGN.md §4 that the
 * engine, the server's settings and the GraphQL schema's default arguments all read.
 */

/** Defaults of DESIGN.md §2 (the prefix) and §4. */
export const Defaults = {
  /** Key prefix `P` (DESIGN.md §2). */
  prefix: 'emq',
  /** Who steering calls are recorded as in the history when they name no one (§4.6). */
  actor: 'engine',
  /** The most entries a queue's history stream keeps (count); a group's keeps ≤ 1,000. */
  historyMaxLen: 10_000,
  /** How long an enqueue's idempotency key is remembered (ms): 24 h. */
  keyTtlMs: 86_400_000,
  leaseMs: 30_000,
  maxAttempts: 3,
  /**
   * A job's priority when its enqueue names none (1..9, DESIGN.md §3 "Priorities"); its lane
   * score is its id, and its hash holds no `priority` (`DEFAULT_PRIORITY` of
   * `src/lua/includes/priority.lua`).
   */
  priority: 5,
  pageSize: 50,
  /** Groups `Queue.topGroups` answers when `first` is not given. */
  topGroups: 10,
  reapBatch: 1_000,
  /** Job ids one step of `Queue.upgradeLayout` visits (DESIGN.md §2, "Upgrading in place"). */
  layoutUpgradeBatch: 500,
  /**
   * How long a group stays registered after the last call that registered it (ms): 1 h. Once
   * that long unseen and idle and unset, the reaper forgets it (DESIGN.md §3, "Forgetting
   * groups"); `Reaper`'s and `Queue.reap`'s `groupGraceMs` set it.
   */
  groupGraceMs: 3_600_000,
  /** Groups one `forgetGroups-5.lua` call looks at, at most (count). */
  forgetBatch: 500,
  /** Due schedules one tick reads and fires per call (DESIGN.md §3, "Schedules"). */
  scheduleTickBatch: 100,
  /**
   * How often a Worker without a reaper of its own ticks its queue's schedules (ms; DESIGN.md §3,
   * "Schedules").
   */
  scheduleTickMs: 1_000,
  /**
   * Retention of completed jobs when a queue has none set (`P:{Q}:settings`): the newest 1,000
   * for at most 1 h. `src/lua/includes/retention.lua` holds the same numbers.
   */
  completedRetention: { count: 1_000, ageMs: 3_600_000 },
  /** Retention of dead jobs when a queue has none set: the newest 10,000 for at most 7 days. */
  deadRetention: { count: 10_000, ageMs: 604_800_000 },
  /** Failed attempts kept per job (`P:{Q}:job:<id>:errors`), newest first. */
  errorsKept: 10,
  /** Lines kept per job log (`P:{Q}:job:<id>:logs`), the newest; older ones are dropped. */
  logsKept: 1_000,
  /** The longest error message kept (characters). */
  errorMessageLength: 1_024,
  /** The longest error stack kept (characters). */
  errorStackLength: 8_192,
  /** Delayed jobs promoted by one claim script at most (the reaper promotes the rest). */
  promoteBatch: 100,
  /** Jobs one operator action (requeueDead, removeJobs, purgeGroup) handles per call. */
  actionLimit: 1_000,
  /**
   * How often a `Worker` beats, and how often a GraphQL client that claims with a `workerId` is
   * taken to (ms): it is gone {@link WORKER_LAPSE_BEATS} beats after its last (DESIGN.md §4.9).
   */
  heartbeatMs: 5_000,
  /** Lapsed workers one reaper pass forgets at most (`pruneWorkers-2.lua`, count). */
  workerPruneBatch: 1_000,
} as const;

/**
 * Heartbeats a worker may miss before it is gone from the reads (DESIGN.md §4.9 "Workers"):
 * `workerBeat-2.lua` registers it until 3 × its heartbeat after the last beat.
 */
export const WORKER_LAPSE_BEATS = 3;

/**
 * Who a revert applied at its deadline is recorded as in the history (DESIGN.md §4.8): no
 * caller may take the name (`validate.actor`, and the server's token names).
 */
export const TIMER_ACTOR = 'timer';
