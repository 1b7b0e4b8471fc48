/**
 * Ringmaster's engine, the package's API: per-group concurrency for Redis job queues
 * (DESIGN.md §1–§4.1). `test/lanes/exports.test.ts` pins these names.
 */

export type { ActiveJob } from './activeJob.js';
export { Defaults } from './defaults.js';
export { ErrorCode, RingmasterError } from './errors.js';
export { Limits } from './limits.js';
export type { HistoryEntry } from './queue/history.js';
export {
  type BackoffPolicyInput,
  type ClaimOptions,
  type CompleteOptions,
  type Completion,
  type DebounceInput,
  type EnqueueOptions,
  Queue,
  type QueueOptions,
  type RetryOptions,
  type ScheduleInput,
  type SchedulesOptions,
  type WorkerHeartbeat,
} from './queue/queue.js';
export type { LayoutUpgrade, LayoutUpgradeOptions } from './queue/upgrade.js';
export { Reaper, type ReaperOptions } from './reaper.js';
export type { RedisClient } from './redis/client.js';
export { clusterOptions } from './redis/clusterOptions.js';
export type { RedisConnection } from './redis/connectionOption.js';
export { EvictionPolicyError } from './redis/eviction.js';
export type { StateLoss, StateSeen } from './redis/stateLoss.js';
export { Ringmaster, type RingmasterOptions } from './ringmaster.js';
export type {
  GroupInfo,
  GroupState,
  Job,
  JobError,
  JobPage,
  JobProgress,
  JobState,
  QueueCap,
  QueueCounts,
  QueueState,
  QueueStats,
  RotaEntry,
  Schedule,
  SchedulePage,
  SteeringOptions,
  WorkerInfo,
} from './types.js';
export { type Processor, Worker, type WorkerCloseOptions, type WorkerOptions } from './worker.js';
