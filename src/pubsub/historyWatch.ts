/**
 * `historyAdded(queue, group?)`: the steering history's new entries as they are written
 * (DESIGN.md §4.6). One watch per queue (its stream `P:{Q}:history`: there is no stream per
 * group), shared by the queue's subscribers and its groups' (a group's filters its view), hinted by the stream's keyspace events (`xadd`, flag `t`). Its value is a bounded window of the
 * newest entries read so far: each read is an XRANGE from the last id seen (exclusive), at most
 * {@link HISTORY_WINDOW} + 1 entries, so a hint, a safety re-read, a poll and a resync all cost
 * O(log n + window) and nothing written while a hint was lost is missed. Each subscriber is sent
 * an event with no entries first (it is live), then the entries of the window newer than the last
 * it was sent; when more were written than the
 * window holds between two of its pulls it is told (`gap`), and may read `Queue.history`.
 */
import {
  decodeHistory,
  type HistoryEntry,
  type QueueKeys,
  type RedisClient,
} from '../lanes/internal.js';
import type { Render } from './conflate.js';

/** Entries a history watch holds (count): the most one event can carry. */
export const HISTORY_WINDOW = 100;

/** What a history watch holds after a read. */
export interface HistoryWindow {
  /** The newest entries read, oldest first, at most {@link HISTORY_WINDOW}. */
  readonly entries: readonly HistoryEntry[];
  /** The newest id seen ('0-0' for an empty stream). */
  readonly newestId: string;
  /** The window holds every entry of the stream newer than this id. */
  readonly coversFrom: string;
}

/** One event of `historyAdded`. */
export interface HistoryBatch {
  /** The new entries, oldest first. */
  readonly entries: HistoryEntry[];
  /**
   * True when entries were written since the last event that this one does not carry (more
   * than {@link HISTORY_WINDOW} between two pulls): read `Queue.history` for them. For a
   * group's subscriber it counts the queue's entries (the watch reads the queue's stream): more
   * than the window arrived for the queue since its last pull, so some of the group's may be
   * missing (or none: the gap may hold only other groups').
   */
  readonly gap: boolean;
}

const MAX_SEQ = 2n ** 64n - 1n;

function parts(id: string): [bigint, bigint] {
  const [ms = '0', seq = '0'] = id.split('-');
  return [BigInt(ms), BigInt(seq)];
}

/** Stream ids in stream order: < 0, 0 or > 0. */
export function compareIds(a: string, b: string): number {
  const [am, as] = parts(a);
  const [bm, bs] = parts(b);
  if (am !== bm) return am < bm ? -1 : 1;
  return as === bs ? 0 : as < bs ? -1 : 1;
}

/** The stream id just before `id` ('0-0' stays '0-0'). */
function previousId(id: string): string {
  const [ms, seq] = parts(id);
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  return ms > 0n ? `${ms - 1n}-${MAX_SEQ}` : '0-0';
}

/**
 * A history watch's read: the first call finds the newest id (one XREVRANGE … COUNT 1: a
 * subscription carries what is written after it starts); each later one reads what was written
 * since the last id seen (XRANGE exclusive, COUNT window + 1) and appends it to the window. When
 * more than a window was written since, the window becomes the newest {@link HISTORY_WINDOW}
 * entries (one XREVRANGE), and what fell between is a gap.
 */
export function historyReader(redis: RedisClient, key: string): () => Promise<HistoryWindow> {
  let current: HistoryWindow | undefined;
  return async () => {
    if (current === undefined) {
      const newest = (await redis.xrevrange(key, '+', '-', 'COUNT', 1)) as [string, string[]][];
      const id = newest[0]?.[0] ?? '0-0';
      current = { entries: [], newestId: id, coversFrom: id };
      return current;
    }
    const last = current.newestId;
    const page = decodeHistory(
      (await redis.xrange(key, `(${last}`, '+', 'COUNT', HISTORY_WINDOW + 1)) as [
        string,
        string[],
      ][],
    );
    if (page.length === 0) return current;
    if (page.length > HISTORY_WINDOW) {
      const newest = decodeHistory(
        (await redis.xrevrange(key, '+', '-', 'COUNT', HISTORY_WINDOW)) as [string, string[]][],
      ).reverse();
      const oldest = newest[0] as HistoryEntry;
      current = {
        entries: newest,
        newestId: (newest.at(-1) as HistoryEntry).id,
        coversFrom: previousId(oldest.id),
      };
      return current;
    }
    const entries = [...current.entries, ...page];
    let coversFrom = current.coversFrom;
    while (entries.length > HISTORY_WINDOW) coversFrom = (entries.shift() as HistoryEntry).id;
    current = { entries, newestId: (page.at(-1) as HistoryEntry).id, coversFrom };
    return current;
  };
}

/** Equal for a watch: nothing new was read. */
export function sameWindow(a: HistoryWindow, b: HistoryWindow): boolean {
  return a.newestId === b.newestId && a.coversFrom === b.coversFrom;
}

/**
 * One subscriber's render (with `group`: only that group's entries are sent; a window with
 * none of them sends nothing unless it is a gap): the first window it is offered is where it starts, sent as an event
 * with no entries (the subscription is live: every entry written after it will come); after that, each event carries the entries newer than the last it was sent, and `gap` when
 * the window no longer reaches back to that. Nothing is sent when nothing is new (a resync
 * that found nothing new sends nothing either: there is nothing to repeat).
 */
export function historyRender(group?: string): Render<HistoryWindow, HistoryBatch> {
  let seen: string | undefined;
  return (window) => {
    if (seen === undefined) {
      seen = window.newestId;
      return { entries: [], gap: false };
    }
    const since = seen;
    const gap = compareIds(since, window.coversFrom) < 0;
    const entries = window.entries.filter(
      (e) => compareIds(e.id, since) > 0 && (group === undefined || e.group === group),
    );
    // Seen even when nothing is sent: other groups' entries are not a gap at the next pull.
    seen = window.newestId;
    if (entries.length === 0 && !gap) return undefined;
    return { entries, gap };
  };
}

/** The key a history watch hears: the queue's stream, for the queue and each of its groups. */
export function historyKey(k: QueueKeys): string {
  return k.history;
}
