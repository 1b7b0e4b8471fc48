/** The queue picker: every queue with its main counts. */
import { short } from '../format';
import type { QueueListQuery } from '../gql/graphql';

export function QueueList(props: {
  queues: QueueListQuery['queues'] | null;
  selected: string | null;
  onSelect: (name: string) => void;
}) {
  const { queues, selected, onSelect } = props;
  return (
    <nav class="queues" aria-label="Queues">
      <div class="section-label">Queues</div>
      {queues?.length === 0 && <p class="muted small pad">none yet</p>}
      <ul>
        {queues?.map((q) => (
          <li key={q.name}>
            <button
              type="button"
              class={`queue-item${q.name === selected ? ' is-selected' : ''}`}
              aria-current={q.name === selected ? 'page' : undefined}
              onClick={() => onSelect(q.name)}
            >
              <span class="queue-name">{q.name}</span>
              <span class="queue-counts">
                <span>
                  <b>{short(q.counts.groups)}</b> {q.counts.groups === 1 ? 'group' : 'groups'}
                </span>
                <span>
                  <b>{short(q.counts.onRing)}</b> on ring
                </span>
                <span>
                  <b>{short(q.counts.pending)}</b> pending
                </span>
                <span>
                  <b>{short(q.counts.active)}</b> active
                </span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
