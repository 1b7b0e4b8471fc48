/**
 * One group, live from `groupChanged`: its numbers, why it is (not) running (`Group.reason`),
 * and for an admin the actions — pause, resume, set or clear the limit. An action's result is
 * shown only once the live feed confirms it; a refusal is shown in words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, request, subscribe } from '../api';
import { n } from '../format';
import {
  ClearLimitDocument,
  type GroupDetailFragment,
  GroupNowDocument,
  PauseGroupDocument,
  ResumeGroupDocument,
  SetLimitDocument,
  WatchGroupDocument,
} from '../gql/graphql';
import type { RingState } from '../hooks';
import { useThrottled } from '../hooks';
import { LoadBar, StateBadge } from './GroupsTable';

/** How long an action waits for the live feed before saying it is not confirmed yet (ms). */
const CONFIRM_MS = 8_000;

interface Pending {
  label: string;
  done: string;
  expect: (g: GroupDetailFragment) => boolean;
}

type Outcome = { kind: 'waiting' | 'ok' | 'error' | 'slow'; text: string };

const sameState = (a: GroupDetailFragment, b: GroupDetailFragment): boolean =>
  a.limit === b.limit &&
  a.active === b.active &&
  a.pending === b.pending &&
  a.paused === b.paused &&
  a.state === b.state;

export function GroupDetail(props: {
  queue: string;
  group: string | null;
  admin: boolean;
  ring: RingState;
  onClose: () => void;
  /** Told every state `groupChanged` delivers (null when none is shown). */
  onLive: (g: GroupDetailFragment | null) => void;
}) {
  const { queue, group, admin, ring, onClose, onLive } = props;
  const [live, setLive] = useState<GroupDetailFragment | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [limitText, setLimitText] = useState('');
  const [busy, setBusy] = useState(false);
  const pending = useRef<Pending | null>(null);
  const liveRef = useRef<GroupDetailFragment | null>(null);
  const slowTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const confirm = (g: GroupDetailFragment) => {
    const p = pending.current;
    if (p?.expect(g)) {
      pending.current = null;
      clearTimeout(slowTimer.current);
      setOutcome({ kind: 'ok', text: `${p.done} — confirmed by the live feed.` });
    }
  };

  // The group, live.
  useEffect(() => {
    onLive(null);
    if (!group) return;
    return subscribe(
      WatchGroupDocument,
      { queue, group },
      (data) => {
        liveRef.current = data.groupChanged;
        setLive(data.groupChanged);
        onLive(data.groupChanged);
        setError(null);
        confirm(data.groupChanged);
      },
      setError,
    );
  }, [queue, group]);

  // A group on the ring moves along it with every claim, which `groupChanged` does not report:
  // re-read the sentence (its position) when the ring changes, at most once a second.
  const ringVersion = useThrottled(ring.version, 1_000);
  useEffect(() => {
    const now = liveRef.current;
    if (!group || !now || now.blockedBy !== null) return;
    request(GroupNowDocument, { queue, group }).then(
      (data) => {
        const fresh = data.queue.group;
        const current = liveRef.current;
        // Take only the sentence, and only if it describes the state shown.
        if (current && sameState(current, fresh) && current.reason !== fresh.reason) {
          const next = { ...current, reason: fresh.reason, blockedBy: fresh.blockedBy };
          liveRef.current = next;
          setLive(next);
        }
      },
      () => {},
    );
  }, [ringVersion]);

  useEffect(() => () => clearTimeout(slowTimer.current), []);

  if (!group) {
    return (
      <section class="panel detail" aria-label="Group">
        <div class="panel-head">
          <h2>Group</h2>
        </div>
        <p class="muted pad">
          Pick a group on the ring or in the table to see why it is or is not running
          {admin ? ', and to steer it' : ''}.
        </p>
      </section>
    );
  }

  const act = async (p: Pending, run: () => Promise<unknown>) => {
    pending.current = p;
    clearTimeout(slowTimer.current);
    setBusy(true);
    setOutcome({ kind: 'waiting', text: `${p.label}…` });
    try {
      await run();
      // Already true (nothing changed, so no event will come): the live state confirms it.
      const now = liveRef.current;
      if (now && pending.current === p) confirm(now);
      if (pending.current === p) {
        setOutcome({ kind: 'waiting', text: `${p.label}: accepted, waiting for the live feed…` });
        slowTimer.current = setTimeout(() => {
          if (pending.current !== p) return;
          setOutcome({
            kind: 'slow',
            text: `${p.label}: accepted, but the live feed has not confirmed it yet (reconnecting?).`,
          });
        }, CONFIRM_MS);
      }
    } catch (failure) {
      pending.current = null;
      const words = failure instanceof ApiError ? failure.words : String(failure);
      setOutcome({ kind: 'error', text: `${p.label} failed. ${words}` });
    } finally {
      setBusy(false);
    }
  };

  const vars = { queue, group };
  const pause = () =>
    act({ label: 'Pausing', done: 'Paused', expect: (g) => g.paused }, () =>
      request(PauseGroupDocument, vars),
    );
  const resume = () =>
    act({ label: 'Resuming', done: 'Resumed', expect: (g) => !g.paused }, () =>
      request(ResumeGroupDocument, vars),
    );
  const setLimit = (event: Event) => {
    event.preventDefault();
    const text = limitText.trim();
    if (!/^\d+$/.test(text)) {
      setOutcome({ kind: 'error', text: 'A limit is a whole number of jobs, 0 or more.' });
      return;
    }
    const limit = Number(text);
    void act(
      {
        label: `Setting the limit to ${limit}`,
        done: `Limit ${limit}`,
        expect: (g) => g.limit === limit,
      },
      async () => {
        await request(SetLimitDocument, { ...vars, limit });
        setLimitText('');
      },
    );
  };
  const clearLimit = () =>
    act({ label: 'Clearing the limit', done: 'No limit', expect: (g) => g.limit === null }, () =>
      request(ClearLimitDocument, vars),
    );

  const g = live;
  const position = ring.ring.indexOf(group);
  return (
    <section class="panel detail" aria-label={`Group ${group}`} data-testid="detail">
      <div class="panel-head">
        <h2 class="detail-id" title={group}>
          {group}
        </h2>
        {g && <StateBadge group={g} />}
        <span class="grow" />
        <button type="button" class="btn btn-ghost btn-x" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {error && <p class="error pad">{error.words}</p>}
      {!g ? (
        <p class="muted pad">loading…</p>
      ) : (
        <>
          <div class={`reason reason-${(g.blockedBy ?? 'ring').toLowerCase()}`}>
            <div class="reason-label">
              {g.blockedBy === null ? 'Why is it running?' : 'Why is it not running?'}
            </div>
            <p class="reason-text" data-testid="reason">
              {g.reason[0]?.toUpperCase()}
              {g.reason.slice(1)}.
            </p>
          </div>
          <dl class="facts">
            <div>
              <dt>active / limit</dt>
              <dd>
                <LoadBar active={g.active} limit={g.limit} />
              </dd>
            </div>
            <div>
              <dt>pending</dt>
              <dd>{n(g.pending)}</dd>
            </div>
            <div>
              <dt>ring</dt>
              <dd data-testid="detail-ring">
                {position >= 0 ? `#${n(position + 1)} of ${n(ring.ring.length)}` : 'off'}
              </dd>
            </div>
            <div>
              <dt>paused</dt>
              <dd>{g.paused ? 'yes' : 'no'}</dd>
            </div>
          </dl>
          {admin && (
            <div class="actions" data-testid="actions">
              {g.paused ? (
                <button type="button" class="btn btn-primary" disabled={busy} onClick={resume}>
                  Resume
                </button>
              ) : (
                <button type="button" class="btn btn-warn" disabled={busy} onClick={pause}>
                  Pause
                </button>
              )}
              <form class="limit-form" onSubmit={setLimit}>
                <input
                  class="limit-input"
                  type="number"
                  min="0"
                  step="1"
                  inputMode="numeric"
                  placeholder={g.limit === null ? 'limit' : String(g.limit)}
                  aria-label="New limit"
                  value={limitText}
                  onInput={(e) => setLimitText((e.target as HTMLInputElement).value)}
                />
                <button type="submit" class="btn" disabled={busy}>
                  Set limit
                </button>
              </form>
              <button
                type="button"
                class="btn btn-ghost"
                disabled={busy || g.limit === null}
                onClick={clearLimit}
              >
                Clear limit
              </button>
            </div>
          )}
          {outcome && (
            <p class={`outcome outcome-${outcome.kind} pad`} role="status" data-testid="outcome">
              {outcome.text}
            </p>
          )}
        </>
      )}
    </section>
  );
}
