/**
 * The bounds of DESIGN.md §5, each stated once, and the one range check every caller uses: the
 * engine's input checks (`validate.ts`), the CLI's arguments (`src/cli/bounds.ts`) and the
 * console's forms read them here. Imports nothing, so the console can bundle it. The few the
 * scripts check are written once for them in `src/lua/includes/bounds.lua`, which
 * test/lua/bounds.test.ts holds equal to these.
 */

/** Bounds of DESIGN.md §5: counts, bytes, and ms for the names ending in `Ms`. */
export const Limits = {
  queueNameLength: 128,
  groupIdBytes: 256,
  /** An actor's UTF-8 bytes (`actor`): a person's or a program's name, not a document. */
  actorBytes: 128,
  maxLimit: 1_000_000,
  /** A backlog bound's most (`maxPending`, DESIGN.md §3 "Backlog bounds"): pending + delayed jobs. */
  maxPending: 1_000_000_000,
  maxLeaseMs: 86_400_000,
  maxAttempts: 100,
  /**
   * A job's priority runs from 1 (runs first in its group's lane) to 9 (last); the default is
   * `Defaults.priority` (DESIGN.md §3, "Priorities"). `src/lua/includes/priority.lua` scores
   * the lane by it.
   */
  minPriority: 1,
  maxPriority: 9,
  payloadBytes: 524_288,
  /**
   * A job's progress as JSON text (UTF-8 bytes): it lives in the job's hash and in each of a
   * watched job's events, so it is held far below a payload.
   */
  progressBytes: 16_384,
  /**
   * The longest preview of a job's payload, result or progress (`Job.payloadPreview`,
   * `Job.resultPreview`, `Job.progressPreview`), in characters (code points): what a list row or
   * its tooltip shows.
   */
  maxPreviewChars: 2_000,
  /** One line of a job's log (UTF-8 bytes). */
  logLineBytes: 8_192,
  /**
   * Payload bytes (JSON text, UTF-8, summed over the jobs) one `Queue.enqueueMany` call may
   * send: 16 MiB, so a call is one command of bounded size, not 1,000 × 512 KiB = 512 MiB.
   */
  enqueueBatchPayloadBytes: 16_777_216,
  maxPageSize: 500,
  /**
   * Minutes of throughput a queue keeps, one slot each (`P:{Q}:throughput`), and the most
   * `Queue.throughput` reads: a day (DESIGN.md §3, "Throughput history").
   */
  throughputMinutes: 1_440,
  /** Groups a `Queue.snapshot` reads by id besides its page. */
  maxPicked: 20,
  tokenLength: 128,
  maxReapBatch: 10_000,
  /** Job ids one step of `Queue.upgradeLayout` visits (one atomic script; DESIGN.md §2). */
  maxLayoutBatch: 10_000,
  /** Steps one `Queue.upgradeLayout` call makes, at most, when told a bound. */
  maxLayoutSteps: 1_000_000,
  /** Completions, and claims, in one `completeAndClaim` call (Lua's unpack bounds a batch). */
  maxBatch: 1_000,
  /** Jobs one `Queue.enqueueMany` call enqueues (one script; as completeAndClaim's batch). */
  maxEnqueueBatch: 1_000,
  /** Jobs one Worker runs at once. */
  maxConcurrency: 10_000,
  /** Jobs one operator action (requeueDead, removeJobs, purgeGroup) handles per call. */
  maxActionLimit: 1_000,
  /** Job ids one operator action may name. */
  maxActionIds: 1_000,
  /** Completed or dead jobs a queue may retain (count). */
  maxRetentionCount: 1_000_000,
  /** The longest a retention policy may keep a job (ms): 365 days. */
  maxRetentionAgeMs: 31_536_000_000,
  /**
   * The longest span of time an argument may name (ms): 30 days — an enqueue's delayMs, how far
   * its runAt may be from the Redis clock's now, a retry's delayMs, a backoff's delayMs and
   * maxDelayMs, an idempotency key's keyTtlMs, a rate limit's windowMs, a timed call's forMs.
   */
  maxDelayMs: 2_592_000_000,
  /** The most turns per round a group may be given (DESIGN.md §3, "Weights"). */
  maxWeight: 1_000,
  /** The most claims a rate limit's window may allow (DESIGN.md §3, "Rate limits"). */
  maxRateClaims: 1_000_000,
  /**
   * A schedule's interval (`everyMs`, ms): from 1 s, so a queue's ticks stay far apart from
   * the reaper's passes that fire them, to 365 days (DESIGN.md §3, "Schedules").
   */
  minEveryMs: 1_000,
  maxEveryMs: 31_536_000_000,
  /** The most schedules one queue holds (DESIGN.md §3, "Schedules"). */
  maxSchedules: 1_000,
  /** A schedule's cron expression (characters) and time zone name (characters). */
  cronLength: 256,
  timezoneLength: 64,
  /** Stale oldest-pending entries one `Queue.metrics` call may mend (`maxSteps`). */
  maxMetricsSteps: 10_000,
  /** A worker's id (`workerId`, DESIGN.md §4.9 "Workers"): UTF-8 bytes. */
  workerIdBytes: 200,
  /** Live workers one `Queue.workers` read answers at most (DESIGN.md §4.9). */
  maxWorkersListed: 10_000,
  /** The most groups one `Queue.topGroups` call answers (`first`; DESIGN.md §3, "Group rankings"). */
  maxTopGroups: 100,
} as const;

/** Whether `value` is an integer from `min` to `max`, both included. */
export function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
