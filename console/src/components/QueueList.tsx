/**
 * The queue picker: every queue with its main counts. The chosen queue's counts are the
 * snapshot's that every other panel shows (so "on ring" here is the ring drawn beside it); the
 * others' are from the list's own read, every few seconds. A queue the server could not read
 * (on a Redis Cluster, its master is down) is listed as unreadable, without counts.
 */
import { short } from '../format';
import type { CountsFragment, QueueListQuery } from '../gql/graphql';

/** One queue of the list: its counts, or null when the list's read of it failed. */
export interface ListedQueue {
  readonly name: string;
  readonly counts: CountsFragment | null;
}

/**
 * The list as `Query.queues` answered it: the queues read, and those it could not read (null
 * in the answer, named by their errors' `extensions.queue`), in name order.
 */
export function listedQueues(
  answered: QueueListQuery['queues'],
  unreadable: readonly string[],
): ListedQueue[] {
  const read = answered.flatMap((q) => (q === null ? [] : [q]));
  const failed = unreadable
    .filter((name) => !read.some((q) => q.name === name))
    .map((name) => ({ name, counts: null }));
  return [...read, ...failed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function QueueList(props: {
  queues: readonly ListedQueue[] | null;
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
                {q.counts === null ? (
                  <span class="queue-counts muted">unreadable now (its store does not answer)</span>
                ) : (
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
                )}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
