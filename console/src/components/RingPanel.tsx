/**
 * The ring of the shown snapshot: its head in rota order (the first RING_WINDOW groups, the rest
 * counted), the head (next to get a turn) marked; a group that just joined glows for a moment. Groups that left are not drawn in the rota — under
 * churn their ghosts buried the few live chips — but listed in the log beside it,
 * one line per snapshot that changed the ring.
 */
import { clockMs, n, visibleId } from '../format';
import { RING_WINDOW, type RingEvent } from '../hooks';
import { Id } from './Id';

/** Lines of the log shown, and ids named on one line. */
const LOG_LINES = 12;
const IDS_PER_LINE = 6;

function LogIds(props: { ids: string[]; count: number; sign: '+' | '−'; cls: string }) {
  const { ids, count, sign, cls } = props;
  return (
    <>
      {ids.slice(0, IDS_PER_LINE).map((id) => (
        <span class={cls} key={`${sign}${id}`} title={visibleId(id)}>
          {sign}
          <Id value={id} />
        </span>
      ))}
      {count > Math.min(ids.length, IDS_PER_LINE) && (
        <span class="muted">
          {sign}
          {count - Math.min(ids.length, IDS_PER_LINE)} more
        </span>
      )}
    </>
  );
}

export function RingPanel(props: {
  /** The ring's head as the snapshot shown read it (its first RING_WINDOW); null before the first read. */
  ring: string[] | null;
  /** The ring's length in that snapshot. */
  size: number;
  joined: Map<string, number>;
  log: RingEvent[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const { ring, size, joined, log, selected, onSelect } = props;
  const hidden = ring ? Math.max(0, size - Math.min(ring.length, RING_WINDOW)) : 0;
  return (
    <section class="panel ring-panel" aria-label="Ring">
      <div class="panel-head">
        <h2>Ring</h2>
        <span class="muted small" data-testid="ring-size">
          {ring === null ? 'reading…' : `${n(size)} waiting for a turn, next first`}
        </span>
        <span class="legend small">
          <span class="chip chip-head chip-mini">next</span>
          <span class="chip chip-joined chip-mini">joined</span>
        </span>
      </div>
      <div class="ring-body">
        <ol class="ring" data-testid="ring">
          {ring !== null && ring.length === 0 && (
            <li class="muted small ring-empty">
              No group is waiting for a turn: each is empty, busy with no backlog, paused, at its
              limit or rate-limited.
            </li>
          )}
          {(ring ?? []).slice(0, RING_WINDOW).map((id, i) => (
            <li key={id}>
              <button
                type="button"
                class={[
                  'chip',
                  i === 0 && 'chip-head',
                  joined.has(id) && 'chip-joined',
                  id === selected && 'is-selected',
                ]
                  .filter(Boolean)
                  .join(' ')}
                data-group={id}
                data-on-ring="true"
                data-position={i + 1}
                title={`${visibleId(id)}: ${i === 0 ? 'next to get a turn' : `turn ${i + 1} of ${size}`}`}
                onClick={() => onSelect(id)}
              >
                {i === 0 && <span class="head-mark">▶</span>}
                <Id value={id} />
              </button>
            </li>
          ))}
          {hidden > 0 && <li class="muted small ring-more">… and {n(hidden)} more</li>}
        </ol>
        <ol class="ring-log" aria-label="Latest joins and leaves" data-testid="ring-log">
          {log.length === 0 && <li class="muted small">joins (+) and leaves (−) appear here</li>}
          {log.slice(0, LOG_LINES).map((e) => (
            <li key={`${e.at}:${e.added.join()}:${e.removed.join()}`}>
              <time>{clockMs(e.at)}</time>
              <LogIds ids={e.added} count={e.addedCount} sign="+" cls="log-in" />
              <LogIds ids={e.removed} count={e.removedCount} sign="−" cls="log-out" />
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
