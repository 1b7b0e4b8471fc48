/**
 * A group's backlog bound (DESIGN.md §3, "Backlog bounds"), beside its limit on the group's
 * detail: the most pending + delayed jobs an enqueue may leave it holding (past it, GROUP_FULL);
 * an admin may set it or clear it. Done only once a read shows it (`useAction`).
 */
import { useState } from 'preact/hooks';
import { isIntegerIn, Limits } from '../../../src/lanes/limits.js';
import { useAction } from '../action';
import { answered, request } from '../api';
import { n } from '../format';
import { GroupMaxPendingDocument, SetGroupMaxPendingDocument } from '../gql/graphql';
import { CountInput } from './CountInput';

/** Why `text` is not a bound, or null when it is one. */
function boundProblem(text: string): string | null {
  const value = text.trim();
  return /^\d+$/.test(value) && isIntegerIn(Number(value), 0, Limits.maxPending)
    ? null
    : `A backlog bound is a whole number of waiting jobs, from 0 to ${n(Limits.maxPending)}.`;
}

export function GroupMaxPending(props: {
  queue: string;
  group: string;
  /** The group's own bound in the snapshot shown (null: none of its own). */
  maxPending: number | null;
  admin: boolean;
  refresh: () => void;
}) {
  const { queue, group, maxPending, admin, refresh } = props;
  const [text, setText] = useState('');
  const action = useAction();

  const change = (bound: number | null) =>
    void action.run(
      bound === null ? 'Clearing the backlog bound' : `Setting the backlog bound to ${n(bound)}`,
      async () => {
        answered(
          (await request(SetGroupMaxPendingDocument, { queue, group, maxPending: bound }))
            .setMaxPending,
          'setMaxPending',
        );
        setText('');
        return bound === null ? 'No backlog bound' : `Backlog bound ${n(bound)}`;
      },
      async () => {
        const read = await request(GroupMaxPendingDocument, { queue, group });
        const now = read.queue.group.maxPending ?? null;
        if (now !== bound) return null;
        return bound === null
          ? 'Redis shows no backlog bound.'
          : `Redis shows backlog bound ${n(bound)}.`;
      },
      refresh,
    );

  const submit = (event: Event) => {
    event.preventDefault();
    const problem = boundProblem(text);
    if (problem) {
      action.say({ kind: 'error', text: problem });
      return;
    }
    change(Number(text.trim()));
  };

  return (
    <div class="max-pending" data-testid="max-pending">
      <dl class="facts">
        <div>
          <dt>backlog bound</dt>
          <dd
            data-testid="max-pending-value"
            title="The most pending + delayed jobs an enqueue may leave it holding; past it an enqueue is refused (GROUP_FULL)"
          >
            {maxPending === null ? 'none of its own' : `${n(maxPending)} waiting jobs`}
          </dd>
        </div>
      </dl>
      {admin && (
        <form class="limit-form pad" onSubmit={submit}>
          <CountInput
            min={0}
            placeholder={maxPending === null ? 'none' : String(maxPending)}
            label="New backlog bound"
            value={text}
            onValue={setText}
          />
          <button type="submit" class="btn" disabled={action.busy}>
            Set bound
          </button>
          <button
            type="button"
            class="btn btn-ghost"
            disabled={action.busy || maxPending === null}
            onClick={() => change(null)}
          >
            Clear bound
          </button>
        </form>
      )}
      {action.outcome && (
        <p
          class={`outcome outcome-${action.outcome.kind} pad`}
          role="status"
          data-testid="max-pending-outcome"
        >
          {action.outcome.text}
        </p>
      )}
    </div>
  );
}
