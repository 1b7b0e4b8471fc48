/**
 * What the server does when its engine finds that Redis lost a queue's state (DESIGN.md §3, "A
 * Redis that lost a queue's state"; `RingmasterOptions.onStateLost`): one error line naming the
 * queue and what was lost, `ringmaster_redis_state_lost_total{queue,cause}`, a RESYNC with
 * `resyncReason` STATE_LOST to the queue's ring subscribers, and the loss listed in `/ready`'s
 * body (`stateLost`, the newest {@link RECENT_LOSSES}). It also asks the engine every
 * {@link STATE_CHECK_MS} (`Ringmaster.checkState`), so a queue that nothing writes or reaps any
 * more (a FLUSHALL took it out of `P:queues` too) is still checked.
 */
import type { Logger } from 'pino';
import { type Ringmaster, STATE_CHECK_MS, type StateLoss } from '../lanes/internal.js';
import type { LiveFeed } from '../pubsub/index.js';
import type { ServerMetrics } from './metrics.js';

/** Losses `/ready` lists, newest first, at most. */
export const RECENT_LOSSES = 20;

/** One loss as `/ready` lists it. */
export interface ReadyLoss {
  readonly queue: string;
  readonly cause: StateLoss['cause'];
  /** When it was found (ISO 8601). */
  readonly at: string;
}

export class StateLossReport {
  private readonly recent: ReadyLoss[] = [];
  private feed: LiveFeed | null = null;
  private timer: NodeJS.Timeout | null = null;
  private checking = false;

  constructor(
    private readonly metrics: ServerMetrics,
    private readonly logger: Logger,
  ) {}

  /** The engine's `onStateLost`. */
  readonly record = (loss: StateLoss): void => {
    this.logger.error(
      { queue: loss.queue, cause: loss.cause, highestId: loss.highestId },
      loss.message,
    );
    this.metrics.stateLost(loss.queue, loss.cause);
    this.feed?.stateLost(loss.queue);
    this.recent.unshift({ queue: loss.queue, cause: loss.cause, at: new Date().toISOString() });
    this.recent.length = Math.min(this.recent.length, RECENT_LOSSES);
  };

  /** The losses found since start, newest first (at most {@link RECENT_LOSSES}). */
  get losses(): readonly ReadyLoss[] {
    return this.recent;
  }

  /** Tell `feed`'s subscribers of each loss from now on. */
  attach(feed: LiveFeed): void {
    this.feed = feed;
  }

  /** Ask `engine` every {@link STATE_CHECK_MS}, one sweep at a time. Idempotent. */
  start(engine: Ringmaster): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.checking) return;
      this.checking = true;
      void engine.checkState().finally(() => {
        this.checking = false;
      });
    }, STATE_CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
