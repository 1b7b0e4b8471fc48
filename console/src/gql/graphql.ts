/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** FIXED waits `delayMs` after every failed attempt; EXPONENTIAL waits `delayMs × 2^(attempt − 1)`, capped at `maxDelayMs`. */
export type BackoffType =
  | 'EXPONENTIAL'
  | 'FIXED';

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

/** What `Queue.topGroups` ranks groups by. Equal counts rank in group order (by bytes). */
export type GroupRanking =
  /** Most active (in-flight) jobs first. */
  | 'ACTIVE'
  /** The group whose oldest pending job was enqueued first (lowest id) first. */
  | 'OLDEST_PENDING'
  /** Most pending jobs first. */
  | 'PENDING';

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

/** read: queries and subscriptions; worker: read + job calls; admin: everything. */
export type Role =
  | 'ADMIN'
  | 'READ'
  | 'WORKER';

export type GroupRowFragment = { id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState };

export type GroupDetailFragment = { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null };

export type CountsFragment = { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number };

export type PageFragment = { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ cursor: string, node: { id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState } }> };

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { viewer: { role: Role } };

export type QueueListQueryVariables = Exact<{ [key: string]: never; }>;


export type QueueListQuery = { queues: Array<{ name: string, counts: { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number } } | null> };

export type QueueViewQueryVariables = Exact<{
  queue: string;
  first: number;
  after?: string | null | undefined;
  prefix?: string | null | undefined;
  ids?: Array<string> | string | null | undefined;
  ringFirst: number;
}>;


export type QueueViewQuery = { queue: { name: string, known: boolean, snapshot: { at: string, queueState: QueueState, ring: Array<string>, ringSize: number, counts: { groups: number, onRing: number, paused: number, saturated: number, pending: number, delayed: number, active: number, dead: number, completed: number }, stats: { enqueued: number, claimed: number, completed: number, retried: number, reaped: number, dead: number }, groups: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ cursor: string, node: { id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState } }> }, picked: Array<{ reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null }> } } };

export type RingPulseSubscriptionVariables = Exact<{
  queue: string;
  named: number;
}>;


export type RingPulseSubscription = { ringChanged: { reason: RingChangeReason, added: Array<string>, removed: Array<string>, addedCount: number, removedCount: number } };

export type GroupPulseSubscriptionVariables = Exact<{
  queue: string;
  group: string;
}>;


export type GroupPulseSubscription = { groupChanged: { id: string } };

export type SetLimitMutationVariables = Exact<{
  queue: string;
  group: string;
  limit: number;
}>;


export type SetLimitMutation = { setLimit: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type ClearLimitMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type ClearLimitMutation = { clearLimit: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type PauseGroupMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type PauseGroupMutation = { pauseGroup: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type ResumeGroupMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type ResumeGroupMutation = { resumeGroup: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type JobFullFragment = { id: string, queue: string, group: string, payload: unknown, result: unknown, progress: unknown, state: JobState, reason: string, position: number | null, estimatedStartAt: string | null, priority: number, debounceKey: string | null, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, errors: Array<{ attempt: number, at: string, message: string, stack: string | null }>, backoff: { type: BackoffType, delayMs: number, maxDelayMs: number | null, jitter: number } | null };

export type JobByIdQueryVariables = Exact<{
  queue: string;
  id: string | number;
}>;


export type JobByIdQuery = { queue: { job: { id: string, queue: string, group: string, payload: unknown, result: unknown, progress: unknown, state: JobState, reason: string, position: number | null, estimatedStartAt: string | null, priority: number, debounceKey: string | null, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, errors: Array<{ attempt: number, at: string, message: string, stack: string | null }>, backoff: { type: BackoffType, delayMs: number, maxDelayMs: number | null, jitter: number } | null } | null } };

export type JobPlaceNowQueryVariables = Exact<{
  queue: string;
  id: string | number;
}>;


export type JobPlaceNowQuery = { queue: { job: { id: string, state: JobState, reason: string, position: number | null, estimatedStartAt: string | null } | null } };

export type JobLogsQueryVariables = Exact<{
  queue: string;
  id: string | number;
  first: number;
  after?: string | null | undefined;
}>;


export type JobLogsQuery = { queue: { job: { id: string, logs: { totalCount: number, edges: Array<{ cursor: string, node: { at: string, line: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null } };

export type JobFollowSubscriptionVariables = Exact<{
  queue: string;
  id: string | number;
}>;


export type JobFollowSubscription = { jobChanged: { id: string, queue: string, group: string, payload: unknown, result: unknown, progress: unknown, state: JobState, reason: string, position: number | null, estimatedStartAt: string | null, priority: number, debounceKey: string | null, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, errors: Array<{ attempt: number, at: string, message: string, stack: string | null }>, backoff: { type: BackoffType, delayMs: number, maxDelayMs: number | null, jitter: number } | null } | null };

export type JobRowFragment = { id: string, group: string, payloadPreview: string | null, state: JobState, priority: number, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, workerId: string | null, progressPreview: string | null, resultPreview: string | null, payloadTip: string | null, progressTip: string | null, resultTip: string | null };

export type JobPageFragment = { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ cursor: string, node: { id: string, group: string, payloadPreview: string | null, state: JobState, priority: number, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, workerId: string | null, progressPreview: string | null, resultPreview: string | null, payloadTip: string | null, progressTip: string | null, resultTip: string | null } }> };

export type QueueJobsQueryVariables = Exact<{
  queue: string;
  state: JobState;
  group?: string | null | undefined;
  first: number;
  after?: string | null | undefined;
}>;


export type QueueJobsQuery = { queue: { jobs: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ cursor: string, node: { id: string, group: string, payloadPreview: string | null, state: JobState, priority: number, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, workerId: string | null, progressPreview: string | null, resultPreview: string | null, payloadTip: string | null, progressTip: string | null, resultTip: string | null } }> } } };

export type ActionResultFragment = { count: number, remaining: number, skipped: number };

export type RequeueDeadMutationVariables = Exact<{
  queue: string;
  ids?: Array<string | number> | string | number | null | undefined;
  group?: string | null | undefined;
  all?: boolean | null | undefined;
  limit?: number | null | undefined;
}>;


export type RequeueDeadMutation = { requeueDeadJobs: { count: number, remaining: number, skipped: number } | null };

export type RemoveJobsMutationVariables = Exact<{
  queue: string;
  ids?: Array<string | number> | string | number | null | undefined;
  group?: string | null | undefined;
  all?: boolean | null | undefined;
  state?: JobState | null | undefined;
  limit?: number | null | undefined;
}>;


export type RemoveJobsMutation = { removeJobs: { count: number, remaining: number, skipped: number } | null };

export type PromoteJobMutationVariables = Exact<{
  queue: string;
  id: string | number;
}>;


export type PromoteJobMutation = { promoteJob: { id: string, group: string, payloadPreview: string | null, state: JobState, priority: number, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, workerId: string | null, progressPreview: string | null, resultPreview: string | null, payloadTip: string | null, progressTip: string | null, resultTip: string | null } | null };

export type ChangeJobPriorityMutationVariables = Exact<{
  queue: string;
  id: string | number;
  priority: number;
}>;


export type ChangeJobPriorityMutation = { changeJobPriority: { id: string, group: string, payloadPreview: string | null, state: JobState, priority: number, attempts: number, maxAttempts: number, leaseUntil: string | null, enqueuedAt: string | null, runAt: string | null, claimedAt: string | null, finishedAt: string | null, lastError: string | null, workerId: string | null, progressPreview: string | null, resultPreview: string | null, payloadTip: string | null, progressTip: string | null, resultTip: string | null } | null };

export type PauseQueueMutationVariables = Exact<{
  queue: string;
}>;


export type PauseQueueMutation = { pauseQueue: { name: string, state: QueueState } | null };

export type ResumeQueueMutationVariables = Exact<{
  queue: string;
}>;


export type ResumeQueueMutation = { resumeQueue: { name: string, state: QueueState } | null };

export type QueueWorkersQueryVariables = Exact<{
  queue: string;
}>;


export type QueueWorkersQuery = { queue: { workers: Array<{ id: string, hostname: string | null, pid: number | null, concurrency: number | null, active: number, startedAt: string, lastSeenAt: string, version: string | null, client: boolean }> } };

export type ConsoleTopGroupsQueryVariables = Exact<{
  queue: string;
  by: GroupRanking;
  first?: number | null | undefined;
}>;


export type ConsoleTopGroupsQuery = { queue: { topGroups: Array<{ id: string, pending: number, active: number, state: GroupState, oldestPendingAt: string | null }> } };

export type HistoryItemFragment = { id: string, at: string, action: string, group: string, actor: string, before: unknown, after: unknown, detail: unknown };

export type HistoryQueryVariables = Exact<{
  queue: string;
  group?: string | null | undefined;
  first: number;
  after?: string | null | undefined;
}>;


export type HistoryQuery = { queue: { history: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, edges: Array<{ node: { id: string, at: string, action: string, group: string, actor: string, before: unknown, after: unknown, detail: unknown } }> } } };

export type HistoryLiveSubscriptionVariables = Exact<{
  queue: string;
  group?: string | null | undefined;
}>;


export type HistoryLiveSubscription = { historyAdded: { gap: boolean, entries: Array<{ id: string, at: string, action: string, group: string, actor: string, before: unknown, after: unknown, detail: unknown }> } };

export type SetGroupMaxPendingMutationVariables = Exact<{
  queue: string;
  group: string;
  maxPending?: number | null | undefined;
}>;


export type SetGroupMaxPendingMutation = { setMaxPending: { id: string, maxPending: number | null } | null };

export type GroupMaxPendingQueryVariables = Exact<{
  queue: string;
  group: string;
}>;


export type GroupMaxPendingQuery = { queue: { defaultMaxPending: number | null, group: { id: string, maxPending: number | null } } };

export type GroupOverrideStateFragment = { limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null };

export type SetLimitForMutationVariables = Exact<{
  queue: string;
  group: string;
  limit: number;
  forMs: number;
}>;


export type SetLimitForMutation = { setLimit: { id: string, limit: number | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type PauseGroupForMutationVariables = Exact<{
  queue: string;
  group: string;
  forMs: number;
}>;


export type PauseGroupForMutation = { pauseGroup: { id: string, paused: boolean, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type ResumeGroupForMutationVariables = Exact<{
  queue: string;
  group: string;
  forMs: number;
}>;


export type ResumeGroupForMutation = { resumeGroup: { id: string, paused: boolean, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type CancelOverrideMutationVariables = Exact<{
  queue: string;
  group: string;
  kind: OverrideKind;
}>;


export type CancelOverrideMutation = { cancelOverride: { id: string, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type QueueCapReadQueryVariables = Exact<{
  queue: string;
}>;


export type QueueCapReadQuery = { queue: { limit: number | null, active: number, reserved: number, limitOverride: { until: string, revertToLimit: number | null } | null } };

export type SetQueueCapMutationVariables = Exact<{
  queue: string;
  limit: number;
}>;


export type SetQueueCapMutation = { setQueueLimit: { limit: number | null } | null };

export type ClearQueueCapMutationVariables = Exact<{
  queue: string;
}>;


export type ClearQueueCapMutation = { clearQueueLimit: { limit: number | null } | null };

export type SetGroupReserveMutationVariables = Exact<{
  queue: string;
  group: string;
  reserve: number;
}>;


export type SetGroupReserveMutation = { setReserve: { id: string, reserve: number } | null };

export type GroupReserveQueryVariables = Exact<{
  queue: string;
  group: string;
}>;


export type GroupReserveQuery = { queue: { group: { id: string, reserve: number } } };

export type GroupRateFragment = { rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null };

export type ConsoleSetRateLimitMutationVariables = Exact<{
  queue: string;
  group: string;
  max: number;
  windowMs: number;
  burst?: number | null | undefined;
}>;


export type ConsoleSetRateLimitMutation = { setRateLimit: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type ConsoleClearRateLimitMutationVariables = Exact<{
  queue: string;
  group: string;
}>;


export type ConsoleClearRateLimitMutation = { clearRateLimit: { reason: string, blockedBy: BlockedBy | null, weight: number, reserve: number, maxPending: number | null, id: string, limit: number | null, active: number, pending: number, paused: boolean, onRing: boolean, state: GroupState, rateLimitedUntil: string | null, rateLimit: { max: number, windowMs: number, burst: number } | null, limitOverride: { until: string, revertToLimit: number | null } | null, pauseOverride: { until: string, revertToPaused: boolean | null } | null } | null };

export type QueueSchedulesQueryVariables = Exact<{
  queue: string;
}>;


export type QueueSchedulesQuery = { queue: { name: string, paused: Array<string>, schedules: { totalCount: number, unreadable: Array<string>, edges: Array<{ node: { id: string, group: string, everyMs: number | null, cron: string | null, timezone: string | null, payload: unknown, nextRunAt: string | null, lastRunAt: string | null, lastJobId: string | null } }> } } };

export type QueueThroughputQueryVariables = Exact<{
  queue: string;
  minutes?: number | null | undefined;
}>;


export type QueueThroughputQuery = { queue: { throughput: Array<{ at: string, claimed: number, completed: number, failed: number }> } };

export type SetWeightMutationVariables = Exact<{
  queue: string;
  group: string;
  weight: number;
}>;


export type SetWeightMutation = { setWeight: { id: string, weight: number } | null };

export type GroupWeightQueryVariables = Exact<{
  queue: string;
  group: string;
}>;


export type GroupWeightQuery = { queue: { group: { id: string, weight: number } } };

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
export const GroupRowFragmentDoc = new TypedDocumentString(`
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
    `, {"fragmentName":"GroupRow"}) as unknown as TypedDocumentString<GroupRowFragment, unknown>;
export const GroupRateFragmentDoc = new TypedDocumentString(`
    fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}
    `, {"fragmentName":"GroupRate"}) as unknown as TypedDocumentString<GroupRateFragment, unknown>;
export const GroupOverrideStateFragmentDoc = new TypedDocumentString(`
    fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
    `, {"fragmentName":"GroupOverrideState"}) as unknown as TypedDocumentString<GroupOverrideStateFragment, unknown>;
export const GroupDetailFragmentDoc = new TypedDocumentString(`
    fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`, {"fragmentName":"GroupDetail"}) as unknown as TypedDocumentString<GroupDetailFragment, unknown>;
export const CountsFragmentDoc = new TypedDocumentString(`
    fragment Counts on QueueCounts {
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
    `, {"fragmentName":"Counts"}) as unknown as TypedDocumentString<CountsFragment, unknown>;
export const PageFragmentDoc = new TypedDocumentString(`
    fragment Page on GroupConnection {
  totalCount
  pageInfo {
    hasNextPage
    endCursor
  }
  edges {
    cursor
    node {
      ...GroupRow
    }
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}`, {"fragmentName":"Page"}) as unknown as TypedDocumentString<PageFragment, unknown>;
export const JobFullFragmentDoc = new TypedDocumentString(`
    fragment JobFull on Job {
  id
  queue
  group
  payload
  result
  progress
  state
  reason
  position
  estimatedStartAt
  priority
  debounceKey
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  errors {
    attempt
    at
    message
    stack
  }
  backoff {
    type
    delayMs
    maxDelayMs
    jitter
  }
}
    `, {"fragmentName":"JobFull"}) as unknown as TypedDocumentString<JobFullFragment, unknown>;
export const JobRowFragmentDoc = new TypedDocumentString(`
    fragment JobRow on Job {
  id
  group
  payloadPreview(chars: 60)
  payloadTip: payloadPreview(chars: 2000)
  state
  priority
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  workerId
  progressPreview(chars: 40)
  progressTip: progressPreview(chars: 2000)
  resultPreview(chars: 60)
  resultTip: resultPreview(chars: 2000)
}
    `, {"fragmentName":"JobRow"}) as unknown as TypedDocumentString<JobRowFragment, unknown>;
export const JobPageFragmentDoc = new TypedDocumentString(`
    fragment JobPage on JobConnection {
  totalCount
  pageInfo {
    hasNextPage
    endCursor
  }
  edges {
    cursor
    node {
      ...JobRow
    }
  }
}
    fragment JobRow on Job {
  id
  group
  payloadPreview(chars: 60)
  payloadTip: payloadPreview(chars: 2000)
  state
  priority
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  workerId
  progressPreview(chars: 40)
  progressTip: progressPreview(chars: 2000)
  resultPreview(chars: 60)
  resultTip: resultPreview(chars: 2000)
}`, {"fragmentName":"JobPage"}) as unknown as TypedDocumentString<JobPageFragment, unknown>;
export const ActionResultFragmentDoc = new TypedDocumentString(`
    fragment ActionResult on JobActionResult {
  count
  remaining
  skipped
}
    `, {"fragmentName":"ActionResult"}) as unknown as TypedDocumentString<ActionResultFragment, unknown>;
export const HistoryItemFragmentDoc = new TypedDocumentString(`
    fragment HistoryItem on HistoryEntry {
  id
  at
  action
  group
  actor
  before
  after
  detail
}
    `, {"fragmentName":"HistoryItem"}) as unknown as TypedDocumentString<HistoryItemFragment, unknown>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    role
  }
}
    `) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const QueueListDocument = new TypedDocumentString(`
    query QueueList {
  queues {
    name
    counts {
      ...Counts
    }
  }
}
    fragment Counts on QueueCounts {
  groups
  onRing
  paused
  saturated
  pending
  delayed
  active
  dead
  completed
}`) as unknown as TypedDocumentString<QueueListQuery, QueueListQueryVariables>;
export const QueueViewDocument = new TypedDocumentString(`
    query QueueView($queue: String!, $first: Int!, $after: String, $prefix: String, $ids: [String!], $ringFirst: Int!) {
  queue(name: $queue) {
    name
    known
    snapshot(
      first: $first
      after: $after
      prefix: $prefix
      ids: $ids
      ringFirst: $ringFirst
    ) {
      at
      queueState
      ring
      ringSize
      counts {
        ...Counts
      }
      stats {
        enqueued
        claimed
        completed
        retried
        reaped
        dead
      }
      groups {
        ...Page
      }
      picked {
        ...GroupDetail
      }
    }
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment Counts on QueueCounts {
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
fragment Page on GroupConnection {
  totalCount
  pageInfo {
    hasNextPage
    endCursor
  }
  edges {
    cursor
    node {
      ...GroupRow
    }
  }
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<QueueViewQuery, QueueViewQueryVariables>;
export const RingPulseDocument = new TypedDocumentString(`
    subscription RingPulse($queue: String!, $named: Int!) {
  ringChanged(queue: $queue) {
    reason
    added(first: $named)
    removed(first: $named)
    addedCount
    removedCount
  }
}
    `) as unknown as TypedDocumentString<RingPulseSubscription, RingPulseSubscriptionVariables>;
export const GroupPulseDocument = new TypedDocumentString(`
    subscription GroupPulse($queue: String!, $group: String!) {
  groupChanged(queue: $queue, group: $group) {
    id
  }
}
    `) as unknown as TypedDocumentString<GroupPulseSubscription, GroupPulseSubscriptionVariables>;
export const SetLimitDocument = new TypedDocumentString(`
    mutation SetLimit($queue: String!, $group: String!, $limit: Int!) {
  setLimit(queue: $queue, group: $group, limit: $limit) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<SetLimitMutation, SetLimitMutationVariables>;
export const ClearLimitDocument = new TypedDocumentString(`
    mutation ClearLimit($queue: String!, $group: String!) {
  clearLimit(queue: $queue, group: $group) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<ClearLimitMutation, ClearLimitMutationVariables>;
export const PauseGroupDocument = new TypedDocumentString(`
    mutation PauseGroup($queue: String!, $group: String!) {
  pauseGroup(queue: $queue, group: $group) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<PauseGroupMutation, PauseGroupMutationVariables>;
export const ResumeGroupDocument = new TypedDocumentString(`
    mutation ResumeGroup($queue: String!, $group: String!) {
  resumeGroup(queue: $queue, group: $group) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<ResumeGroupMutation, ResumeGroupMutationVariables>;
export const JobByIdDocument = new TypedDocumentString(`
    query JobById($queue: String!, $id: ID!) {
  queue(name: $queue) {
    job(id: $id) {
      ...JobFull
    }
  }
}
    fragment JobFull on Job {
  id
  queue
  group
  payload
  result
  progress
  state
  reason
  position
  estimatedStartAt
  priority
  debounceKey
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  errors {
    attempt
    at
    message
    stack
  }
  backoff {
    type
    delayMs
    maxDelayMs
    jitter
  }
}`) as unknown as TypedDocumentString<JobByIdQuery, JobByIdQueryVariables>;
export const JobPlaceNowDocument = new TypedDocumentString(`
    query JobPlaceNow($queue: String!, $id: ID!) {
  queue(name: $queue) {
    job(id: $id) {
      id
      state
      reason
      position
      estimatedStartAt
    }
  }
}
    `) as unknown as TypedDocumentString<JobPlaceNowQuery, JobPlaceNowQueryVariables>;
export const JobLogsDocument = new TypedDocumentString(`
    query JobLogs($queue: String!, $id: ID!, $first: Int!, $after: String) {
  queue(name: $queue) {
    job(id: $id) {
      id
      logs(first: $first, after: $after) {
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
    }
  }
}
    `) as unknown as TypedDocumentString<JobLogsQuery, JobLogsQueryVariables>;
export const JobFollowDocument = new TypedDocumentString(`
    subscription JobFollow($queue: String!, $id: ID!) {
  jobChanged(queue: $queue, id: $id) {
    ...JobFull
  }
}
    fragment JobFull on Job {
  id
  queue
  group
  payload
  result
  progress
  state
  reason
  position
  estimatedStartAt
  priority
  debounceKey
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  errors {
    attempt
    at
    message
    stack
  }
  backoff {
    type
    delayMs
    maxDelayMs
    jitter
  }
}`) as unknown as TypedDocumentString<JobFollowSubscription, JobFollowSubscriptionVariables>;
export const QueueJobsDocument = new TypedDocumentString(`
    query QueueJobs($queue: String!, $state: JobState!, $group: String, $first: Int!, $after: String) {
  queue(name: $queue) {
    jobs(state: $state, group: $group, first: $first, after: $after) {
      ...JobPage
    }
  }
}
    fragment JobRow on Job {
  id
  group
  payloadPreview(chars: 60)
  payloadTip: payloadPreview(chars: 2000)
  state
  priority
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  workerId
  progressPreview(chars: 40)
  progressTip: progressPreview(chars: 2000)
  resultPreview(chars: 60)
  resultTip: resultPreview(chars: 2000)
}
fragment JobPage on JobConnection {
  totalCount
  pageInfo {
    hasNextPage
    endCursor
  }
  edges {
    cursor
    node {
      ...JobRow
    }
  }
}`) as unknown as TypedDocumentString<QueueJobsQuery, QueueJobsQueryVariables>;
export const RequeueDeadDocument = new TypedDocumentString(`
    mutation RequeueDead($queue: String!, $ids: [ID!], $group: String, $all: Boolean, $limit: Int) {
  requeueDeadJobs(
    queue: $queue
    ids: $ids
    group: $group
    all: $all
    limit: $limit
  ) {
    ...ActionResult
  }
}
    fragment ActionResult on JobActionResult {
  count
  remaining
  skipped
}`) as unknown as TypedDocumentString<RequeueDeadMutation, RequeueDeadMutationVariables>;
export const RemoveJobsDocument = new TypedDocumentString(`
    mutation RemoveJobs($queue: String!, $ids: [ID!], $group: String, $all: Boolean, $state: JobState, $limit: Int) {
  removeJobs(
    queue: $queue
    ids: $ids
    group: $group
    all: $all
    state: $state
    limit: $limit
  ) {
    ...ActionResult
  }
}
    fragment ActionResult on JobActionResult {
  count
  remaining
  skipped
}`) as unknown as TypedDocumentString<RemoveJobsMutation, RemoveJobsMutationVariables>;
export const PromoteJobDocument = new TypedDocumentString(`
    mutation PromoteJob($queue: String!, $id: ID!) {
  promoteJob(queue: $queue, id: $id) {
    ...JobRow
  }
}
    fragment JobRow on Job {
  id
  group
  payloadPreview(chars: 60)
  payloadTip: payloadPreview(chars: 2000)
  state
  priority
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  workerId
  progressPreview(chars: 40)
  progressTip: progressPreview(chars: 2000)
  resultPreview(chars: 60)
  resultTip: resultPreview(chars: 2000)
}`) as unknown as TypedDocumentString<PromoteJobMutation, PromoteJobMutationVariables>;
export const ChangeJobPriorityDocument = new TypedDocumentString(`
    mutation ChangeJobPriority($queue: String!, $id: ID!, $priority: Int!) {
  changeJobPriority(queue: $queue, id: $id, priority: $priority) {
    ...JobRow
  }
}
    fragment JobRow on Job {
  id
  group
  payloadPreview(chars: 60)
  payloadTip: payloadPreview(chars: 2000)
  state
  priority
  attempts
  maxAttempts
  leaseUntil
  enqueuedAt
  runAt
  claimedAt
  finishedAt
  lastError
  workerId
  progressPreview(chars: 40)
  progressTip: progressPreview(chars: 2000)
  resultPreview(chars: 60)
  resultTip: resultPreview(chars: 2000)
}`) as unknown as TypedDocumentString<ChangeJobPriorityMutation, ChangeJobPriorityMutationVariables>;
export const PauseQueueDocument = new TypedDocumentString(`
    mutation PauseQueue($queue: String!) {
  pauseQueue(queue: $queue) {
    name
    state
  }
}
    `) as unknown as TypedDocumentString<PauseQueueMutation, PauseQueueMutationVariables>;
export const ResumeQueueDocument = new TypedDocumentString(`
    mutation ResumeQueue($queue: String!) {
  resumeQueue(queue: $queue) {
    name
    state
  }
}
    `) as unknown as TypedDocumentString<ResumeQueueMutation, ResumeQueueMutationVariables>;
export const QueueWorkersDocument = new TypedDocumentString(`
    query QueueWorkers($queue: String!) {
  queue(name: $queue) {
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
    `) as unknown as TypedDocumentString<QueueWorkersQuery, QueueWorkersQueryVariables>;
export const ConsoleTopGroupsDocument = new TypedDocumentString(`
    query ConsoleTopGroups($queue: String!, $by: GroupRanking!, $first: Int) {
  queue(name: $queue) {
    topGroups(by: $by, first: $first) {
      id
      pending
      active
      state
      oldestPendingAt
    }
  }
}
    `) as unknown as TypedDocumentString<ConsoleTopGroupsQuery, ConsoleTopGroupsQueryVariables>;
export const HistoryDocument = new TypedDocumentString(`
    query History($queue: String!, $group: String, $first: Int!, $after: String) {
  queue(name: $queue) {
    history(group: $group, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          ...HistoryItem
        }
      }
    }
  }
}
    fragment HistoryItem on HistoryEntry {
  id
  at
  action
  group
  actor
  before
  after
  detail
}`) as unknown as TypedDocumentString<HistoryQuery, HistoryQueryVariables>;
export const HistoryLiveDocument = new TypedDocumentString(`
    subscription HistoryLive($queue: String!, $group: String) {
  historyAdded(queue: $queue, group: $group) {
    entries {
      ...HistoryItem
    }
    gap
  }
}
    fragment HistoryItem on HistoryEntry {
  id
  at
  action
  group
  actor
  before
  after
  detail
}`) as unknown as TypedDocumentString<HistoryLiveSubscription, HistoryLiveSubscriptionVariables>;
export const SetGroupMaxPendingDocument = new TypedDocumentString(`
    mutation SetGroupMaxPending($queue: String!, $group: String!, $maxPending: Int) {
  setMaxPending(queue: $queue, group: $group, maxPending: $maxPending) {
    id
    maxPending
  }
}
    `) as unknown as TypedDocumentString<SetGroupMaxPendingMutation, SetGroupMaxPendingMutationVariables>;
export const GroupMaxPendingDocument = new TypedDocumentString(`
    query GroupMaxPending($queue: String!, $group: String!) {
  queue(name: $queue) {
    defaultMaxPending
    group(id: $group) {
      id
      maxPending
    }
  }
}
    `) as unknown as TypedDocumentString<GroupMaxPendingQuery, GroupMaxPendingQueryVariables>;
export const SetLimitForDocument = new TypedDocumentString(`
    mutation SetLimitFor($queue: String!, $group: String!, $limit: Int!, $forMs: SafeInt!) {
  setLimit(queue: $queue, group: $group, limit: $limit, forMs: $forMs) {
    id
    limit
    ...GroupOverrideState
  }
}
    fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}`) as unknown as TypedDocumentString<SetLimitForMutation, SetLimitForMutationVariables>;
export const PauseGroupForDocument = new TypedDocumentString(`
    mutation PauseGroupFor($queue: String!, $group: String!, $forMs: SafeInt!) {
  pauseGroup(queue: $queue, group: $group, forMs: $forMs) {
    id
    paused
    ...GroupOverrideState
  }
}
    fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}`) as unknown as TypedDocumentString<PauseGroupForMutation, PauseGroupForMutationVariables>;
export const ResumeGroupForDocument = new TypedDocumentString(`
    mutation ResumeGroupFor($queue: String!, $group: String!, $forMs: SafeInt!) {
  resumeGroup(queue: $queue, group: $group, forMs: $forMs) {
    id
    paused
    ...GroupOverrideState
  }
}
    fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}`) as unknown as TypedDocumentString<ResumeGroupForMutation, ResumeGroupForMutationVariables>;
export const CancelOverrideDocument = new TypedDocumentString(`
    mutation CancelOverride($queue: String!, $group: String!, $kind: OverrideKind!) {
  cancelOverride(queue: $queue, group: $group, kind: $kind) {
    id
    ...GroupOverrideState
  }
}
    fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}`) as unknown as TypedDocumentString<CancelOverrideMutation, CancelOverrideMutationVariables>;
export const QueueCapReadDocument = new TypedDocumentString(`
    query QueueCapRead($queue: String!) {
  queue(name: $queue) {
    limit
    active
    reserved
    limitOverride {
      until
      revertToLimit
    }
  }
}
    `) as unknown as TypedDocumentString<QueueCapReadQuery, QueueCapReadQueryVariables>;
export const SetQueueCapDocument = new TypedDocumentString(`
    mutation SetQueueCap($queue: String!, $limit: Int!) {
  setQueueLimit(queue: $queue, limit: $limit) {
    limit
  }
}
    `) as unknown as TypedDocumentString<SetQueueCapMutation, SetQueueCapMutationVariables>;
export const ClearQueueCapDocument = new TypedDocumentString(`
    mutation ClearQueueCap($queue: String!) {
  clearQueueLimit(queue: $queue) {
    limit
  }
}
    `) as unknown as TypedDocumentString<ClearQueueCapMutation, ClearQueueCapMutationVariables>;
export const SetGroupReserveDocument = new TypedDocumentString(`
    mutation SetGroupReserve($queue: String!, $group: String!, $reserve: Int!) {
  setReserve(queue: $queue, group: $group, reserve: $reserve) {
    id
    reserve
  }
}
    `) as unknown as TypedDocumentString<SetGroupReserveMutation, SetGroupReserveMutationVariables>;
export const GroupReserveDocument = new TypedDocumentString(`
    query GroupReserve($queue: String!, $group: String!) {
  queue(name: $queue) {
    group(id: $group) {
      id
      reserve
    }
  }
}
    `) as unknown as TypedDocumentString<GroupReserveQuery, GroupReserveQueryVariables>;
export const ConsoleSetRateLimitDocument = new TypedDocumentString(`
    mutation ConsoleSetRateLimit($queue: String!, $group: String!, $max: Int!, $windowMs: SafeInt!, $burst: Int) {
  setRateLimit(
    queue: $queue
    group: $group
    max: $max
    windowMs: $windowMs
    burst: $burst
  ) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<ConsoleSetRateLimitMutation, ConsoleSetRateLimitMutationVariables>;
export const ConsoleClearRateLimitDocument = new TypedDocumentString(`
    mutation ConsoleClearRateLimit($queue: String!, $group: String!) {
  clearRateLimit(queue: $queue, group: $group) {
    ...GroupDetail
  }
}
    fragment GroupRow on Group {
  id
  limit
  active
  pending
  paused
  onRing
  state
}
fragment GroupDetail on Group {
  ...GroupRow
  reason
  blockedBy
  ...GroupRate
  ...GroupOverrideState
  weight
  reserve
  maxPending
}
fragment GroupOverrideState on Group {
  limitOverride {
    until
    revertToLimit
  }
  pauseOverride {
    until
    revertToPaused
  }
}
fragment GroupRate on Group {
  rateLimit {
    max
    windowMs
    burst
  }
  rateLimitedUntil
}`) as unknown as TypedDocumentString<ConsoleClearRateLimitMutation, ConsoleClearRateLimitMutationVariables>;
export const QueueSchedulesDocument = new TypedDocumentString(`
    query QueueSchedules($queue: String!) {
  queue(name: $queue) {
    name
    paused
    schedules(first: 500) {
      totalCount
      unreadable
      edges {
        node {
          id
          group
          everyMs
          cron
          timezone
          payload
          nextRunAt
          lastRunAt
          lastJobId
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<QueueSchedulesQuery, QueueSchedulesQueryVariables>;
export const QueueThroughputDocument = new TypedDocumentString(`
    query QueueThroughput($queue: String!, $minutes: Int) {
  queue(name: $queue) {
    throughput(minutes: $minutes) {
      at
      claimed
      completed
      failed
    }
  }
}
    `) as unknown as TypedDocumentString<QueueThroughputQuery, QueueThroughputQueryVariables>;
export const SetWeightDocument = new TypedDocumentString(`
    mutation SetWeight($queue: String!, $group: String!, $weight: Int!) {
  setWeight(queue: $queue, group: $group, weight: $weight) {
    id
    weight
  }
}
    `) as unknown as TypedDocumentString<SetWeightMutation, SetWeightMutationVariables>;
export const GroupWeightDocument = new TypedDocumentString(`
    query GroupWeight($queue: String!, $group: String!) {
  queue(name: $queue) {
    group(id: $group) {
      id
      weight
    }
  }
}
    `) as unknown as TypedDocumentString<GroupWeightQuery, GroupWeightQueryVariables>;