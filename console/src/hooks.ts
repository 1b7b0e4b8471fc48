/** Small hooks shared by the console's panels, and the one source of what they show. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, onLink, request, subscribe } from './api';
import {
  type CountsFragment,
  type GroupDetailFragment,
  GroupPulseDocument,
  type PageFragment,
  QueueViewDocument,
  type QueueViewQuery,
  RingPulseDocument,
} from './gql/graphql';

/** The queue's views besides the ring and groups: its job lists, queue-wide, and its schedules. */
export type QueueView = 'active' | 'completed' | 'dead' | 'delayed' | 'schedules';

/**
 * `#queue=…&group=…&view=…&job=…`: the console's place, so a link or a reload lands on the same
 * view. `view` picks the Active, Completed, Dead or Delayed list instead of the ring and groups;
 * `job` opens one job's detail over whichever view it was opened from (closing it goes back
 * there).
 */
export interface Route {
  queue: string | null;
  group: string | null;
  view: QueueView | null;
  job: string | null;
}

const VIEWS: readonly string[] = [
  'active',
  'completed',
  'dead',
  'delayed',
  'schedules',
] satisfies QueueView[];

function readRoute(): Route {
  const params = new URLSearchParams(location.hash.slice(1));
  const view = params.get('view');
  return {
    queue: params.get('queue'),
    group: params.get('group'),
    view: view !== null && VIEWS.includes(view) ? (view as QueueView) : null,
    job: params.get('job'),
  };
}

/** The address of `route` (`#queue=…`), for links: a job or a view can be opened in a new tab. */
export function routeHref(route: Partial<Route>): string {
  const params = new URLSearchParams();
  if (route.queue) params.set('queue', route.queue);
  if (route.group) params.set('group', route.group);
  if (route.view) params.set('view', route.view);
  if (route.job) params.set('job', route.job);
  return `#${params.toString()}`;
}

export function useRoute(): [Route, (next: Partial<Route>) => void] {
  const [route, setRoute] = useState<Route>(readRoute);
  useEffect(() => {
    const onHash = () => setRoute(readRoute());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  // What is not named is dropped: choosing a queue or a group leaves a job or a view behind.
  const navigate = (next: Partial<Route>) => {
    const full: Route = {
      queue: next.queue ?? null,
      group: next.group ?? null,
      view: next.view ?? null,
      job: next.job ?? null,
    };
    history.replaceState(null, '', routeHref(full));
    setRoute(full);
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

/** The current time (ms), re-rendering every `ms`. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** A snapshot is read at least this often (ms), whether or not the live feed hinted. */
export const PULSE_MS = 2_000;
/** …and at most this often (ms) however busy the feed: the ring stays readable under churn. */
export const MIN_READ_GAP_MS = 500;
/** How long a group that joined the ring stays highlighted (ms). */
export const FLASH_MS = 2_000;
/** How much live throughput the chart keeps (ms): its window, an hour. */
const HISTORY_MS = 60 * 60_000;
/** Counters are sampled for the chart at most this often (ms): a rate over a longer span. */
const SAMPLE_MS = 1_800;
/** Joins and leaves kept for the log. */
const LOG_SIZE = 40;
/**
 * Groups of the ring read from its head (`snapshot(ringFirst)`), the chips drawn: past them only
 * the ring's size is read, so a read costs the same at 100,000 groups as at 100.
 */
export const RING_WINDOW = 400;
/** Ids of the joins and leaves named per ring event (the log names 6 a line, and counts). */
const NAMED = 6;

/** One read of the counters (Redis clock). */
export interface Sample {
  at: number;
  enqueued: number;
  claimed: number;
  completed: number;
  retried: number;
  reaped: number;
  dead: number;
}

/** One moment of the chosen queue (`Queue.snapshot`): every panel is drawn from it. */
export interface View {
  queue: string;
  /** False for a queue never used: its zeros are not an empty queue's. */
  known: boolean;
  /** When Redis was read (ms, Redis clock). */
  at: number;
  /** When the answer arrived (ms, this browser's clock). */
  receivedAt: number;
  /** The ring's first {@link RING_WINDOW} groups, head first. */
  ring: string[];
  /** The ring's length. */
  ringSize: number;
  /** The whole queue is paused (`pauseQueue`): nothing is claimed from any group. */
  paused: boolean;
  counts: CountsFragment;
  page: PageFragment;
  /** The chosen group, read in the same moment (null when none is chosen). */
  group: GroupDetailFragment | null;
}

/** The joins and leaves of the ring between two snapshots shown (as the live feed told them). */
export interface RingEvent {
  /** The later snapshot's moment (ms, Redis clock). */
  at: number;
  /** The first few that joined, and how many did. */
  added: string[];
  addedCount: number;
  removed: string[];
  removedCount: number;
}

export interface QueueViewState {
  /** The latest snapshot of the chosen queue; null before the first arrives. */
  view: View | null;
  /** The last read failed (then `view` is older): why. */
  error: ApiError | null;
  /** Joins and leaves between successive snapshots, newest first. */
  log: RingEvent[];
  /** Groups that joined in the last {@link FLASH_MS} → when (this browser's clock). */
  joined: Map<string, number>;
  /** Counter reads for the throughput chart, oldest first. */
  samples: Sample[];
}

/** What to read: the queue, its chosen group and the groups page shown. */
export interface ViewParams {
  queue: string | null;
  group: string | null;
  first: number;
  after: string | null;
  prefix: string;
}

const emptyState = (): QueueViewState => ({
  view: null,
  error: null,
  log: [],
  joined: new Map(),
  samples: [],
});

/**
 * The chosen queue as one snapshot at a time: ring, totals, counters, the groups page
 * and the chosen group are read together by `Queue.snapshot` (one Redis script), so what the
 * panels show at any moment is one state, and its time is shown. The live feed (`ringChanged`,
 * `groupChanged`) only says when to read again — at most every {@link MIN_READ_GAP_MS} — and a
 * read happens every {@link PULSE_MS} regardless. Reads never overlap; an answer for parameters
 * no longer shown is dropped.
 * @returns the state, and `refresh()` to read again soon (after an action)
 */
export function useQueueView(
  params: ViewParams,
  epoch: number,
  enabled: boolean,
): [QueueViewState, () => void] {
  const [state, setState] = useState<QueueViewState>(emptyState);
  const kickRef = useRef<() => void>(() => {});
  const { queue, group, first, after, prefix } = params;

  // The queue changed: start over (its ring log and throughput history are another queue's).
  useEffect(() => setState(emptyState()), [queue, epoch]);

  useEffect(() => {
    if (!enabled || !queue) return;
    let stopped = false;
    let inFlight = false;
    let dirty = true;
    let lastStart = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Joins and leaves the feed told of since the last snapshot: the next one's log line.
    let told: Omit<RingEvent, 'at'> = { added: [], addedCount: 0, removed: [], removedCount: 0 };

    const schedule = () => {
      if (stopped || inFlight) return;
      const now = Date.now();
      const wait = dirty
        ? Math.max(0, lastStart + MIN_READ_GAP_MS - now)
        : Math.max(0, lastStart + PULSE_MS - now);
      clearTimeout(timer);
      timer = setTimeout(read, wait);
    };
    const kick = () => {
      dirty = true;
      schedule();
    };
    kickRef.current = kick;

    const read = async () => {
      if (stopped) return;
      if (document.visibilityState === 'hidden') {
        lastStart = Date.now();
        schedule();
        return;
      }
      inFlight = true;
      dirty = false;
      lastStart = Date.now();
      try {
        // Told before the read starts: shown with it (a later one goes with the next read).
        const seen = told;
        told = { added: [], addedCount: 0, removed: [], removedCount: 0 };
        const data = await request(QueueViewDocument, {
          queue,
          first,
          after,
          prefix: prefix === '' ? null : prefix,
          ids: group ? [group] : [],
          ringFirst: RING_WINDOW,
        });
        if (!stopped) setState((prev) => next(prev, queue, group, data, seen));
      } catch (error) {
        if (!stopped) setState((prev) => ({ ...prev, error: error as ApiError }));
      } finally {
        inFlight = false;
        schedule();
      }
    };

    const stops = [
      subscribe(
        RingPulseDocument,
        { queue, named: NAMED },
        ({ ringChanged: e }) => {
          // A SNAPSHOT or RESYNC lists the ring as added: a hint, not joins.
          if (e.reason === 'CHANGE') {
            told = {
              added: [...told.added, ...e.added].slice(0, NAMED),
              addedCount: told.addedCount + e.addedCount,
              removed: [...told.removed, ...e.removed].slice(0, NAMED),
              removedCount: told.removedCount + e.removedCount,
            };
          }
          kick();
        },
        () => {},
      ),
      ...(group ? [subscribe(GroupPulseDocument, { queue, group }, kick, () => {})] : []),
      onLink((link) => link === 'live' && kick()),
    ];
    const onVisible = () => document.visibilityState === 'visible' && kick();
    document.addEventListener('visibilitychange', onVisible);
    schedule();
    return () => {
      stopped = true;
      clearTimeout(timer);
      kickRef.current = () => {};
      for (const stop of stops) stop();
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [enabled, queue, group, first, after, prefix, epoch]);

  // Let the "joined" highlight fade: one re-render after the last one expires.
  const { joined } = state;
  useEffect(() => {
    if (joined.size === 0) return;
    const timer = setTimeout(
      () =>
        setState((prev) => {
          const now = Date.now();
          return {
            ...prev,
            joined: new Map([...prev.joined].filter(([, at]) => now - at < FLASH_MS)),
          };
        }),
      FLASH_MS,
    );
    return () => clearTimeout(timer);
  }, [joined]);

  return [state, () => kickRef.current()];
}

/**
 * The state after a snapshot arrived: the view, the ring's joins and leaves the feed told of
 * since the last one, a chart sample.
 */
function next(
  prev: QueueViewState,
  queue: string,
  group: string | null,
  data: QueueViewQuery,
  told: Omit<RingEvent, 'at'>,
): QueueViewState {
  const s = data.queue.snapshot;
  const receivedAt = Date.now();
  const at = Date.parse(String(s.at));
  // An answer older than the one shown (it cannot be, reads never overlap; but be sure).
  if (prev.view && prev.view.queue === queue && at < prev.view.at) return prev;
  const view: View = {
    queue,
    known: data.queue.known,
    at,
    receivedAt,
    ring: s.ring,
    ringSize: s.ringSize,
    paused: s.queueState === 'PAUSED',
    counts: s.counts,
    page: s.groups,
    group: group ? (s.picked[0] ?? null) : null,
  };
  const joined = new Map([...prev.joined].filter(([, t]) => receivedAt - t < FLASH_MS));
  for (const id of told.added) joined.set(id, receivedAt);
  for (const id of told.removed) joined.delete(id);
  const log =
    told.addedCount + told.removedCount > 0
      ? [{ at, ...told }, ...prev.log].slice(0, LOG_SIZE)
      : prev.log;
  const last = prev.samples.at(-1);
  const samples =
    !last || at - last.at >= SAMPLE_MS
      ? [...prev.samples, { at, ...s.stats }].filter((x) => at - x.at <= HISTORY_MS)
      : prev.samples;
  return { view, error: null, log, joined, samples };
}
