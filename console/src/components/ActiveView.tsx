/**
 * The queue's active jobs, every group's (or one group's, filtered), lease ending first: each
 * with when it was claimed, its lease counting down each second (from `leaseUntil`, on the
 * Redis clock), its attempt and its processor's last progress. No row action: an active job
 * belongs to the worker holding its lease (`removeJobs` skips it), and its detail says what it
 * is doing. Read again with each snapshot.
 */
import { request } from '../api';
import { ago, dateTimeMs, ms, visibleId } from '../format';
import { type JobPageFragment, type JobRowFragment, QueueJobsDocument } from '../gql/graphql';
import type { Route } from '../hooks';
import { useListed } from '../jobs';
import { GroupFilter } from './GroupFilter';
import { leaseText, rangeText, useJobPaging } from './JobList';
import { attemptsColumn, type JobColumn, JobTable, whenColumn } from './JobTable';

const PAGE_SIZES = [25, 50, 100] as const;

/**
 * A processor's progress as a row shows it, from its preview (`Job.progressPreview`, its JSON
 * text cut short): "40 %" for a number, else the text as the server cut it.
 */
export function progressText(progress: string | null): string {
  if (progress === null) return '–';
  return /^-?\d/.test(progress) ? `${progress} %` : progress;
}

export function ActiveView(props: {
  queue: string;
  /** The group filter (the address's `group`), or null for every group. */
  group: string | null;
  /** The snapshot shown: when it moves, the list is read again. */
  tick: number | null;
  /** This browser's clock minus the Redis clock (ms), and now on this browser's clock. */
  skew: number;
  now: number;
  route: Route;
  onFilter: (group: string | null) => void;
}) {
  const { queue, group, tick, skew, now, route, onFilter } = props;
  const paging = useJobPaging(`${queue}\u0000${group ?? ''}`, 50);
  const after = paging.trail.at(-1) ?? null;
  const list = useListed(
    async (): Promise<JobPageFragment> =>
      (
        await request(QueueJobsDocument, {
          queue,
          state: 'ACTIVE',
          group,
          first: paging.pageSize,
          after,
        })
      ).queue.jobs,
    `${queue}\u0000${group ?? ''}\u0000${paging.pageSize}\u0000${after ?? ''}`,
    tick,
  );
  const page = list.page;
  const rows = page?.edges.map((e) => e.node) ?? [];
  const redisNow = Math.max(now, Date.now()) - skew;
  const matching = group ? `of group “${visibleId(group)}”` : 'in this queue';

  const columns: JobColumn[] = [
    whenColumn('Claimed', (j) => {
      const at = ms(j.claimedAt);
      return at === null
        ? { text: '–', title: '' }
        : { text: ago(at, redisNow), title: dateTimeMs(at) };
    }),
    {
      header: 'Lease',
      cell: (j: JobRowFragment) => {
        const lease = leaseText(j.leaseUntil, redisNow);
        return (
          <span class={`lease${lease.late ? ' is-late' : ''}`} data-testid="lease">
            {lease.text}
          </span>
        );
      },
      title: (j) => {
        const at = ms(j.leaseUntil);
        return at === null ? '' : `until ${dateTimeMs(at)}`;
      },
    },
    attemptsColumn,
    // Which worker holds the lease is one more entry here once the schema tells it.
    {
      header: 'Progress',
      class: 'err-cell',
      cell: (j) => <code class="muted">{progressText(j.progressPreview)}</code>,
      title: (j) => j.progressTip ?? '',
    },
  ];

  return (
    <section class="panel jobs-panel" aria-label="Active jobs" data-testid="active-view">
      <div class="panel-head">
        <h2>Active jobs</h2>
        <span class="muted small" data-testid="queue-active-range">
          {page
            ? rangeText(paging, rows.length, page.totalCount, 'lease ending first')
            : 'reading…'}
        </span>
        <span class="grow" />
        <GroupFilter group={group} onFilter={onFilter} />
      </div>
      {list.error && <p class="error pad">Not updated: {list.error.words}</p>}
      <JobTable
        testId="queue-active-jobs"
        queue={queue}
        view="active"
        route={route}
        admin={false}
        busy={false}
        page={page}
        rows={rows}
        columns={columns}
        empty={`No active jobs ${matching}.`}
        paging={paging}
        sizes={PAGE_SIZES}
        label="Active jobs"
      />
    </section>
  );
}
