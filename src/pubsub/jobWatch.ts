/**
 * `jobChanged(queue, id)`: one job, sent whenever its state, attempts, lease, run-at time or last
 * error changes, until it reaches a final state (COMPLETED, DEAD) or is gone (DESIGN.md §4.4).
 */
import type { Job, QueueKeys } from '../lanes/index.js';
import type { Render } from './conflate.js';

/**
 * The job as a watcher sees it: null when it is gone (completed without retention, trimmed,
 * removed by an operator) or never was.
 */
export type WatchedJob = Job | null;

/**
 * Equal for a watcher: the same state, attempts, lease (token and deadline), run-at time, last
 * error, claim and finish times. What a job's life changes; payload, group and maxAttempts never
 * change, and `errors` grows only with `lastError` (each failed attempt sets both).
 */
export function sameJob(a: WatchedJob, b: WatchedJob): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.id === b.id &&
    a.state === b.state &&
    a.attempts === b.attempts &&
    a.token === b.token &&
    a.leaseUntil === b.leaseUntil &&
    a.runAt === b.runAt &&
    a.lastError === b.lastError &&
    a.claimedAt === b.claimedAt &&
    a.finishedAt === b.finishedAt
  );
}

/**
 * Whether a job event is a watcher's last: the job COMPLETED or DEAD (the end of its life; a dead
 * job requeued by an operator starts another, which a new subscription follows), or gone (null).
 */
export function isFinalJob(job: WatchedJob): boolean {
  return job === null || job.state === 'COMPLETED' || job.state === 'DEAD';
}

/** The job as it is first, then whenever it differs from the last sent, and after a resync. */
export const renderJob: Render<WatchedJob, WatchedJob> = (job, previous, forced) =>
  previous === undefined || forced || !sameJob(job, previous.value) ? job : undefined;

/**
 * The keys a job is read from: its hash alone (`hset`/`hdel`/`hincrby` on every change of its
 * fields, `del` when it is deleted; flags `h` and `g`). Its errors list changes only with the
 * hash's `lastError`, so it needs no channel of its own.
 */
export function jobKeys(k: QueueKeys, id: string): string[] {
  return [k.job(id)];
}
