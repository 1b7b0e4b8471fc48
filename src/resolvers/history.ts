/**
 * The steering history over GraphQL (DESIGN.md §4.6): `Queue.history`, a Relay connection of
 * entries newest first, and `historyAdded`, its live feed. Thin calls into the engine and the
 * feed; read role (an entry names who acted — a token's name or role — never a token).
 */
import type { Context } from '../context.js';
import type { HistoryEntry, Queue } from '../lanes/index.js';
import type { HistoryBatch } from '../pubsub/index.js';
import { subscribe } from './live.js';

type Maybe<T> = T | null | undefined;

/** A page of history as a Relay connection. */
export interface HistoryConnection {
  readonly edges: { cursor: string; node: HistoryEntry }[];
  readonly hasNextPage: boolean;
  readonly endCursor: string | null;
  readonly totalCount: number;
}

/**
 * `Queue.history(group, first, after)`: the queue's (or the group's) entries, newest first.
 * @throws RingmasterError BAD_USER_INPUT (`group`, `first`, `after`)
 */
export async function history(
  q: Queue,
  a: { group?: Maybe<string>; first?: Maybe<number>; after?: Maybe<string> },
): Promise<HistoryConnection> {
  const page = await q.history({
    ...(a.group == null ? {} : { group: a.group }),
    ...(a.first == null ? {} : { first: a.first }),
    after: a.after,
  });
  return {
    edges: page.entries.map((node, i) => ({ cursor: page.cursors[i] as string, node })),
    hasNextPage: page.hasNextPage,
    endCursor: page.endCursor,
    totalCount: page.totalCount,
  };
}

/** `historyAdded(queue, group)`: entries as they are written (see `LiveFeed.historyAdded`). */
export const historyAdded = (
  ctx: Context,
  queue: string,
  group: Maybe<string>,
): AsyncGenerator<HistoryBatch> =>
  subscribe(() => ctx.feed.historyAdded(queue, group ?? undefined));
