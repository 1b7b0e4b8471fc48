/** Decoding of job hashes (`P:{Q}:job:<id>`) into {@link Job}s, and of pages of them. */
import { Defaults } from '../defaults.js';
import { isIntegerIn, Limits } from '../limits.js';
import type { ClaimedJob, ReadJobsReply } from '../scripts/commands.js';
import type { BackoffPolicy, Job, JobLog, JobPage, JobProgress, JobState } from '../types.js';
import { jobCursor, type Listing } from '../validate.js';

const STATES: Record<string, JobState> = {
  pending: 'PENDING',
  delayed: 'DELAYED',
  active: 'ACTIVE',
  completed: 'COMPLETED',
  dead: 'DEAD',
};

function int(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * A stored payload or result: its JSON value, its raw text if it is not JSON (another
 * writer's), or null.
 */
function parsePayload(text: string | null | undefined): unknown {
  if (text === undefined || text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The lines of a log page as `readJobLogs-3.lua` answers them (`<seq>:<at>:<line>`), each with
 * its seq; an entry that is not one (another writer's) reads as its whole text, at 0.
 */
export function decodeLogs(entries: readonly string[]): { seq: number; log: JobLog }[] {
  return entries.map((entry) => {
    const match = /^([0-9]+):([0-9]+):/.exec(entry);
    if (match === null) return { seq: 0, log: { at: 0, line: entry } };
    return {
      seq: Number(match[1]),
      log: { at: Number(match[2]), line: entry.slice(match[0].length) },
    };
  });
}

/**
 * The jobs of a claim script's reply (`ClaimReply`, commands.ts), ACTIVE and leased; the i-th
 * was claimed under `tokens[i]`.
 */
export function decodeClaims(
  queue: string,
  [claimedAt, leaseUntil, claimed]: readonly [
    claimedAt: string | null,
    leaseUntil: string | null,
    claimed: ClaimedJob[],
    ...rest: unknown[],
  ],
  tokens: readonly string[],
  workerId: string | null = null,
): Job[] {
  const at = Number(claimedAt);
  const until = Number(leaseUntil);
  return claimed.map(
    ([id, group, attempts, maxAttempts, enqueuedAt, payload, lastError, progress], i) => ({
      id,
      queue,
      group,
      payload: parsePayload(payload),
      result: null,
      progress: parsePayload(progress) as JobProgress | null,
      state: 'ACTIVE',
      attempts: Number(attempts),
      maxAttempts: int(maxAttempts) ?? 1,
      token: tokens[i] as string,
      leaseUntil: until,
      enqueuedAt: int(enqueuedAt ?? undefined),
      runAt: null,
      claimedAt: at,
      finishedAt: null,
      lastError: lastError ?? null,
      workerId,
    }),
  );
}

/**
 * The retry policy a job hash holds (`backoff` FIXED or EXPONENTIAL, `backoffDelayMs`,
 * `backoffMaxDelayMs`, `backoffJitter`), or null for none.
 */
function decodeBackoff(h: Record<string, string>): BackoffPolicy | null {
  if (h.backoff !== 'FIXED' && h.backoff !== 'EXPONENTIAL') return null;
  return {
    type: h.backoff,
    delayMs: int(h.backoffDelayMs) ?? 0,
    maxDelayMs: int(h.backoffMaxDelayMs),
    jitter: Number(h.backoffJitter ?? 0) || 0,
  };
}

/**
 * A job from its hash fields (a flat `[field, value, …]` list or an HGETALL object), with
 * `payload` and `result` as the scripts append them (includes/payloads.lua). A payload or
 * result that is not valid JSON (written by another writer) is returned as its raw text.
 */
export function decodeJob(
  queue: string,
  id: string,
  fields: string[] | Record<string, string>,
): Job {
  const h: Record<string, string> = {};
  if (Array.isArray(fields)) {
    for (let i = 0; i + 1 < fields.length; i += 2) h[fields[i] as string] = fields[i + 1] as string;
  } else {
    Object.assign(h, fields);
  }
  const payload = parsePayload(h.payload);
  return {
    id,
    queue,
    group: h.group ?? '',
    payload,
    result: parsePayload(h.result),
    progress: parsePayload(h.progress) as JobProgress | null,
    state: STATES[h.state ?? ''] ?? 'PENDING',
    attempts: int(h.attempts) ?? 0,
    maxAttempts: int(h.maxAttempts) ?? 1,
    token: h.token ?? null,
    leaseUntil: int(h.leaseUntil),
    enqueuedAt: int(h.enqueuedAt),
    runAt: int(h.runAt),
    claimedAt: int(h.claimedAt),
    finishedAt: int(h.finishedAt),
    lastError: h.lastError ?? null,
    // Kept past the lease (no write when it ends): only an active job's is its holder.
    workerId: h.state === 'active' && h.worker ? h.worker : null,
    backoff: decodeBackoff(h),
    priority: decodePriority(h.priority),
    cost: decodeCost(h.cost),
    // Only on a debounced job: every other job reads as it did before debounce.
    ...(h.debounceKey !== undefined && { debounceKey: h.debounceKey }),
  };
}

/** A job hash's `cost`: a positive safe integer as stored, else 1 (the scripts read it alike). */
function decodeCost(raw: string | undefined): number {
  const c = int(raw);
  return c !== null && c >= 1 ? c : 1;
}

/**
 * A job hash's `priority`: 1..9 as stored, or the default (5) when the hash holds none, or a
 * value that is not one of them (another writer's; the scripts read it alike).
 */
function decodePriority(raw: string | undefined): number {
  const p = int(raw);
  return p !== null && isIntegerIn(p, Limits.minPriority, Limits.maxPriority)
    ? p
    : Defaults.priority;
}

/**
 * A {@link JobPage} from `readJobs-4.lua`'s reply: each member decoded with {@link decodeJob},
 * its cursor from `listing` (the page's, DESIGN.md §4.1), its score and id. A member whose hash is gone (an index entry left by a hand
 * edit: `Queue.audit` reports it, I4) is left out of `jobs`, but the page still ends after it,
 * so the next page does not read it again.
 */
export function decodeJobPage(
  queue: string,
  listing: Listing,
  [total, more, ids, scores, fields]: ReadJobsReply,
): JobPage {
  const jobs: Job[] = [];
  const cursors: string[] = [];
  let endCursor: string | null = null;
  const encode = jobCursor.encoder(listing);
  ids.forEach((id, i) => {
    const cursor = encode(`${scores[i] as string}:${id}`);
    endCursor = cursor;
    const hash = fields[i] ?? [];
    if (hash.length === 0) return;
    jobs.push(decodeJob(queue, id, hash));
    cursors.push(cursor);
  });
  return { jobs, cursors, hasNextPage: more === 1, endCursor, totalCount: Number(total) };
}

/**
 * A job as a reader sees it: without its lease token. The token is the lease of the worker that
 * claimed the job (claim and extendLease answer it to that worker); shown to every reader it
 * would let any worker complete or retry jobs another holds (DESIGN.md §4.2). The GraphQL reads
 * and the live feed's `jobChanged` pass their jobs through it.
 */
export function withoutToken<T extends Job | null>(job: T): T {
  return job === null || job.token === null ? job : { ...job, token: null };
}
