/**
 * One queue's numbers for monitoring (`Queue.metrics`, DESIGN.md §4.7), read by one script
 * (`readMetrics-7.lua`) so they agree, at O(1) in groups and jobs.
 */
import type { MetricsReply } from '../scripts/commands.js';
import type { QueueStats } from '../types.js';
import { parseCount, parseLimit, statsFrom } from './state.js';

/** Stale entries of the oldest-pending index (`P:{Q}:heads`) mended per metrics read, at most. */
export const METRICS_HEAD_STEPS = 100;

/** The oldest pending job of a queue: the lowest id, whatever its priority (DESIGN.md §3). */
export interface OldestPending {
  readonly id: string;
  /** Its lane score (its id shifted by its priority for a job Ringmaster enqueued). */
  readonly score: number;
  /** When it was enqueued (ms since the epoch, Redis clock), or null when its hash has none. */
  readonly enqueuedAt: number | null;
  /** `at − enqueuedAt` (ms), or null when enqueuedAt is unknown. */
  readonly ageMs: number | null;
}

/** What {@link Queue.metrics} answers. Counts are counts; times ms on the Redis clock. */
export interface QueueMetrics {
  /** When it was read (ms since the epoch, Redis clock). */
  readonly at: number;
  /** Groups in the registry (`ZCARD groups`). */
  readonly groups: number;
  /**
   * Groups on the rota at every priority level (`LLEN ring` + `ZCARD levels`, DESIGN.md §3
   * "Levels"): the serviceable ones, `Queue.ring()`'s length.
   */
  readonly ring: number;
  /** Paused groups (`SCARD paused`). */
  readonly paused: number;
  /** Groups at or above their limit (`stats.saturated`). */
  readonly saturated: number;
  /**
   * Groups waiting for their rate window to reopen (`ratelimited` members whose reopening is
   * after the read's now, ZCOUNT; one whose window reopened and that no claim has promoted yet
   * is not counted, as `Group.state` does not call it RATE_LIMITED; 0 where no rate is set).
   */
  readonly rateLimited: number;
  /** Jobs in lanes (`stats.pending`). */
  readonly pending: number;
  /** Delayed jobs (`stats.delayed`). */
  readonly delayed: number;
  /** Active jobs (`ZCARD active`). */
  readonly active: number;
  /** Dead jobs the dead retention keeps now (`ZCOUNT dead` from its age's cut, as reads see them). */
  readonly dead: number;
  /** Completed jobs the completed retention keeps now (`ZCOUNT completed` from its age's cut). */
  readonly completed: number;
  /** Event counters since the queue was created (`stats`). */
  readonly stats: QueueStats;
  /**
   * The oldest pending job, or null when there is none — or when the oldest-pending index had
   * more stale entries than one read mends ({@link settled} false; the next read goes on).
   */
  readonly oldestPending: OldestPending | null;
  /** False when {@link oldestPending} is unknown this time (stale entries left to mend). */
  readonly settled: boolean;
  /** Stale entries of the oldest-pending index this read mended (count). */
  readonly mended: number;
  /** The queue's cap (jobs in flight), or null for none (DESIGN.md §3, "The queue's cap"). */
  readonly limit: number | null;
  /** The sum of the groups' reserves (count). */
  readonly reserved: number;
  /** Live workers: registered and not lapsed (DESIGN.md §4.9 "Workers"; ZCOUNT `workers`). */
  readonly workers: number;
  /** The queue's schedules (count; DESIGN.md §3, "Schedules"). */
  readonly schedules: number;
}

/** {@link QueueMetrics} from `readMetrics-7.lua`'s reply. */
export function decodeMetrics(reply: MetricsReply): QueueMetrics {
  const [at, ring, groups, paused, rateLimited, active, dead, completed, flat, oldest, settled] =
    reply;
  const s: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) s[flat[i] as string] = flat[i + 1] as string;
  let oldestPending: OldestPending | null = null;
  if (oldest) {
    const [id, score, enqueuedAtText] = oldest;
    const enqueuedAt =
      typeof enqueuedAtText === 'string' && /^\d+$/.test(enqueuedAtText)
        ? Number(enqueuedAtText)
        : null;
    oldestPending = {
      id,
      score: Number(score),
      enqueuedAt,
      ageMs: enqueuedAt === null ? null : Math.max(0, Number(at) - enqueuedAt),
    };
  }
  return {
    at: Number(at),
    groups: Number(groups),
    ring: Number(ring),
    paused: Number(paused),
    saturated: parseCount(s.saturated),
    rateLimited: Number(rateLimited),
    pending: parseCount(s.pending),
    delayed: parseCount(s.delayed),
    active: Number(active),
    dead: Number(dead),
    completed: Number(completed),
    stats: statsFrom(s),
    oldestPending,
    settled: settled === 1,
    mended: Number(reply[11]),
    limit: parseLimit(reply[12]?.[0]),
    reserved: parseLimit(reply[12]?.[1]) ?? 0,
    workers: Number(reply[13] ?? 0),
    schedules: Number(reply[14] ?? 0),
  };
}
