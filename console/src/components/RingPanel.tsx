/**
 * The ring, live: groups in rota order, the head marked; a group that joins glows for a
 * moment, one that leaves stays as a struck-out ghost where it stood, and the log beside it
 * lists the latest joins and leaves.
 */
import { clock, n } from '../format';
import type { RingState } from '../hooks';

/** Chips drawn at most; the rest are counted (a ring of 100,000 must not freeze the page). */
const MAX_CHIPS = 400;
/** Ghosts of groups that just left, drawn at most (a busy ring churns constantly). */
const MAX_GHOSTS = 24;

interface Chip {
  id: string;
  /** Position on the ring (1-based), or null for a ghost. */
  position: number | null;
  joined: boolean;
}

function chips(state: RingState): Chip[] {
  const shown: Chip[] = state.ring.slice(0, MAX_CHIPS).map((id, i) => ({
    id,
    position: i + 1,
    joined: state.joined.has(id),
  }));
  // Ghosts go back where they stood, nearest last so earlier inserts do not shift them.
  // (A rejoin removes the ghost already; the check guards a ring read between the two.)
  const onRing = new Set(state.ring);
  const ghosts = [...state.left]
    .filter(([id]) => !onRing.has(id))
    .sort((a, b) => b[1].at - a[1].at)
    .slice(0, MAX_GHOSTS)
    .sort((a, b) => b[1].index - a[1].index);
  for (const [id, { index }] of ghosts) {
    if (index >= MAX_CHIPS) continue;
    shown.splice(Math.min(index, shown.length), 0, { id, position: null, joined: false });
  }
  return shown;
}

export function RingPanel(props: {
  state: RingState;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const { state, selected, onSelect } = props;
  const list = chips(state);
  const hidden = Math.max(0, state.ring.length - MAX_CHIPS);
  return (
    <section class="panel ring-panel" aria-label="Ring">
      <div class="panel-head">
        <h2>Ring</h2>
        <span class="muted small" data-testid="ring-size">
          {state.ready ? `${n(state.ring.length)} serviceable, in rota order` : 'connecting…'}
        </span>
        <span class="legend small">
          <span class="chip chip-head chip-mini">head</span>
          <span class="chip chip-joined chip-mini">joined</span>
          <span class="chip chip-ghost chip-mini">left</span>
        </span>
      </div>
      {state.error && <p class="error pad">{state.error.words}</p>}
      <div class="ring-body">
        <ol class="ring" data-testid="ring">
          {state.ready && state.ring.length === 0 && state.left.size === 0 && (
            <li class="muted small ring-empty">
              Empty: no group is serviceable (all idle, paused or at their limits).
            </li>
          )}
          {list.map((chip) => (
            <li key={`${chip.id}:${chip.position === null ? 'ghost' : 'on'}`}>
              <button
                type="button"
                class={[
                  'chip',
                  chip.position === 1 && 'chip-head',
                  chip.position === null && 'chip-ghost',
                  chip.joined && 'chip-joined',
                  chip.id === selected && 'is-selected',
                ]
                  .filter(Boolean)
                  .join(' ')}
                data-group={chip.id}
                data-on-ring={chip.position !== null ? 'true' : 'false'}
                title={
                  chip.position === null
                    ? `${chip.id} left the ring`
                    : `${chip.id}: position ${chip.position} of ${state.ring.length}`
                }
                onClick={() => onSelect(chip.id)}
              >
                {chip.position === 1 && <span class="head-mark">▶</span>}
                {chip.id}
              </button>
            </li>
          ))}
          {hidden > 0 && <li class="muted small ring-more">… and {n(hidden)} more</li>}
        </ol>
        <ol class="ring-log" aria-label="Latest joins and leaves" data-testid="ring-log">
          {state.log.length === 0 && <li class="muted small">joins and leaves appear here</li>}
          {state.log.slice(0, 14).map((e) => (
            <li key={`${e.at}:${e.added.join()}:${e.removed.join()}`}>
              <time>{clock(e.at)}</time>
              {e.added.slice(0, 4).map((id) => (
                <span class="log-in" key={`+${id}`}>
                  +{id}
                </span>
              ))}
              {e.removed.slice(0, 4).map((id) => (
                <span class="log-out" key={`-${id}`}>
                  −{id}
                </span>
              ))}
              {e.added.length + e.removed.length > 8 && (
                <span class="muted">+{e.added.length + e.removed.length - 8}</span>
              )}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
