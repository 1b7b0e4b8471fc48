/**
 * What a job's processor reported while it ran (DESIGN.md §3, "Progress and logs"): its last
 * progress — a bar with the percentage when it is a number, else the object as JSON — and its
 * log, oldest first with each line's time, 50 lines a page with "more" to page on.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, request } from '../api';
import { dateTimeMs, ms, n, prettyJson } from '../format';
import { JobLogsDocument } from '../gql/graphql';
import { Id } from './Id';

/** Lines read a page. */
const PAGE = 50;
/** While the job is ACTIVE, the log's end is read again at least this often (ms). */
const TAIL_MS = 2_000;

/** The job's last progress report; nothing before the first. */
export function JobProgress(props: { progress: unknown }) {
  const { progress } = props;
  if (progress === null || progress === undefined) return null;
  return (
    <>
      <h3 class="sub">Progress</h3>
      {typeof progress === 'number' ? (
        <div class="load job-progress" data-testid="job-progress">
          <span
            class="bar"
            role="progressbar"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={progress}
          >
            <span class="fill fill-ok" style={{ width: `${Math.min(100, progress)}%` }} />
          </span>
          <span class="load-text">{progress} %</span>
        </div>
      ) : (
        <pre class="code" data-testid="job-progress">
          {prettyJson(progress)}
        </pre>
      )}
    </>
  );
}

interface Line {
  cursor: string;
  at: number;
  line: string;
}

interface Log {
  lines: Line[];
  /** Lines the log keeps now; null before the first answer. */
  total: number | null;
  /** The last line read's cursor: the next page starts after it. */
  after: string | null;
  /** More lines were there than read. */
  more: boolean;
  error: ApiError | null;
}

const EMPTY: Log = { lines: [], total: null, after: null, more: false, error: null };

/**
 * Job `id`'s log: the first page on opening, the next on "more"; `changed` (the followed job,
 * a new object at each change) and, while `active`, a timer read on from the last line when
 * every line was read, so a running job's new lines appear.
 */
export function JobLog(props: { queue: string; id: string; changed: unknown; active: boolean }) {
  const { queue, id, changed, active } = props;
  const [log, setLog] = useState<Log>(EMPTY);
  const current = useRef(log);
  current.current = log;
  // One read at a time; the job opened is the key, so an answer for another is dropped.
  const reading = useRef<string | null>(null);
  const key = `${queue}\n${id}`;

  const readOn = async (): Promise<void> => {
    if (reading.current === key) return;
    reading.current = key;
    const from = current.current.after;
    try {
      const job = (
        await request(JobLogsDocument, { queue, id, first: PAGE, ...(from ? { after: from } : {}) })
      ).queue.job;
      if (reading.current !== key) return;
      // Gone: what was read stays.
      if (!job) return;
      const page = job.logs;
      setLog((prev) => ({
        lines: [
          ...prev.lines,
          ...page.edges.map((e) => ({
            cursor: e.cursor,
            at: ms(e.node.at) ?? 0,
            line: e.node.line,
          })),
        ],
        total: page.totalCount,
        after: page.pageInfo.endCursor ?? prev.after,
        more: page.pageInfo.hasNextPage,
        error: null,
      }));
    } catch (failure) {
      if (reading.current === key) setLog((prev) => ({ ...prev, error: failure as ApiError }));
    } finally {
      if (reading.current === key) reading.current = null;
    }
  };

  useEffect(() => {
    reading.current = null;
    current.current = EMPTY;
    setLog(EMPTY);
    void readOn();
    return () => {
      reading.current = null;
    };
  }, [key]);

  // At the log's end, a change of the job or the timer reads what was added since.
  const atEnd = log.total !== null && !log.more;
  useEffect(() => {
    if (atEnd) void readOn();
  }, [changed]);
  useEffect(() => {
    if (!active || !atEnd) return;
    const timer = setInterval(() => void readOn(), TAIL_MS);
    return () => clearInterval(timer);
  }, [active, atEnd, key]);

  return (
    <>
      <h3 class="sub">
        Log{' '}
        <span class="muted small" data-testid="job-log-count">
          {log.total === null
            ? ''
            : log.total === 0
              ? 'none'
              : `${n(log.lines.length)} shown · ${n(log.total)} kept, oldest first`}
        </span>
      </h3>
      {log.lines.length > 0 && (
        <ol class="job-log mono" data-testid="job-log">
          {log.lines.map((l) => (
            <li key={l.cursor}>
              <time class="muted">{dateTimeMs(l.at)}</time>
              <span class="job-log-line">
                <Id value={l.line} />
              </span>
            </li>
          ))}
        </ol>
      )}
      {log.more && (
        <p class="pad">
          <button type="button" class="btn" onClick={() => void readOn()}>
            More lines
          </button>
        </p>
      )}
      {log.error && <p class="error-text pad small">Log not read: {log.error.words}</p>}
    </>
  );
}
