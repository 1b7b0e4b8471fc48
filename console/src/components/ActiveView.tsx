/**
 * The queue's active jobs, every group's (or one group's, filtered), lease ending first: each
 * with when it was claimed, its lease counting down each second (from `leaseUntil`, on the
 * Redis clock), its attempt, its priority, the worker holding it (`Job.workerId`) and its processor's last
 * progress. No row action: an active job
 * belongs to the worker holding its lease (`removeJobs` skips it), and its detail says what it
 * is doing. Read again with each snapshot.
 */
import { dateTimeMs, ms } from '../format';
import type { JobRowFragment } from '../gql/graphql';
import { leaseText } from './JobList';
import { agoColumn, JobsPanel, type JobsViewProps, useQueueJobs } from './JobsView';
import { attemptsColumn, type JobColumn, priorityColumn } from './JobTable';

/**
 * A processor's progress as a row shows it, from its preview (`Job.progressPreview`, its JSON
 * text cut short): "40 %" for a number, else the text as the server cut it.
 */
export function progressText(progress: string | null): string {
  if (progress === null) return '–';
  return /^-?\d/.test(progress) ? `${progress} %` : progress;
}

export function ActiveView(props: Omit<JobsViewProps, 'admin' | 'refresh'>) {
  const jobs = useQueueJobs('ACTIVE', props);
  const { redisNow } = jobs;

  const columns: JobColumn[] = [
    agoColumn('Claimed', (j) => j.claimedAt, redisNow),
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
    priorityColumn,
    {
      header: 'Worker',
      cell: (j) => (
        <code class="muted" data-testid="worker">
          {j.workerId ?? '–'}
        </code>
      ),
      title: (j) => j.workerId ?? 'no worker named itself when it claimed',
    },
    {
      header: 'Progress',
      class: 'err-cell',
      cell: (j) => <code class="muted">{progressText(j.progressPreview)}</code>,
      title: (j) => j.progressTip ?? '',
    },
  ];

  return (
    <JobsPanel
      {...props}
      title="Active jobs"
      view="active"
      tableTestId="queue-active-jobs"
      rangeTestId="queue-active-range"
      order="lease ending first"
      jobs={jobs}
      columns={columns}
      empty={`No active jobs ${jobs.matching}.`}
    />
  );
}
