/**
 * The groups of a queue, one page at a time (the snapshot's page: `Queue.snapshot(first, after,
 * prefix)`), so 100,000 groups cost what one page costs. Pages are in id order (the server's); a
 * column header sorts the page shown. Every row is of the same moment as the ring beside it: a
 * row is "ready" exactly when its group is on that ring, at the place the Ring column says.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { n, STANDING_LABEL, STANDING_MEANS, standing, visibleId } from '../format';
import type { GroupRowFragment, PageFragment } from '../gql/graphql';
import { Id } from './Id';

type SortKey = 'id' | 'state' | 'load' | 'pending';
const PAGE_SIZES = [25, 50, 100, 200] as const;

const STANDING_ORDER = {
  parked: 0,
  limit: 1,
  paused: 2,
  ready: 3,
  rejoining: 2.5,
  busy: 4,
  empty: 5,
  rated: 1.5,
  capped: 2.7,
  behind: 2.75,
} as const;

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

export function StateBadge(props: {
  group: Pick<GroupRowFragment, 'state' | 'limit' | 'active' | 'onRing'>;
}) {
  const s = standing(props.group);
  return (
    <span class={`badge badge-${s}`} data-standing={s} title={STANDING_MEANS[s]}>
      {STANDING_LABEL[s]}
    </span>
  );
}

/** The page asked for: search prefix, page size and the cursors of the pages visited. */
export interface Paging {
  /** What is typed in the search box (applied after a short pause). */
  typed: string;
  setTyped: (text: string) => void;
  /** The prefix searched for ('' = every group). */
  prefix: string;
  pageSize: number;
  setPageSize: (size: number) => void;
  /** The `after` of every page visited so far; the last is the page shown. */
  trail: (string | null)[];
  setTrail: (trail: (string | null)[]) => void;
}

/** The table's paging state, reset when `queue` changes; App reads the page it names. */
export function usePaging(queue: string | null): Paging {
  const [typed, setTyped] = useState('');
  const [prefix, setPrefix] = useState('');
  const [pageSize, setPageSize] = useState<number>(50);
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  useEffect(() => {
    setTyped('');
    setPrefix('');
    setTrail([null]);
  }, [queue]);
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
  return { typed, setTyped, prefix, pageSize, setPageSize, trail, setTrail };
}

export function GroupsTable(props: {
  /** The snapshot's page; null before the first read. */
  page: PageFragment | null;
  /** The snapshot's ring head (the same moment as `page`; its first RING_WINDOW groups). */
  ring: string[] | null;
  /** The ring's length in that snapshot. */
  ringSize: number;
  paging: Paging;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const { page, ring, ringSize, paging, selected, onSelect } = props;
  const { typed, setTyped, prefix, pageSize, setPageSize, trail, setTrail } = paging;
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: false });
  const search = useRef<HTMLInputElement>(null);

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

  const place = new Map<string, number>();
  for (const [i, id] of (ring ?? []).entries()) if (!place.has(id)) place.set(id, i + 1);
  const rows = (page?.edges ?? []).map((e) => e.node);
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
      <div class="table-wrap">
        <table class="groups" data-testid="groups">
          <thead>
            <tr>
              {header('id', 'Group')}
              {header('state', 'State')}
              {header('load', 'Active / limit')}
              {header('pending', 'Pending', 'num')}
              <th scope="col">Paused</th>
              <th scope="col" class="num" title="place on the ring: #1 gets the next turn">
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
                data-limit={g.limit ?? ''}
                data-active={g.active}
                data-pending={g.pending}
                data-paused={g.paused ? 'true' : 'false'}
                onClick={() => onSelect(g.id)}
              >
                <td class="id-cell" title={visibleId(g.id)}>
                  {/* Keyboard users reach the row through this button; its click bubbles up. */}
                  <button type="button" class="link">
                    <Id value={g.id} />
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
                <td class="num" data-ring={place.get(g.id) ?? ''}>
                  {place.has(g.id) ? (
                    <span class="ring-place" title="its place on the ring: 1 is next">
                      #{n(place.get(g.id) ?? 0)}
                    </span>
                  ) : g.state === 'READY' && ring !== null && ring.length < ringSize ? (
                    <span class="ring-place" title={`on the ring past the ${n(ring.length)} read`}>
                      &gt;{n(ring.length)}
                    </span>
                  ) : (
                    ''
                  )}
                </td>
              </tr>
            ))}
            {page && rows.length === 0 && (
              <tr>
                <td colSpan={6} class="muted pad">
                  {prefix
                    ? `No group id starts with “${visibleId(prefix)}”.`
                    : 'No groups in this queue.'}
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
