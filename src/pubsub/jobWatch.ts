/**
 * `jobChanged(queue, id)`: one job, sent at every change of its state (each one, in order, with
 * the fields of that moment) and whenever its attempts, lease, run-at time, last error or
 * progress change, until it reaches a final state (COMPLETED, DEAD) or is gone (DESIGN.md §4.4).
 *
 * A watched job is registered in `P:{Q}:watched` ({@link JobRegistrations}), so every script
 * that changes its state appends an entry to `P:{Q}:job:<id>:events` (`includes/jobEvents.lua`)
 * in the same call. A read ({@link jobReader}) takes the job's hash and then that list; each
 * subscriber's render ({@link jobRender}) sends the entries it has not seen, oldest first, each
 * as the job with that moment's fields, and the hash as read when it is newer than them (what
 * changes no state: a lease extended). A job with no entries (the list expired, or it moved
 * before the watch was registered) is sent as read, as before events existed.
 */
import type { Job, JobError, Queue, QueueKeys } from '../lanes/internal.js';
import { decodeJob, withoutToken } from '../lanes/internal.js';
import type { Render } from './conflate.js';

/**
 * The job as a watcher sees it: null when it is gone (trimmed, removed by an operator) or never
 * was. A job completed without retention is COMPLETED (its event list's last entry, read from
 * the hash before its DEL: includes/jobEvents.lua noteJobForgotten), with the constant fields
 * read before.
 */
export type WatchedJob = Job | null;

/** One entry of a job's event list: the job at that moment (null: gone), and its place. */
export interface JobMoment {
  /** The entry's place in the job's history: each entry's is the one before's plus one. */
  readonly seq: number;
  readonly job: WatchedJob;
}

/** What a job watch holds after a read. */
export interface JobTimeline {
  /** The job's hash as read (null when there is none). */
  readonly job: WatchedJob;
  /** The entries of its event list read just after the hash, oldest first (at most 100). */
  readonly moments: readonly JobMoment[];
}

/**
 * The same point of the job's life: what every state change moves (state, attempts, claim,
 * run-at and finish times) is equal; a lease extended or nothing else may differ. A hash that
 * is at the same point as an entry was read at or after that entry was written.
 */
function sameMoment(a: WatchedJob, b: WatchedJob): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.state === b.state &&
    a.attempts === b.attempts &&
    a.claimedAt === b.claimedAt &&
    a.runAt === b.runAt &&
    a.finishedAt === b.finishedAt
  );
}

/**
 * Equal for a watcher: the same job at the same moment ({@link sameMoment}) with the same lease
 * (token and deadline), last error and progress. What a job's life changes; payload, group and
 * maxAttempts never change, and `errors` grows only with `lastError` (each failed attempt sets
 * both).
 */
export function sameJob(a: WatchedJob, b: WatchedJob): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.id === b.id &&
    sameMoment(a, b) &&
    a.token === b.token &&
    a.leaseUntil === b.leaseUntil &&
    a.lastError === b.lastError &&
    sameProgress(a.progress, b.progress)
  );
}

/** Progress compared as the JSON it is stored as (an object read twice is two objects). */
function sameProgress(a: Job['progress'], b: Job['progress']): boolean {
  if (a === b) return true;
  return typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Whether a job event is a watcher's last: the job COMPLETED or DEAD (the end of its life; a dead
 * job requeued by an operator starts another, which a new subscription follows), or gone (null).
 */
export function isFinalJob(job: WatchedJob): boolean {
  return job === null || job.state === 'COMPLETED' || job.state === 'DEAD';
}

/** Equal for a watch: the same hash and no newer entry. */
export function sameTimeline(a: JobTimeline, b: JobTimeline): boolean {
  return sameJob(a.job, b.job) && a.moments.at(-1)?.seq === b.moments.at(-1)?.seq;
}

/**
 * Whether failure `e` was recorded by the moment of `job`, whose entry was written at `at` (ms):
 * a failure's `at` is the time of the script that recorded it, as an entry's is. Within one ms
 * the attempts tell: a failure of an earlier attempt came first, and one of this attempt was
 * recorded by the change that ended it (the job is no longer ACTIVE).
 */
function recordedBy(e: JobError, job: Job, at: number): boolean {
  if (e.at !== at) return e.at < at;
  return e.attempt < job.attempts || (e.attempt === job.attempts && job.state !== 'ACTIVE');
}

/**
 * The job at an entry's moment: its constant fields (id, group, payload, maxAttempts,
 * enqueuedAt, backoff) from `known`, the entry's mutable ones, and the errors of `known` that
 * were recorded by then ({@link recordedBy}). No token: a watcher never holds the lease.
 */
function atMoment(known: Job, fields: Record<string, string>, at: number): Job {
  const moment = decodeJob(known.queue, known.id, fields);
  return {
    ...known,
    // A result belongs to the COMPLETED job, read with `known` once it completed.
    result: moment.state === 'COMPLETED' ? known.result : null,
    state: moment.state,
    attempts: moment.attempts,
    token: null,
    leaseUntil: moment.leaseUntil,
    runAt: moment.runAt,
    claimedAt: moment.claimedAt,
    finishedAt: moment.finishedAt,
    lastError: moment.lastError,
    progress: moment.progress,
    // The worker holding it at that moment (DESIGN.md §4.9), null when not ACTIVE.
    workerId: moment.workerId ?? null,
    ...(known.errors === undefined
      ? {}
      : { errors: known.errors.filter((e) => recordedBy(e, moment, at)) }),
  };
}

/**
 * The moments of a job's event list (JSON entries `{seq, at, gone?, state?, …}`, as
 * `includes/jobEvents.lua` writes them), oldest first. An entry that is not one (another
 * writer's), or whose job's constant fields were never read (`known` undefined), is left out.
 */
export function decodeMoments(entries: readonly string[], known: Job | undefined): JobMoment[] {
  const moments: JobMoment[] = [];
  for (const text of entries) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null) continue;
    const entry = parsed as Record<string, unknown>;
    const seq = Number(entry.seq);
    if (!Number.isSafeInteger(seq)) continue;
    if (entry.gone === true) {
      moments.push({ seq, job: null });
      continue;
    }
    if (known === undefined) continue;
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(entry)) {
      if (typeof value === 'string') fields[name] = value;
    }
    moments.push({ seq, job: atMoment(known, fields, Number(entry.at)) });
  }
  return moments;
}

/**
 * A job watch's read: `register` first (the job's registration in `P:{Q}:watched`, so its
 * events are written from then on), then the job's hash (`Queue.job`) and, after it on the same
 * connection, its event list (LRANGE 0 -1, at most 100 entries): every entry of a change the
 * hash shows is in the list read. The constant fields of the entries are the job's as last read
 * while it existed (a job gone since keeps the ones read before).
 */
export function jobReader(
  handle: Queue,
  id: string,
  register: () => Promise<void>,
): () => Promise<JobTimeline> {
  let known: Job | undefined;
  const eventsKey = handle.keys.jobEvents(id);
  return async () => {
    await register();
    const [job, entries] = await Promise.all([
      handle.job(id).then(withoutToken),
      // A list of another type (written by hand) reads as none: the hash alone, as before.
      handle.redis.lrange(eventsKey, 0, -1).catch((error: unknown) => {
        if (error instanceof Error && error.message.startsWith('WRONGTYPE')) return [] as string[];
        throw error;
      }),
    ]);
    if (job !== null) known = job;
    return { job, moments: decodeMoments(entries, known) };
  };
}

/**
 * One subscriber's render: the events it is sent for a read, in order (undefined: none).
 * - First: the job as read, then the entries written after the point the hash shows (the
 *   newest entry at the same point, {@link sameMoment}; none found: none after).
 * - Then: each entry it has not seen (seq past the last seen) that differs from what it was
 *   sent last, oldest first; then the hash as read when it differs from the last sent and is
 *   not older than the entries (it is at the last entry's point, or there was no new entry) —
 *   what changes no state (a lease extended) or was not recorded (the watch was not registered
 *   yet) still comes; after a forced read (resync) the hash is sent even when unchanged.
 * - Nothing after a final event (COMPLETED, DEAD, gone).
 */
export function jobRender(): Render<JobTimeline, WatchedJob[]> {
  let seen = Number.NEGATIVE_INFINITY;
  let sent: { job: WatchedJob } | undefined;
  return ({ job, moments }, _previous, forced) => {
    const out: WatchedJob[] = [];
    if (sent === undefined) {
      out.push(job);
      let at = moments.length;
      for (let i = moments.length - 1; i >= 0; i--) {
        if (sameMoment(job, (moments[i] as JobMoment).job)) {
          at = i + 1;
          break;
        }
      }
      seen = moments.at(-1)?.seq ?? seen;
      for (const moment of moments.slice(at)) out.push(moment.job);
    } else {
      let last = sent.job;
      const fresh = moments.filter((m) => m.seq > seen);
      for (const moment of fresh) {
        if (!sameJob(moment.job, last)) out.push(moment.job);
        last = moment.job;
      }
      seen = moments.at(-1)?.seq ?? seen;
      const current = fresh.length === 0 || sameMoment(job, last);
      if (current && (forced || !sameJob(job, last))) out.push(job);
    }
    const end = out.findIndex(isFinalJob);
    const events = end < 0 ? out : out.slice(0, end + 1);
    if (events.length === 0) return undefined;
    sent = { job: events.at(-1) as WatchedJob };
    return events;
  };
}

/** A batch of job events is a subscriber's last when it ends with a final one. */
export function endsJob(events: readonly WatchedJob[]): boolean {
  return events.length > 0 && isFinalJob(events.at(-1) as WatchedJob);
}

/**
 * The keys a job is read from: its hash alone (`hset`/`hdel`/`hincrby` on every change of its
 * fields, `del` when it is deleted; flags `h` and `g`). Its errors and events lists change only
 * in the scripts that change the hash, so they need no channel of their own.
 */
export function jobKeys(k: QueueKeys, id: string): string[] {
  return [k.job(id)];
}
