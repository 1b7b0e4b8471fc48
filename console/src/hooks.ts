/** Small hooks shared by the console's panels. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, subscribe } from './api';
import { WatchRingDocument, type WatchRingSubscription } from './gql/graphql';

/** `#queue=…&group=…`: the console's place, so a link or a reload lands on the same view. */
export interface Route {
  queue: string | null;
  group: string | null;
}

function readRoute(): Route {
  const params = new URLSearchParams(location.hash.slice(1));
  return { queue: params.get('queue'), group: params.get('group') };
}

export function useRoute(): [Route, (next: Route) => void] {
  const [route, setRoute] = useState<Route>(readRoute);
  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const navigate = (next: Route) => {
    const params = new URLSearchParams();
    if (next.queue) params.set('queue', next.queue);
    if (next.group) params.set('group', next.group);
    history.replaceState(null, '', `#${params.toString()}`);
    setRoute(next);
  };
  return [route, navigate];
}

/**
 * Call `run` now and every `ms` while the tab is visible, restarting when `deps` change. A run
 * never overlaps the previous one.
 */
export function usePoll(run: () => Promise<void>, ms: number, deps: unknown[]): void {
  const latest = useRef(run);
  latest.current = run;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState !== 'hidden') {
        try {
          await latest.current();
        } catch {
          // `run` reports its own errors; the poll goes on.
        }
      }
      if (!stopped) timer = setTimeout(tick, ms);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [ms, ...deps]);
}

/** How long a join or leave stays highlighted on the ring (ms). */
export const FLASH_MS = 2_000;

/** A join or leave of the ring, as seen by this console. */
export interface RingEvent {
  at: number;
  added: string[];
  removed: string[];
}

export interface RingState {
  /** The ring, head first. */
  ring: string[];
  /** Recently joined ids → when. */
  joined: Map<string, number>;
  /** Recently left ids → when and where they stood. */
  left: Map<string, { at: number; index: number }>;
  /** Latest joins and leaves, newest first. */
  log: RingEvent[];
  /** Bumped on every event (a SNAPSHOT, RESYNC or CHANGE). */
  version: number;
  /** False until the first event (SNAPSHOT) arrived. */
  ready: boolean;
  error: ApiError | null;
}

const emptyRing = (): RingState => ({
  ring: [],
  joined: new Map(),
  left: new Map(),
  log: [],
  version: 0,
  ready: false,
  error: null,
});

/**
 * The ring of `queue`, live from `ringChanged`. Joins and leaves are computed against the ring
 * this console last showed, so a SNAPSHOT after a reconnect shows what changed meanwhile.
 */
export function useRing(queue: string | null, epoch: number): RingState {
  const [state, setState] = useState<RingState>(emptyRing);
  useEffect(() => {
    setState(emptyRing());
    if (!queue) return;
    let last: string[] | null = null;
    const stop = subscribe(
      WatchRingDocument,
      { queue },
      (data: WatchRingSubscription) => {
        const ring = data.ringChanged.ring;
        const now = Date.now();
        // Diff against the ring shown last; the first event (SNAPSHOT) is the baseline.
        const previous = last;
        last = ring;
        let added: string[] = [];
        let removed: { id: string; index: number }[] = [];
        if (previous !== null) {
          const before = new Set(previous);
          const after = new Set(ring);
          added = ring.filter((id) => !before.has(id));
          removed = previous.map((id, index) => ({ id, index })).filter(({ id }) => !after.has(id));
        }
        setState((prev) => {
          const joined = new Map([...prev.joined].filter(([, at]) => now - at < FLASH_MS));
          const left = new Map([...prev.left].filter(([, v]) => now - v.at < FLASH_MS));
          for (const id of added) {
            joined.set(id, now);
            left.delete(id);
          }
          for (const { id, index } of removed) left.set(id, { at: now, index });
          const log =
            added.length > 0 || removed.length > 0
              ? [{ at: now, added, removed: removed.map((r) => r.id) }, ...prev.log].slice(0, 60)
              : prev.log;
          return { ring, joined, left, log, version: prev.version + 1, ready: true, error: null };
        });
      },
      (error) => setState((prev) => ({ ...prev, error })),
    );
    return stop;
  }, [queue, epoch]);

  // Let highlights fade: one re-render after the last one expires.
  const { joined, left } = state;
  useEffect(() => {
    if (joined.size === 0 && left.size === 0) return;
    const timer = setTimeout(
      () =>
        setState((prev) => {
          const now = Date.now();
          return {
            ...prev,
            joined: new Map([...prev.joined].filter(([, at]) => now - at < FLASH_MS)),
            left: new Map([...prev.left].filter(([, v]) => now - v.at < FLASH_MS)),
          };
        }),
      FLASH_MS,
    );
    return () => clearTimeout(timer);
  }, [joined, left]);
  return state;
}

/** A value that follows `value` at most once per `ms`. */
export function useThrottled<T>(value: T, ms: number): T {
  const [shown, setShown] = useState(value);
  const lastAt = useRef(0);
  useEffect(() => {
    const wait = lastAt.current + ms - Date.now();
    if (wait <= 0) {
      lastAt.current = Date.now();
      setShown(value);
      return;
    }
    const timer = setTimeout(() => {
      lastAt.current = Date.now();
      setShown(value);
    }, wait);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return shown;
}
