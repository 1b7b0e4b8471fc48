/**
 * The bulk actions of a job view (Dead: retry and delete; Completed: delete), for an admin: one
 * verb on the page shown, or — after a confirmation naming how many — on every job matching,
 * by calling the bounded mutation (≤ 1,000 jobs a call) until nothing matching is left, showing
 * the progress, with a Stop between two calls. Every action is called done only once a read
 * after it shows it.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Limits } from '../../../src/lanes/limits.js';
import type { Action } from '../action';
import { answered, request } from '../api';
import { type Bounded, untilDone } from '../bulk';
import { ms, n } from '../format';
import { type JobState, RemoveJobsDocument } from '../gql/graphql';
import type { QueueJobs } from './JobsView';

/** Jobs per call of a bulk action (the API's most). */
export const BULK_LIMIT = Limits.maxActionLimit;
/** How many jobs a read that confirms a bulk action looks at (the API's largest page). */
const CONFIRM_READ = Limits.maxPageSize;

const VERBS = {
  retry: {
    Verb: 'Retry',
    Verbing: 'Retrying',
    Verbed: 'Retried',
    verbed: 'retried',
    btn: 'btn-primary',
  },
  delete: {
    Verb: 'Delete',
    Verbing: 'Deleting',
    Verbed: 'Deleted',
    verbed: 'deleted',
    btn: 'btn-danger',
  },
} as const;

/** One bulk action a view offers. */
export interface BulkVerb {
  verb: keyof typeof VERBS;
  /** One call on the jobs `ids` (the page shown). */
  onIds: (ids: string[]) => Promise<Bounded>;
  /** One bounded call on every job matching (the group's, or the queue's). */
  onMatching: () => Promise<Bounded>;
  /** The confirmation's question for `count` jobs. */
  ask: (count: number) => ComponentChildren;
}

/** How a view's bulk actions speak of its jobs. */
export interface BulkWords {
  /** The list's state: "dead" ("every dead job", "the dead list"). */
  noun: string;
  /** The count after a page action: "dead" ("12 dead in this queue now"), "kept". */
  counted: string;
  /** Why a job of a page was skipped: "not dead any more". */
  skipped: string;
  /** A job newer than the action ("all died since"). */
  since: string;
}

/** Delete: `removeJobs(state)` on ids, or on the group's (or all) jobs in `state`. */
export const removeVerb = (
  queue: string,
  group: string | null,
  state: JobState,
  ask: BulkVerb['ask'],
): BulkVerb => ({
  verb: 'delete',
  onIds: async (ids) =>
    answered((await request(RemoveJobsDocument, { queue, ids, state })).removeJobs, 'removeJobs'),
  onMatching: async () =>
    answered(
      (
        await request(RemoveJobsDocument, {
          queue,
          ...(group === null ? { all: true } : { group }),
          state,
          limit: BULK_LIMIT,
        })
      ).removeJobs,
      'removeJobs',
    ),
  ask,
});

/** The page and "all N" buttons of each verb, Stop while one runs, and the confirmation. */
export function BulkActions(props: {
  testId: string;
  action: Action;
  jobs: QueueJobs;
  words: BulkWords;
  verbs: readonly BulkVerb[];
}) {
  const { action, jobs, words, verbs } = props;
  const { rows, total, matching } = jobs;
  const [asking, setAsking] = useState<{ verb: BulkVerb; count: number } | null>(null);

  const onPage = (bulk: BulkVerb) => {
    const ids = rows.map((j) => j.id);
    if (ids.length === 0) return;
    const w = VERBS[bulk.verb];
    return action.run(
      `${w.Verbing} the ${n(ids.length)} jobs of this page`,
      async () => {
        const r = await bulk.onIds(ids);
        const skipped = r.skipped > 0 ? ` (${n(r.skipped)} skipped: ${words.skipped})` : '';
        return `${w.Verbed} ${n(r.count)} of ${n(ids.length)}${skipped}`;
      },
      // Confirmed when a read (the page, from its cursor) holds none of them.
      async () => {
        const again = await jobs.read(Math.min(CONFIRM_READ, jobs.paging.pageSize * 2), jobs.after);
        return again.edges.some((e) => ids.includes(e.node.id))
          ? null
          : `the ${words.noun} list read back holds none of them (${n(again.totalCount)} ${words.counted} ${matching} now).`;
      },
      jobs.done,
    );
  };

  const allMatching = (bulk: BulkVerb) => {
    setAsking(null);
    // Jobs finished after the snapshot shown are new, not missed.
    const sentAt = jobs.tick ?? 0;
    const w = VERBS[bulk.verb];
    let stoppedEarly = false;
    return action.run(
      `${w.Verbing} every ${words.noun} job ${matching}`,
      async (progress) => {
        const t = await untilDone(
          bulk.onMatching,
          (sofar) =>
            progress(
              `${w.Verbing}: ${n(sofar.count)} ${w.verbed}, ${n(sofar.remaining)} left… (${n(Math.floor((sofar.count / Math.max(1, sofar.count + sofar.remaining)) * 100))} %)`,
            ),
          action.stopping,
        );
        stoppedEarly = t.stoppedEarly;
        const stopped = t.stoppedEarly ? `; stopped with ${n(t.remaining)} left` : '';
        return `${n(t.count)} ${words.noun} jobs ${matching} ${w.verbed} in ${n(t.calls)} ${t.calls === 1 ? 'call' : 'calls'}${stopped}`;
      },
      async () => {
        const again = await jobs.read(CONFIRM_READ, null);
        if (again.totalCount === 0) return `Redis shows no ${words.noun} job ${matching}.`;
        if (stoppedEarly) {
          return `Redis shows ${n(again.totalCount)} ${words.noun} ${matching} left.`;
        }
        // Jobs that finished since the action began are new ones, not ones it missed.
        const older = again.edges.filter((e) => (ms(e.node.finishedAt) ?? 0) < sentAt).length;
        return again.totalCount <= CONFIRM_READ && older === 0
          ? `Redis shows ${n(again.totalCount)} ${words.noun} ${matching}, all ${words.since}.`
          : null;
      },
      jobs.done,
    );
  };

  return (
    <>
      <div class="actions bulk" data-testid={props.testId}>
        {verbs.map((bulk) => (
          <button
            key={`page-${bulk.verb}`}
            type="button"
            class="btn"
            disabled={action.busy || rows.length === 0}
            onClick={() => onPage(bulk)}
          >
            {VERBS[bulk.verb].Verb} page
          </button>
        ))}
        {verbs.map((bulk) => (
          <button
            key={`all-${bulk.verb}`}
            type="button"
            class={`btn ${VERBS[bulk.verb].btn}`}
            disabled={action.busy || total === 0}
            onClick={() => setAsking({ verb: bulk, count: total })}
          >
            {VERBS[bulk.verb].Verb} all {n(total)}…
          </button>
        ))}
        {action.busy && (
          <button type="button" class="btn btn-ghost" onClick={action.stop}>
            Stop
          </button>
        )}
      </div>
      {asking && (
        <div class="confirm" role="alertdialog" aria-label="Confirm" data-testid="confirm">
          <p>{asking.verb.ask(asking.count)}</p>
          <div class="confirm-buttons">
            <button
              type="button"
              class={`btn ${VERBS[asking.verb.verb].btn}`}
              onClick={() => allMatching(asking.verb)}
            >
              {VERBS[asking.verb.verb].Verb} {n(asking.count)} jobs
            </button>
            <button type="button" class="btn btn-ghost" onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </>
  );
}
