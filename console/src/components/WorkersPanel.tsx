/**
 * The queue's live workers (`Queue.workers`, DESIGN.md §4.9 "Workers"): one row each with its
 * id, host, pid, concurrency, the jobs it holds, when it started and was last seen (against the
 * Redis clock, `skew` the browser's lead on it) and its version; a GraphQL client (`claim` with a
 * `workerId`) shows dashes for what it does not say. Read every 2 s: heartbeats move no key the
 * live feed watches.
 */
import { useState } from 'preact/hooks';
import { type ApiError, request } from '../api';
import { ago, dateTimeMs, n, visibleId } from '../format';
import { QueueWorkersDocument, type QueueWorkersQuery } from '../gql/graphql';
import { usePoll } from '../hooks';

type Workers = QueueWorkersQuery['queue']['workers'];

/** How often the panel reads the registry (ms). */
const WORKERS_POLL_MS = 2_000;

const dash = (value: string | number | null): string =>
  value === null ? '–' : typeof value === 'number' ? n(value) : value;

/** The panel head's count: "2 live · 1 job held". */
const heldText = (live: number, held: number): string =>
  `${n(live)} live · ${n(held)} ${held === 1 ? 'job' : 'jobs'} held`;

export function WorkersPanel(props: { queue: string; epoch: number; skew: number; now: number }) {
  const { queue, skew, now } = props;
  const [workers, setWorkers] = useState<{ queue: string; list: Workers } | null>(null);
  const [error, setError] = useState<string | null>(null);

  usePoll(
    async () => {
      try {
        const data = await request(QueueWorkersDocument, { queue });
        setWorkers({ queue, list: data.queue.workers });
        setError(null);
      } catch (failure) {
        setError((failure as ApiError).words ?? String(failure));
      }
    },
    WORKERS_POLL_MS,
    [queue, props.epoch],
  );

  const list = workers?.queue === queue ? workers.list : null;
  // The Redis clock now, as this browser estimates it.
  const redisNow = now - skew;
  return (
    <section class="panel workers" aria-label="Workers" data-testid="workers">
      <div class="panel-head">
        <h2>Workers</h2>
        <span class="muted small" data-testid="workers-count">
          {list === null
            ? ''
            : heldText(
                list.length,
                list.reduce((sum, w) => sum + w.active, 0),
              )}
        </span>
      </div>
      {error && <p class="outcome outcome-error pad">{error}</p>}
      {list === null ? (
        <p class="muted pad">reading…</p>
      ) : list.length === 0 ? (
        <p class="muted pad" data-testid="no-workers">
          No worker is connected: jobs enqueued wait until one starts.
        </p>
      ) : (
        <div class="workers-scroll">
          <table class="groups workers-table">
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Host</th>
                <th scope="col" class="num">
                  Pid
                </th>
                <th scope="col" class="num">
                  Concurrency
                </th>
                <th scope="col" class="num">
                  Active
                </th>
                <th scope="col">Started</th>
                <th scope="col">Last seen</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {list.map((w) => {
                const started = Date.parse(w.startedAt as string);
                const seen = Date.parse(w.lastSeenAt as string);
                return (
                  <tr key={w.id} data-worker={w.id}>
                    <td class="id-cell mono" title={visibleId(w.id)}>
                      {visibleId(w.id)}
                      {w.client && <span class="muted small"> (API client)</span>}
                    </td>
                    <td data-field="hostname">{dash(w.hostname)}</td>
                    <td class="num" data-field="pid">
                      {dash(w.pid)}
                    </td>
                    <td class="num" data-field="concurrency">
                      {dash(w.concurrency)}
                    </td>
                    <td class="num" data-field="active">
                      {n(w.active)}
                    </td>
                    <td data-field="started" title={dateTimeMs(started)}>
                      {ago(started, redisNow)}
                    </td>
                    <td data-field="last-seen" title={dateTimeMs(seen)}>
                      {ago(seen, redisNow)}
                    </td>
                    <td data-field="version">{dash(w.version)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
