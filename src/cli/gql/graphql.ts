/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** What keeps a group from its turn: off the ring; or, on it, the queue at its cap (QUEUE_LIMIT), else a more urgent level (LEVEL); null when it is on the ring of a queue below its cap and its level is the most urgent there, or when its rate window has reopened and the next claim puts it back. */
export type BlockedBy =
  /** No backlog: nothing is waiting. Jobs may still be in flight (`active` > 0): such a group is busy, not doing nothing. */
  | 'IDLE'
  /** On the ring, but a more urgent level has a group ready: the head of its lane is of a later priority, and a claim serves the most urgent level first (strictly; `reason` names both levels). */
  | 'LEVEL'
  /** Exactly at its limit: the next completion puts it back. */
  | 'LIMIT'
  /** Its limit is 0, or was lowered below the work in flight (active > limit): several jobs must finish, or the limit be raised, first. */
  | 'PARKED'
  /** Paused by an operator. */
  | 'PAUSED'
  /** On the ring (READY, under its own limit, with pending work), but the queue is at or over its cap (`Queue.limit`, setQueueLimit): its claim waits for a permit, which the next completion of any of the queue's groups frees; a group owed its reserve gets it first (`reason` says which). Goes before LEVEL: at the cap no level is served. */
  | 'QUEUE_LIMIT'
  /** Its rate-limit bucket is short of its head job's cost: it re-joins the ring when enough tokens have refilled (`rateLimitedUntil`). */
  | 'RATE_LIMITED';

/** What a finding is about. */
export type FindingKind =
  /** The queue’s “next due at” (subject `delayedAt` or `reopenAt`, in its settings) is later than the earliest delayed job or rate-limit reopening it bounds (repair writes the earliest). */
  | 'DUE'
  /** Ring membership disagrees with serviceability. */
  | 'I1'
  /** A group is on the ring more than once. */
  | 'I2'
  /** An active count disagrees with the live leases. */
  | 'I3'
  /** A delayed, dead or retained completed job missing from its group’s index or from the queue’s (or a stray entry in one); the subject is the job id. */
  | 'I4'
  /** A lease without an active job, or an active job without a lease. */
  | 'LEASE'
  /** A stored limit is not a non-negative integer (it reads as no limit). */
  | 'LIMIT'
  /** A timed override whose two keys disagree (data without a deadline: shown, never reverted; a deadline without data, or at another time than its `until`) or whose data does not decode (invariant I6); the subject is `<kind>:<group>`. */
  | 'OVERRIDE'
  /** A group ranking of `Queue.topGroups` disagrees with what it ranks: `expected` and `found` are `pending <n>` (the lane’s size) or `active <n>` (the live leases), 0 for no entry. */
  | 'RANK'
  /** A rate limit's token bucket that is malformed (read as empty: repair writes it empty at now) or kept for a group with no rate limit (repair deletes it); the subject is the group. */
  | 'RATE'
  /** A group missing from the registry (state from another writer). */
  | 'REGISTRY'
  /** The stored sum of the reserves (subject `reserved`) disagrees with the groups’ reserves, or that sum is above the queue’s cap (subject `cap`; not repaired: lower a reserve). */
  | 'RESERVE'
  /** A schedule’s keys disagree: a next tick without a definition (repair drops it), a definition without a next tick or with one later than it allows (repair sets its next tick after now), a last run of no schedule or not `<lastRunAt>:<lastJobId>` (repair drops it); or its definition is not one an upsert writes (repair removes the schedule, its text kept in the history; one whose cron or time zone only this engine does not read is left as it is). The subject is the schedule id. */
  | 'SCHEDULE'
  /** A queue total in stats disagrees with a recount; or, when `found` starts with "unsettled:", the queue changed during every recount, so that total was neither checked nor written. */
  | 'TOTALS';

/** PAUSED if paused; else SATURATED if a limit is set and active >= limit; else RATE_LIMITED while its rate window is used up (until `rateLimitedUntil`); else READY if it has pending work; else IDLE (nothing waiting; jobs may still be in flight). */
export type GroupState =
  | 'IDLE'
  | 'PAUSED'
  | 'RATE_LIMITED'
  | 'READY'
  | 'SATURATED';

export type JobState =
  | 'ACTIVE'
  | 'COMPLETED'
  | 'DEAD'
  | 'DELAYED'
  | 'PENDING';

/** What a timed override changed: the group’s limit or its pause. */
export type OverrideKind =
  /** A timed setLimit. */
  | 'LIMIT'
  /** A timed pauseGroup or resumeGroup: the pause reverts at the deadline. */
  | 'PAUSE';

/** RUNNING, or PAUSED between pauseQueue and resumeQueue: nothing is claimed from any group, while completions, retries, reaping and promotion go on and the ring stands as it is. */
export type QueueState =
  | 'PAUSED'
  | 'RUNNING';

/** SNAPSHOT first, then CHANGE (the ring or the queue state differs); RESYNC when the ring is sent again whatever it is: after the notification connection reconnects, when Redis lost the queue's state, or to a subscriber too far behind to be told what changed (resyncReason says which). */
export type RingChangeReason =
  | 'CHANGE'
  | 'RESYNC'
  | 'SNAPSHOT';

export type CliGroupFragment = { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null };

export type CliCountsFragment = { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number };

export type CliStatusQueryVariables = Exact<{ [key: string]: never; }>;


export type CliStatusQuery = { queues: Array<{ name: string, known: boolean, state: QueueState, counts: { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number } } | null> };

export type CliGroupsQueryVariables = Exact<{
  queue: string;
  first: number;
  after?: string | null | undefined;
}>;


export type CliGroupsQuery = { queue: { known: boolean, groups: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } }> } } };

export type CliGroupQueryVariables = Exact<{
  queue: string;
  id: string;
}>;


export type CliGroupQuery = { queue: { known: boolean, group: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } } };

export type CliSetLimitMutationVariables = Exact<{
  queue: string;
  group: string;
  limit: number;
  forMs?: number | null | undefined;
}>;


export type CliSetLimitMutation = { setLimit: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliClearLimitMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type CliClearLimitMutation = { clearLimit: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliPauseMutationVariables = Exact<{
  queue: string;
  group: string;
  forMs?: number | null | undefined;
}>;


export type CliPauseMutation = { pauseGroup: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliResumeMutationVariables = Exact<{
  queue: string;
  group: string;
  forMs?: number | null | undefined;
}>;


export type CliResumeMutation = { resumeGroup: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliSetWeightMutationVariables = Exact<{
  queue: string;
  group: string;
  weight: number;
}>;


export type CliSetWeightMutation = { setWeight: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliSetRateLimitMutationVariables = Exact<{
  queue: string;
  group: string;
  max: number;
  windowMs: number;
  burst?: number | null | undefined;
}>;


export type CliSetRateLimitMutation = { setRateLimit: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliClearRateLimitMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type CliClearRateLimitMutation = { clearRateLimit: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliSetReserveMutationVariables = Exact<{
  queue: string;
  group: string;
  reserve: number;
}>;


export type CliSetReserveMutation = { setReserve: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliSetMaxPendingMutationVariables = Exact<{
  queue: string;
  group: string;
  maxPending?: number | null | undefined;
}>;


export type CliSetMaxPendingMutation = { setMaxPending: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliSetDefaultMaxPendingMutationVariables = Exact<{
  queue: string;
  maxPending?: number | null | undefined;
}>;


export type CliSetDefaultMaxPendingMutation = { setDefaultMaxPending: { name: string, defaultMaxPending: number | null } | null };

export type CliQueueCapFragment = { name: string, limit: number | null, active: number, reserved: number };

export type CliQueueCapQueryVariables = Exact<{
  queue: string;
}>;


export type CliQueueCapQuery = { queue: { known: boolean, name: string, limit: number | null, active: number, reserved: number, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null } };

export type CliSetQueueLimitMutationVariables = Exact<{
  queue: string;
  limit: number;
  forMs?: number | null | undefined;
}>;


export type CliSetQueueLimitMutation = { setQueueLimit: { name: string, limit: number | null, active: number, reserved: number } | null };

export type CliClearQueueLimitMutationVariables = Exact<{
  queue: string;
}>;


export type CliClearQueueLimitMutation = { clearQueueLimit: { name: string, limit: number | null, active: number, reserved: number } | null };

export type CliCancelOverrideMutationVariables = Exact<{
  queue: string;
  group: string;
  kind: OverrideKind;
}>;


export type CliCancelOverrideMutation = { cancelOverride: { id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null } | null };

export type CliDeadQueryVariables = Exact<{
  queue: string;
  group?: string | null | undefined;
  first: number;
  after?: string | null | undefined;
}>;


export type CliDeadQuery = { queue: { known: boolean, jobs: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, group: string, attempts: number, maxAttempts: number, finishedAt: string | null, lastError: string | null } }> } } };

export type CliRetryDeadMutationVariables = Exact<{
  queue: string;
  group?: string | null | undefined;
  all?: boolean | null | undefined;
}>;


export type CliRetryDeadMutation = { requeueDeadJobs: { count: number, remaining: number, skipped: number } | null };

export type CliChangeJobPriorityMutationVariables = Exact<{
  queue: string;
  id: string | number;
  priority: number;
}>;


export type CliChangeJobPriorityMutation = { changeJobPriority: { id: string, group: string, state: JobState, priority: number } | null };

export type CliTopQueryVariables = Exact<{
  queue: string;
}>;


export type CliTopQuery = { queue: { name: string, known: boolean, state: QueueState, ring: Array<string>, counts: { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number }, stats: { enqueued: number, claimed: number, completed: number, retried: number, reaped: number, dead: number }, activeGroups: Array<{ id: string, queue: string, known: boolean, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, blockedBy: BlockedBy | null, reason: string, weight: number, rateLimitedUntil: string | null, reserve: number, maxPending: number | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, remainingMs: number, revertToLimit: number | null, actor: string } | null, pauseOverride: { until: string, remainingMs: number, revertToPaused: boolean | null, actor: string } | null }> } };

export type CliRingSubscriptionVariables = Exact<{
  queue: string;
}>;


export type CliRingSubscription = { ringChanged: { reason: RingChangeReason, ring: Array<string>, size: number, queueState: QueueState } };

export type CliProbeQueryVariables = Exact<{ [key: string]: never; }>;


export type CliProbeQuery = { __typename: 'Query' };

export type CliJobQueryVariables = Exact<{
  queue: string;
  id: string | number;
  first?: number | null | undefined;
  last?: number | null | undefined;
}>;


export type CliJobQuery = { queue: { known: boolean, job: { id: string, group: string, state: JobState, reason: string, position: number | null, estimatedStartAt: string | null, priority: number, debounceKey: string | null, attempts: number, maxAttempts: number, enqueuedAt: string | null, finishedAt: string | null, lastError: string | null, payload: unknown, result: unknown, progress: unknown, logs: { totalCount: number, edges: Array<{ cursor: string, node: { at: string, line: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } };

export type CliJobLogsQueryVariables = Exact<{
  queue: string;
  id: string | number;
  first: number;
  after: string;
}>;


export type CliJobLogsQuery = { queue: { job: { logs: { totalCount: number, edges: Array<{ cursor: string, node: { at: string, line: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } };

export type CliJobLogPageFragment = { totalCount: number, edges: Array<{ cursor: string, node: { at: string, line: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } };

export type CliScheduleFragment = { id: string, group: string, everyMs: number | null, cron: string | null, timezone: string | null, payload: unknown, maxAttempts: number, priority: number, nextRunAt: string | null, lastRunAt: string | null, lastJobId: string | null };

export type CliSchedulesQueryVariables = Exact<{
  queue: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type CliSchedulesQuery = { queue: { name: string, known: boolean, schedules: { totalCount: number, unreadable: Array<string>, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, group: string, everyMs: number | null, cron: string | null, timezone: string | null, payload: unknown, maxAttempts: number, priority: number, nextRunAt: string | null, lastRunAt: string | null, lastJobId: string | null } }> } } };

export type CliUpsertScheduleMutationVariables = Exact<{
  queue: string;
  id: string | number;
  group: string;
  everyMs?: number | null | undefined;
  cron?: string | null | undefined;
  timezone?: string | null | undefined;
  payload?: unknown;
  maxAttempts?: number | null | undefined;
  priority?: number | null | undefined;
}>;


export type CliUpsertScheduleMutation = { upsertSchedule: { id: string, group: string, everyMs: number | null, cron: string | null, timezone: string | null, payload: unknown, maxAttempts: number, priority: number, nextRunAt: string | null, lastRunAt: string | null, lastJobId: string | null } | null };

export type CliRemoveScheduleMutationVariables = Exact<{
  queue: string;
  id: string | number;
}>;


export type CliRemoveScheduleMutation = { removeSchedule: boolean | null };

export type CliWorkersQueryVariables = Exact<{
  queue: string;
}>;


export type CliWorkersQuery = { queue: { known: boolean, workers: Array<{ id: string, hostname: string | null, pid: number | null, concurrency: number | null, active: number, startedAt: string, lastSeenAt: string, version: string | null, client: boolean }> } };

export type CliUpgradeLayoutMutationVariables = Exact<{
  queue: string;
  batch?: number | null | undefined;
}>;


export type CliUpgradeLayoutMutation = { upgradeQueueLayout: { done: boolean, layout: string | null, moved: number, visitedTo: number, lastId: number, steps: number, repair: { findings: Array<{ kind: FindingKind }> } | null } | null };

export type CliHistoryQueryVariables = Exact<{
  queue: string;
  group?: string | null | undefined;
  first: number;
  after?: string | null | undefined;
}>;


export type CliHistoryQuery = { queue: { known: boolean, history: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, at: string, actor: string, action: string, group: string, before: unknown, after: unknown, detail: unknown } }> } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const CliGroupFragmentDoc = new TypedDocumentString(`
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}
    `, {"fragmentName":"CliGroup"}) as unknown as TypedDocumentString<CliGroupFragment, unknown>;
export const CliCountsFragmentDoc = new TypedDocumentString(`
    fragment CliCounts on QueueCounts {
  groups
  onRing
  paused
  saturated
  pending
  delayed
  active
  dead
  completed
}
    `, {"fragmentName":"CliCounts"}) as unknown as TypedDocumentString<CliCountsFragment, unknown>;
export const CliQueueCapFragmentDoc = new TypedDocumentString(`
    fragment CliQueueCap on Queue {
  name
  limit
  active
  reserved
}
    `, {"fragmentName":"CliQueueCap"}) as unknown as TypedDocumentString<CliQueueCapFragment, unknown>;
export const CliJobLogPageFragmentDoc = new TypedDocumentString(`
    fragment CliJobLogPage on JobLogConnection {
  edges {
    cursor
    node {
      at
      line
    }
  }
  pageInfo {
    hasNextPage
    endCursor
  }
  totalCount
}
    `, {"fragmentName":"CliJobLogPage"}) as unknown as TypedDocumentString<CliJobLogPageFragment, unknown>;
export const CliScheduleFragmentDoc = new TypedDocumentString(`
    fragment CliSchedule on Schedule {
  id
  group
  everyMs
  cron
  timezone
  payload
  maxAttempts
  priority
  nextRunAt
  lastRunAt
  lastJobId
}
    `, {"fragmentName":"CliSchedule"}) as unknown as TypedDocumentString<CliScheduleFragment, unknown>;
export const CliStatusDocument = new TypedDocumentString(`
    query CliStatus {
  queues {
    name
    known
    state
    counts {
      ...CliCounts
    }
  }
}
    fragment CliCounts on QueueCounts {
  groups
  onRing
  paused
  saturated
  pending
  delayed
  active
  dead
  completed
}`) as unknown as TypedDocumentString<CliStatusQuery, CliStatusQueryVariables>;
export const CliGroupsDocument = new TypedDocumentString(`
    query CliGroups($queue: String!, $first: Int!, $after: String) {
  queue(name: $queue) {
    known
    groups(first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...CliGroup
        }
      }
    }
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliGroupsQuery, CliGroupsQueryVariables>;
export const CliGroupDocument = new TypedDocumentString(`
    query CliGroup($queue: String!, $id: String!) {
  queue(name: $queue) {
    known
    group(id: $id) {
      ...CliGroup
    }
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliGroupQuery, CliGroupQueryVariables>;
export const CliSetLimitDocument = new TypedDocumentString(`
    mutation CliSetLimit($queue: String!, $group: String!, $limit: Int!, $forMs: SafeInt) {
  setLimit(queue: $queue, group: $group, limit: $limit, forMs: $forMs) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliSetLimitMutation, CliSetLimitMutationVariables>;
export const CliClearLimitDocument = new TypedDocumentString(`
    mutation CliClearLimit($queue: String!, $group: String!) {
  clearLimit(queue: $queue, group: $group) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliClearLimitMutation, CliClearLimitMutationVariables>;
export const CliPauseDocument = new TypedDocumentString(`
    mutation CliPause($queue: String!, $group: String!, $forMs: SafeInt) {
  pauseGroup(queue: $queue, group: $group, forMs: $forMs) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliPauseMutation, CliPauseMutationVariables>;
export const CliResumeDocument = new TypedDocumentString(`
    mutation CliResume($queue: String!, $group: String!, $forMs: SafeInt) {
  resumeGroup(queue: $queue, group: $group, forMs: $forMs) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliResumeMutation, CliResumeMutationVariables>;
export const CliSetWeightDocument = new TypedDocumentString(`
    mutation CliSetWeight($queue: String!, $group: String!, $weight: Int!) {
  setWeight(queue: $queue, group: $group, weight: $weight) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliSetWeightMutation, CliSetWeightMutationVariables>;
export const CliSetRateLimitDocument = new TypedDocumentString(`
    mutation CliSetRateLimit($queue: String!, $group: String!, $max: Int!, $windowMs: SafeInt!, $burst: Int) {
  setRateLimit(
    queue: $queue
    group: $group
    max: $max
    windowMs: $windowMs
    burst: $burst
  ) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliSetRateLimitMutation, CliSetRateLimitMutationVariables>;
export const CliClearRateLimitDocument = new TypedDocumentString(`
    mutation CliClearRateLimit($queue: String!, $group: String!) {
  clearRateLimit(queue: $queue, group: $group) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliClearRateLimitMutation, CliClearRateLimitMutationVariables>;
export const CliSetReserveDocument = new TypedDocumentString(`
    mutation CliSetReserve($queue: String!, $group: String!, $reserve: Int!) {
  setReserve(queue: $queue, group: $group, reserve: $reserve) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliSetReserveMutation, CliSetReserveMutationVariables>;
export const CliSetMaxPendingDocument = new TypedDocumentString(`
    mutation CliSetMaxPending($queue: String!, $group: String!, $maxPending: Int) {
  setMaxPending(queue: $queue, group: $group, maxPending: $maxPending) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliSetMaxPendingMutation, CliSetMaxPendingMutationVariables>;
export const CliSetDefaultMaxPendingDocument = new TypedDocumentString(`
    mutation CliSetDefaultMaxPending($queue: String!, $maxPending: Int) {
  setDefaultMaxPending(queue: $queue, maxPending: $maxPending) {
    name
    defaultMaxPending
  }
}
    `) as unknown as TypedDocumentString<CliSetDefaultMaxPendingMutation, CliSetDefaultMaxPendingMutationVariables>;
export const CliQueueCapDocument = new TypedDocumentString(`
    query CliQueueCap($queue: String!) {
  queue(name: $queue) {
    known
    ...CliQueueCap
    limitOverride {
      until
      remainingMs
      revertToLimit
      actor
    }
  }
}
    fragment CliQueueCap on Queue {
  name
  limit
  active
  reserved
}`) as unknown as TypedDocumentString<CliQueueCapQuery, CliQueueCapQueryVariables>;
export const CliSetQueueLimitDocument = new TypedDocumentString(`
    mutation CliSetQueueLimit($queue: String!, $limit: Int!, $forMs: SafeInt) {
  setQueueLimit(queue: $queue, limit: $limit, forMs: $forMs) {
    ...CliQueueCap
  }
}
    fragment CliQueueCap on Queue {
  name
  limit
  active
  reserved
}`) as unknown as TypedDocumentString<CliSetQueueLimitMutation, CliSetQueueLimitMutationVariables>;
export const CliClearQueueLimitDocument = new TypedDocumentString(`
    mutation CliClearQueueLimit($queue: String!) {
  clearQueueLimit(queue: $queue) {
    ...CliQueueCap
  }
}
    fragment CliQueueCap on Queue {
  name
  limit
  active
  reserved
}`) as unknown as TypedDocumentString<CliClearQueueLimitMutation, CliClearQueueLimitMutationVariables>;
export const CliCancelOverrideDocument = new TypedDocumentString(`
    mutation CliCancelOverride($queue: String!, $group: String!, $kind: OverrideKind!) {
  cancelOverride(queue: $queue, group: $group, kind: $kind) {
    ...CliGroup
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}`) as unknown as TypedDocumentString<CliCancelOverrideMutation, CliCancelOverrideMutationVariables>;
export const CliDeadDocument = new TypedDocumentString(`
    query CliDead($queue: String!, $group: String, $first: Int!, $after: String) {
  queue(name: $queue) {
    known
    jobs(state: DEAD, group: $group, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          id
          group
          attempts
          maxAttempts
          finishedAt
          lastError
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliDeadQuery, CliDeadQueryVariables>;
export const CliRetryDeadDocument = new TypedDocumentString(`
    mutation CliRetryDead($queue: String!, $group: String, $all: Boolean) {
  requeueDeadJobs(queue: $queue, group: $group, all: $all) {
    count
    remaining
    skipped
  }
}
    `) as unknown as TypedDocumentString<CliRetryDeadMutation, CliRetryDeadMutationVariables>;
export const CliChangeJobPriorityDocument = new TypedDocumentString(`
    mutation CliChangeJobPriority($queue: String!, $id: ID!, $priority: Int!) {
  changeJobPriority(queue: $queue, id: $id, priority: $priority) {
    id
    group
    state
    priority
  }
}
    `) as unknown as TypedDocumentString<CliChangeJobPriorityMutation, CliChangeJobPriorityMutationVariables>;
export const CliTopDocument = new TypedDocumentString(`
    query CliTop($queue: String!) {
  queue(name: $queue) {
    name
    known
    state
    ring
    counts {
      ...CliCounts
    }
    stats {
      enqueued
      claimed
      completed
      retried
      reaped
      dead
    }
    activeGroups {
      ...CliGroup
    }
  }
}
    fragment CliGroup on Group {
  id
  queue
  known
  limit
  active
  pending
  paused
  onRing
  state
  blockedBy
  reason
  weight
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
  reserve
  maxPending
  limitOverride {
    until
    remainingMs
    revertToLimit
    actor
  }
  pauseOverride {
    until
    remainingMs
    revertToPaused
    actor
  }
}
fragment CliCounts on QueueCounts {
  groups
  onRing
  paused
  saturated
  pending
  delayed
  active
  dead
  completed
}`) as unknown as TypedDocumentString<CliTopQuery, CliTopQueryVariables>;
export const CliRingDocument = new TypedDocumentString(`
    subscription CliRing($queue: String!) {
  ringChanged(queue: $queue) {
    reason
    ring(first: 200)
    size
    queueState
  }
}
    `) as unknown as TypedDocumentString<CliRingSubscription, CliRingSubscriptionVariables>;
export const CliProbeDocument = new TypedDocumentString(`
    query CliProbe {
  __typename
}
    `) as unknown as TypedDocumentString<CliProbeQuery, CliProbeQueryVariables>;
export const CliJobDocument = new TypedDocumentString(`
    query CliJob($queue: String!, $id: ID!, $first: Int, $last: Int) {
  queue(name: $queue) {
    known
    job(id: $id) {
      id
      group
      state
      reason
      position
      estimatedStartAt
      priority
      debounceKey
      attempts
      maxAttempts
      enqueuedAt
      finishedAt
      lastError
      payload
      result
      progress
      logs(first: $first, last: $last) {
        ...CliJobLogPage
      }
    }
  }
}
    fragment CliJobLogPage on JobLogConnection {
  edges {
    cursor
    node {
      at
      line
    }
  }
  pageInfo {
    hasNextPage
    endCursor
  }
  totalCount
}`) as unknown as TypedDocumentString<CliJobQuery, CliJobQueryVariables>;
export const CliJobLogsDocument = new TypedDocumentString(`
    query CliJobLogs($queue: String!, $id: ID!, $first: Int!, $after: String!) {
  queue(name: $queue) {
    job(id: $id) {
      logs(first: $first, after: $after) {
        ...CliJobLogPage
      }
    }
  }
}
    fragment CliJobLogPage on JobLogConnection {
  edges {
    cursor
    node {
      at
      line
    }
  }
  pageInfo {
    hasNextPage
    endCursor
  }
  totalCount
}`) as unknown as TypedDocumentString<CliJobLogsQuery, CliJobLogsQueryVariables>;
export const CliSchedulesDocument = new TypedDocumentString(`
    query CliSchedules($queue: String!, $first: Int, $after: String) {
  queue(name: $queue) {
    name
    known
    schedules(first: $first, after: $after) {
      totalCount
      unreadable
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...CliSchedule
        }
      }
    }
  }
}
    fragment CliSchedule on Schedule {
  id
  group
  everyMs
  cron
  timezone
  payload
  maxAttempts
  priority
  nextRunAt
  lastRunAt
  lastJobId
}`) as unknown as TypedDocumentString<CliSchedulesQuery, CliSchedulesQueryVariables>;
export const CliUpsertScheduleDocument = new TypedDocumentString(`
    mutation CliUpsertSchedule($queue: String!, $id: ID!, $group: String!, $everyMs: SafeInt, $cron: String, $timezone: String, $payload: JSON, $maxAttempts: Int, $priority: Int) {
  upsertSchedule(
    queue: $queue
    id: $id
    group: $group
    everyMs: $everyMs
    cron: $cron
    timezone: $timezone
    payload: $payload
    maxAttempts: $maxAttempts
    priority: $priority
  ) {
    ...CliSchedule
  }
}
    fragment CliSchedule on Schedule {
  id
  group
  everyMs
  cron
  timezone
  payload
  maxAttempts
  priority
  nextRunAt
  lastRunAt
  lastJobId
}`) as unknown as TypedDocumentString<CliUpsertScheduleMutation, CliUpsertScheduleMutationVariables>;
export const CliRemoveScheduleDocument = new TypedDocumentString(`
    mutation CliRemoveSchedule($queue: String!, $id: ID!) {
  removeSchedule(queue: $queue, id: $id)
}
    `) as unknown as TypedDocumentString<CliRemoveScheduleMutation, CliRemoveScheduleMutationVariables>;
export const CliWorkersDocument = new TypedDocumentString(`
    query CliWorkers($queue: String!) {
  queue(name: $queue) {
    known
    workers {
      id
      hostname
      pid
      concurrency
      active
      startedAt
      lastSeenAt
      version
      client
    }
  }
}
    `) as unknown as TypedDocumentString<CliWorkersQuery, CliWorkersQueryVariables>;
export const CliUpgradeLayoutDocument = new TypedDocumentString(`
    mutation CliUpgradeLayout($queue: String!, $batch: Int) {
  upgradeQueueLayout(queue: $queue, batch: $batch) {
    done
    layout
    moved
    visitedTo
    lastId
    steps
    repair {
      findings {
        kind
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliUpgradeLayoutMutation, CliUpgradeLayoutMutationVariables>;
export const CliHistoryDocument = new TypedDocumentString(`
    query CliHistory($queue: String!, $group: String, $first: Int!, $after: String) {
  queue(name: $queue) {
    known
    history(group: $group, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          id
          at
          actor
          action
          group
          before
          after
          detail
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<CliHistoryQuery, CliHistoryQueryVariables>;