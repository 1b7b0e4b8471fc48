/**
 * Pieces every job list shares: a job's link (to its detail, keeping the view it is
 * opened from), an active job's lease countdown, the pager over cursor pages, and the paging
 * state of one list.
 */
import { useEffect, useState } from 'preact/hooks';
import { duration, ms, n, visibleId } from '../format';
import { type Route, routeHref } from '../hooks';
import { Id } from './Id';

/** A job id as a link to its detail, opened over `from` (closing it goes back there). */
export function JobLink(props: { id: string; from: Route }) {
  const { id, from } = props;
  return (
    <a
      class="job-link mono"
      href={routeHref({ ...from, job: id })}
      aria-label={`Job ${visibleId(id)}`}
      data-job={id}
    >
      <Id value={id} />
    </a>
  );
}

/**
 * An active job's lease countdown at `redisNow` (ms, Redis clock): "lease 24 s left", or
 * "lease expired 2.0 s ago" (late: the reaper has not taken it back yet); '' with no lease.
 */
export function leaseText(leaseUntil: unknown, redisNow: number): { text: string; late: boolean } {
  const lease = ms(leaseUntil);
  if (lease === null) return { text: '', late: false };
  const left = lease - redisNow;
  return left > 0
    ? { text: `lease ${duration(left)} left`, late: false }
    : { text: `lease expired ${duration(-left)} ago`, late: true };
}

/** The cursors of the pages visited (the last is the page shown) and the page size. */
export interface JobPaging {
  trail: (string | null)[];
  setTrail: (trail: (string | null)[]) => void;
  pageSize: number;
  setPageSize: (size: number) => void;
}

/** Paging for one list, back to its first page when `reset` changes (another filter). */
export function useJobPaging(reset: string, initialSize: number): JobPaging {
  const [trail, setTrail] = useState<(string | null)[]>([null]);
  const [pageSize, setPageSize] = useState(initialSize);
  useEffect(() => setTrail([null]), [reset]);
  return {
    trail,
    setTrail,
    pageSize,
    setPageSize: (size) => {
      setPageSize(size);
      setTrail([null]);
    },
  };
}

/**
 * "1–50 of 1,234 · newest first" for the page shown (`order` says in which order); "none" for
 * an empty list.
 */
export function rangeText(paging: JobPaging, shown: number, total: number, order = ''): string {
  if (total === 0 && shown === 0) return 'none';
  const first = (paging.trail.length - 1) * paging.pageSize;
  const range = `${shown === 0 ? 0 : n(first + 1)}–${n(first + shown)} of ${n(total)}`;
  return order ? `${range} · ${order}` : range;
}

export function Pager(props: {
  paging: JobPaging;
  hasNextPage: boolean;
  endCursor: string | null;
  /** Page sizes offered; none: no choice shown. */
  sizes?: readonly number[];
  label: string;
}) {
  const { paging, hasNextPage, endCursor, sizes, label } = props;
  const { trail, setTrail, pageSize, setPageSize } = paging;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button
        type="button"
        class="btn btn-ghost"
        disabled={trail.length <= 1}
        onClick={() => setTrail([null])}
        aria-label={`${label}: first page`}
      >
        «
      </button>
      <button
        type="button"
        class="btn btn-ghost"
        disabled={trail.length <= 1}
        onClick={() => setTrail(trail.slice(0, -1))}
        aria-label={`${label}: previous page`}
      >
        ‹ Previous
      </button>
      <button
        type="button"
        class="btn btn-ghost"
        disabled={!hasNextPage || !endCursor}
        onClick={() => endCursor && setTrail([...trail, endCursor])}
        aria-label={`${label}: next page`}
      >
        Next ›
      </button>
      {sizes && (
        <label class="muted small page-size">
          per page
          <select
            value={String(pageSize)}
            onChange={(e) => setPageSize(Number((e.target as HTMLSelectElement).value))}
          >
            {sizes.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </label>
      )}
    </nav>
  );
}
