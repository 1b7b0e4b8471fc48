/**
 * A group's reserve (DESIGN.md §3, "The queue's cap and reserves"), beside its limit on the
 * group's detail: the permits of the queue's cap it gets first while they are scarce; an admin
 * may change it (0 clears it). Done only once a read shows it (`useAction`).
 */
import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { answered, request } from '../api';
import { countProblem } from '../cap';
import { n } from '../format';
import { GroupReserveDocument, SetGroupReserveDocument } from '../gql/graphql';
import { CountInput } from './CountInput';

export function GroupReserve(props: {
  queue: string;
  group: string;
  /** The reserve in the snapshot shown. */
  reserve: number;
  admin: boolean;
  refresh: () => void;
}) {
  const { queue, group, reserve, admin, refresh } = props;
  const [text, setText] = useState('');
  const action = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const problem = countProblem('reserve', text);
    if (problem) {
      action.say({ kind: 'error', text: problem });
      return;
    }
    const r = Number(text.trim());
    void action.run(
      r === 0 ? 'Clearing the reserve' : `Setting the reserve to ${n(r)}`,
      async () => {
        answered(
          (await request(SetGroupReserveDocument, { queue, group, reserve: r })).setReserve,
          'setReserve',
        );
        setText('');
        return r === 0 ? 'No reserve' : `Reserve ${n(r)}`;
      },
      async () => {
        const read = await request(GroupReserveDocument, { queue, group });
        return read.queue.group.reserve === r ? `Redis shows reserve ${n(r)}.` : null;
      },
      refresh,
    );
  };

  return (
    <div class="reserve" data-testid="reserve">
      <dl class="facts">
        <div>
          <dt>reserve</dt>
          <dd
            data-testid="reserve-value"
            title="Permits of the queue's cap it gets first while they are scarce"
          >
            {reserve === 0 ? 'none' : `${n(reserve)} of the queue's cap`}
          </dd>
        </div>
      </dl>
      {admin && (
        <form class="limit-form pad" onSubmit={submit}>
          <CountInput
            min={0}
            placeholder={String(reserve)}
            label="New reserve"
            value={text}
            onValue={setText}
          />
          <button type="submit" class="btn" disabled={action.busy}>
            Set reserve
          </button>
        </form>
      )}
      {action.outcome && (
        <p
          class={`outcome outcome-${action.outcome.kind} pad`}
          role="status"
          data-testid="reserve-outcome"
        >
          {action.outcome.text}
        </p>
      )}
    </div>
  );
}
