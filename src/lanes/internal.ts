/** Not API: the package's API (index.ts) and what the server, the live feed, tests and benches use besides. */

export { readNodeTimeout } from './clusterOptions.js';
export type { ScriptObserver } from './commands.js';
export { assertPlainKeys } from './connection.js';
export { Connection } from './connectionState.js';
export { type EvictionCheck, evictionMessage } from './eviction.js';
export { decodeHistory, HISTORY_PAGE_SIZE } from './history.js';
export * from './index.js';
export { decodeJob, withoutToken } from './jobs.js';
export { type QueueKeys, queueKeys, queuesKey } from './keys.js';
export type { QueueMetrics } from './metrics.js';
export { type OverrideKind, remainingMs, TIMER_ACTOR } from './overrides.js';
export { type PromotedJob, REGISTRATION_REFRESH_MS } from './queue.js';
export type { Finding, ReconcileReport } from './reconcile.js';
export {
  isCluster,
  keySlot,
  masterClients,
  type NodeAddress,
} from './redisConnection.js';
export { STATE_CHECK_MS } from './stateLoss.js';
export type {
  BackoffPolicy,
  GroupPage,
  JobActionResult,
  QueueRetention,
  QueueSnapshot,
  RateLimit,
  RetentionChange,
  RetentionPolicy,
  TimedOverride,
} from './types.js';
