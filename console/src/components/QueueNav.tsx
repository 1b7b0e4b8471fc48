/**
 * The chosen queue's views: its ring and groups, its Active, Completed (kept), Dead and Delayed
 * jobs and its Schedules, each a link (`#queue=…&view=…`), with their counts from the snapshot
 * shown; and a box to open
 * any job by its id.
 */
import { useState } from 'preact/hooks';
import { n } from '../format';
import { type QueueView, type Route, routeHref } from '../hooks';

export function QueueNav(props: {
  queue: string;
  view: QueueView | null;
  /** The snapshot's counts (null before the first read, or when the server has none of them). */
  active: number | null;
  completed: number | null;
  dead: number | null;
  delayed: number | null;
  /** Open a job: the route keeps the view it is opened from. */
  onOpenJob: (id: string) => void;
  route: Route;
}) {
  const { queue, view, active, completed, dead, delayed, onOpenJob, route } = props;
  const [typed, setTyped] = useState('');
  const tab = (to: QueueView | null, label: string, count: number | null, testid: string) => (
    <a
      class={`tab${view === to && route.job === null ? ' is-current' : ''}`}
      href={routeHref({ queue, view: to })}
      aria-current={view === to ? 'page' : undefined}
      data-testid={testid}
    >
      {label}
      {count !== null && (
        <span class={`tab-count${to === 'dead' && count > 0 ? ' is-bad' : ''}`}>{n(count)}</span>
      )}
    </a>
  );
  const open = (event: Event) => {
    event.preventDefault();
    const id = typed.trim();
    if (id === '') return;
    onOpenJob(id);
    setTyped('');
  };
  return (
    <nav class="tabs" aria-label="Views of the queue">
      {tab(null, 'Groups', null, 'tab-groups')}
      {tab('active', 'Active', active, 'tab-active')}
      {tab('completed', 'Completed', completed, 'tab-completed')}
      {tab('dead', 'Dead', dead, 'tab-dead')}
      {tab('delayed', 'Delayed', delayed, 'tab-delayed')}
      {tab('schedules', 'Schedules', null, 'tab-schedules')}
      <span class="grow" />
      <form class="job-open" onSubmit={open}>
        <input
          class="search job-id-input"
          type="search"
          placeholder="Job id"
          aria-label="Job id"
          value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
        />
        <button type="submit" class="btn" disabled={typed.trim() === ''}>
          Open job
        </button>
      </form>
    </nav>
  );
}
