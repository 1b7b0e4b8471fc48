/**
 * The queue's dead jobs, as Sidekiq's and bull-board's Dead tabs show them: newest
 * first, each with its error, filtered by group. An admin retries (back to the front of its
 * group's lane, attempts reset) or deletes one job, the page shown, or every job matching — after
 * a confirmation naming how many. "All matching" runs the bounded mutations (≤ 1,000 jobs a
 * call) until nothing matching is left, showing the progress; every action is called done only
 * once a read after it shows it.
 */

import { useState } from 'preact/hooks';
import { Limits } from '../../../src/lanes/limits.js';
import { useAction } from '../action';
import { answered, request } from '../api';
import { type Bounded, untilDone } from '../bulk';
import { ago, dateTimeMs, ms, n, visibleId } from '../format';
import {
  type JobPageFragment,
  type JobRowFragment,
  QueueJobsDocument,
  RemoveJobsDocument,
  RequeueDeadDocument,
} from '../gql/graphql';
import type { Route } from '../hooks';
import { readJob, useListed } from '../jobs';
import { GroupFilter } from './GroupFilter';
import { Id } from './Id';
import { rangeText, useJobPaging } from './JobList';
import { attemptsColumn, JobTable, priorityColumn, whenColumn } from './JobTable';

const PAGE_SIZES = [25, 50, 100] as const;
/** Jobs per call of a bulk action (the API's most). */
const BULK_LIMIT = Limits.maxActionLimit;
/** How many jobs a read that confirms a bulk action looks at (the API's largest page). */
const CONFIRM_READ = Limits.maxPageSize;

type Bulk = { verb: 'retry' | 'delete'; count: number };

/** One call's result, or an error when the server answered none. */
const result = (value: Bounded | null | undefined, field: string): Bounded =>
  answered(value, field);

export function DeadView(props: {
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
        state: 'DEAD',
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
  const [asking, setAsking] = useState<Bulk | null>(null);

  const page = list.page;
  const rows = page?.edges.map((e) => e.node) ?? [];
  const total = page?.totalCount ?? 0;
  const redisNow = Math.max(now, Date.now()) - skew;
  const matching = group ? `of group “${visibleId(group)}”` : 'in this queue';

  const done = () => {
    void list.reload();
    refresh();
  };

  /** Confirmed when a read shows none of `ids` dead any more (the page read from its cursor). */
  const goneFromList = async (ids: string[]): Promise<string | null> => {
    const again = await read(Math.min(CONFIRM_READ, paging.pageSize * 2), after);
    const still = again.edges.filter((e) => ids.includes(e.node.id)).length;
    return still === 0
      ? `the dead list read back holds none of them (${n(again.totalCount)} dead ${matching} now).`
      : null;
  };

  const retryOne = (job: JobRowFragment) =>
    action.run(
      `Retrying job ${job.id}`,
      async () => {
        const r = result(
          (await request(RequeueDeadDocument, { queue, ids: [job.id] })).requeueDeadJobs,
          'requeueDeadJobs',
        );
        if (r.count === 0) throw new Error(`job ${job.id} was not dead any more: nothing retried`);
        return `Job ${job.id} retried`;
      },
      async () => {
        const j = await readJob(queue, job.id);
        if (j === null) return 'it is gone (completed and not retained).';
        return j.state === 'DEAD'
          ? null
          : `Redis shows it ${j.state.toLowerCase()} (attempts ${n(j.attempts)}).`;
      },
      done,
    );

  const deleteOne = (job: JobRowFragment) =>
    action.run(
      `Deleting job ${job.id}`,
      async () => {
        const r = result(
          (await request(RemoveJobsDocument, { queue, ids: [job.id], state: 'DEAD' })).removeJobs,
          'removeJobs',
        );
        if (r.count === 0)
          throw new Error(`job ${job.id} could not be deleted (it is not dead any more, or gone)`);
        return `Job ${job.id} deleted`;
      },
      async () => {
        const j = await readJob(queue, job.id);
        return j === null ? 'Redis no longer holds it.' : null;
      },
      done,
    );

  const onPage = (verb: 'retry' | 'delete') => {
    const ids = rows.map((j) => j.id);
    if (ids.length === 0) return;
    const word = verb === 'retry' ? 'Retrying' : 'Deleting';
    return action.run(
      `${word} the ${n(ids.length)} jobs of this page`,
      async () => {
        const r =
          verb === 'retry'
            ? result(
                (await request(RequeueDeadDocument, { queue, ids })).requeueDeadJobs,
                'requeueDeadJobs',
              )
            : result(
                (await request(RemoveJobsDocument, { queue, ids, state: 'DEAD' })).removeJobs,
                'removeJobs',
              );
        const skipped = r.skipped > 0 ? ` (${n(r.skipped)} skipped: not dead any more)` : '';
        return `${verb === 'retry' ? 'Retried' : 'Deleted'} ${n(r.count)} of ${n(ids.length)}${skipped}`;
      },
      () => goneFromList(ids),
      done,
    );
  };

  const allMatching = (bulk: Bulk) => {
    setAsking(null);
    const sentAt = tick ?? 0;
    const verbing = bulk.verb === 'retry' ? 'Retrying' : 'Deleting';
    const verbed = bulk.verb === 'retry' ? 'retried' : 'deleted';
    let stoppedEarly = false;
    return action.run(
      `${verbing} every dead job ${matching}`,
      async (progress) => {
        const requeue = async (): Promise<Bounded> =>
          result(
            (
              await request(RequeueDeadDocument, {
                queue,
                ...(group === null ? { all: true } : { group }),
                limit: BULK_LIMIT,
              })
            ).requeueDeadJobs,
            'requeueDeadJobs',
          );
        // One bounded call per step, as requeue: the group's dead jobs, or the queue's (all).
        const remove = async (): Promise<Bounded> =>
          result(
            (
              await request(RemoveJobsDocument, {
                queue,
                ...(group === null ? { all: true } : { group }),
                state: 'DEAD',
                limit: BULK_LIMIT,
              })
            ).removeJobs,
            'removeJobs',
          );
        const call = bulk.verb === 'retry' ? requeue : remove;
        const t = await untilDone(
          call,
          (sofar) =>
            progress(
              `${verbing}: ${n(sofar.count)} ${verbed}, ${n(sofar.remaining)} left… (${n(Math.floor((sofar.count / Math.max(1, sofar.count + sofar.remaining)) * 100))} %)`,
            ),
          action.stopping,
        );
        stoppedEarly = t.stoppedEarly;
        const stopped = t.stoppedEarly ? `; stopped with ${n(t.remaining)} left` : '';
        return `${n(t.count)} dead jobs ${matching} ${verbed} in ${n(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}${stopped}`;
      },
      async () => {
        const again = await read(CONFIRM_READ, null);
        if (again.totalCount === 0) return `Redis shows no dead job ${matching}.`;
        if (stoppedEarly) return `Redis shows ${n(again.totalCount)} dead ${matching} left.`;
        // Jobs that died since the action began are new ones, not ones it missed.
        const older = again.edges.filter((e) => (ms(e.node.finishedAt) ?? 0) < sentAt).length;
        return again.totalCount <= CONFIRM_READ && older === 0
          ? `Redis shows ${n(again.totalCount)} dead ${matching}, all died since.`
          : null;
      },
      done,
    );
  };

  return (
    <section class="panel jobs-panel" aria-label="Dead jobs" data-testid="dead-view">
      <div class="panel-head">
        <h2>Dead jobs</h2>
        <span class="muted small" data-testid="dead-range">
          {page ? rangeText(paging, rows.length, total, 'newest first') : 'reading…'}
        </span>
        <span class="grow" />
        <GroupFilter group={group} onFilter={onFilter} />
      </div>
      {admin && (
        <div class="actions bulk" data-testid="dead-actions">
          <button
            type="button"
            class="btn"
            disabled={action.busy || rows.length === 0}
            onClick={() => onPage('retry')}
          >
            Retry page
          </button>
          <button
            type="button"
            class="btn"
            disabled={action.busy || rows.length === 0}
            onClick={() => onPage('delete')}
          >
            Delete page
          </button>
          <button
            type="button"
            class="btn btn-primary"
            disabled={action.busy || total === 0}
            onClick={() => setAsking({ verb: 'retry', count: total })}
          >
            Retry all {n(total)}…
          </button>
          <button
            type="button"
            class="btn btn-danger"
            disabled={action.busy || total === 0}
            onClick={() => setAsking({ verb: 'delete', count: total })}
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
      {asking && (
        <div class="confirm" role="alertdialog" aria-label="Confirm" data-testid="confirm">
          <p>
            {asking.verb === 'retry' ? (
              <>
                Retry all <b>{n(asking.count)}</b> dead jobs {matching}? Each goes back to the front
                of its group's lane with its attempts reset; its errors are kept.
              </>
            ) : (
              <>
                Delete all <b>{n(asking.count)}</b> dead jobs {matching}? They and their errors are
                gone for good.
              </>
            )}
          </p>
          <div class="confirm-buttons">
            <button
              type="button"
              class={`btn ${asking.verb === 'retry' ? 'btn-primary' : 'btn-danger'}`}
              onClick={() => allMatching(asking)}
            >
              {asking.verb === 'retry' ? 'Retry' : 'Delete'} {n(asking.count)} jobs
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
        testId="dead-jobs"
        queue={queue}
        view="dead"
        route={route}
        admin={admin}
        busy={action.busy}
        page={page}
        rows={rows}
        columns={[
          whenColumn('Died', (j) => {
            const died = ms(j.finishedAt);
            return died === null
              ? { text: '–', title: '' }
              : { text: ago(died, redisNow), title: dateTimeMs(died) };
          }),
          attemptsColumn,
          priorityColumn,
          {
            header: 'Error',
            class: 'err-cell',
            cell: (j) => (
              <span class="error-text">
                {j.lastError === null ? '–' : <Id value={j.lastError} />}
              </span>
            ),
            title: (j) => j.lastError ?? '',
          },
        ]}
        primary={{ label: 'Retry', aria: (id) => `Retry job ${id}`, run: retryOne }}
        onDelete={deleteOne}
        empty={`No dead jobs ${matching}.`}
        paging={paging}
        sizes={PAGE_SIZES}
        label="Dead jobs"
      />
    </section>
  );
}
