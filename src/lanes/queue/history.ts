/**
 * The steering history (DESIGN.md §4.6): what the steering scripts record in `P:{Q}:history`
 * (includes/history.lua; one stream per queue, none per group), read back newest first a page
 * at a time: the queue's entries, or a group's (the queue's entries of it, filtered here). Knows nothing of GraphQL; the live feed's history watch decodes with it too.
 */
import type { RedisClient } from '../redis/client.js';
import * as validate from '../validate.js';

/** One history entry (DESIGN.md §4.6). */
export interface HistoryEntry {
  /** Its stream id, `<ms>-<n>`: unique within its stream, and its place in it. */
  readonly id: string;
  /** When it was recorded (ms since the epoch, Redis clock: the stream id's first part). */
  readonly at: number;
  /** The steering action: setLimit, pause, pauseQueue, removeJobs, repair, … */
  readonly action: string;
  /** The group acted on, or '' for an action on the whole queue. */
  readonly group: string;
  /** Who asked: a token's name or role over the API, else the queue handle's `actor`. */
  readonly actor: string;
  /** The state it changed, before (a JSON object), or null when not recorded. */
  readonly before: Record<string, unknown> | null;
  /** The same state after, or null. */
  readonly after: Record<string, unknown> | null;
  /** What the call was asked and answered (counts, the first few ids), or null. */
  readonly detail: Record<string, unknown> | null;
}

/** A page of history entries, newest first (`Queue.history`). */
export interface HistoryPage {
  readonly entries: HistoryEntry[];
  /** One opaque cursor per entry: pass one as `after` for the entries older than it. */
  readonly cursors: string[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  /** Entries the stream holds now (count, XLEN), at most its cap. */
  readonly totalCount: number;
}

/** Entries per page when none is asked for (`Queue.history`, GraphQL `first`). */
export const HISTORY_PAGE_SIZE = 20;

/** A field that holds a JSON object, parsed; null when absent or not an object. */
function objectOf(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** XRANGE/XREVRANGE's reply `[[id, [field, value, …]], …]` as entries (order kept). */
export function decodeHistory(reply: readonly [string, string[]][]): HistoryEntry[] {
  return reply.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    return {
      id,
      at: Number(id.split('-')[0]),
      action: fields.action ?? '',
      group: fields.group ?? '',
      actor: fields.actor ?? '',
      before: objectOf(fields.before),
      after: objectOf(fields.after),
      detail: objectOf(fields.detail),
    };
  });
}

/**
 * A page of stream `key`, newest first, older than the entry `after` names (exclusive), with
 * the stream's length: one XREVRANGE … COUNT first+1 and one XLEN, O(log n + page).
 * @throws RingmasterError BAD_USER_INPUT (`first` not 1..500, `after` not a cursor of this history listing)
 */
export async function readHistory(
  redis: RedisClient,
  key: string,
  queue: string,
  options: { first?: number | undefined; after?: string | null | undefined },
): Promise<HistoryPage> {
  const first = validate.pageSize(options.first ?? HISTORY_PAGE_SIZE);
  const listing = ['history', queue, null] as const;
  const after =
    options.after == null ? null : validate.historyCursor.decode(options.after, listing);
  const end = after === null ? '+' : `(${after}`;
  const [reply, totalCount] = await Promise.all([
    // Nothing is older than 0-0 (and Redis refuses an exclusive bound below it).
    after === '0-0'
      ? Promise.resolve([] as [string, string[]][])
      : (redis.xrevrange(key, end, '-', 'COUNT', first + 1) as Promise<[string, string[]][]>),
    redis.xlen(key),
  ]);
  const entries = decodeHistory(reply.slice(0, first));
  const encode = validate.historyCursor.encoder(listing);
  const cursors = entries.map((e) => encode(e.id));
  return {
    entries,
    cursors,
    hasNextPage: reply.length > first,
    endCursor: cursors.at(-1) ?? null,
    totalCount,
  };
}

/** Entries one XREVRANGE of a group's history read reads (count): a chunk, client side. */
export const HISTORY_SCAN_CHUNK = 200;

/**
 * A page of one group's history: the entries of the queue's stream `key` whose `group` field is
 * `group`, newest first, older than the entry `after` names (exclusive). There is no stream per
 * group (DESIGN.md §4.6): the queue's stream is read newest first in chunks of
 * {@link HISTORY_SCAN_CHUNK} (XREVRANGE … COUNT 200 from the cursor, exclusive, each chunk its
 * own short command: no long script blocks Redis) until `first + 1` of the group's entries are
 * found (the one more says `hasNextPage`) or the stream's start. Cost O(entries scanned): at
 * most the stream's cap (`historyMaxLen`, default 10,000: 50 chunks) when the group has few
 * entries — an admin read. `totalCount` is the queue stream's length (XLEN): the entries the
 * group's are read from, an upper bound of the group's (counting them would read it all).
 * @throws RingmasterError BAD_USER_INPUT (`first` not 1..500, `after` not a cursor of this history listing)
 */
export async function readGroupHistory(
  redis: RedisClient,
  key: string,
  queue: string,
  group: string,
  options: { first?: number | undefined; after?: string | null | undefined },
): Promise<HistoryPage> {
  const first = validate.pageSize(options.first ?? HISTORY_PAGE_SIZE);
  const listing = ['history', queue, group] as const;
  const after =
    options.after == null ? null : validate.historyCursor.decode(options.after, listing);
  const found: HistoryEntry[] = [];
  // Nothing is older than 0-0 (and Redis refuses an exclusive bound below it).
  let end: string | null = after === null ? '+' : after === '0-0' ? null : `(${after}`;
  while (end !== null && found.length <= first) {
    const chunk = (await redis.xrevrange(key, end, '-', 'COUNT', HISTORY_SCAN_CHUNK)) as [
      string,
      string[],
    ][];
    for (const entry of decodeHistory(chunk)) {
      if (entry.group === group) found.push(entry);
    }
    const last = chunk.at(-1);
    end = chunk.length < HISTORY_SCAN_CHUNK || last === undefined ? null : `(${last[0]}`;
  }
  const entries = found.slice(0, first);
  const encode = validate.historyCursor.encoder(listing);
  const cursors = entries.map((e) => encode(e.id));
  return {
    entries,
    cursors,
    hasNextPage: found.length > first,
    endCursor: cursors.at(-1) ?? null,
    totalCount: await redis.xlen(key),
  };
}
