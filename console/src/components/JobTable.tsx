/**
 * The table of the queue-wide job lists (Active, Completed, Dead, Delayed): one row per job — its
 * id (to its detail), its group (filtering the view), then the columns the view names, and for an
 * admin the view's row actions (a primary action and Delete, either left out) — then the view's
 * pager. The views say what differs; a column is one entry of their `columns`.
 */
import type { ComponentChildren } from 'preact';
import { ms, visibleId } from '../format';
import type { JobPageFragment, JobRowFragment } from '../gql/graphql';
import { type QueueView, type Route, routeHref } from '../hooks';
import { priorityText } from '../priority';
import { Id } from './Id';
import { attemptsText } from './JobDetail';
import { JobLink, type JobPaging, Pager } from './JobList';

/** One column of a job table, after Job and Group. */
export interface JobColumn {
  header: string;
  cell: (job: JobRowFragment) => ComponentChildren;
  /** The cell's tooltip (the exact time, the whole text). */
  title?: (job: JobRowFragment) => string;
  /** The cell's class: `err-cell` for a long text cut to the cell's width. */
  class?: string;
  /** The cell's data attributes (what tests and styles find it by). */
  data?: (job: JobRowFragment) => Record<string, string | number>;
}

/** A time column ("Died", "Runs", "Finished"): `at` gives its text and the exact time. */
export const whenColumn = (
  header: string,
  at: (job: JobRowFragment) => { text: string; title: string },
): JobColumn => ({ header, cell: (j) => at(j).text, title: (j) => at(j).title });

export const attemptsColumn: JobColumn = { header: 'Attempts', cell: attemptsText };

export const priorityColumn: JobColumn = {
  header: 'Priority',
  cell: (j) => priorityText(j.priority),
  data: (j) => ({ 'data-priority': j.priority }),
};

/** Milliseconds between two of a job's times, or null when either is missing. */
export const between = (from: unknown, to: unknown): number | null => {
  const a = ms(from);
  const b = ms(to);
  return a === null || b === null ? null : b - a;
};

export function JobTable(props: {
  testId: string;
  queue: string;
  /** The view a group link filters (the view this table is in). */
  view: QueueView;
  route: Route;
  admin: boolean;
  /** An action is running: the row buttons wait. */
  busy: boolean;
  /** The page read, null while reading. */
  page: JobPageFragment | null;
  rows: readonly JobRowFragment[];
  columns: readonly JobColumn[];
  /** The admin's first button on a row (Retry, Run now); none: only Delete. */
  primary?: { label: string; aria: (id: string) => string; run: (job: JobRowFragment) => void };
  /** Delete one job; none: no Delete button (an active job is left to its worker). */
  onDelete?: (job: JobRowFragment) => void;
  /** The row shown when the page is empty ("No dead jobs in this queue."). */
  empty: string;
  paging: JobPaging;
  sizes: readonly number[];
  /** The pager's label ("Dead jobs"). */
  label: string;
}) {
  const { queue, view, route, busy, page, rows, columns, primary, onDelete } = props;
  const actions = props.admin && (primary !== undefined || onDelete !== undefined);
  return (
    <>
      <div class="table-wrap">
        <table class="groups jobs" data-testid={props.testId}>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Group</th>
              {columns.map((c) => (
                <th key={c.header} scope="col">
                  {c.header}
                </th>
              ))}
              {actions && (
                <th scope="col" class="num">
                  Actions
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((j) => (
              <tr key={j.id} data-job-row={j.id} data-group={j.group}>
                <td>
                  <JobLink id={j.id} from={route} />
                </td>
                <td class="id-cell" title={visibleId(j.group)}>
                  <a class="mono" href={routeHref({ queue, view, group: j.group })}>
                    <Id value={j.group} />
                  </a>
                </td>
                {columns.map((c) => (
                  <td key={c.header} class={c.class} title={c.title?.(j)} {...c.data?.(j)}>
                    {c.cell(j)}
                  </td>
                ))}
                {actions && (
                  <td class="num">
                    <div class="row-actions">
                      {primary && (
                        <button
                          type="button"
                          class="btn btn-small"
                          disabled={busy}
                          aria-label={primary.aria(visibleId(j.id))}
                          onClick={() => primary.run(j)}
                        >
                          {primary.label}
                        </button>
                      )}
                      {onDelete && (
                        <button
                          type="button"
                          class="btn btn-small btn-ghost"
                          disabled={busy}
                          aria-label={`Delete job ${visibleId(j.id)}`}
                          onClick={() => onDelete(j)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
            {page && rows.length === 0 && (
              <tr>
                <td colSpan={2 + columns.length + (actions ? 1 : 0)} class="muted pad">
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
