/**
 * The queue's schedules (DESIGN.md §3, "Schedules"): each one's timing, its next run, its last
 * run and the job that run enqueued (a link to it), and whether its group is paused. A schedule
 * is paused by pausing its group (its ticks' jobs then wait in the group's lane): an admin does
 * it here, and it is called done only once a read shows it. A schedule whose stored definition
 * is broken (another writer's: `ScheduleConnection.unreadable`) never ticks and has nothing to
 * show but its id: it is listed first, marked unreadable, with what removes it (a repair; no
 * action here, its group is unknown). Read again with each snapshot.
 */
import { useEffect, useState } from 'preact/hooks';
import { useAction } from '../action';
import { type ApiError, answered, request } from '../api';
import { dateTimeMs, duration, ms, preview, relative, visibleId } from '../format';
import {
  PauseGroupDocument,
  QueueSchedulesDocument,
  type QueueSchedulesQuery,
  ResumeGroupDocument,
} from '../gql/graphql';
import { type Route, routeHref } from '../hooks';
import { Id } from './Id';

type Schedules = QueueSchedulesQuery['queue'];
type Row = Schedules['schedules']['edges'][number]['node'];

/** When a schedule ticks, in words: "every 5 min 0 s" or its cron with the zone. */
function timing(s: Row): string {
  if (s.everyMs != null) return `every ${duration(s.everyMs)}`;
  return `cron ${s.cron ?? ''} (${s.timezone ?? 'UTC'})`;
}

export function SchedulesView(props: {
  queue: string;
  admin: boolean;
  tick: number | null;
  skew: number;
  now: number;
  route: Route;
  refresh: () => void;
}) {
  const { queue, admin, tick, skew, now, route, refresh } = props;
  const [data, setData] = useState<Schedules | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const action = useAction();

  const read = async (): Promise<Schedules> =>
    (await request(QueueSchedulesDocument, { queue })).queue;

  // Read again on each snapshot (tick) and after an action (reads).
  useEffect(() => {
    let live = true;
    read().then(
      (q) => {
        if (!live) return;
        setData(q);
        setError(null);
      },
      (failure: ApiError) => live && setError(failure.words ?? String(failure)),
    );
    return () => {
      live = false;
    };
  }, [queue, tick, reads]);

  const redisNow = Math.max(now, Date.now()) - skew;
  const paused = new Set(data?.paused ?? []);

  const steer = (group: string, pause: boolean) =>
    action.run(
      `${pause ? 'Pausing' : 'Resuming'} group ${visibleId(group)}`,
      async () => {
        if (pause) {
          answered((await request(PauseGroupDocument, { queue, group })).pauseGroup, 'pauseGroup');
        } else {
          answered(
            (await request(ResumeGroupDocument, { queue, group })).resumeGroup,
            'resumeGroup',
          );
        }
        return `Group ${visibleId(group)} ${pause ? 'paused' : 'resumed'}`;
      },
      async () => {
        const q = await read();
        return q.paused.includes(group) === pause
          ? `Redis shows it ${pause ? 'paused' : 'running'}.`
          : null;
      },
      () => {
        setReads((r) => r + 1);
        refresh();
      },
    );

  const rows = data?.schedules.edges.map((e) => e.node) ?? [];
  const unreadable = data?.schedules.unreadable ?? [];
  // The columns an unreadable row spans after its id.
  const rest = admin ? 7 : 6;
  return (
    <section class="panel" data-testid="schedules-view">
      <h2>Schedules{data && <span class="small"> · {data.schedules.totalCount}</span>}</h2>
      <p class="small">
        Each schedule enqueues one job into its group on every tick. To pause a schedule, pause its
        group: its jobs then wait in the group’s lane until it is resumed.
      </p>
      {error && (
        <div class="banner" role="alert">
          {error}
        </div>
      )}
      {data && rows.length === 0 && unreadable.length === 0 && (
        <p data-testid="schedules-empty">No schedules in this queue.</p>
      )}
      {rows.length + unreadable.length > 0 && (
        <table class="schedules">
          <thead>
            <tr>
              <th>Schedule</th>
              <th>Group</th>
              <th>Ticks</th>
              <th>Next run</th>
              <th>Last run</th>
              <th>Last job</th>
              <th>Payload</th>
              {admin && <th />}
            </tr>
          </thead>
          <tbody>
            {unreadable.map((id) => (
              <tr key={id} data-schedule={id} data-unreadable="">
                <td>
                  <Id value={id} />
                </td>
                <td colSpan={rest} class="muted" data-testid="schedule-unreadable">
                  <b>unreadable</b>: its stored definition is broken (not one an upsert writes), so
                  it never ticks. The audit reports it; a repair of the queue (repairQueue) removes
                  it.
                </td>
              </tr>
            ))}
            {rows.map((s) => {
              const next = ms(s.nextRunAt);
              const last = ms(s.lastRunAt);
              const isPaused = paused.has(s.group);
              return (
                <tr key={s.id} data-schedule={s.id}>
                  <td>
                    <Id value={s.id} />
                  </td>
                  <td>
                    <a href={routeHref({ queue, group: s.group })}>
                      <Id value={s.group} />
                    </a>
                    {isPaused && (
                      <span class="pill is-paused" data-testid="schedule-paused">
                        {' '}
                        paused
                      </span>
                    )}
                  </td>
                  <td>{timing(s)}</td>
                  <td data-testid="schedule-next" title={next === null ? '' : dateTimeMs(next)}>
                    {next === null ? 'never' : `${dateTimeMs(next)} (${relative(next, redisNow)})`}
                  </td>
                  <td data-testid="schedule-last">
                    {last === null ? '—' : `${dateTimeMs(last)} (${relative(last, redisNow)})`}
                  </td>
                  <td data-testid="schedule-last-job">
                    {s.lastJobId === null || s.lastJobId === undefined ? (
                      '—'
                    ) : (
                      <a href={routeHref({ ...route, queue, view: 'schedules', job: s.lastJobId })}>
                        {s.lastJobId}
                      </a>
                    )}
                  </td>
                  <td class="small">{s.payload == null ? '—' : preview(s.payload, 40)}</td>
                  {admin && (
                    <td>
                      <button
                        type="button"
                        class="btn"
                        disabled={action.busy}
                        onClick={() => void steer(s.group, !isPaused)}
                      >
                        {isPaused ? 'Resume group' : 'Pause group'}
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {action.outcome && (
        <p
          class={`outcome-inline outcome-${action.outcome.kind}`}
          role="status"
          data-testid="schedules-outcome"
        >
          {action.outcome.text}
        </p>
      )}
    </section>
  );
}
