/**
 * What an admin can do to one job from its detail, by its state: a dead job is
 * retried or deleted, a delayed one run now or deleted, a pending or kept completed one deleted; a pending or
 * delayed one given a new priority (DESIGN.md §3, "Priorities"); an active job is left to its
 * worker. Done only once a read of the job after it shows it.
 */
import { useState } from 'preact/hooks';
import type { Action } from '../action';
import { answered, request } from '../api';
import {
  ChangeJobPriorityDocument,
  type JobFullFragment,
  PromoteJobDocument,
  RemoveJobsDocument,
  RequeueDeadDocument,
} from '../gql/graphql';
import { readJob } from '../jobs';
import { PRIORITIES, priorityText } from '../priority';

export function JobActions(props: {
  queue: string;
  job: JobFullFragment;
  /** Held by the detail, so what it says outlives these buttons (a deleted job has none). */
  action: Action;
  onDone: () => void;
}) {
  const { queue, job, action, onDone } = props;
  const { id, state } = job;
  const [priority, setPriority] = useState(job.priority);

  /** Confirmed when a read shows the job out of `from` (or gone, when `gone` is allowed). */
  const leaves = (from: string, gone: string | null) => async (): Promise<string | null> => {
    const j = await readJob(queue, id);
    if (j === null) return gone;
    return j.state === from ? null : `Redis shows it ${j.state.toLowerCase()}.`;
  };

  const retry = () =>
    action.run(
      'Retrying',
      async () => {
        const r = answered(
          (await request(RequeueDeadDocument, { queue, ids: [id] })).requeueDeadJobs,
          'requeueDeadJobs',
        );
        if (r.count === 0) throw new Error('it was not dead any more: nothing retried');
        return 'Retried';
      },
      leaves('DEAD', 'it already ran and is gone (completed, not retained).'),
      onDone,
    );
  const runNow = () =>
    action.run(
      'Running it now',
      async () => {
        const j = answered(
          (await request(PromoteJobDocument, { queue, id })).promoteJob,
          'promoteJob',
        );
        if (j.state === 'DELAYED') throw new Error('it is still delayed');
        return 'Moved to its lane';
      },
      leaves('DELAYED', 'it already ran and is gone (completed, not retained).'),
      onDone,
    );
  const remove = () =>
    action.run(
      'Deleting',
      async () => {
        const r = answered(
          (await request(RemoveJobsDocument, { queue, ids: [id], state })).removeJobs,
          'removeJobs',
        );
        if (r.count === 0)
          throw new Error('it could not be deleted (it changed state meanwhile, or is gone)');
        return 'Deleted';
      },
      async () => {
        const j = await readJob(queue, id);
        return j === null ? 'Redis no longer holds it.' : null;
      },
      onDone,
    );

  const reprioritise = () =>
    action.run(
      `Setting priority ${priority}`,
      async () => {
        const j = answered(
          (await request(ChangeJobPriorityDocument, { queue, id, priority })).changeJobPriority,
          'changeJobPriority',
        );
        if (j.priority !== priority) {
          throw new Error(`it is ${j.state.toLowerCase()} now: its priority stays ${j.priority}`);
        }
        return `Priority ${priority} set`;
      },
      async () => {
        const j = await readJob(queue, id);
        if (j === null) return 'it already ran and is gone.';
        return j.priority === priority ? `Redis shows it at priority ${priority}.` : null;
      },
      onDone,
    );

  const buttons: [label: string, tone: string, run: () => Promise<void>][] =
    state === 'DEAD'
      ? [
          ['Retry', 'btn-primary', retry],
          ['Delete', 'btn-danger', remove],
        ]
      : state === 'DELAYED'
        ? [
            ['Run now', 'btn-primary', runNow],
            ['Delete', 'btn-danger', remove],
          ]
        : state === 'PENDING' || state === 'COMPLETED'
          ? [['Delete', 'btn-danger', remove]]
          : [];
  if (buttons.length === 0) return null;
  return (
    <div class="actions" data-testid="job-actions">
      {buttons.map(([label, tone, run]) => (
        <button
          key={label}
          type="button"
          class={`btn ${tone}`}
          disabled={action.busy}
          onClick={() => void run()}
        >
          {label}
        </button>
      ))}
      {(state === 'PENDING' || state === 'DELAYED') && (
        <span class="priority-control">
          <label class="muted small">
            Priority{' '}
            <select
              aria-label="Priority"
              value={String(priority)}
              disabled={action.busy}
              onChange={(e) => setPriority(Number((e.target as HTMLSelectElement).value))}
            >
              {PRIORITIES.map((p) => (
                <option key={p} value={String(p)}>
                  {priorityText(p)}
                </option>
              ))}
            </select>
          </label>{' '}
          <button
            type="button"
            class="btn"
            disabled={action.busy || priority === job.priority}
            onClick={() => void reprioritise()}
          >
            Set priority
          </button>
        </span>
      )}
    </div>
  );
}

/** What the last action on the job came to (kept when the job is gone). */
export function JobOutcome(props: { action: Action }) {
  const { outcome } = props.action;
  if (!outcome) return null;
  return (
    <p class={`outcome outcome-${outcome.kind} pad`} role="status" data-testid="job-outcome">
      {outcome.text}
    </p>
  );
}
