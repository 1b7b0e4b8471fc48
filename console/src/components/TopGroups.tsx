/**
 * The groups that matter (DESIGN.md §3, "Group rankings"): the first ten groups of the queue by
 * pending jobs, by oldest pending job or by jobs in flight (`Queue.topGroups`, O(log groups + 10),
 * whatever the number of tenants), read again with every snapshot. A row selects its group.
 */
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, request } from '../api';
import { duration, n } from '../format';
import {
  ConsoleTopGroupsDocument,
  type ConsoleTopGroupsQuery,
  type GroupRanking,
} from '../gql/graphql';
import { Id } from './Id';

/** Groups the panel lists. */
const TOP = 10;

const RANKINGS: { by: GroupRanking; label: string }[] = [
  { by: 'PENDING', label: 'Most pending' },
  { by: 'OLDEST_PENDING', label: 'Oldest waiting' },
  { by: 'ACTIVE', label: 'Most in flight' },
];

type Row = ConsoleTopGroupsQuery['queue']['topGroups'][number];

export function TopGroups(props: {
  queue: string;
  /** The snapshot's moment (Redis clock, ms): a new one reads the ranking again. */
  at: number | null;
  skew: number;
  now: number;
  selected: string | null;
  onSelect: (group: string) => void;
}) {
  const { queue, at, skew, now, selected, onSelect } = props;
  const [by, setBy] = useState<GroupRanking>('PENDING');
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    request(ConsoleTopGroupsDocument, { queue, by, first: TOP })
      .then((read) => {
        if (!live) return;
        setRows(read.queue.topGroups);
        setError(null);
      })
      .catch(
        (failure: unknown) => live && setError((failure as ApiError).words ?? String(failure)),
      );
    return () => {
      live = false;
    };
  }, [queue, by, at]);

  const redisNow = Math.max(now, Date.now()) - skew;
  return (
    <section class="panel top-groups" aria-label="Top groups" data-testid="top-groups">
      <div class="panel-head">
        <h2>Top groups</h2>
        <span class="segmented">
          {RANKINGS.map((r) => (
            <button
              key={r.by}
              type="button"
              class="btn btn-ghost btn-small"
              aria-pressed={r.by === by}
              onClick={() => {
                setBy(r.by);
                setRows(null);
              }}
            >
              {r.label}
            </button>
          ))}
        </span>
      </div>
      {error && <p class="outcome outcome-error pad">{error}</p>}
      {rows === null ? (
        <p class="muted pad">reading…</p>
      ) : rows.length === 0 ? (
        <p class="muted pad">
          {by === 'ACTIVE' ? 'No group has jobs in flight.' : 'No group has pending jobs.'}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="top-groups-table">
            <thead>
              <tr>
                <th>#</th>
                <th>Group</th>
                <th class="num">Pending</th>
                <th class="num">In flight</th>
                <th class="num" title="How long its oldest pending job has waited">
                  Oldest
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((g, i) => (
                <tr
                  key={g.id}
                  data-group={g.id}
                  data-testid="top-group"
                  class={g.id === selected ? 'is-selected' : ''}
                  onClick={() => onSelect(g.id)}
                >
                  <td class="muted">{i + 1}</td>
                  <td class="mono">
                    <Id value={g.id} />
                  </td>
                  <td class="num">{n(g.pending)}</td>
                  <td class="num">{n(g.active)}</td>
                  <td class="num">
                    {g.oldestPendingAt == null
                      ? '—'
                      : duration(redisNow - new Date(g.oldestPendingAt as string).getTime())}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
