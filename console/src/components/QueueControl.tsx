/**
 * The whole queue's state beside its name: running, or paused — claims stop for every
 * group while the groups' own states stay as they are — and, for an admin, the button that
 * pauses or resumes it. Done only once a snapshot read after it shows it, like a group's actions.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Outcome } from '../action';
import { CONFIRM_MS } from '../action';
import { ApiError, answered, request } from '../api';
import { clockMs } from '../format';
import { PauseQueueDocument, ResumeQueueDocument } from '../gql/graphql';

export function QueueControl(props: {
  queue: string;
  /** From the snapshot shown: null before it is read. */
  paused: boolean | null;
  /** The snapshot's moment (ms, Redis clock). */
  at: number | null;
  admin: boolean;
  refresh: () => void;
}) {
  const { queue, paused, at, admin, refresh } = props;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const pending = useRef<{ want: boolean; after: number; done: string } | null>(null);
  const slow = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    const p = pending.current;
    if (!p || paused === null || at === null || at < p.after || paused !== p.want) return;
    pending.current = null;
    clearTimeout(slow.current);
    setOutcome({ kind: 'ok', text: `${p.done} — confirmed: Redis shows it at ${clockMs(at)}.` });
  }, [paused, at]);
  useEffect(() => () => clearTimeout(slow.current), []);
  // Another queue: nothing said about this one yet.
  useEffect(() => {
    pending.current = null;
    setOutcome(null);
  }, [queue]);

  const act = async (want: boolean) => {
    const label = want ? 'Pausing the queue' : 'Resuming the queue';
    const done = want ? 'Queue paused' : 'Queue resumed';
    pending.current = null;
    clearTimeout(slow.current);
    setBusy(true);
    setOutcome({ kind: 'waiting', text: `${label}…` });
    try {
      const sentAt = at ?? 0;
      if (want) answered((await request(PauseQueueDocument, { queue })).pauseQueue, 'pauseQueue');
      else answered((await request(ResumeQueueDocument, { queue })).resumeQueue, 'resumeQueue');
      const entry = { want, after: sentAt + 1, done };
      pending.current = entry;
      setOutcome({ kind: 'waiting', text: `${label}: accepted, reading it back…` });
      refresh();
      slow.current = setTimeout(() => {
        if (pending.current !== entry) return;
        setOutcome({
          kind: 'slow',
          text: `${label}: accepted, but not seen in a read yet (is the server reachable?).`,
        });
      }, CONFIRM_MS);
    } catch (failure) {
      const words = failure instanceof ApiError ? failure.words : String(failure);
      setOutcome({ kind: 'error', text: `${label} failed. ${words}` });
    } finally {
      setBusy(false);
    }
  };

  if (paused === null) return null;
  return (
    <div class="queue-control">
      <span
        class={`pill queue-state${paused ? ' is-paused' : ''}`}
        data-testid="queue-state"
        data-paused={paused ? 'true' : 'false'}
        title={
          paused
            ? 'Paused: no job of any group is claimed until it is resumed; group states are untouched.'
            : 'Running: jobs are claimed.'
        }
      >
        <span class="dot" />
        {paused ? 'queue paused' : 'running'}
      </span>
      {admin &&
        (paused ? (
          <button type="button" class="btn btn-primary" disabled={busy} onClick={() => act(false)}>
            Resume queue
          </button>
        ) : (
          <button type="button" class="btn btn-warn" disabled={busy} onClick={() => act(true)}>
            Pause queue
          </button>
        ))}
      {outcome && (
        <span
          class={`outcome-inline outcome-${outcome.kind}`}
          role="status"
          data-testid="queue-outcome"
        >
          {outcome.text}
        </span>
      )}
    </div>
  );
}
