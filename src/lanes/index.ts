/** Ringmaster's engine: per-group concurrency for Redis job queues (DESIGN.md §1–§3). */

export {
  CLUSTER_RETRY_DELAY_MS,
  clusterOptions,
  DEFAULT_NODE_TIMEOUT_MS,
  failoverBudgetMs,
  readNodeTimeout,
} from './clusterOptions.js';
export type { ScriptObserver } from './commands.js';
export { assertPlainKeys, type PlainKeysOptions } from './connection.js';
export { Connection } from './connectionState.js';
export { ErrorCode, fromRedisError, RingmasterError } from './errors.js';
export {
  type EvictionCheck,
  EvictionPolicyError,
  evictionMessage,
  SAFE_EVICTION_POLICY,
} from './eviction.js';
export {
  decodeHistory,
  HISTORY_PAGE_SIZE,
  type HistoryEntry,
  type HistoryPage,
} from './history.js';
export { decodeJob, withoutToken } from './jobs.js';
export { type QueueKeys, queueKeys, queuesKey } from './keys.js';
export {
  METRICS_HEAD_STEPS,
  type OldestPending,
  type QueueMetrics,
} from './metrics.js';
export {
  type AppliedOverrides,
  OVERRIDE_KINDS,
  type OverrideKind,
  remainingMs,
  TIMER_ACTOR,
  type TimedSteeringOptions,
} from './overrides.js';
export {
  type BackoffPolicyInput,
  type CompleteAndClaimResult,
  Defaults,
  type EnqueueOptions,
  type PromotedJob,
  Queue,
  type QueueOptions,
  REGISTRATION_REFRESH_MS,
  type RetryOptions,
} from './queue.js';
export { RateLimits, rateLimit as validateRateLimit } from './rateLimits.js';
export { Reaper, type ReaperOptions } from './reaper.js';
export type { Finding, FindingKind, ReconcileReport } from './reconcile.js';
export { TOTALS_ATTEMPTS, UNSETTLED } from './reconcile.js';
export {
  type ConnectionOverrides,
  connectionForKey,
  databaseOf,
  duplicateConnection,
  isCluster,
  keySlot,
  masterAddresses,
  masterClients,
  masterKeyOf,
  masterOfKey,
  type NodeAddress,
  openNodeConnection,
  type RedisClient,
} from './redisConnection.js';
export { Ringmaster, type RingmasterOptions } from './ringmaster.js';
export { STATE_CHECK_MS, type StateLoss, type StateSeen } from './stateLoss.js';
export type {
  BackoffPolicy,
  GroupInfo,
  GroupPage,
  GroupState,
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
  RetentionPolicy,
  SteeringOptions,
  TimedOverride,
} from './types.js';
export { historyCursor, Limits, type Listing, listingTag } from './validate.js';
export { type Processor, Worker, type WorkerCloseOptions, type WorkerOptions } from './worker.js';
