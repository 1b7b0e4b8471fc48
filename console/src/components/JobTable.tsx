/**
 * The table of the Dead and Delayed views: one row per job — its id (to its detail),
 * its group (filtering the view), when it died or runs, its attempts, its priority, a detail cell, and for an
 * admin a primary action and Delete — then the view's pager. The views say what differs.
 */
import type { ComponentChildren } from 'preact';
import { visibleId } from '../format';
import type { JobPageFragment, JobRowFragment } from '../gql/graphql';
import { type Route, routeHref } from '../hooks';
import { priorityText } from '../priority';
import { Id } from './Id';
import { attemptsText } from './JobDetail';
import { JobLink, type JobPaging, Pager } from './JobList';

export function JobTable(props: {
  testId: string;
  queue: string;
  /** The view a group link filters (the view this table is in). */
  view: 'dead' | 'delayed';
  route: Route;
  admin: boolean;
  /** An action is running: the row buttons wait. */
  busy: boolean;
  /** The page read, null while reading. */
  page: JobPageFragment | null;
  rows: readonly JobRowFragment[];
  whenHeader: string;
  /** The "when" cell of a job: its text and the exact time as a tooltip. */
  when: (job: JobRowFragment) => { text: string; title: string };
  detailHeader: string;
  detail: (job: JobRowFragment) => ComponentChildren;
  /** The detail cell's tooltip, if it has one. */
  detailTitle?: (job: JobRowFragment) => string;
  /** The admin's first button on a row (Retry, Run now). */
  primary: { label: string; aria: (id: string) => string; run: (job: JobRowFragment) => void };
  onDelete: (job: JobRowFragment) => void;
  /** The row shown when the page is empty ("No dead jobs in this queue."). */
  empty: string;
  paging: JobPaging;
  sizes: readonly number[];
  /** The pager's label ("Dead jobs"). */
  label: string;
}) {
  const { queue, view, route, admin, busy, page, rows, primary } = props;
  return (
    <>
      <div class="table-wrap">
        <table class="groups jobs" data-testid={props.testId}>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Group</th>
              <th scope="col">{props.whenHeader}</th>
              <th scope="col">Attempts</th>
              <th scope="col">Priority</th>
              <th scope="col">{props.detailHeader}</th>
              {admin && (
                <th scope="col" class="num">
                  Actions
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((j) => {
              const when = props.when(j);
              return (
                <tr key={j.id} data-job-row={j.id} data-group={j.group}>
                  <td>
                    <JobLink id={j.id} from={route} />
                  </td>
                  <td class="id-cell" title={visibleId(j.group)}>
                    <a class="mono" href={routeHref({ queue, view, group: j.group })}>
                      <Id value={j.group} />
                    </a>
                  </td>
                  <td title={when.title}>{when.text}</td>
                  <td>{attemptsText(j)}</td>
                  <td data-priority={j.priority}>{priorityText(j.priority)}</td>
                  <td class="err-cell" title={props.detailTitle?.(j)}>
                    {props.detail(j)}
                  </td>
                  {admin && (
                    <td class="num">
                      <div class="row-actions">
                        <button
                          type="button"
                          class="btn btn-small"
                          disabled={busy}
                          aria-label={primary.aria(visibleId(j.id))}
                          onClick={() => primary.run(j)}
                        >
                          {primary.label}
                        </button>
                        <button
                          type="button"
                          class="btn btn-small btn-ghost"
                          disabled={busy}
                          aria-label={`Delete job ${visibleId(j.id)}`}
                          onClick={() => props.onDelete(j)}
                        >
                          Delete
                        </button>
                      </div>
                    </td>
                  )}
                </tr>
              );
            })}
            {page && rows.length === 0 && (
              <tr>
                <td colSpan={admin ? 7 : 6} class="muted pad">
                  {props.empty}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        paging={props.paging}
        hasNextPage={page?.pageInfo.hasNextPage ?? false}
        endCursor={page?.pageInfo.endCursor ?? null}
        sizes={props.sizes}
        label={props.label}
      />
    </>
  );
}
