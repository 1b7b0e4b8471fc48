/**
 * The queue's delayed jobs: those enqueued with a delay and failed attempts waiting
 * their backoff, next to run first, filtered by group. An admin runs one now (`promoteJob`: back
 * to its group's lane at its FIFO place) or deletes it; done only once a read shows it.
 */

import { useAction } from '../action';
import { answered, request } from '../api';
import { ago, dateTimeMs, ms, relative } from '../format';
import { type JobRowFragment, PromoteJobDocument } from '../gql/graphql';
import { readJob } from '../jobs';
import { Id } from './Id';
import { deleteJob, JobsPanel, type JobsViewProps, useQueueJobs } from './JobsView';
import { attemptsColumn, priorityColumn, whenColumn } from './JobTable';

export function DelayedView(props: JobsViewProps) {
  const { queue } = props;
  const jobs = useQueueJobs('DELAYED', props);
  const action = useAction();
  const { redisNow } = jobs;

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
      jobs.done,
    );

  return (
    <JobsPanel
      {...props}
      title="Delayed jobs"
      view="delayed"
      tableTestId="delayed-jobs"
      order="next to run first"
      jobs={jobs}
      action={action}
      columns={[
        whenColumn('Runs', (j) => {
          const runAt = ms(j.runAt);
          if (runAt === null) return { text: '–', title: '' };
          const text = runAt > redisNow ? relative(runAt, redisNow) : `due ${ago(runAt, redisNow)}`;
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
              <code class="muted">{j.payloadPreview ?? 'null'}</code>
            ),
        },
      ]}
      primary={{ label: 'Run now', aria: (id) => `Run job ${id} now`, run: runNow }}
      onDelete={(job) =>
        deleteJob(action, queue, 'DELAYED', job, 'it is not delayed any more', jobs.done)
      }
      empty={`No delayed jobs ${jobs.matching}.`}
    />
  );
}
