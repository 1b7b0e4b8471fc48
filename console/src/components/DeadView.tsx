/**
 * The queue's dead jobs, as Sidekiq's and bull-board's Dead tabs show them: newest
 * first, each with its error, filtered by group. An admin retries (back to the front of its
 * group's lane, attempts reset) or deletes one job, the page shown, or every job matching — after
 * a confirmation naming how many. "All matching" runs the bounded mutations (≤ 1,000 jobs a
 * call) until nothing matching is left, showing the progress (`BulkActions`); every action is
 * called done only once a read after it shows it.
 */

import { useAction } from '../action';
import { answered, request } from '../api';
import type { Bounded } from '../bulk';
import { n } from '../format';
import { type JobRowFragment, RequeueDeadDocument } from '../gql/graphql';
import { readJob } from '../jobs';
import { BULK_LIMIT, BulkActions, type BulkVerb, type BulkWords, removeVerb } from './BulkActions';
import { Id } from './Id';
import { agoColumn, deleteJob, JobsPanel, type JobsViewProps, useQueueJobs } from './JobsView';
import { attemptsColumn, priorityColumn } from './JobTable';

/** One call of `requeueDeadJobs`, or an error when the server answered none. */
const requeue = async (variables: {
  queue: string;
  ids?: string[];
  group?: string;
  all?: boolean;
  limit?: number;
}): Promise<Bounded> =>
  answered((await request(RequeueDeadDocument, variables)).requeueDeadJobs, 'requeueDeadJobs');

/** How the bulk actions speak of these jobs. */
const DEAD_WORDS: BulkWords = {
  noun: 'dead',
  counted: 'dead',
  skipped: 'not dead any more',
  since: 'died since',
};

export function DeadView(props: JobsViewProps) {
  const { queue, group, admin } = props;
  const jobs = useQueueJobs('DEAD', props);
  const action = useAction();
  const { matching } = jobs;

  const retryOne = (job: JobRowFragment) =>
    action.run(
      `Retrying job ${job.id}`,
      async () => {
        const r = await requeue({ queue, ids: [job.id] });
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
      jobs.done,
    );

  const retry: BulkVerb = {
    verb: 'retry',
    onIds: (ids) => requeue({ queue, ids }),
    // One bounded call per step: the group's dead jobs, or the queue's (all).
    onMatching: () =>
      requeue({ queue, ...(group === null ? { all: true } : { group }), limit: BULK_LIMIT }),
    ask: (count) => (
      <>
        Retry all <b>{n(count)}</b> dead jobs {matching}? Each goes back to the front of its group's
        lane with its attempts reset; its errors are kept.
      </>
    ),
  };
  const remove = removeVerb(queue, group, 'DEAD', (count) => (
    <>
      Delete all <b>{n(count)}</b> dead jobs {matching}? They and their errors are gone for good.
    </>
  ));

  return (
    <JobsPanel
      {...props}
      title="Dead jobs"
      view="dead"
      tableTestId="dead-jobs"
      rangeTestId="dead-range"
      order="newest first"
      jobs={jobs}
      action={action}
      columns={[
        agoColumn('Died', (j) => j.finishedAt, jobs.redisNow),
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
      onDelete={(job) =>
        deleteJob(action, queue, 'DEAD', job, 'it is not dead any more, or gone', jobs.done)
      }
      empty={`No dead jobs ${matching}.`}
    >
      {admin && (
        <BulkActions
          testId="dead-actions"
          action={action}
          jobs={jobs}
          words={DEAD_WORDS}
          verbs={[retry, remove]}
        />
      )}
    </JobsPanel>
  );
}
