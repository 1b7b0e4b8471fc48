/**
 * The live feed's registrations of the jobs it watches in `P:{Q}:watched` (DESIGN.md §4.4): a
 * job is registered (`Queue.watchJobs`, script `watchJobs-1.lua`) when its watch starts, so the
 * scripts that move it write its events from then on, and every `ttlMs / 3` after while the
 * watch lives, all of a queue's jobs in one call per 1,000. A registration is never removed
 * here: another server may watch the same job. One the feed stops renewing lapses `ttlMs`
 * later (the scripts ignore it from then, the reaper drops it).
 */
import type { Logger } from 'pino';
import { errorLine } from '../lanes/errors.js';
import type { Ringmaster } from '../lanes/index.js';

/** How long a registration lasts without a renewal (ms). */
export const JOB_WATCH_TTL_MS = 60_000;
/** Ids per `watchJobs` call (the script's bound). */
const BATCH = 1_000;

export class JobRegistrations {
  /** queue → job ids held */
  private readonly held = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | undefined;
  private failing = false;

  /**
   * @param ttlMs how long each registration lasts (ms, 1..86,400,000); renewed every third of it
   */
  constructor(
    private readonly engine: Ringmaster,
    private readonly ttlMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Register job `id` of `queue` now and keep it registered until {@link release}. Resolves
   * once Redis answered; a failure (Redis at maxmemory, unreachable) is logged, not thrown: the
   * watch then reads the job as it is, and the next renewal tries again.
   */
  async hold(queue: string, id: string): Promise<void> {
    let ids = this.held.get(queue);
    if (ids === undefined) {
      ids = new Set();
      this.held.set(queue, ids);
    }
    ids.add(id);
    this.timer ??= setInterval(() => this.renew(), this.ttlMs / 3).unref();
    await this.register(queue, [id]);
  }

  /** Stop renewing job `id` of `queue` (its registration lapses by itself). */
  release(queue: string, id: string): void {
    const ids = this.held.get(queue);
    if (ids === undefined) return;
    ids.delete(id);
    if (ids.size === 0) this.held.delete(queue);
    if (this.held.size === 0) this.stop();
  }

  /** Stop every renewal. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private renew(): void {
    for (const [queue, ids] of this.held) {
      const all = [...ids];
      for (let i = 0; i < all.length; i += BATCH) {
        void this.register(queue, all.slice(i, i + BATCH));
      }
    }
  }

  private async register(queue: string, ids: string[]): Promise<void> {
    try {
      await this.engine.queue(queue).watchJobs(ids, this.ttlMs);
      if (this.failing) {
        this.failing = false;
        this.logger.info('job watch registration succeeded again');
      }
    } catch (error) {
      const err = errorLine(error);
      if (!this.failing) {
        this.failing = true;
        this.logger.warn(
          { err, queue },
          'job watch registration failed: jobChanged sends the job as read until it succeeds',
        );
      }
    }
  }
}
