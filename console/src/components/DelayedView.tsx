/**
 * The queue's delayed jobs: those enqueued with a delay and failed attempts waiting
 * their backoff, next to run first, filtered by group. An admin runs one now (`promoteJob`: back
 * to its group's lane at its FIFO place) or deletes it; done only once a read shows it.
 */

import { useAction } from '../action';
import { answered, request } from '../api';
import { ago, dateTimeMs, ms, preview, relative, visibleId } from '../format';
import {
  type JobPageFragment,
  type JobRowFragment,
  PromoteJobDocument,
  QueueJobsDocument,
  RemoveJobsDocument,
} from '../gql/graphql';
import type { Route } from '../hooks';
import { readJob, useListed } from '../jobs';
import { GroupFilter } from './GroupFilter';
import { Id } from './Id';
import { rangeText, useJobPaging } from './JobList';
import { attemptsColumn, JobTable, priorityColumn, whenColumn } from './JobTable';

const PAGE_SIZES = [25, 50, 100] as const;

export function DelayedView(props: {
  queue: string;
  group: string | null;
  admin: boolean;
  tick: number | null;
  skew: number;
  now: number;
  route: Route;
  onFilter: (group: string | null) => void;
  refresh: () => void;
}) {
  const { queue, group, admin, tick, skew, now, route, onFilter, refresh } = props;
  const paging = useJobPaging(`${queue}\u0000${group ?? ''}`, 50);
  const after = paging.trail.at(-1) ?? null;
  const list = useListed(
    async (): Promise<JobPageFragment> =>
      (
        await request(QueueJobsDocument, {
          queue,
          state: 'DELAYED',
          group,
          first: paging.pageSize,
          after,
        })
      ).queue.jobs,
    `${queue}\u0000${group ?? ''}\u0000${paging.pageSize}\u0000${after ?? ''}`,
    tick,
  );
  const action = useAction();
  const page = list.page;
  const rows = page?.edges.map((e) => e.node) ?? [];
  const redisNow = Math.max(now, Date.now()) - skew;
  const matching = group ? `of group “${visibleId(group)}”` : 'in this queue';

  const done = () => {
    void list.reload();
    refresh();
  };

  const runNow = (job: JobRowFragment) =>
    action.run(
      `Running job ${job.id} now`,
      async () => {
        const j = answered(
          (await request(PromoteJobDocument, { queue, id: job.id })).promoteJob,
          'promoteJob',
        );
        if (j.state === 'DELAYED') throw new Error(`job ${job.id} is still delayed`);
        return `Job ${job.id} moved to its lane`;
      },
      async () => {
        const j = await readJob(queue, job.id);
        if (j === null) return 'it already ran and is gone (completed, not retained).';
        return j.state === 'DELAYED' ? null : `Redis shows it ${j.state.toLowerCase()}.`;
      },
      done,
    );

  const deleteOne = (job: JobRowFragment) =>
    action.run(
      `Deleting job ${job.id}`,
      async () => {
        const r = answered(
          (await request(RemoveJobsDocument, { queue, ids: [job.id], state: 'DELAYED' }))
            .removeJobs,
          'removeJobs',
        );
        if (r.count === 0)
          throw new Error(`job ${job.id} could not be deleted (it is not delayed any more)`);
        return `Job ${job.id} deleted`;
      },
      async () => {
        const j = await readJob(queue, job.id);
        return j === null ? 'Redis no longer holds it.' : null;
      },
      done,
    );

  return (
    <section class="panel jobs-panel" aria-label="Delayed jobs" data-testid="delayed-view">
      <div class="panel-head">
        <h2>Delayed jobs</h2>
        <span class="muted small">
          {page ? rangeText(paging, rows.length, page.totalCount, 'next to run first') : 'reading…'}
        </span>
        <span class="grow" />
        <GroupFilter group={group} onFilter={onFilter} />
      </div>
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
        testId="delayed-jobs"
        queue={queue}
        view="delayed"
        route={route}
        admin={admin}
        busy={action.busy}
        page={page}
        rows={rows}
        columns={[
          whenColumn('Runs', (j) => {
            const runAt = ms(j.runAt);
            if (runAt === null) return { text: '–', title: '' };
            const text =
              runAt > redisNow ? relative(runAt, redisNow) : `due ${ago(runAt, redisNow)}`;
            return { text, title: dateTimeMs(runAt) };
          }),
          attemptsColumn,
          priorityColumn,
          {
            header: 'Payload / last error',
            class: 'err-cell',
            cell: (j) =>
              j.lastError ? (
                <span class="error-text" title={j.lastError}>
                  <Id value={j.lastError} />
                </span>
              ) : (
                <code class="muted">{preview(j.payload, 60)}</code>
              ),
          },
        ]}
        primary={{ label: 'Run now', aria: (id) => `Run job ${id} now`, run: runNow }}
        onDelete={deleteOne}
        empty={`No delayed jobs ${matching}.`}
        paging={paging}
        sizes={PAGE_SIZES}
        label="Delayed jobs"
      />
    </section>
  );
}
