/**
 * The queue picker: every queue with its main counts. The chosen queue's counts are the
 * snapshot's that every other panel shows (so "on ring" here is the ring drawn beside it); the
 * others' are from the list's own read, every few seconds.
 */
import { short } from '../format';
import type { CountsFragment, QueueListQuery } from '../gql/graphql';

export function QueueList(props: {
  queues: QueueListQuery['queues'] | null;
  selected: string | null;
  /** The chosen queue's counts from the snapshot shown. */
  selectedCounts: CountsFragment | null;
  onSelect: (name: string) => void;
}) {
  const { queues, selected, selectedCounts, onSelect } = props;
  return (
    <nav class="queues" aria-label="Queues">
      <div class="section-label">Queues</div>
      {queues?.length === 0 && <p class="muted small pad">none yet</p>}
      <ul>
        {queues?.map(({ name, counts: listed }) => {
          const q = {
            name,
            counts: name === selected && selectedCounts ? selectedCounts : listed,
          };
          return (
            <li key={q.name}>
              <button
                type="button"
                class={`queue-item${q.name === selected ? ' is-selected' : ''}`}
                aria-current={q.name === selected ? 'page' : undefined}
                onClick={() => onSelect(q.name)}
              >
                <span class="queue-name">{q.name}</span>
                <span
                  class="queue-counts"
                  data-testid={q.name === selected ? 'selected-counts' : undefined}
                >
                  <span>
                    <b>{short(q.counts.groups)}</b> {q.counts.groups === 1 ? 'group' : 'groups'}
                  </span>
                  <span>
                    <b data-count="on-ring">{short(q.counts.onRing)}</b> on ring
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
          );
        })}
      </ul>
    </nav>
  );
}
