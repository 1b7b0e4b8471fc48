/**
 * Ringmaster's engine, the package's API: per-group concurrency for Redis job queues
 * (DESIGN.md §1–§4.1). `test/lanes/exports.test.ts` pins these names.
 */

export { clusterOptions } from './clusterOptions.js';
export { Defaults } from './defaults.js';
export { ErrorCode, RingmasterError } from './errors.js';
export { EvictionPolicyError } from './eviction.js';
export type { HistoryEntry } from './history.js';
export { Limits } from './limits.js';
export {
  type BackoffPolicyInput,
  type EnqueueOptions,
  Queue,
  type QueueOptions,
  type RetryOptions,
} from './queue.js';
export { Reaper, type ReaperOptions } from './reaper.js';
export type { RedisClient } from './redisConnection.js';
export { Ringmaster, type RingmasterOptions } from './ringmaster.js';
export type { StateLoss, StateSeen } from './stateLoss.js';
export type {
  GroupInfo,
  GroupState,
  Job,
  JobError,
  JobPage,
  JobState,
  QueueCounts,
  QueueState,
  QueueStats,
  SteeringOptions,
} from './types.js';
export { type Processor, Worker, type WorkerCloseOptions, type WorkerOptions } from './worker.js';
