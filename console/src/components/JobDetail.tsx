/**
 * One job: its state and where it stands (why it waits, its place in its lane and its estimated
 * start, read again while it is pending), priority, attempts and retry policy, its payload (and, completed, its result) as
 * formatted JSON, its processor's last progress and its log, its
 * failed attempts with their stacks, and its timeline — enqueued, run at, claimed, lease until,
 * finished. Opened from every job list and by typing an id; it follows the job live until it is
 * in a final state or gone. An admin can act on it where its state allows.
 */
import type { ComponentChildren } from 'preact';
import { useAction } from '../action';
import { ago, dateTimeMs, duration, ms, n, prettyJson, relative, visibleId } from '../format';
import type { JobFullFragment } from '../gql/graphql';
import { routeHref } from '../hooks';
import { FINAL_STATES, type JobPlace, useJob, useJobPlace } from '../jobs';
import { priorityText } from '../priority';
import { Id } from './Id';
import { JobActions, JobOutcome } from './JobActions';
import { JobLog, JobProgress } from './JobLog';

/** A job's state in words and colour. */
export function JobStateBadge(props: { state: string }) {
  const s = props.state.toLowerCase();
  return (
    <span class={`badge job-${s}`} data-job-state={props.state}>
      {s}
    </span>
  );
}

/** "attempt 2 of 3" — the attempts a job has had against those it may have. */
export const attemptsText = (j: Pick<JobFullFragment, 'attempts' | 'maxAttempts'>): string =>
  `attempt ${n(j.attempts)} of ${n(j.maxAttempts)}`;

/** Its retry policy in words. */
function backoffText(b: JobFullFragment['backoff']): string {
  if (!b) return 'none: a failed attempt goes back to its lane at once';
  // SafeInt: ms that may pass GraphQL's 32-bit Int (a 30-day delay), sent as a JSON number.
  const delay = Number(b.delayMs);
  const cap =
    b.maxDelayMs === null || b.maxDelayMs === undefined
      ? ''
      : `, at most ${duration(Number(b.maxDelayMs))}`;
  const jitter = b.jitter > 0 ? `, jitter ${Math.round(b.jitter * 100)} %` : '';
  return b.type === 'FIXED'
    ? `fixed: ${duration(delay)} after each failure${jitter}`
    : `exponential: ${duration(delay)}, doubling${cap}${jitter}`;
}

interface Moment {
  key: string;
  label: string;
  at: number | null;
  note?: string;
  /** It may lie ahead (run-at, lease until); the others have happened. */
  ahead?: boolean;
}

/** The job's moments, in the order they happen; those not reached yet are left out. */
function timeline(j: JobFullFragment): Moment[] {
  const out: Moment[] = [{ key: 'enqueued', label: 'enqueued', at: ms(j.enqueuedAt) }];
  if (j.runAt) {
    out.push({ key: 'run-at', label: 'runs at', at: ms(j.runAt), note: 'delayed', ahead: true });
  }
  if (j.claimedAt) {
    out.push({ key: 'claimed', label: 'last claimed', at: ms(j.claimedAt), note: attemptsText(j) });
  }
  if (j.leaseUntil) {
    out.push({ key: 'lease', label: 'lease until', at: ms(j.leaseUntil), ahead: true });
  }
  if (j.finishedAt) {
    out.push({
      key: 'finished',
      label: j.state === 'DEAD' ? 'died' : 'finished',
      at: ms(j.finishedAt),
    });
  }
  return out;
}

/**
 * Where the job stands: its reason, and while pending its place in its lane and its estimated
 * start (DESIGN.md §4.2, "Where a job stands").
 */
function JobPlaceFacts(props: { place: JobPlace; redisNow: number }) {
  const { place, redisNow } = props;
  const start = ms(place.estimatedStartAt);
  return (
    <>
      <div class="wide">
        <dt>where</dt>
        <dd data-testid="job-reason">
          <Id value={place.reason} />
        </dd>
      </div>
      {place.state === 'PENDING' && (
        <>
          <div>
            <dt>position</dt>
            <dd data-testid="job-position" title="pending jobs ahead of it in its lane">
              {place.position === null || place.position === undefined
                ? '–'
                : `${n(place.position)} ahead`}
            </dd>
          </div>
          <div>
            <dt>estimated start</dt>
            <dd
              data-testid="job-estimate"
              title="from its position, its group's limit and recent completion times, and its group's place on the ring"
            >
              {start === null
                ? '– (too little history, or paused)'
                : `${dateTimeMs(start)} (${relative(start, redisNow)})`}
            </dd>
          </div>
        </>
      )}
    </>
  );
}

export function JobDetail(props: {
  queue: string;
  id: string;
  admin: boolean;
  epoch: number;
  /** This browser's clock minus the Redis clock (ms), for countdowns. */
  skew: number;
  /** Now (ms, this browser's clock), ticking. */
  now: number;
  /** Where closing goes back to. */
  backHref: string;
  /** Read the queue again soon (an action changed it). */
  refresh: () => void;
}) {
  const { queue, id, admin, epoch, skew, now, backHref, refresh } = props;
  const [{ job: j, error, ended }, refollow] = useJob(queue, id, epoch);
  const action = useAction();
  const polled = useJobPlace(queue, id, j?.state === 'PENDING');
  // `now` ticks once a second; a render between ticks (the job changed) reads the clock afresh.
  const redisNow = Math.max(now, Date.now()) - skew;

  let body: ComponentChildren;
  if (j === undefined) {
    body = <p class="muted pad">{error ? error.words : 'reading…'}</p>;
  } else if (j === null) {
    body = (
      <p class="pad" data-testid="job-gone">
        No job <code>{visibleId(id)}</code> in this queue: it never was, or it is gone (completed
        without retention, trimmed, or removed).
      </p>
    );
  } else {
    body = (
      <>
        {admin && (
          <JobActions
            queue={queue}
            job={j}
            action={action}
            onDone={() => {
              refollow();
              refresh();
            }}
          />
        )}
        <div class="job-cols">
          <div class="job-col">
            <dl class="facts job-facts">
              <div>
                <dt>state</dt>
                <dd>
                  <JobStateBadge state={j.state} />
                </dd>
              </div>
              <JobPlaceFacts place={polled?.state === j.state ? polled : j} redisNow={redisNow} />
              <div>
                <dt>group</dt>
                <dd class="mono">
                  <a href={routeHref({ queue, group: j.group })}>
                    <Id value={j.group} />
                  </a>
                </dd>
              </div>
              <div>
                <dt>priority</dt>
                <dd data-testid="job-priority" title="1 runs first, 9 last, 5 by default">
                  {priorityText(j.priority)}
                </dd>
              </div>
              {j.debounceKey != null && (
                <div>
                  <dt>debounce key</dt>
                  <dd
                    class="mono"
                    data-testid="job-debounce-key"
                    title="While the job waits, an enqueue with this key replaces its payload and run time"
                  >
                    <Id value={j.debounceKey} />
                  </dd>
                </div>
              )}
              <div>
                <dt>attempts</dt>
                <dd data-testid="job-attempts">
                  {n(j.attempts)} of {n(j.maxAttempts)}
                </dd>
              </div>
              <div>
                <dt>backoff</dt>
                <dd>{backoffText(j.backoff)}</dd>
              </div>
              {j.lastError !== null && j.lastError !== undefined && (
                <div class="wide">
                  <dt>last error</dt>
                  <dd class="error-text" data-testid="job-last-error">
                    <Id value={j.lastError} />
                  </dd>
                </div>
              )}
            </dl>
            <h3 class="sub">Timeline</h3>
            <ol class="timeline" data-testid="job-timeline">
              {timeline(j).map((m) => (
                <li key={m.key} data-moment={m.key}>
                  <span class="tl-label">{m.label}</span>
                  <time class="mono">{m.at === null ? '–' : dateTimeMs(m.at)}</time>
                  <span class="muted small">
                    {m.at === null ? '' : m.ahead ? relative(m.at, redisNow) : ago(m.at, redisNow)}
                    {m.note ? ` · ${m.note}` : ''}
                  </span>
                </li>
              ))}
            </ol>
            <h3 class="sub">
              Errors{' '}
              <span class="muted small">
                {j.errors.length === 0 ? 'none' : `${n(j.errors.length)}, newest first`}
              </span>
            </h3>
            {j.errors.length > 0 && (
              <ol class="errors" data-testid="job-errors">
                {j.errors.map((e, i) => (
                  <li key={`${e.attempt}:${String(e.at)}`}>
                    <div class="err-head">
                      <b>attempt {n(e.attempt)}</b>
                      <time class="mono muted small">{dateTimeMs(ms(e.at) ?? 0)}</time>
                    </div>
                    <div class="error-text">
                      <Id value={e.message} />
                    </div>
                    {e.stack ? (
                      <details open={i === 0}>
                        <summary>stack</summary>
                        <pre class="code stack">{e.stack}</pre>
                      </details>
                    ) : (
                      <div class="muted small">no stack</div>
                    )}
                  </li>
                ))}
              </ol>
            )}
          </div>
          <div class="job-col">
            <h3 class="sub">Payload</h3>
            <pre class="code" data-testid="job-payload">
              {prettyJson(j.payload)}
            </pre>
            {j.state === 'COMPLETED' && (
              <>
                <h3 class="sub">Result</h3>
                <pre class="code" data-testid="job-result">
                  {prettyJson(j.result)}
                </pre>
              </>
            )}
            <JobProgress progress={j.progress} />
            <JobLog queue={queue} id={id} changed={j} active={j.state === 'ACTIVE'} />
          </div>
        </div>
        <p class="muted small pad" data-testid="job-follow">
          {error
            ? `Not updated: ${error.words}`
            : ended || FINAL_STATES.includes(j.state)
              ? 'Final: it will not change again unless an operator acts on it.'
              : 'Followed live: changes appear as they happen.'}
        </p>
      </>
    );
  }

  return (
    <section class="panel job-detail" aria-label={`Job ${visibleId(id)}`} data-testid="job">
      <div class="panel-head">
        <h2 class="detail-id">
          Job <Id value={id} />
        </h2>
        {j && <JobStateBadge state={j.state} />}
        <span class="grow" />
        <a class="btn btn-ghost btn-x" href={backHref} aria-label="Close job">
          ×
        </a>
      </div>
      <JobOutcome action={action} />
      {body}
    </section>
  );
}
