/**
 * A group's jobs in its detail: its backlog in the order it will run (next first: by priority,
 * then oldest first), with each one's priority and a preview of its payload, and its jobs in flight with their lease countdown and attempt
 * n of m; each list paged, each job a link to its detail. Read again whenever the snapshot
 * shown moves.
 */
import { request } from '../api';
import { type JobPageFragment, type JobState, QueueJobsDocument } from '../gql/graphql';
import { type Route, routeHref } from '../hooks';
import { useListed } from '../jobs';
import { attemptsText } from './JobDetail';
import { JobLink, type JobPaging, leaseText, Pager, rangeText, useJobPaging } from './JobList';

/** Rows per page in the side panel. */
const GROUP_PAGE = 10;

function useGroupList(
  queue: string,
  group: string,
  state: JobState,
  tick: number | null,
): { paging: JobPaging; page: JobPageFragment | null; error: string | null } {
  const paging = useJobPaging(`${queue}\u0000${group}`, GROUP_PAGE);
  const after = paging.trail.at(-1) ?? null;
  const list = useListed(
    async () =>
      (
        await request(QueueJobsDocument, {
          queue,
          state,
          group,
          first: paging.pageSize,
          after,
        })
      ).queue.jobs,
    `${queue}\u0000${group}\u0000${state}\u0000${after ?? ''}`,
    tick,
  );
  return { paging, page: list.page, error: list.error?.words ?? null };
}

export function GroupJobs(props: {
  queue: string;
  group: string;
  tick: number | null;
  skew: number;
  now: number;
  route: Route;
}) {
  const { queue, group, tick, skew, now, route } = props;
  const backlog = useGroupList(queue, group, 'PENDING', tick);
  const active = useGroupList(queue, group, 'ACTIVE', tick);
  const redisNow = Math.max(now, Date.now()) - skew;

  return (
    <div class="group-jobs">
      <h3 class="sub">
        Backlog{' '}
        <span class="muted small" data-testid="backlog-range">
          {backlog.page
            ? rangeText(
                backlog.paging,
                backlog.page.edges.length,
                backlog.page.totalCount,
                'next to run first',
              )
            : ''}
        </span>
      </h3>
      {backlog.error && <p class="error pad">Not updated: {backlog.error}</p>}
      <ol
        class="job-rows"
        data-testid="backlog"
        start={(backlog.paging.trail.length - 1) * GROUP_PAGE + 1}
      >
        {backlog.page?.edges.map(({ node: j }) => (
          <li key={j.id} data-job-row={j.id}>
            <JobLink id={j.id} from={route} />
            <span
              class="muted small"
              data-priority={j.priority}
              title="priority: 1 runs first, 9 last"
            >
              p{j.priority}
            </span>
            {/* The server cuts it (`payloadPreview`); a null payload reads "null". */}
            <code class="payload-preview" title={j.payloadTip ?? 'null'}>
              {j.payloadPreview ?? 'null'}
            </code>
            {j.attempts > 0 && <span class="muted small">{attemptsText(j)}</span>}
          </li>
        ))}
        {backlog.page?.edges.length === 0 && <li class="muted small empty-row">nothing waiting</li>}
      </ol>
      {backlog.page && (backlog.page.pageInfo.hasNextPage || backlog.paging.trail.length > 1) && (
        <Pager
          paging={backlog.paging}
          hasNextPage={backlog.page.pageInfo.hasNextPage}
          endCursor={backlog.page.pageInfo.endCursor ?? null}
          label="Backlog"
        />
      )}
      <h3 class="sub">
        In flight{' '}
        <span class="muted small" data-testid="active-range">
          {active.page
            ? rangeText(active.paging, active.page.edges.length, active.page.totalCount)
            : ''}
        </span>
      </h3>
      {active.error && <p class="error pad">Not updated: {active.error}</p>}
      <ol class="job-rows" data-testid="active-jobs">
        {active.page?.edges.map(({ node: j }) => {
          const lease = leaseText(j.leaseUntil, redisNow);
          return (
            <li key={j.id} data-job-row={j.id}>
              <JobLink id={j.id} from={route} />
              <span class={`lease${lease.late ? ' is-late' : ''}`} data-testid="lease">
                {lease.text}
              </span>
              <span class="muted small">{attemptsText(j)}</span>
            </li>
          );
        })}
        {active.page?.edges.length === 0 && <li class="muted small empty-row">none in flight</li>}
      </ol>
      {active.page && (active.page.pageInfo.hasNextPage || active.paging.trail.length > 1) && (
        <Pager
          paging={active.paging}
          hasNextPage={active.page.pageInfo.hasNextPage}
          endCursor={active.page.pageInfo.endCursor ?? null}
          label="In flight"
        />
      )}
      <p class="pad small group-links">
        Its <a href={routeHref({ queue, view: 'delayed', group })}>delayed jobs</a> and{' '}
        <a href={routeHref({ queue, view: 'dead', group })}>dead jobs</a> →
      </p>
    </div>
  );
}
