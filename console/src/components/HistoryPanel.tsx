/**
 * The steering history (DESIGN.md §4.6) of a queue, or of one group: who did what and
 * when, newest first, each entry with what it changed (before → after) and a short detail; live
 * through `historyAdded` — its first event says the subscription is live, and the first page is
 * read then, so nothing written in between is missed — and paged back with "Older".
 */
import { useEffect, useState } from 'preact/hooks';
import { detailText } from '../../../src/cli/historyDetail';
import { type ApiError, request, subscribe } from '../api';
import { clockMs, dateTimeMs, duration, preview } from '../format';
import { HistoryDocument, type HistoryItemFragment, HistoryLiveDocument } from '../gql/graphql';

/** How a detail's moments and spans read: dates in this browser's zone, spans in words. */
const WORDS = { date: dateTimeMs, span: duration };

/** Entries per page. */
const HISTORY_PAGE = 10;

type Json = Record<string, unknown> | null;

const shown = (value: unknown): string =>
  value === null || typeof value !== 'object' ? String(value) : preview(value, 40);

/** An object's fields, nested ones flattened one level (`completed.count`). */
function flat(value: Json): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value ?? {})) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [kk, vv] of Object.entries(v)) out[`${k}.${kk}`] = vv;
    } else {
      out[k] = v;
    }
  }
  return out;
}

/** The fields an entry changed, `key: before → after`, or the after state when nothing differs. */
export function changeText(before: Json, after: Json): string {
  if (!after) return '';
  const b = flat(before);
  const a = flat(after);
  const keys = Object.keys(a).filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]));
  if (!before || keys.length === 0) return preview(after, 80);
  return keys.map((k) => `${k}: ${shown(b[k])} → ${shown(a[k])}`).join(', ');
}

/**
 * The head's count: the queue's entries kept (the stream's length); for a group, its own
 * entries — the queue's count would head one entry with "4 kept" — as read so far, with a "+"
 * while older pages may hold more of them (counting them all would read the whole stream).
 */
function keptText(
  group: string | null,
  total: number | null,
  entries: HistoryItemFragment[] | null,
  more: string | null,
): string {
  if (group === null) return total === null ? '' : ` · ${total} kept`;
  return entries === null ? '' : ` · ${entries.length}${more === null ? '' : '+'} kept`;
}

export function HistoryPanel(props: { queue: string; group: string | null }) {
  const { queue, group } = props;
  const [entries, setEntries] = useState<HistoryItemFragment[] | null>(null);
  const [more, setMore] = useState<string | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    setEntries(null);
    setMore(null);
    const vars = { queue, ...(group === null ? {} : { group }) };
    const firstPage = async () => {
      try {
        const page = (await request(HistoryDocument, { ...vars, first: HISTORY_PAGE })).queue
          .history;
        if (stopped) return;
        setEntries(page.edges.map((e) => e.node));
        setMore(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
        setTotal(page.totalCount);
        setError(null);
      } catch (failure) {
        if (!stopped) setError((failure as ApiError).words ?? String(failure));
      }
    };
    const stop = subscribe(
      HistoryLiveDocument,
      vars,
      ({ historyAdded }) => {
        // Live (the first event), or more was written than one event carries: read the page.
        if (historyAdded.gap || historyAdded.entries.length === 0) {
          void firstPage();
          return;
        }
        const added = [...historyAdded.entries].reverse();
        setEntries((shown) => {
          const known = new Set((shown ?? []).map((e) => e.id));
          return [...added.filter((e) => !known.has(e.id)), ...(shown ?? [])];
        });
        setTotal((t) => (t === null ? t : t + added.length));
      },
      (failure) => setError(failure.words),
    );
    return () => {
      stopped = true;
      stop();
    };
  }, [queue, group]);

  const older = async () => {
    if (more === null) return;
    try {
      const page = (
        await request(HistoryDocument, {
          queue,
          ...(group === null ? {} : { group }),
          first: HISTORY_PAGE,
          after: more,
        })
      ).queue.history;
      setEntries((shown) => [...(shown ?? []), ...page.edges.map((e) => e.node)]);
      setMore(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
    } catch (failure) {
      setError((failure as ApiError).words ?? String(failure));
    }
  };

  return (
    <section class="panel history" aria-label="History" data-testid="history">
      <div class="panel-head">
        <h2>History</h2>
        <span class="muted small">
          {group === null ? 'every steering action of the queue' : 'this group’s'}
          {keptText(group, total, entries, more)}
        </span>
      </div>
      {error && <p class="outcome outcome-error pad">{error}</p>}
      {entries === null ? (
        <p class="muted pad">reading…</p>
      ) : entries.length === 0 ? (
        <p class="muted pad">No steering action recorded yet.</p>
      ) : (
        <ol class="history-list">
          {entries.map((e) => (
            <li key={e.id} class="history-item" data-testid="history-item">
              <div class="history-line">
                <span class="small muted" title={new Date(e.at as string).toISOString()}>
                  {clockMs(new Date(e.at as string).getTime())}
                </span>{' '}
                <b>{e.action}</b>
                {group === null && e.group !== '' && <span> · {e.group}</span>}
                <span class="muted"> by {e.actor}</span>
              </div>
              <div class="small">{changeText(e.before as Json, e.after as Json)}</div>
              {e.detail != null && (
                <div class="small muted">{detailText(e.action, e.detail, WORDS, ' · ')}</div>
              )}
            </li>
          ))}
        </ol>
      )}
      {more !== null && (
        <button type="button" class="btn btn-ghost" onClick={older}>
          Older
        </button>
      )}
    </section>
  );
}
