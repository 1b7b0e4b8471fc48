/**
 * One group, from the same snapshot as every other panel: its numbers, the answer to "why does
 * it get no more turns?" (`Group.reason`, or where it stands on the ring when it does get
 * turns), and for an admin the actions — pause, resume, set or clear the limit. An action's
 * result is shown only once a snapshot read after it shows it; a refusal is shown in words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, answered, request } from '../api';
import { clockMs, n, visibleId } from '../format';
import {
  ClearLimitDocument,
  type GroupDetailFragment,
  PauseGroupDocument,
  ResumeGroupDocument,
  SetLimitDocument,
} from '../gql/graphql';
import type { Route } from '../hooks';
import { CountInput } from './CountInput';
import { GroupJobs } from './GroupJobs';
import { GroupMaxPending } from './GroupMaxPending';
import { GroupReserve } from './GroupReserve';
import { LoadBar, StateBadge } from './GroupsTable';
import { GroupWeight } from './GroupWeight';
import { HistoryPanel } from './HistoryPanel';
import { Id } from './Id';
import { RateLimitControl } from './RateLimitControl';
import { TimedOverrides } from './TimedOverrides';

/** How long an action waits to be seen in a read before saying it is not seen yet (ms). */
const CONFIRM_MS = 8_000;

interface Pending {
  label: string;
  done: string;
  /** Only a snapshot read after the action was accepted may confirm it (Redis clock, ms). */
  after: number;
  expect: (g: GroupDetailFragment) => boolean;
}

type Outcome = { kind: 'waiting' | 'ok' | 'error' | 'slow'; text: string };

export function GroupDetail(props: {
  queue: string;
  group: string | null;
  /** The chosen group in the snapshot shown (null before it is read). */
  state: GroupDetailFragment | null;
  /** The snapshot's ring head (its first RING_WINDOW groups), its length, and its moment (ms, Redis clock). */
  ring: string[] | null;
  ringSize: number;
  at: number | null;
  admin: boolean;
  onClose: () => void;
  /** Read a new snapshot soon: an action was accepted. */
  refresh: () => void;
  /** This browser's clock minus the Redis clock (ms), and now on this browser's clock. */
  skew: number;
  now: number;
  /** Where its jobs' links come back to. */
  route: Route;
}) {
  const {
    queue,
    group,
    state: g,
    ring,
    ringSize,
    at,
    admin,
    onClose,
    refresh,
    skew,
    now,
    route,
  } = props;
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [limitText, setLimitText] = useState('');
  const [busy, setBusy] = useState(false);
  const pending = useRef<Pending | null>(null);
  const slowTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  // Each snapshot read after an accepted action may confirm it.
  useEffect(() => {
    const p = pending.current;
    if (!p || !g || at === null || at < p.after || !p.expect(g)) return;
    pending.current = null;
    clearTimeout(slowTimer.current);
    setOutcome({ kind: 'ok', text: `${p.done} — confirmed: Redis shows it at ${clockMs(at)}.` });
  }, [g, at]);

  useEffect(() => () => clearTimeout(slowTimer.current), []);

  if (!group) {
    return (
      <section class="panel detail" aria-label="Group">
        <div class="panel-head">
          <h2>Group</h2>
        </div>
        <p class="muted pad">
          Pick a group on the ring or in the table to see why it does or does not get turns
          {admin ? ', and to steer it' : ''}.
        </p>
      </section>
    );
  }

  const act = async (p: Omit<Pending, 'after'>, run: () => Promise<GroupDetailFragment>) => {
    pending.current = null;
    clearTimeout(slowTimer.current);
    setBusy(true);
    setOutcome({ kind: 'waiting', text: `${p.label}…` });
    try {
      // Reads from before the action was sent cannot confirm it; the mutation's own answer
      // is not what the panels show, so a snapshot read after it must.
      const sentAt = at ?? 0;
      await run();
      const entry: Pending = { ...p, after: sentAt + 1 };
      pending.current = entry;
      setOutcome({ kind: 'waiting', text: `${p.label}: accepted, reading it back…` });
      refresh();
      slowTimer.current = setTimeout(() => {
        if (pending.current !== entry) return;
        setOutcome({
          kind: 'slow',
          text: `${p.label}: accepted, but not seen in a read yet (is the server reachable?).`,
        });
      }, CONFIRM_MS);
    } catch (failure) {
      const words = failure instanceof ApiError ? failure.words : String(failure);
      setOutcome({ kind: 'error', text: `${p.label} failed. ${words}` });
    } finally {
      setBusy(false);
    }
  };

  const vars = { queue, group };
  const pause = () =>
    act({ label: 'Pausing', done: 'Paused', expect: (x) => x.paused }, async () =>
      answered((await request(PauseGroupDocument, vars)).pauseGroup, 'pauseGroup'),
    );
  const resume = () =>
    act({ label: 'Resuming', done: 'Resumed', expect: (x) => !x.paused }, async () =>
      answered((await request(ResumeGroupDocument, vars)).resumeGroup, 'resumeGroup'),
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
        expect: (x) => x.limit === limit,
      },
      async () => {
        const answer = answered(
          (await request(SetLimitDocument, { ...vars, limit })).setLimit,
          'setLimit',
        );
        setLimitText('');
        return answer;
      },
    );
  };
  const clearLimit = () =>
    act(
      { label: 'Clearing the limit', done: 'No limit', expect: (x) => x.limit === null },
      async () => answered((await request(ClearLimitDocument, vars)).clearLimit, 'clearLimit'),
    );

  const position = ring ? ring.indexOf(group) : -1;
  const onRing = g !== null && g.blockedBy === null;
  return (
    <section class="panel detail" aria-label={`Group ${visibleId(group)}`} data-testid="detail">
      <div class="panel-head">
        <h2 class="detail-id" title={visibleId(group)}>
          <Id value={group} />
        </h2>
        {g && <StateBadge group={g} />}
        <span class="grow" />
        <button type="button" class="btn btn-ghost btn-x" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </div>
      {!g ? (
        <p class="muted pad">reading…</p>
      ) : (
        <>
          <div class={`reason reason-${(g.blockedBy ?? 'ring').toLowerCase()}`}>
            <div class="reason-label" data-testid="reason-label">
              {onRing ? 'When is its next turn?' : 'Why does it get no more turns?'}
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
                {position >= 0
                  ? `#${n(position + 1)} of ${n(ringSize)}`
                  : g?.state === 'READY' && ring !== null && ring.length < ringSize
                    ? `after #${n(ring.length)} of ${n(ringSize)}`
                    : 'off'}
              </dd>
            </div>
            <div>
              <dt>paused</dt>
              <dd>{g.paused ? 'yes' : 'no'}</dd>
            </div>
          </dl>
          <TimedOverrides
            queue={queue}
            group={group}
            g={g}
            admin={admin}
            refresh={refresh}
            skew={skew}
            now={now}
          />
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
                <CountInput
                  min={0}
                  placeholder={g.limit === null ? 'limit' : String(g.limit)}
                  label="New limit"
                  value={limitText}
                  onValue={setLimitText}
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
          <GroupReserve
            queue={queue}
            group={group}
            reserve={g.reserve}
            admin={admin}
            refresh={refresh}
          />
          <GroupMaxPending
            queue={queue}
            group={group}
            maxPending={g.maxPending ?? null}
            admin={admin}
            refresh={refresh}
          />
          <RateLimitControl queue={queue} group={group} state={g} admin={admin} refresh={refresh} />
          {outcome && (
            <p class={`outcome outcome-${outcome.kind} pad`} role="status" data-testid="outcome">
              {outcome.text}
            </p>
          )}
          <GroupWeight
            queue={queue}
            group={group}
            weight={g.weight}
            admin={admin}
            refresh={refresh}
          />
          <GroupJobs queue={queue} group={group} tick={at} skew={skew} now={now} route={route} />
          <HistoryPanel queue={queue} group={group} />
        </>
      )}
    </section>
  );
}
