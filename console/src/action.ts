/**
 * An operator action as the console runs it (the GroupDetail habit, for the job views): say what
 * is being done, send it, then read back until a read shows it — only then is it called done. A
 * refusal is said in words. Long actions (bulk requeue and removal) report their progress.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

/** How long an action waits to be seen in a read before saying it is not seen yet (ms). */
export const CONFIRM_MS = 8_000;
/** Between two reads that look for an accepted action (ms). */
const CONFIRM_EVERY_MS = 300;

export type Outcome = { kind: 'waiting' | 'ok' | 'error' | 'slow'; text: string };

export interface Action {
  outcome: Outcome | null;
  busy: boolean;
  /**
   * Run one action. `send` does it (and may report progress), resolving to what was accepted,
   * in words; `confirm` reads Redis again and resolves to the sentence that confirms it, or null
   * while the read does not show it yet (it is tried again for {@link CONFIRM_MS}).
   */
  run: (
    label: string,
    send: (progress: (text: string) => void) => Promise<string>,
    confirm: () => Promise<string | null>,
    /** Called once a read confirmed it (or it was sent and refused): read the panels again. */
    after?: () => void,
  ) => Promise<void>;
  /** Say something without running anything (an input refused before sending). */
  say: (outcome: Outcome | null) => void;
  /** Stop a bulk action between two of its calls (`stopping()` tells `send` to stop). */
  stop: () => void;
  stopping: () => boolean;
}

export function useAction(): Action {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const alive = useRef(true);
  const stopFlag = useRef(false);
  const runId = useRef(0);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const show = (id: number, next: Outcome) => {
    if (alive.current && runId.current === id) setOutcome(next);
  };

  const run: Action['run'] = async (label, send, confirm, after = () => {}) => {
    runId.current += 1;
    const id = runId.current;
    stopFlag.current = false;
    setBusy(true);
    show(id, { kind: 'waiting', text: `${label}…` });
    let accepted: string;
    try {
      accepted = await send((text) => show(id, { kind: 'waiting', text }));
    } catch (failure) {
      const words =
        failure instanceof ApiError
          ? failure.words
          : failure instanceof Error
            ? `${failure.message[0]?.toUpperCase() ?? ''}${failure.message.slice(1)}.`
            : String(failure);
      show(id, { kind: 'error', text: `${label} failed. ${words}` });
      if (alive.current) setBusy(false);
      after();
      return;
    }
    if (alive.current) setBusy(false);
    show(id, { kind: 'waiting', text: `${accepted}: accepted, reading it back…` });
    const deadline = Date.now() + CONFIRM_MS;
    for (;;) {
      let seen: string | null = null;
      try {
        seen = await confirm();
      } catch {
        // A failed read confirms nothing; the next one may.
      }
      if (seen !== null) {
        show(id, { kind: 'ok', text: `${accepted} — confirmed: ${seen}` });
        after();
        return;
      }
      if (Date.now() > deadline || !alive.current || runId.current !== id) break;
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_EVERY_MS));
    }
    show(id, {
      kind: 'slow',
      text: `${accepted}: accepted, but not seen in a read yet (is the server reachable?).`,
    });
    after();
  };

  return {
    outcome,
    busy,
    run,
    say: (next) => {
      runId.current += 1;
      setOutcome(next);
    },
    stop: () => {
      stopFlag.current = true;
    },
    stopping: () => stopFlag.current,
  };
}
