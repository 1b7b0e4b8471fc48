/**
 * The console: queue list on the left; for the chosen queue, its totals and throughput, the
 * ring live, the groups table and the chosen group's detail with its actions.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type ApiError,
  authRequired,
  getToken,
  type LinkState,
  onLink,
  onUnauthorized,
  request,
  resetLive,
  setToken,
} from './api';
import { GroupDetail } from './components/GroupDetail';
import { GroupsTable } from './components/GroupsTable';
import { Header } from './components/Header';
import { Kpis } from './components/Kpis';
import { QueueList } from './components/QueueList';
import { RingPanel } from './components/RingPanel';
import { type Sample, Throughput } from './components/Throughput';
import { TokenPrompt } from './components/TokenPrompt';
import {
  type CountsFragment,
  type GroupDetailFragment,
  QueueListDocument,
  type QueueListQuery,
  QueuePulseDocument,
  type Role,
  ViewerDocument,
} from './gql/graphql';
import { usePoll, useRing, useRoute, useThrottled } from './hooks';

/** How often the totals and counters are read (ms). */
const PULSE_MS = 2_000;
/** How much throughput history the chart keeps (ms). */
const HISTORY_MS = 5 * 60_000;

export function App() {
  const [needToken, setNeedToken] = useState(authRequired && getToken() === null);
  // Bumped when the token changes: every subscription and read starts over.
  const [epoch, setEpoch] = useState(0);
  // Bumped when the live connection comes back: HTTP-read panels read again.
  const [resync, setResync] = useState(0);
  const [link, setLink] = useState<LinkState>('connecting');
  const [role, setRole] = useState<Role | null>(null);
  const [queues, setQueues] = useState<QueueListQuery['queues'] | null>(null);
  const [httpError, setHttpError] = useState<ApiError | null>(null);
  const [route, navigate] = useRoute();

  useEffect(() => onUnauthorized(() => setNeedToken(true)), []);
  useEffect(
    () =>
      onLink((state, resumed) => {
        setLink(state);
        if (resumed) setResync((r) => r + 1);
      }),
    [],
  );

  const ready = !needToken;
  useEffect(() => {
    if (!ready) return;
    request(ViewerDocument, {}).then(
      (data) => setRole(data.viewer.role),
      (error: ApiError) => setHttpError(error),
    );
  }, [ready, epoch]);

  usePoll(
    async () => {
      if (!ready) return;
      try {
        const data = await request(QueueListDocument, {});
        setQueues(data.queues);
        setHttpError(null);
      } catch (error) {
        setHttpError(error as ApiError);
      }
    },
    5_000,
    [ready, epoch, resync],
  );

  // The chosen queue: from the address, else the first one.
  const queue = route.queue ?? queues?.[0]?.name ?? null;
  const group = route.queue === queue ? route.group : null;

  const ring = useRing(ready ? queue : null, epoch);
  // The ring moving is a hint that totals and rows moved too: read them again, at most 1/s.
  const ringTick = useThrottled(ring.version, 1_000);

  // Totals and throughput counters of the chosen queue.
  const [counts, setCounts] = useState<CountsFragment | null>(null);
  const [pulseAt, setPulseAt] = useState(0);
  const [samples, setSamples] = useState<Sample[]>([]);
  const samplesFor = useRef<string | null>(null);
  usePoll(
    async () => {
      if (!ready || !queue) return;
      try {
        const data = await request(QueuePulseDocument, { queue });
        const now = Date.now();
        setCounts(data.queue.counts);
        setPulseAt(now);
        if (samplesFor.current !== queue) {
          samplesFor.current = queue;
          setSamples([{ at: now, ...data.queue.stats }]);
        } else {
          setSamples((prev) =>
            [...prev, { at: now, ...data.queue.stats }].filter((s) => now - s.at <= HISTORY_MS),
          );
        }
        setHttpError(null);
      } catch (error) {
        setHttpError(error as ApiError);
      }
    },
    PULSE_MS,
    [ready, queue, epoch, ringTick],
  );

  // The chosen group as `groupChanged` last said: fresher than any page read, so the table
  // shows it too.
  const [liveGroup, setLiveGroup] = useState<GroupDetailFragment | null>(null);

  const acceptToken = (token: string, accepted: Role) => {
    setToken(token);
    resetLive();
    setRole(accepted);
    setNeedToken(false);
    setHttpError(null);
    setEpoch((e) => e + 1);
  };
  const signOut = () => {
    setToken(null);
    resetLive();
    setRole(null);
    setNeedToken(true);
  };

  const select = (id: string | null) => navigate({ queue, group: id });

  return (
    <div class="shell">
      <Header
        link={needToken ? null : link}
        role={role}
        httpError={httpError}
        signedIn={getToken() !== null}
        onSignOut={signOut}
      />
      {!needToken && link === 'reconnecting' && (
        <div class="banner" role="status" data-testid="reconnecting">
          The live connection to the server was lost. Reconnecting… what you see may be out of date
          until it is back.
        </div>
      )}
      {needToken ? (
        <TokenPrompt onAccepted={acceptToken} />
      ) : (
        <div class="body">
          <QueueList
            queues={queues}
            selected={queue}
            onSelect={(name) => navigate({ queue: name, group: null })}
          />
          {queue ? (
            <main class="main">
              <div class="queue-head">
                <h1 class="queue-title">{queue}</h1>
                <Kpis
                  counts={counts}
                  samples={samples}
                  onRing={ring.ready ? ring.ring.length : null}
                />
              </div>
              <RingPanel state={ring} selected={group} onSelect={select} />
              <div class="split">
                <GroupsTable
                  key={`${queue}:${epoch}`}
                  queue={queue}
                  selected={group}
                  onSelect={select}
                  refresh={`${resync}:${pulseAt}`}
                  live={liveGroup?.id === group ? liveGroup : null}
                />
                <aside class="side">
                  <GroupDetail
                    key={`${queue}:${group ?? ''}:${epoch}`}
                    queue={queue}
                    group={group}
                    admin={role === 'ADMIN'}
                    ring={ring}
                    onClose={() => select(null)}
                    onLive={setLiveGroup}
                  />
                  <Throughput samples={samples} />
                </aside>
              </div>
            </main>
          ) : (
            <main class="main empty">
              {queues === null ? (
                <p>Loading queues…</p>
              ) : (
                <div class="empty-state">
                  <h1>No queues yet</h1>
                  <p>
                    A queue appears once a job is enqueued to it or a group in it is steered. Try{' '}
                    <code>npm run demo</code>, or enqueue through <a href="/graphql">GraphiQL</a>.
                  </p>
                </div>
              )}
            </main>
          )}
        </div>
      )}
    </div>
  );
}
