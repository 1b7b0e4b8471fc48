/**
 * The queue's completed jobs that its retention keeps, newest first, filtered by group: each with
 * when it finished, how long its last attempt ran (claimed to finished), its attempts, its priority
 * and its result, cut to a
 * line by the server (`resultPreview`; longer in the tooltip, whole in the job's detail). An admin
 * deletes one job, the page shown, or every kept job matching — after a confirmation naming how
 * many — by calling `removeJobs(state: COMPLETED)` (≤ 1,000 jobs a call) until nothing matching
 * is left, showing the progress (`BulkActions`); every action is called done only once a read
 * after it shows it. A completed job is not run again: there is no retry.
 */

import { useAction } from '../action';
import { duration, n } from '../format';
import { BulkActions, type BulkWords, removeVerb } from './BulkActions';
import { agoColumn, deleteJob, JobsPanel, type JobsViewProps, useQueueJobs } from './JobsView';
import { attemptsColumn, between, type JobColumn, priorityColumn } from './JobTable';

/** How the bulk actions speak of these jobs. */
const COMPLETED_WORDS: BulkWords = {
  noun: 'completed',
  counted: 'kept',
  skipped: 'gone already',
  since: 'completed since',
};

export function CompletedView(props: JobsViewProps) {
  const { queue, group, admin } = props;
  const jobs = useQueueJobs('COMPLETED', props);
  const action = useAction();
  const { matching } = jobs;

  const columns: JobColumn[] = [
    agoColumn('Finished', (j) => j.finishedAt, jobs.redisNow),
    {
      header: 'Duration',
      cell: (j) => {
        const ran = between(j.claimedAt, j.finishedAt);
        return ran === null ? '–' : duration(ran);
      },
      title: () => 'its last attempt: claimed to completed',
    },
    attemptsColumn,
    priorityColumn,
    {
      header: 'Result',
      class: 'err-cell',
      cell: (j) => <code class="muted">{j.resultPreview ?? '–'}</code>,
      title: (j) => j.resultTip ?? '',
      data: () => ({ 'data-result': '' }),
    },
  ];

  return (
    <JobsPanel
      {...props}
      title="Completed jobs"
      view="completed"
      tableTestId="completed-jobs"
      rangeTestId="completed-range"
      order="newest first"
      jobs={jobs}
      action={action}
      columns={columns}
      onDelete={(job) => deleteJob(action, queue, 'COMPLETED', job, 'it is gone', jobs.done)}
      empty={`No completed jobs ${matching} kept.`}
    >
      <p class="muted small pad">
        Those the queue's retention keeps (by count and age), not every job ever completed.
      </p>
      {admin && (
        <BulkActions
          testId="completed-actions"
          action={action}
          jobs={jobs}
          words={COMPLETED_WORDS}
          verbs={[
            removeVerb(queue, group, 'COMPLETED', (count) => (
              <>
                Delete all <b>{n(count)}</b> completed jobs {matching}? They, their results and
                their logs are gone for good.
              </>
            )),
          ]}
        />
      )}
    </JobsPanel>
  );
}
