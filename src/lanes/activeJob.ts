/**
 * The job a Worker's processor runs (DESIGN.md §4.1, "Worker"): the claimed {@link Job}, and
 * what only the holder of its lease may do while it runs — report progress and add log lines
 * (DESIGN.md §3, "Progress and logs").
 */
import type { Queue } from './queue/queue.js';
import type { BackoffPolicy, Job, JobError, JobLog, JobProgress, JobState } from './types.js';

/** A claimed job as its processor gets it: the job, under the Worker's lease. */
export interface ActiveJob<Payload = unknown, Result = unknown> extends Job<Payload, Result> {
  /** The lease token the Worker holds it under. */
  readonly token: string;
  /** Its progress: as claimed (a report of an earlier attempt is kept), then as last reported. */
  readonly progress: JobProgress | null;
  /**
   * Report its progress (`Queue.updateJobProgress`): a number from 0 to 100 or a JSON object.
   * @throws RingmasterError BAD_USER_INPUT (`progress`), LEASE_LOST (the lease was lost: the job
   *   may be running elsewhere), JOB_NOT_FOUND
   */
  updateProgress(progress: JobProgress): Promise<void>;
  /**
   * Add a line to its log (`Queue.addJobLog`; the newest `Defaults.logsKept` are kept).
   * @returns the line with its time (ms, Redis clock)
   * @throws RingmasterError BAD_USER_INPUT (`line`), LEASE_LOST, JOB_NOT_FOUND
   */
  log(line: string): Promise<JobLog>;
}

/** {@link ActiveJob} over a queue; `onProgress` hears each report that was kept. */
export class RunningJob<Payload = unknown, Result = unknown> implements ActiveJob<Payload, Result> {
  readonly id: string;
  readonly queue: string;
  readonly group: string;
  readonly payload: Payload;
  readonly result: Result | null;
  progress: JobProgress | null;
  readonly state: JobState;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly token: string;
  readonly leaseUntil: number | null;
  readonly enqueuedAt: number | null;
  readonly runAt: number | null;
  readonly claimedAt: number | null;
  readonly finishedAt: number | null;
  readonly lastError: string | null;
  /** The id of the worker running it (DESIGN.md §4.9 "Workers"). */
  readonly workerId: string | null;
  readonly backoff?: BackoffPolicy | null;
  readonly errors?: readonly JobError[];
  readonly #handle: Queue<Payload, Result>;
  readonly #onProgress: ((job: RunningJob<Payload, Result>) => void) | undefined;

  constructor(
    job: Job<Payload, Result>,
    handle: Queue<Payload, Result>,
    onProgress?: (job: RunningJob<Payload, Result>) => void,
  ) {
    this.id = job.id;
    this.queue = job.queue;
    this.group = job.group;
    this.payload = job.payload;
    this.result = job.result;
    this.progress = job.progress;
    this.state = job.state;
    this.attempts = job.attempts;
    this.maxAttempts = job.maxAttempts;
    this.token = job.token as string;
    this.leaseUntil = job.leaseUntil;
    this.enqueuedAt = job.enqueuedAt;
    this.runAt = job.runAt;
    this.claimedAt = job.claimedAt;
    this.finishedAt = job.finishedAt;
    this.lastError = job.lastError;
    this.workerId = job.workerId ?? null;
    this.#handle = handle;
    this.#onProgress = onProgress;
  }

  async updateProgress(progress: JobProgress): Promise<void> {
    const updated = await this.#handle.updateJobProgress(this.id, this.token, progress);
    this.progress = updated.progress;
    this.#onProgress?.(this);
  }

  log(line: string): Promise<JobLog> {
    return this.#handle.addJobLog(this.id, this.token, line);
  }
}
