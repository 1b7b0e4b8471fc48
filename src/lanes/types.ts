/** Shapes the engine returns (DESIGN.md §1, §4). Times are ms since the epoch, Redis clock. */

/** A job's place (invariant I4): its lane, `active`, `dead`, or completed (hash deleted). */
export type JobState = 'PENDING' | 'ACTIVE' | 'COMPLETED' | 'DEAD';

/**
 * A group's standing, by precedence: PAUSED if paused; else SATURATED if a limit is set and
 * active >= limit; else READY if it has pending work; else IDLE (DESIGN.md §4).
 */
export type GroupState = 'PAUSED' | 'SATURATED' | 'READY' | 'IDLE';

/** One job, as stored in `P:{Q}:job:<id>`. */
export interface Job {
  /** Decimal string from `P:{Q}:seq` (another writer's ids may be any string). */
  readonly id: string;
  readonly queue: string;
  readonly group: string;
  /** The JSON value enqueued, or null for none. */
  readonly payload: unknown;
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
  readonly claimedAt: number | null;
  /** When it completed or died (ms). */
  readonly finishedAt: number | null;
  /** Why the last attempt failed (the worker's error message, or 'lease expired'). */
  readonly lastError: string | null;
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
  readonly onRing: number;
  readonly paused: number;
  /** Groups with a limit and active >= limit, paused or not. */
  readonly saturated: number;
  readonly pending: number;
  readonly active: number;
  readonly dead: number;
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
}

/**
 * One moment of a queue (`Queue.snapshot`): every field read by one script, so they agree with
 * each other — a group on `ring` is READY in `page` and `picked`, `counts.onRing` is
 * `ring.length`. An admin console draws all its panels from one of these.
 */
export interface QueueSnapshot {
  /** When it was read (ms since the epoch, Redis clock). */
  readonly at: number;
  /** The ring, head first. */
  readonly ring: string[];
  readonly counts: QueueCounts;
  readonly stats: QueueStats;
  /** The page of groups asked for (as `Queue.groups` pages them). */
  readonly page: GroupPage;
  /** The groups asked for by id, in the order asked (an unknown id reads as empty). */
  readonly picked: GroupInfo[];
}
