/**
 * The console: queue list on the left; for the chosen queue, its state (running or paused, with
 * Pause/Resume queue for an admin), totals and throughput, the ring, the groups table and the
 * chosen group's detail with its actions, backlog and jobs in flight. Everything about the
 * chosen queue is drawn from one snapshot (`Queue.snapshot`, one Redis script) whose time is
 * shown, read again whenever the live feed says something moved: no two panels ever
 * answer one question differently. The address also picks the queue's Active, Completed, Dead
 * or Delayed view (`&view=`) and a job's detail (`&job=`); their lists are read again with each snapshot,
 * the job followed live (`jobChanged`).
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  type ApiError,
  authRequired,
  getToken,
  type LinkState,
  live,
  onLink,
  onUnauthorized,
  request,
  requestPartial,
  resetLive,
  setToken,
} from './api';
import { ActiveView } from './components/ActiveView';
import { CompletedView } from './components/CompletedView';
import { DeadView } from './components/DeadView';
import { DelayedView } from './components/DelayedView';
import { GroupDetail } from './components/GroupDetail';
import { GroupsTable, usePaging } from './components/GroupsTable';
import { Header } from './components/Header';
import { HistoryPanel } from './components/HistoryPanel';
import { Id } from './components/Id';
import { JobDetail } from './components/JobDetail';
import type { JobsViewProps } from './components/JobsView';
import { Kpis } from './components/Kpis';
import { QueueCap } from './components/QueueCap';
import { QueueControl } from './components/QueueControl';
import { type ListedQueue, listedQueues, QueueList } from './components/QueueList';
import { QueueNav } from './components/QueueNav';
import { RingPanel } from './components/RingPanel';
import { SchedulesView } from './components/SchedulesView';
import { Throughput } from './components/Throughput';
import { TokenPrompt } from './components/TokenPrompt';
import { TopGroups } from './components/TopGroups';
import { WorkersPanel } from './components/WorkersPanel';
import { clockMs, visibleId } from './format';
import { QueueListDocument, type Role, ViewerDocument } from './gql/graphql';
import {
  PULSE_MS,
  type QueueView,
  routeHref,
  useNow,
  usePoll,
  useQueueView,
  useRoute,
} from './hooks';

/** A snapshot older than this (ms) is marked stale: reads have been failing. */
const STALE_MS = 3 * PULSE_MS;

/** The queue's job views, by the address's `view`; each takes the same props. */
const JOB_VIEWS: Record<Exclude<QueueView, 'schedules'>, ComponentType<JobsViewProps>> = {
  active: ActiveView,
  completed: CompletedView,
  dead: DeadView,
  delayed: DelayedView,
};

export function App() {
  const [needToken, setNeedToken] = useState(authRequired && getToken() === null);
  // Bumped when the token changes: every subscription and read starts over.
  const [epoch, setEpoch] = useState(0);
  // Bumped when the live connection comes back: the queue list reads again.
  const [resync, setResync] = useState(0);
  const [link, setLink] = useState<LinkState>('connecting');
  const [role, setRole] = useState<Role | null>(null);
  const [queues, setQueues] = useState<ListedQueue[] | null>(null);
  const [httpError, setHttpError] = useState<ApiError | null>(null);
  const [route, navigate] = useRoute();
  const JobsViewOf =
    route.view === null || route.view === 'schedules' ? null : JOB_VIEWS[route.view];

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
  // Connect the live feed at once: the header says whether the server is there even before
  // any queue exists to watch.
  useEffect(() => {
    if (ready) live();
  }, [ready, epoch]);
  useEffect(() => {
    if (!ready) return;
    request(ViewerDocument, {}).then(
      (data) => setRole(data.viewer.role),
      (error: ApiError) => setHttpError(error),
    );
  }, [ready, epoch]);

  // The chosen queue: from the address, else the first one.
  const queue = route.queue ?? queues?.[0]?.name ?? null;
  // A queue chosen that the list does not hold yet (new since the list was read): read it again.
  const unlisted = queue !== null && queues !== null && !queues.some((q) => q.name === queue);
  usePoll(
    async () => {
      if (!ready) return;
      try {
        // Partial: a queue the server could not read is listed as such, the others with counts.
        const { data, errors } = await requestPartial(QueueListDocument, {});
        const unreadable = errors.flatMap((e) => (e.queue === null ? [] : [e.queue]));
        setQueues(listedQueues(data.queues, unreadable));
        setHttpError(null);
      } catch (error) {
        setHttpError(error as ApiError);
      }
    },
    5_000,
    [ready, epoch, resync, unlisted],
  );

  const group = route.queue === queue ? route.group : null;
  const paging = usePaging(queue);
  const [state, refresh] = useQueueView(
    {
      queue,
      group,
      first: paging.pageSize,
      after: paging.trail.at(-1) ?? null,
      prefix: paging.prefix,
    },
    epoch,
    ready,
  );
  const view = state.view?.queue === queue ? state.view : null;
  const now = useNow(1_000);
  // This browser's clock minus the Redis clock (ms, roughly: the read's time in flight).
  const skew = view ? view.receivedAt - view.at : 0;

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
        // With a queue shown, its snapshot reads (every 2 s at most) say best whether the server
        // answers; the queue list is read less often.
        httpError={queue ? (state.error ?? (view ? null : httpError)) : httpError}
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
            selectedCounts={view?.counts ?? null}
            onSelect={(name) => navigate({ queue: name, group: null })}
          />
          {queue ? (
            <main class="main">
              <div class="queue-head">
                <h1 class="queue-title">
                  <Id value={queue} />
                </h1>
                <QueueControl
                  queue={queue}
                  paused={view ? view.paused : null}
                  at={view?.at ?? null}
                  admin={role === 'ADMIN'}
                  refresh={refresh}
                />
                <QueueCap
                  queue={queue}
                  at={view?.at ?? null}
                  admin={role === 'ADMIN'}
                  refresh={refresh}
                  skew={skew}
                  now={now}
                />
                <Kpis counts={view?.counts ?? null} samples={state.samples} />
                {view && (
                  <span
                    class={`as-of small${now - view.receivedAt > STALE_MS ? ' is-stale' : ''}`}
                    data-testid="as-of"
                    data-at={view.at}
                    title="Every panel shows the queue as Redis held it at this moment (one read)."
                  >
                    as of {clockMs(view.at)}
                    {now - view.receivedAt > STALE_MS &&
                      ` · not updated for ${Math.round((now - view.receivedAt) / 1000)} s`}
                  </span>
                )}
              </div>
              {view?.paused && (
                <div class="panel notice" role="status" data-testid="queue-paused-note">
                  <b>This queue is paused.</b> No job of any group is claimed until it is resumed;
                  completions, retries and delayed jobs coming due go on, and every group keeps its
                  own state.
                </div>
              )}
              {view && !view.known && (
                <div class="panel notice" role="status" data-testid="unknown-queue">
                  <b>No queue named “{visibleId(queue)}” has ever been used.</b> Nothing was
                  enqueued to it and no group in it was steered, so its zeros say nothing. Check the
                  name: the queues in use are listed on the left. (Setting a limit here would create
                  it.)
                </div>
              )}
              <QueueNav
                queue={queue}
                view={route.queue === queue ? route.view : null}
                active={view?.counts.active ?? null}
                completed={view?.counts.completed ?? null}
                dead={view?.counts.dead ?? null}
                delayed={view?.counts.delayed ?? null}
                route={route}
                onOpenJob={(id) => navigate({ ...route, queue, job: id })}
              />
              {route.queue === queue && route.job !== null ? (
                <JobDetail
                  key={`${queue}:${route.job}:${epoch}`}
                  queue={queue}
                  id={route.job}
                  admin={role === 'ADMIN'}
                  epoch={epoch}
                  skew={skew}
                  now={now}
                  backHref={routeHref({ ...route, job: null })}
                  refresh={refresh}
                />
              ) : route.queue === queue && JobsViewOf ? (
                <JobsViewOf
                  key={`${queue}:${epoch}`}
                  queue={queue}
                  group={route.group}
                  admin={role === 'ADMIN'}
                  tick={view?.at ?? null}
                  skew={skew}
                  now={now}
                  route={route}
                  onFilter={(g) => navigate({ queue, view: route.view, group: g })}
                  refresh={refresh}
                />
              ) : route.queue === queue && route.view === 'schedules' ? (
                <SchedulesView
                  key={`${queue}:${epoch}`}
                  queue={queue}
                  admin={role === 'ADMIN'}
                  tick={view?.at ?? null}
                  skew={skew}
                  now={now}
                  route={route}
                  refresh={refresh}
                />
              ) : (
                <>
                  <RingPanel
                    ring={view?.ring ?? null}
                    size={view?.ringSize ?? 0}
                    joined={state.joined}
                    log={state.log}
                    selected={group}
                    onSelect={select}
                  />
                  <div class="split">
                    <GroupsTable
                      page={view?.page ?? null}
                      ring={view?.ring ?? null}
                      ringSize={view?.ringSize ?? 0}
                      paging={paging}
                      selected={group}
                      onSelect={select}
                    />
                    <aside class="side">
                      <GroupDetail
                        key={`${queue}:${group ?? ''}:${epoch}`}
                        queue={queue}
                        group={group}
                        state={view?.group ?? null}
                        ring={view?.ring ?? null}
                        ringSize={view?.ringSize ?? 0}
                        at={view?.at ?? null}
                        admin={role === 'ADMIN'}
                        onClose={() => select(null)}
                        refresh={refresh}
                        skew={skew}
                        now={now}
                        route={route}
                      />
                      <TopGroups
                        key={`top:${queue}:${epoch}`}
                        queue={queue}
                        at={view?.at ?? null}
                        skew={skew}
                        now={now}
                        selected={group}
                        onSelect={select}
                      />
                      <Throughput
                        key={`throughput:${queue}`}
                        queue={queue}
                        samples={state.samples}
                        skew={skew}
                      />
                      <HistoryPanel key={`history:${queue}:${epoch}`} queue={queue} group={null} />
                    </aside>
                  </div>
                  <WorkersPanel queue={queue} epoch={epoch} skew={skew} now={now} />
                </>
              )}
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
