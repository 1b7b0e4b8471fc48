/**
 * A group's timed overrides (DESIGN.md §4.8), in the group panel: each pending revert
 * in words — "Paused for 12 more minutes, then resumes", "Resumed for 10 more minutes, then paused
 * again", "Limit 2 for 5 more minutes, then 10" — with a Cancel button for an admin (the value
 * stays, nothing reverts it), and for an admin a form to pause or resume the group, or set its
 * limit, for a while ("10m", "1h30m", "2d"). The reverts
 * come with the snapshot (`GroupOverrideState`, spread in `GroupDetail`); the time left is
 * counted on the Redis clock (this browser's clock less `skew`).
 */
import { useState } from 'preact/hooks';
import { ApiError, answered, request } from '../api';
import {
  CancelOverrideDocument,
  type GroupOverrideStateFragment,
  PauseGroupForDocument,
  ResumeGroupForDocument,
  SetLimitForDocument,
} from '../gql/graphql';
import { overrideText, parseDuration } from '../overrides';
import { CountInput } from './CountInput';

export function TimedOverrides(props: {
  queue: string;
  group: string;
  g: GroupOverrideStateFragment & { limit?: number | null; paused?: boolean };
  admin: boolean;
  /** Read a new snapshot soon: an action was accepted. */
  refresh: () => void;
  /** This browser's clock minus the Redis clock (ms), and now on this browser's clock. */
  skew: number;
  now: number;
}) {
  const { queue, group, g, admin, refresh, skew, now } = props;
  const [forText, setForText] = useState('');
  const [limitText, setLimitText] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const redisNow = Math.max(now, Date.now()) - skew;
  const vars = { queue, group };

  const run = async (label: string, call: () => Promise<unknown>) => {
    setBusy(true);
    setMessage(null);
    try {
      await call();
      setMessage({ kind: 'ok', text: `${label}: accepted.` });
      refresh();
    } catch (failure) {
      const words = failure instanceof ApiError ? failure.words : String(failure);
      setMessage({ kind: 'error', text: `${label} failed. ${words}` });
    } finally {
      setBusy(false);
    }
  };

  const forMs = (): number | null => {
    const ms = parseDuration(forText);
    if (ms === null) {
      setMessage({
        kind: 'error',
        text: 'A duration is like 90s, 10m, 1h30m or 2d (1 second to 30 days).',
      });
    }
    return ms;
  };

  const pauseFor = () => {
    const ms = forMs();
    if (ms === null) return;
    void run(`Pausing for ${forText.trim()}`, async () =>
      answered(
        (await request(PauseGroupForDocument, { ...vars, forMs: ms })).pauseGroup,
        'pauseGroup',
      ),
    );
  };

  const resumeFor = () => {
    const ms = forMs();
    if (ms === null) return;
    void run(`Resuming for ${forText.trim()}`, async () =>
      answered(
        (await request(ResumeGroupForDocument, { ...vars, forMs: ms })).resumeGroup,
        'resumeGroup',
      ),
    );
  };

  const limitFor = (event: Event) => {
    event.preventDefault();
    const text = limitText.trim();
    if (!/^\d+$/.test(text)) {
      setMessage({ kind: 'error', text: 'A limit is a whole number of jobs, 0 or more.' });
      return;
    }
    const ms = forMs();
    if (ms === null) return;
    const limit = Number(text);
    void run(`Setting the limit to ${limit} for ${forText.trim()}`, async () =>
      answered(
        (await request(SetLimitForDocument, { ...vars, limit, forMs: ms })).setLimit,
        'setLimit',
      ),
    );
  };

  // A pause-kind revert of a group not paused now is a timed resume.
  const pauseWord = g.paused === false ? 'resume' : 'pause';
  const cancel = (kind: 'LIMIT' | 'PAUSE') =>
    run(`Cancelling the timed ${kind === 'LIMIT' ? 'limit' : pauseWord}`, async () =>
      answered(
        (await request(CancelOverrideDocument, { ...vars, kind })).cancelOverride,
        'cancelOverride',
      ),
    );

  const rows: { kind: 'LIMIT' | 'PAUSE'; text: string }[] = [];
  if (g.pauseOverride) {
    const left = Date.parse(String(g.pauseOverride.until)) - redisNow;
    rows.push({
      kind: 'PAUSE',
      text: overrideText(
        'pause',
        left,
        null,
        g.pauseOverride.revertToPaused ?? null,
        g.paused ?? true,
      ),
    });
  }
  if (g.limitOverride) {
    const left = Date.parse(String(g.limitOverride.until)) - redisNow;
    rows.push({
      kind: 'LIMIT',
      text: overrideText('limit', left, g.limit ?? null, g.limitOverride.revertToLimit ?? null),
    });
  }

  if (rows.length === 0 && !admin) return null;
  return (
    <div class="timed-overrides pad" data-testid="timed-overrides">
      {rows.map((row) => (
        <p key={row.kind} class="timed-override" data-testid={`override-${row.kind.toLowerCase()}`}>
          {row.text}.{' '}
          {admin && (
            <button
              type="button"
              class="btn btn-ghost"
              disabled={busy}
              onClick={() => cancel(row.kind)}
              aria-label={`Cancel the timed ${row.kind === 'LIMIT' ? 'limit' : pauseWord}`}
            >
              Cancel
            </button>
          )}
        </p>
      ))}
      {admin && (
        <form class="actions limit-form" onSubmit={limitFor} aria-label="For a while">
          <input
            class="limit-input"
            type="text"
            placeholder="for 10m"
            aria-label="For how long"
            value={forText}
            onInput={(e) => setForText((e.target as HTMLInputElement).value)}
          />
          <button type="button" class="btn btn-warn" disabled={busy} onClick={pauseFor}>
            Timed pause
          </button>
          {/* Resuming a group that runs changes nothing: offered while it is paused. */}
          {g.paused !== false && (
            <button type="button" class="btn" disabled={busy} onClick={resumeFor}>
              Timed resume
            </button>
          )}
          <CountInput
            min={0}
            placeholder="limit"
            label="Limit for a while"
            value={limitText}
            onValue={setLimitText}
          />
          <button type="submit" class="btn" disabled={busy}>
            Timed limit
          </button>
        </form>
      )}
      {message && (
        <p class={`outcome outcome-${message.kind}`} role="status" data-testid="override-outcome">
          {message.text}
        </p>
      )}
    </div>
  );
}
