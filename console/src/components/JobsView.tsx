/**
 * What the queue-wide job views (Active, Completed, Dead, Delayed) share: their props, the list
 * of one state they read again with each snapshot (`useQueueJobs`), deleting one job from a row,
 * a "finished 3 s ago" column, and the panel they are drawn in (`JobsPanel`: head with range
 * and group filter, the view's own controls, the outcome of its last action, its table).
 */
import type { ComponentChildren } from 'preact';
import type { Action } from '../action';
import { answered, request } from '../api';
import { ago, dateTimeMs, ms, visibleId } from '../format';
import {
  type JobPageFragment,
  type JobRowFragment,
  type JobState,
  QueueJobsDocument,
  RemoveJobsDocument,
} from '../gql/graphql';
import type { QueueView, Route } from '../hooks';
import { type Listed, readJob, useListed } from '../jobs';
import { GroupFilter } from './GroupFilter';
import { type JobPaging, rangeText, useJobPaging } from './JobList';
import { type JobColumn, JobTable, whenColumn } from './JobTable';

const PAGE_SIZES = [25, 50, 100] as const;

/** A job view's props, as the app gives them. */
export interface JobsViewProps {
  queue: string;
  /** The group filter (the address's `group`), or null for every group. */
  group: string | null;
  admin: boolean;
  /** The snapshot shown: when it moves, the list is read again. */
  tick: number | null;
  /** This browser's clock minus the Redis clock (ms), and now on this browser's clock. */
  skew: number;
  now: number;
  route: Route;
  onFilter: (group: string | null) => void;
  /** Read the queue's snapshot again soon (counts changed). */
  refresh: () => void;
}

/** One view's list of jobs in one state, and what its actions need of it. */
export interface QueueJobs {
  paging: JobPaging;
  /** The cursor of the page shown (null: the first). */
  after: string | null;
  /** Read `first` jobs from cursor `from` (by default the page shown, as shown). */
  read: (first?: number, from?: string | null) => Promise<JobPageFragment>;
  list: Listed<JobPageFragment>;
  page: JobPageFragment | null;
  rows: JobRowFragment[];
  /** The list's `totalCount` (0 before the first read). */
  total: number;
  /** Now on the Redis clock (ms). */
  redisNow: number;
  /** Who the list is of, in words: `of group “acme”` or `in this queue`. */
  matching: string;
  /** The snapshot shown (its Redis time, ms): jobs finished after it are newer than the page. */
  tick: number | null;
  /** After an action: read the list and the queue's snapshot again. */
  done: () => void;
}

/**
 * The jobs of `queue` in `state` (of `group`, or every group's), a page at a time (50 at first),
 * read again whenever the page asked or the snapshot shown (`tick`) changes.
 */
export function useQueueJobs(
  state: JobState,
  props: Pick<JobsViewProps, 'queue' | 'group' | 'tick' | 'skew' | 'now'> & {
    refresh?: () => void;
  },
): QueueJobs {
  const { queue, group, tick, skew, now, refresh } = props;
  const paging = useJobPaging(`${queue}\u0000${group ?? ''}`, 50);
  const after = paging.trail.at(-1) ?? null;
  const read = async (first = paging.pageSize, from = after): Promise<JobPageFragment> =>
    (await request(QueueJobsDocument, { queue, state, group, first, after: from })).queue.jobs;
  const list = useListed(
    () => read(),
    `${queue}\u0000${group ?? ''}\u0000${paging.pageSize}\u0000${after ?? ''}`,
    tick,
  );
  const page = list.page;
  return {
    paging,
    after,
    read,
    list,
    page,
    rows: page?.edges.map((e) => e.node) ?? [],
    total: page?.totalCount ?? 0,
    redisNow: Math.max(now, Date.now()) - skew,
    matching: group ? `of group “${visibleId(group)}”` : 'in this queue',
    tick,
    done: () => {
      void list.reload();
      refresh?.();
    },
  };
}

/**
 * A row's Delete: `removeJobs(ids: [id], state)`, done once a read by id finds the job gone.
 * `notDeleted` says why nothing was deleted ("it is gone").
 */
export const deleteJob = (
  action: Action,
  queue: string,
  state: JobState,
  job: JobRowFragment,
  notDeleted: string,
  done: () => void,
) =>
  action.run(
    `Deleting job ${job.id}`,
    async () => {
      const r = answered(
        (await request(RemoveJobsDocument, { queue, ids: [job.id], state })).removeJobs,
        'removeJobs',
      );
      if (r.count === 0) throw new Error(`job ${job.id} could not be deleted (${notDeleted})`);
      return `Job ${job.id} deleted`;
    },
    async () => {
      const j = await readJob(queue, job.id);
      return j === null ? 'Redis no longer holds it.' : null;
    },
    done,
  );

/** A time column that says how long ago (Redis clock) the time `pick` gives was: "3 s ago". */
export const agoColumn = (
  header: string,
  pick: (job: JobRowFragment) => unknown,
  redisNow: number,
): JobColumn =>
  whenColumn(header, (j) => {
    const at = ms(pick(j));
    return at === null
      ? { text: '–', title: '' }
      : { text: ago(at, redisNow), title: dateTimeMs(at) };
  });

/**
 * The panel of a job view: its head, `children` (the view's own controls), outcome and table.
 * Takes the view's props as they are (`{...props}`) besides its own.
 */
export function JobsPanel(
  props: Pick<JobsViewProps, 'queue' | 'group' | 'route' | 'onFilter'> & {
    /** "Dead jobs": the heading, the panel's and the pager's label. */
    title: string;
    view: QueueView;
    /** The table's `data-testid` ("dead-jobs"), and its range's; the panel's is `<view>-view`. */
    tableTestId: string;
    rangeTestId?: string;
    /** The list's order, after its range ("newest first"). */
    order: string;
    jobs: QueueJobs;
    /** The view's actions, when it has any: their outcome is shown above the table. */
    action?: Action;
    /** Row actions are an admin's (none: no row action). */
    admin?: boolean;
    columns: readonly JobColumn[];
    primary?: { label: string; aria: (id: string) => string; run: (job: JobRowFragment) => void };
    onDelete?: (job: JobRowFragment) => void;
    /** The row shown when the page is empty ("No dead jobs in this queue."). */
    empty: string;
    children?: ComponentChildren;
  },
) {
  const { jobs, action } = props;
  const { page, rows, paging } = jobs;
  return (
    <section class="panel jobs-panel" aria-label={props.title} data-testid={`${props.view}-view`}>
      <div class="panel-head">
        <h2>{props.title}</h2>
        <span class="muted small" data-testid={props.rangeTestId}>
          {page ? rangeText(paging, rows.length, jobs.total, props.order) : 'reading…'}
        </span>
        <span class="grow" />
        <GroupFilter group={props.group} onFilter={props.onFilter} />
      </div>
      {props.children}
      {action?.outcome && (
        <p
          class={`outcome outcome-${action.outcome.kind} pad`}
          role="status"
          data-testid="jobs-outcome"
        >
          {action.outcome.text}
        </p>
      )}
      {jobs.list.error && <p class="error pad">Not updated: {jobs.list.error.words}</p>}
      <JobTable
        testId={props.tableTestId}
        queue={props.queue}
        view={props.view}
        route={props.route}
        admin={props.admin ?? false}
        busy={action?.busy ?? false}
        page={page}
        rows={rows}
        columns={props.columns}
        {...(props.primary ? { primary: props.primary } : {})}
        {...(props.onDelete ? { onDelete: props.onDelete } : {})}
        empty={props.empty}
        paging={paging}
        sizes={PAGE_SIZES}
        label={props.title}
      />
    </section>
  );
}
