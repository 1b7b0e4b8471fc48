/**
 * The groups of a queue, one page at a time through the Relay connection (`groups`, or
 * `groupsWithPrefix` when searching), so 100,000 groups cost what one page costs. Pages are in
 * id order (the server's); a column header sorts the page shown.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, request } from '../api';
import { n, STANDING_LABEL, standing } from '../format';
import {
  type GroupRowFragment,
  GroupsPageDocument,
  GroupsSearchDocument,
  type PageFragment,
} from '../gql/graphql';

type SortKey = 'id' | 'state' | 'load' | 'pending';
const PAGE_SIZES = [25, 50, 100, 200] as const;

const STANDING_ORDER = { parked: 0, limit: 1, paused: 2, ready: 3, idle: 4 } as const;

function compare(a: GroupRowFragment, b: GroupRowFragment, key: SortKey): number {
  switch (key) {
    case 'id':
      return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    case 'state':
      return STANDING_ORDER[standing(a)] - STANDING_ORDER[standing(b)];
    case 'load':
      return a.active - b.active || (a.limit ?? Infinity) - (b.limit ?? Infinity);
    case 'pending':
      return a.pending - b.pending;
  }
}

/** Active against limit, as a bar: green below, amber at, red above (or limit 0). */
export function LoadBar(props: { active: number; limit: number | null }) {
  const { active, limit } = props;
  if (limit === null) {
    return (
      <span class="load">
        <span class="bar bar-none" />
        <span class="load-text">
          {n(active)} <span class="muted">/ no limit</span>
        </span>
      </span>
    );
  }
  const over = limit === 0 || active > limit;
  const tone = over ? 'over' : active === limit ? 'full' : 'ok';
  const width = limit === 0 ? 100 : Math.min(100, (active / limit) * 100);
  return (
    <span class="load" title={`${active} in flight, limit ${limit}`}>
      <span class="bar">
        <span class={`fill fill-${tone}`} style={{ width: `${width}%` }} />
      </span>
      <span class="load-text">
        {n(active)} <span class="muted">/ {n(limit)}</span>
      </span>
    </span>
  );
}

export function StateBadge(props: { group: Pick<GroupRowFragment, 'state' | 'limit' | 'active'> }) {
  const s = standing(props.group);
  return <span class={`badge badge-${s}`}>{STANDING_LABEL[s]}</span>;
}

export function GroupsTable(props: {
  queue: string;
  selected: string | null;
  onSelect: (id: string) => void;
  /** Changes when the page should be read again (totals moved, connection back). */
  refresh: string;
  /** The selected group live (`groupChanged`): shown in its row over the page's older read. */
  live: GroupRowFragment | null;
}) {
  const { queue, selected, onSelect, refresh, live } = props;
  const [typed, setTyped] = useState('');
  const [prefix, setPrefix] = useState('');
  const [pageSize, setPageSize] = useState<number>(50);
  // The `after` of every page visited so far; the last is the page shown.
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<PageFragment | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: false });
  const search = useRef<HTMLInputElement>(null);
  const after = trail.at(-1) ?? null;

  // Search as you type, after a short pause.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (typed.trim() !== prefix) {
        setPrefix(typed.trim());
        setTrail([null]);
      }
    }, 200);
    return () => clearTimeout(timer);
  }, [typed, prefix]);

  // "/" focuses the search box.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (event.key === '/' && target?.tagName !== 'INPUT') {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    let current = true;
    const load = prefix
      ? request(GroupsSearchDocument, { queue, prefix, first: pageSize, after }).then(
          (d) => d.queue.groupsWithPrefix,
        )
      : request(GroupsPageDocument, { queue, first: pageSize, after }).then((d) => d.queue.groups);
    load.then(
      (result) => {
        if (!current) return;
        setPage(result);
        setError(null);
      },
      (failure: ApiError) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [queue, prefix, pageSize, after, refresh]);

  const rows = (page?.edges ?? []).map((e) =>
    live && live.id === e.node.id
      ? {
          id: live.id,
          limit: live.limit,
          active: live.active,
          pending: live.pending,
          paused: live.paused,
          onRing: live.onRing,
          state: live.state,
        }
      : e.node,
  );
  const sorted = [...rows].sort((a, b) => compare(a, b, sort.key) * (sort.desc ? -1 : 1));
  const first = (trail.length - 1) * pageSize;

  const header = (key: SortKey, label: string, extra = '') => {
    const active = sort.key === key;
    return (
      <th
        class={extra}
        aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : 'none'}
        scope="col"
      >
        <button
          type="button"
          class="th-sort"
          onClick={() => setSort({ key, desc: active ? !sort.desc : key !== 'id' })}
        >
          {label}
          <span class="sort-mark">{active ? (sort.desc ? '▼' : '▲') : ''}</span>
        </button>
      </th>
    );
  };

  return (
    <section class="panel groups-panel" aria-label="Groups">
      <div class="panel-head">
        <h2>Groups</h2>
        <input
          ref={search}
          class="search"
          type="search"
          placeholder="Search by id prefix  ( / )"
          aria-label="Search groups by id prefix"
          value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
          data-testid="search"
        />
        <span class="muted small grow">
          {page
            ? `${page.totalCount === 0 ? 0 : n(first + 1)}–${n(first + rows.length)} of ${n(page.totalCount)}${prefix ? ' matching' : ''}`
            : ''}
          {sort.key !== 'id' && ' · sorted within this page'}
        </span>
      </div>
      {error && <p class="error pad">{error.words}</p>}
      <div class="table-wrap">
        <table class="groups" data-testid="groups">
          <thead>
            <tr>
              {header('id', 'Group')}
              {header('state', 'State')}
              {header('load', 'Active / limit')}
              {header('pending', 'Pending', 'num')}
              <th scope="col">Paused</th>
              <th scope="col" title="on the ring">
                Ring
              </th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((g) => (
              <tr
                key={g.id}
                class={g.id === selected ? 'is-selected' : ''}
                data-group={g.id}
                onClick={() => onSelect(g.id)}
              >
                <td class="id-cell">
                  {/* Keyboard users reach the row through this button; its click bubbles up. */}
                  <button type="button" class="link">
                    {g.id}
                  </button>
                </td>
                <td>
                  <StateBadge group={g} />
                </td>
                <td>
                  <LoadBar active={g.active} limit={g.limit} />
                </td>
                <td class="num">{n(g.pending)}</td>
                <td>{g.paused ? <span class="paused-mark">paused</span> : ''}</td>
                <td>{g.onRing ? <span class="ring-dot" title="on the ring" /> : ''}</td>
              </tr>
            ))}
            {page && rows.length === 0 && (
              <tr>
                <td colSpan={6} class="muted pad">
                  {prefix ? `No group id starts with “${prefix}”.` : 'No groups in this queue.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div class="pager">
        <button
          type="button"
          class="btn btn-ghost"
          disabled={trail.length <= 1}
          onClick={() => setTrail([null])}
        >
          « First
        </button>
        <button
          type="button"
          class="btn btn-ghost"
          disabled={trail.length <= 1}
          onClick={() => setTrail(trail.slice(0, -1))}
        >
          ‹ Previous
        </button>
        <button
          type="button"
          class="btn btn-ghost"
          disabled={!page?.pageInfo.hasNextPage}
          onClick={() => page?.pageInfo.endCursor && setTrail([...trail, page.pageInfo.endCursor])}
        >
          Next ›
        </button>
        <label class="muted small page-size">
          per page
          <select
            value={String(pageSize)}
            onChange={(e) => {
              setPageSize(Number((e.target as HTMLSelectElement).value));
              setTrail([null]);
            }}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </label>
      </div>
    </section>
  );
}
