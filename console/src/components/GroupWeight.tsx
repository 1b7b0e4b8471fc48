/**
 * A group's weight (DESIGN.md §3, "Weights"): how many turns in a row it gets each time the rota
 * comes round to it, shown on the group's detail; an admin may change it (1..1,000). As every
 * console action, a change is called done only once a read shows it (`useAction`).
 */
import { useState } from 'preact/hooks';
import { useAction } from '../action';
import { answered, request } from '../api';
import { n } from '../format';
import { GroupWeightDocument, SetWeightDocument } from '../gql/graphql';
import { MAX_WEIGHT, weightLabel, weightProblem } from '../weight';
import { CountInput } from './CountInput';

export function GroupWeight(props: {
  queue: string;
  group: string;
  /** The weight in the snapshot shown. */
  weight: number;
  admin: boolean;
  /** Read a new snapshot soon: the weight changed. */
  refresh: () => void;
}) {
  const { queue, group, weight, admin, refresh } = props;
  const [text, setText] = useState('');
  const action = useAction();

  const submit = (event: Event) => {
    event.preventDefault();
    const value = text.trim();
    const problem = weightProblem(value);
    if (problem) {
      action.say({ kind: 'error', text: problem });
      return;
    }
    const w = Number(value);
    void action.run(
      `Setting the weight to ${n(w)}`,
      async () => {
        answered(
          (await request(SetWeightDocument, { queue, group, weight: w })).setWeight,
          'setWeight',
        );
        setText('');
        return `Weight ${n(w)}`;
      },
      async () => {
        const read = await request(GroupWeightDocument, { queue, group });
        return read.queue.group.weight === w ? `Redis shows weight ${n(w)}.` : null;
      },
      refresh,
    );
  };

  return (
    <div class="weight" data-testid="weight">
      <dl class="facts">
        <div>
          <dt>weight</dt>
          <dd
            data-testid="weight-value"
            title="Turns in a row each time the rota comes round to it"
          >
            {weightLabel(weight)}
          </dd>
        </div>
      </dl>
      {admin && (
        <form class="limit-form weight-form pad" onSubmit={submit}>
          <CountInput
            min={1}
            max={MAX_WEIGHT}
            placeholder={String(weight)}
            label="New weight"
            value={text}
            onValue={setText}
          />
          <button type="submit" class="btn" disabled={action.busy}>
            Set weight
          </button>
        </form>
      )}
      {action.outcome && (
        <p
          class={`outcome outcome-${action.outcome.kind} pad`}
          role="status"
          data-testid="weight-outcome"
        >
          {action.outcome.text}
        </p>
      )}
    </div>
  );
}
