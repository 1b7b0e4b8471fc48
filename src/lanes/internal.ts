/** Not API: the package's API (index.ts) and what the server, the live feed, tests and benches use besides. */

export * from './index.js';
export { type QueueKeys, queueKeys, queuesKey } from './keys.js';
export { decodeHistory, HISTORY_PAGE_SIZE } from './queue/history.js';
export { decodeJob, withoutToken } from './queue/jobs.js';
export { rotaEntries } from './queue/levels.js';
export type { QueueMetrics } from './queue/metrics.js';
export { type OverrideKind, remainingMs, TIMER_ACTOR } from './queue/overrides.js';
export type { JobPlace, ServiceTimes } from './queue/place.js';
export { type PromotedJob, REGISTRATION_REFRESH_MS } from './queue/queue.js';
export type { Finding, ReconcileReport } from './queue/reconcile.js';
export { ticksOf } from './queue/scheduling.js';
export {
  isCluster,
  keySlot,
  masterClients,
  type NodeAddress,
} from './redis/client.js';
export { readNodeTimeout } from './redis/clusterOptions.js';
export { Connection } from './redis/connection.js';
export { type EvictionCheck, evictionMessage } from './redis/eviction.js';
export { assertPlainKeys } from './redis/plainKeys.js';
export { STATE_CHECK_MS } from './redis/stateLoss.js';
export { socketCause } from './redis/unavailable.js';
export type { ScriptObserver } from './scripts/commands.js';
export type {
  BackoffPolicy,
  GroupPage,
  GroupRanking,
  JobActionResult,
  JobLog,
  JobLogPage,
  QueueRetention,
  QueueSnapshot,
  RateLimit,
  RateLimitInput,
  RetentionChange,
  RetentionPolicy,
  ThroughputPoint,
  TimedOverride,
  TopGroup,
} from './types.js';
export {
  GROUP_RANKINGS,
  isKeyPrefix,
  jobId,
  KEY_PREFIX_RULE,
  logsCursor,
  logsPage,
  workerId as checkWorkerId,
} from './validate.js';
