/**
 * A group's rate limit on its detail panel (DESIGN.md §3 "Rate limits"): a token bucket of
 * `max` tokens per window, `burst` held at most, and while it is short of its head job's cost,
 * when the token it needs comes. An admin sets it (tokens per window of so many seconds, and
 * optionally the burst: `max` when left empty) or clears it; the mutation's answer is shown at
 * once and the panels re-read the snapshot.
 */
import { useState } from 'preact/hooks';
import { Limits } from '../../../src/lanes/limits.js';
import { ApiError, answered, request } from '../api';
import { clockMs, duration, n } from '../format';
import {
  ConsoleClearRateLimitDocument,
  ConsoleSetRateLimitDocument,
  type GroupDetailFragment,
} from '../gql/graphql';
import { CountInput } from './CountInput';

/** The bounds the server checks (DESIGN.md §5), checked here first to say it in words. */
const MAX_CLAIMS = Limits.maxRateClaims;
const MAX_WINDOW_MS = Limits.maxDelayMs;

export function RateLimitControl(props: {
  queue: string;
  group: string;
  state: GroupDetailFragment;
  admin: boolean;
  /** Read a new snapshot soon: an action was accepted. */
  refresh: () => void;
}) {
  const { queue, group, state: g, admin, refresh } = props;
  const [maxText, setMaxText] = useState('');
  const [secondsText, setSecondsText] = useState('');
  const [burstText, setBurstText] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);

  const run = async (label: string, call: () => Promise<GroupDetailFragment>) => {
    setBusy(true);
    setOutcome(null);
    try {
      const after = await call();
      setOutcome({ ok: true, text: `${label}: ${describe(after)}.` });
      refresh();
    } catch (failure) {
      const words = failure instanceof ApiError ? failure.words : String(failure);
      setOutcome({ ok: false, text: `${label} failed. ${words}` });
    } finally {
      setBusy(false);
    }
  };

  const set = (event: Event) => {
    event.preventDefault();
    const max = Number(maxText.trim());
    const windowMs = Math.round(Number(secondsText.trim()) * 1000);
    if (!/^\d+$/.test(maxText.trim()) || max < 1 || max > MAX_CLAIMS) {
      setOutcome({
        ok: false,
        text: `Tokens per window is a whole number, 1 to ${n(MAX_CLAIMS)}.`,
      });
      return;
    }
    const burst = burstText.trim() === '' ? undefined : Number(burstText.trim());
    if (
      burst !== undefined &&
      (!/^\d+$/.test(burstText.trim()) || burst < 1 || burst > MAX_CLAIMS)
    ) {
      setOutcome({
        ok: false,
        text: `Burst is a whole number, 1 to ${n(MAX_CLAIMS)} (empty: tokens per window).`,
      });
      return;
    }
    if (!Number.isFinite(windowMs) || windowMs < 1 || windowMs > MAX_WINDOW_MS) {
      setOutcome({
        ok: false,
        text: 'The window is a number of seconds, 0.001 to 2,592,000 (30 days).',
      });
      return;
    }
    void run('Setting the rate limit', async () => {
      const answer = answered(
        (await request(ConsoleSetRateLimitDocument, { queue, group, max, windowMs, burst }))
          .setRateLimit,
        'setRateLimit',
      );
      setMaxText('');
      setSecondsText('');
      setBurstText('');
      return answer;
    });
  };
  const clear = () =>
    run('Clearing the rate limit', async () =>
      answered(
        (await request(ConsoleClearRateLimitDocument, { queue, group })).clearRateLimit,
        'clearRateLimit',
      ),
    );

  return (
    <div class="rate-limit" data-testid="rate-limit">
      <span class="rate-now" data-testid="rate-now">
        {describe(g)}
      </span>
      {admin && (
        <>
          <form class="limit-form" onSubmit={set}>
            <CountInput
              min={1}
              placeholder={g.rateLimit ? String(g.rateLimit.max) : 'tokens'}
              label="Tokens per window"
              value={maxText}
              onValue={setMaxText}
            />
            <input
              class="limit-input"
              type="number"
              min="0.001"
              step="any"
              placeholder={g.rateLimit ? String(Number(g.rateLimit.windowMs) / 1000) : 'seconds'}
              aria-label="Window (seconds)"
              value={secondsText}
              onInput={(e) => setSecondsText((e.target as HTMLInputElement).value)}
            />
            <CountInput
              min={1}
              placeholder={g.rateLimit ? String(g.rateLimit.burst) : 'burst'}
              label="Burst"
              value={burstText}
              onValue={setBurstText}
            />
            <button type="submit" class="btn" disabled={busy}>
              Set rate
            </button>
          </form>
          <button
            type="button"
            class="btn btn-ghost"
            disabled={busy || g.rateLimit === null}
            onClick={clear}
          >
            Clear rate
          </button>
        </>
      )}
      {outcome && (
        <p class={`outcome outcome-${outcome.ok ? 'ok' : 'error'}`} role="status">
          {outcome.text}
        </p>
      )}
    </div>
  );
}

/**
 * "rate 100 per 1 min, burst 200; next token at 14:03:07.412" or "no rate limit".
 */
function describe(g: Pick<GroupDetailFragment, 'rateLimit' | 'rateLimitedUntil'>): string {
  if (!g.rateLimit) return 'no rate limit';
  const rate = `rate ${n(g.rateLimit.max)} per ${duration(Number(g.rateLimit.windowMs))}, burst ${n(g.rateLimit.burst)}`;
  if (!g.rateLimitedUntil) return rate;
  return `${rate}; next token at ${clockMs(Date.parse(String(g.rateLimitedUntil)))}`;
}
