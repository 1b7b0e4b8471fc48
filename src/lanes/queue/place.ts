/**
 * Where a job stands (DESIGN.md §4.1, "Where a job stands"): what `Queue.jobPlace` answers, and
 * the estimate of when a pending job starts, a plain function of what it read.
 */
import type { GroupInfo, Job } from '../types.js';

/** Completions a place reads (the newest of its group's, and of its queue's). */
export const PLACE_SAMPLES = 20;

/** Fewer of its group's completions than this, and a place has no estimate. */
export const PLACE_MIN_SAMPLES = 3;

/** What a group's recent completions say about how it runs. */
export interface ServiceTimes {
  /** Completions read (PLACE_MIN_SAMPLES..PLACE_SAMPLES). */
  readonly samples: number;
  /** Their mean time from claim to finish (ms). */
  readonly meanMs: number;
  /**
   * How many of its jobs ran at once over them, on average (their durations summed over the
   * span from the first claim to the last finish), at least 1 and at most its limit.
   */
  readonly concurrency: number;
}

/** `Queue.jobPlace`: a job, and where it stands. */
export interface JobPlace<Payload = unknown, Result = unknown> {
  readonly job: Job<Payload, Result>;
  /** Pending jobs ahead of it in its lane (ZRANK); null unless PENDING. */
  readonly position: number | null;
  /** Its group as read with the place, for a PENDING job; else null. */
  readonly group: GroupInfo | null;
  /** Its group's service times, null unless PENDING or with too little history. */
  readonly service: ServiceTimes | null;
  /** Its group's 1-based place in the rota's claim order, null when not on it (or not read). */
  readonly rotaPosition: number | null;
  /** When it should start (ms, Redis clock), null when not PENDING or not foreseeable. */
  readonly estimatedStartAt: number | null;
  /** Redis' clock at the read (ms). */
  readonly now: number;
}

/**
 * The service times of a group's completions: `finished` as ZREVRANGE … WITHSCORES answers it
 * (id, finishedAt, …) and each one's `claimedAt` (null when unread). Null with fewer than
 * {@link PLACE_MIN_SAMPLES} usable ones.
 */
export function serviceTimes(
  finished: readonly string[],
  claimedAt: readonly (string | null)[],
  limit: number | null,
): ServiceTimes | null {
  let total = 0;
  let samples = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (let i = 0; i * 2 + 1 < finished.length; i++) {
    const end = Number(finished[i * 2 + 1]);
    const start = Number(claimedAt[i] ?? Number.NaN);
    if (!Number.isFinite(end) || !Number.isFinite(start) || end < start) continue;
    total += end - start;
    samples++;
    first = Math.min(first, start);
    last = Math.max(last, end);
  }
  if (samples < PLACE_MIN_SAMPLES) return null;
  const observed = total / Math.max(1, last - first);
  return {
    samples,
    meanMs: total / samples,
    concurrency: Math.max(1, Math.min(observed, limit ?? Number.POSITIVE_INFINITY)),
  };
}

/**
 * The queue's claims per ms over its newest completions (ZREVRANGE … WITHSCORES of
 * `completed`), null with fewer than two or all at one instant.
 */
export function queueRate(finished: readonly string[]): number | null {
  const n = Math.floor(finished.length / 2);
  if (n < 2) return null;
  const newest = Number(finished[1]);
  const oldest = Number(finished[n * 2 - 1]);
  return newest > oldest ? (n - 1) / (newest - oldest) : null;
}

/**
 * When a pending job at `position` should start (ms, Redis clock; DESIGN.md §4.1, "Where a job
 * stands"), or null when nothing can tell: too little history, or its group or queue stopped
 * (paused, a limit of 0) until someone acts.
 */
export function estimateStart(p: {
  readonly now: number;
  readonly position: number;
  readonly group: GroupInfo;
  readonly service: ServiceTimes | null;
  readonly queuePaused: boolean;
  readonly rotaPosition: number | null;
  readonly queueRate: number | null;
}): number | null {
  const { group: g, service } = p;
  if (service === null || p.queuePaused || g.paused || g.limit === 0) return null;
  const from = g.rateLimitedUntil !== null ? Math.max(p.now, g.rateLimitedUntil) : p.now;
  const free = Math.max(0, (g.limit ?? Math.round(service.concurrency)) - g.active);
  // Its turn among its group's starts: 1 is the next start the group makes.
  const turn = p.position + 1 - free;
  if (turn <= 0) {
    // A permit is free: it waits for its group's turn on the rota, the groups ahead of it
    // each taking one claim of the queue's.
    const ahead = p.rotaPosition === null ? 0 : p.rotaPosition - 0.5;
    return Math.round(from + (p.queueRate === null ? 0 : ahead / p.queueRate));
  }
  // Starts come every meanMs / concurrency once the permits are full; the first is half a
  // step away on average (the jobs in flight started at staggered times).
  return Math.round(from + ((turn - 0.5) * service.meanMs) / service.concurrency);
}
