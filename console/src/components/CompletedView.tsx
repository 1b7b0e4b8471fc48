/**
 * The queue's completed jobs that its retention keeps, newest first, filtered by group: each with
 * when it finished, how long its last attempt ran (claimed to finished) and its result, cut to a
 * line (whole in the job's detail). An admin deletes one job, the page shown, or every kept job
 * matching — after a confirmation naming how many — by calling `removeJobs(state: COMPLETED)`
 * (≤ 1,000 jobs a call) until nothing matching is left, showing the progress; every action is
 * called done only once a read after it shows it. A completed job is not run again: there is no
 * retry.
 */

import { useState } from 'preact/hooks';
import { Limits } from '../../../src/lanes/limits.js';
import { useAction } from '../action';
import { answered, request } from '../api';
import { type Bounded, untilDone } from '../bulk';
import { ago, dateTimeMs, duration, ms, n, visibleId } from '../format';
import {
  type JobPageFragment,
  type JobRowFragment,
  QueueJobsDocument,
  RemoveJobsDocument,
} from '../gql/graphql';
import type { Route } from '../hooks';
import { readJob, useListed } from '../jobs';
import { GroupFilter } from './GroupFilter';
import { rangeText, useJobPaging } from './JobList';
import { attemptsColumn, between, type JobColumn, JobTable, whenColumn } from './JobTable';

const PAGE_SIZES = [25, 50, 100] as const;
/** Jobs per call of a bulk delete (the API's most). */
const BULK_LIMIT = Limits.maxActionLimit;
/** How many jobs a read that confirms a bulk delete looks at (the API's largest page). */
const CONFIRM_READ = Limits.maxPageSize;

/** One call's result, or an error when the server answered none. */
const result = (value: Bounded | null | undefined): Bounded => answered(value, 'removeJobs');

export function CompletedView(props: {
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
}) {
  const { queue, group, admin, tick, skew, now, route, onFilter, refresh } = props;
  const paging = useJobPaging(`${queue}\u0000${group ?? ''}`, 50);
  const after = paging.trail.at(-1) ?? null;
  const read = async (first = paging.pageSize, from = after): Promise<JobPageFragment> =>
    (
      await request(QueueJobsDocument, {
        queue,
        state: 'COMPLETED',
        group,
        first,
        after: from,
      })
    ).queue.jobs;
  const list = useListed(
    () => read(),
    `${queue}\u0000${group ?? ''}\u0000${paging.pageSize}\u0000${after ?? ''}`,
    tick,
  );
  const action = useAction();
  const [asking, setAsking] = useState<number | null>(null);

  const page = list.page;
  const rows = page?.edges.map((e) => e.node) ?? [];
  const total = page?.totalCount ?? 0;
  const redisNow = Math.max(now, Date.now()) - skew;
  const matching = group ? `of group “${visibleId(group)}”` : 'in this queue';

  const done = () => {
    void list.reload();
    refresh();
  };

  const deleteOne = (job: JobRowFragment) =>
    action.run(
      `Deleting job ${job.id}`,
      async () => {
        const r = result(
          (await request(RemoveJobsDocument, { queue, ids: [job.id], state: 'COMPLETED' }))
            .removeJobs,
        );
        if (r.count === 0) throw new Error(`job ${job.id} could not be deleted (it is gone)`);
        return `Job ${job.id} deleted`;
      },
      async () => {
        const j = await readJob(queue, job.id);
        return j === null ? 'Redis no longer holds it.' : null;
      },
      done,
    );

  const deletePage = () => {
    const ids = rows.map((j) => j.id);
    if (ids.length === 0) return;
    return action.run(
      `Deleting the ${n(ids.length)} jobs of this page`,
      async () => {
        const r = result(
          (await request(RemoveJobsDocument, { queue, ids, state: 'COMPLETED' })).removeJobs,
        );
        const skipped = r.skipped > 0 ? ` (${n(r.skipped)} skipped: gone already)` : '';
        return `Deleted ${n(r.count)} of ${n(ids.length)}${skipped}`;
      },
      async () => {
        const again = await read(Math.min(CONFIRM_READ, paging.pageSize * 2), after);
        return again.edges.some((e) => ids.includes(e.node.id))
          ? null
          : `the completed list read back holds none of them (${n(again.totalCount)} kept ${matching} now).`;
      },
      done,
    );
  };

  const deleteAll = () => {
    setAsking(null);
    const sentAt = tick ?? 0;
    let stoppedEarly = false;
    return action.run(
      `Deleting every completed job ${matching}`,
      async (progress) => {
        const t = await untilDone(
          async () =>
            result(
              (
                await request(RemoveJobsDocument, {
                  queue,
                  ...(group === null ? { all: true } : { group }),
                  state: 'COMPLETED',
                  limit: BULK_LIMIT,
                })
              ).removeJobs,
            ),
          (sofar) =>
            progress(
              `Deleting: ${n(sofar.count)} deleted, ${n(sofar.remaining)} left… (${n(Math.floor((sofar.count / Math.max(1, sofar.count + sofar.remaining)) * 100))} %)`,
            ),
          action.stopping,
        );
        stoppedEarly = t.stoppedEarly;
        const stopped = t.stoppedEarly ? `; stopped with ${n(t.remaining)} left` : '';
        return `${n(t.count)} completed jobs ${matching} deleted in ${n(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}${stopped}`;
      },
      async () => {
        const again = await read(CONFIRM_READ, null);
        if (again.totalCount === 0) return `Redis shows no completed job ${matching}.`;
        if (stoppedEarly) return `Redis shows ${n(again.totalCount)} completed ${matching} left.`;
        // Jobs completed since the action began are new ones, not ones it missed.
        const older = again.edges.filter((e) => (ms(e.node.finishedAt) ?? 0) < sentAt).length;
        return again.totalCount <= CONFIRM_READ && older === 0
          ? `Redis shows ${n(again.totalCount)} completed ${matching}, all completed since.`
          : null;
      },
      done,
    );
  };

  const columns: JobColumn[] = [
    whenColumn('Finished', (j) => {
      const at = ms(j.finishedAt);
      return at === null
        ? { text: '–', title: '' }
        : { text: ago(at, redisNow), title: dateTimeMs(at) };
    }),
    {
      header: 'Duration',
      cell: (j) => {
        const ran = between(j.claimedAt, j.finishedAt);
        return ran === null ? '–' : duration(ran);
      },
      title: () => 'its last attempt: claimed to completed',
    },
    attemptsColumn,
    {
      header: 'Result',
      class: 'err-cell',
      cell: (j) => <code class="muted">{j.resultPreview ?? '–'}</code>,
      title: (j) => j.resultTip ?? '',
      data: () => ({ 'data-result': '' }),
    },
  ];

  return (
    <section class="panel jobs-panel" aria-label="Completed jobs" data-testid="completed-view">
      <div class="panel-head">
        <h2>Completed jobs</h2>
        <span class="muted small" data-testid="completed-range">
          {page ? rangeText(paging, rows.length, total, 'newest first') : 'reading…'}
        </span>
        <span class="grow" />
        <GroupFilter group={group} onFilter={onFilter} />
      </div>
      <p class="muted small pad">
        Those the queue's retention keeps (by count and age), not every job ever completed.
      </p>
      {admin && (
        <div class="actions bulk" data-testid="completed-actions">
          <button
            type="button"
            class="btn"
            disabled={action.busy || rows.length === 0}
            onClick={deletePage}
          >
            Delete page
          </button>
          <button
            type="button"
            class="btn btn-danger"
            disabled={action.busy || total === 0}
            onClick={() => setAsking(total)}
          >
            Delete all {n(total)}…
          </button>
          {action.busy && (
            <button type="button" class="btn btn-ghost" onClick={action.stop}>
              Stop
            </button>
          )}
        </div>
      )}
      {asking !== null && (
        <div class="confirm" role="alertdialog" aria-label="Confirm" data-testid="confirm">
          <p>
            Delete all <b>{n(asking)}</b> completed jobs {matching}? They, their results and their
            logs are gone for good.
          </p>
          <div class="confirm-buttons">
            <button type="button" class="btn btn-danger" onClick={deleteAll}>
              Delete {n(asking)} jobs
            </button>
            <button type="button" class="btn btn-ghost" onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {action.outcome && (
        <p
          class={`outcome outcome-${action.outcome.kind} pad`}
          role="status"
          data-testid="jobs-outcome"
        >
          {action.outcome.text}
        </p>
      )}
      {list.error && <p class="error pad">Not updated: {list.error.words}</p>}
      <JobTable
        testId="completed-jobs"
        queue={queue}
        view="completed"
        route={route}
        admin={admin}
        busy={action.busy}
        page={page}
        rows={rows}
        columns={columns}
        onDelete={deleteOne}
        empty={`No completed jobs ${matching} kept.`}
        paging={paging}
        sizes={PAGE_SIZES}
        label="Completed jobs"
      />
    </section>
  );
}
