/**
 * Property-based test of the lane engine: random interleavings of every
 * operation — enqueue (at once, with a runAt already past, or delayed for longer than a run;
 * at a random priority, so a lane runs by (priority, id) and its group stands at its head's
 * level on the rota: DESIGN.md §3 "Levels"),
 * claim, complete, retry (with no delay, an explicit 0 or a delay longer than a run),
 * extendLease, completeAndClaim (a batch of 0–4
 * completions, held, stale, bogus or repeated, then 0–4 claims), reap (with leases short enough
 * to expire), promote (a delayed job, another job, a missing one), setLimit (0, and below the
 * live count), clearLimit, pause, resume, setRateLimit and clearRateLimit (token buckets of
 * at most 6 tokens an hour, burst = max, so no token refills within a run and the model stays
 * exact; refills are covered by test/lanes/rateLimit.test.ts), setMaxPending (backlog bounds of
 * 0–3 or none: an enqueue past one is GROUP_FULL), the schedules (upsertSchedule, removeSchedule
 * and tickSchedules; DESIGN.md §3 "Schedules"), repair, and
 * complete/retry/extendLease/completeAndClaim under stale tokens — over 24 groups, issued
 * through 4 ioredis connections, in steps that are either one call or a batch of up to 4 fired
 * at once (Promise.all), each call on its own connection, so only Redis decides their order. The
 * order they are sent in is random too (a loopback Redis mostly runs them in sending order).
 *
 * After every step two independent checks run against what is in Redis (read directly, not
 * through the engine's reads):
 * 1. The invariants I1–I5 of DESIGN.md §3, checked from the raw keys and from the API's own
 *    answers (which ids were enqueued, which completions succeeded, which tokens a re-claim
 *    superseded). These know nothing of the model.
 * 2. Exact comparison with a small pure model of DESIGN.md §3 (`applyOp` below). A batch of
 *    concurrent calls is compared by linearizability: every script is atomic, so Redis ran the
 *    batch in *some* order; the model must find an order whose predicted replies equal every
 *    real reply and whose final state equals Redis' state, key by key (ring order, lanes,
 *    leases, job hashes, counters, wake list). Lease deadlines and reap's cut-off come from the
 *    Redis clock, so the model takes them from the replies and checks them against the Redis
 *    TIME read just before and just after the step.
 * 3. `Queue.audit()` finds nothing to report (and `repair`, run alone, changes nothing).
 *
 * Schedules tick only when made due by hand: a `lapse` step (alone, as time passing while nothing
 * ticked would leave it) moves one's next tick k ticks into the past (ZADD XX), well clear of
 * a tick boundary; their intervals (a minute, an hour) and daily crons (UTC, and a zone with no
 * daylight saving time) never come due within a run by themselves. The model holds the
 * schedules (definition, next tick, last run) and fires each due one's latest tick once, into
 * its group unless the group is at its bound (the tick spent), and moves it on. A tick is two
 * scripts (a read of the due schedules, then a compare-and-set fire), so a batch is linearized
 * with the read and the fire as two steps, the read before the fire. After each step the
 * engine's own listing (`Queue.schedules`) must equal the model's schedules.
 *
 * Delays are either past or longer than a run, so which delayed jobs are due never depends on
 * the clock, and the model stays exact; promotion by time (claim, reap), backoff policies and
 * jitter are covered by test/lanes/delayed.property.test.ts (invariants) and the engine tests.
 * A failed attempt's error entries (`P:{Q}:job:<id>:errors`) are compared without their `at`,
 * which is checked against the Redis clock instead.
 *
 * Replay a failure with the seed and path fast-check prints (and the replayPath of the
 * counterexample, when it shows one):
 *   FC_SEED=<seed> FC_PATH=<path> [FC_REPLAY_PATH=<replayPath>] npx vitest run test/lanes/model.test.ts
 * FC_NUM_RUNS overrides the number of runs (default {@link DEFAULT_RUNS}).
 */
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type GroupInfo,
  type Job,
  type PromotedJob,
  Queue,
  RingmasterError,
  type Schedule,
  type SchedulePage,
} from '../../src/lanes/internal.js';
import { useTestRedis } from '../support/redis.js';

// ── configuration ──────────────────────────────────────────────────────────────────────────

const PREFIX = 'emq';
/** 24 groups (≥ 20); a few ids exercise key building with odd characters. */
const GROUPS: readonly string[] = [
  ...Array.from({ length: 20 }, (_, i) => `g${String(i).padStart(2, '0')}`),
  'tenant:colon',
  'grüße',
  'with space',
  'x-{braces}',
];
/** Operations are mostly aimed at the first few groups, so limits, backlogs and races meet. */
const HOT_GROUPS = 4;
const CONNECTIONS = 4;
const MAX_BATCH = CONNECTIONS;
/** Short leases expire between steps; the long one never does within a run. */
const LONG_LEASE_MS = 600_000;
const LEASES = [1, 2, 5, 20, LONG_LEASE_MS] as const;
const DEFAULT_RUNS = 150;
/** A delay no run outlives: a delayed job is due only when promoted by hand. */
const LONG_DELAY_MS = 3_600_000;
/** Error entries kept per job (Defaults.errorsKept). */
const ERRORS_KEPT = 10;
const MAX_STEPS = 80;
/** Every rate limit's window (ms): no window ends within a run. */
const RATE_WINDOW_MS = 3_600_000;
/** Schedule ids; one exercises key and JSON handling with odd characters. */
const SCHEDULE_IDS: readonly string[] = ['s0', 's1', 'nightly:grüße'];
const DAY_MS = 86_400_000;
/**
 * Schedule timings: intervals, and daily crons whose match falls `atMs` into the UTC day (the
 * model's own arithmetic, no cron library): midnight UTC, and 04:15:30 in Asia/Kolkata (UTC+5:30
 * all year) = 22:45:30 UTC, with seconds.
 */
const TIMINGS: readonly Timing[] = [
  { everyMs: 60_000 },
  { everyMs: 3_600_000 },
  { cron: '0 0 * * *', timezone: null, atMs: 0 },
  { cron: '30 15 4 * * *', timezone: 'Asia/Kolkata', atMs: 81_930_000 },
];
/** A lapsed interval schedule's next tick sits this far past a tick boundary (ms). */
const LAPSE_PHASE_MS = 7_777;

const env = process.env;
const NUM_RUNS = env.FC_NUM_RUNS ? Number(env.FC_NUM_RUNS) : DEFAULT_RUNS;
const REPLAYING = env.FC_SEED !== undefined || env.FC_PATH !== undefined;

// ── operations ─────────────────────────────────────────────────────────────────────────────

/** What fast-check generates: indices and choices, resolved against the model when run. */
/** An enqueue's timing: none, a runAt a minute past (runs at once), or delayed past the run. */
type Delay = 'none' | 'past' | 'long';
/** A retry's delay: the policy (none: at once), an explicit 0, or past the run. */
type RetryDelay = 'policy' | 'zero' | 'long';

type Timing = { everyMs: number } | { cron: string; timezone: string | null; atMs: number };

type Intent =
  | { kind: 'enqueue'; group: number; maxAttempts: number; delay: Delay; priority: number }
  | { kind: 'setMaxPending'; group: number; maxPending: number | null }
  | {
      kind: 'upsertSchedule';
      id: number;
      group: number;
      timing: number;
      maxAttempts: number;
      priority: number;
    }
  | { kind: 'removeSchedule'; id: number }
  | { kind: 'tickSchedules' }
  | { kind: 'lapse'; id: number; ticks: number }
  | { kind: 'claim'; lease: number }
  | {
      kind: 'complete' | 'retry' | 'extendLease';
      pick: number;
      stale: boolean;
      lease: number;
      withError: boolean;
      delay: RetryDelay;
    }
  | { kind: 'completeAndClaim'; picks: LeasePick[]; claims: number; lease: number }
  | { kind: 'reap' }
  | { kind: 'promote'; pick: number; which: 'delayed' | 'other' | 'missing' }
  | { kind: 'repair' }
  | { kind: 'setLimit'; group: number; limit: number; belowActive: boolean }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: number; busy: boolean }
  | { kind: 'setRateLimit'; group: number; max: number }
  | { kind: 'clearRateLimit'; group: number; limited: boolean };

/**
 * One completion of a completeAndClaim batch: a lease picked as complete picks it (`stale`:
 * a token that no longer holds one), or (`junk`) an id that is not a decimal string.
 */
interface LeasePick {
  pick: number;
  how: 'held' | 'stale' | 'junk';
}

/** A call, fully resolved: what is sent to the engine and applied to the model. */
type Op =
  | {
      kind: 'enqueue';
      group: string;
      maxAttempts: number;
      payload: { op: number };
      /** 1..9 (DESIGN.md §3, "Priorities"); absent: the default, 5. */
      priority?: number;
      /** runAt: ms since the epoch (a minute before the step); delayMs: LONG_DELAY_MS. */
      timing?: { runAt: number } | { delayMs: number };
    }
  | { kind: 'claim'; leaseMs: number; token: string }
  | { kind: 'complete'; id: string; token: string; tag: TokenTag }
  | {
      kind: 'retry';
      id: string;
      token: string;
      error: string;
      tag: TokenTag;
      /** Sent as `{ error, delayMs }` when set, else as the older `retry(id, token, error)`. */
      delayMs?: number;
    }
  | { kind: 'extendLease'; id: string; token: string; leaseMs: number; tag: TokenTag }
  | {
      kind: 'completeAndClaim';
      /** Completed in this order, as `complete` each. */
      completions: { id: string; token: string; tag: TokenTag }[];
      leaseMs: number;
      /** One fresh token per claim: the call claims up to `tokens.length` jobs. */
      tokens: string[];
    }
  | { kind: 'reap' }
  | { kind: 'promote'; id: string }
  | { kind: 'repair' }
  | { kind: 'setLimit'; group: string; limit: number }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: string }
  | { kind: 'setRateLimit'; group: string; max: number }
  | { kind: 'clearRateLimit'; group: string }
  | { kind: 'setMaxPending'; group: string; maxPending: number | null }
  | {
      kind: 'upsertSchedule';
      id: string;
      group: string;
      timing: Timing;
      payload: { op: number };
      maxAttempts: number;
      priority: number;
    }
  | { kind: 'removeSchedule'; id: string }
  | { kind: 'tickSchedules' }
  /** Time passing with nothing ticking: the schedule's next tick moved back to `to` (ZADD XX). */
  | { kind: 'lapse'; id: string; to: number };

/** Which token a complete/retry/extendLease carries (`junk`: an id that is not decimal). */
type TokenTag = 'held' | 'superseded' | 'old' | 'bogus' | 'junk';

/** A call's answer, reduced to what the model can predict: a value, or an error code. */
type Outcome = { ok: unknown } | { err: string };

// ── the model: DESIGN.md §3, pure ──────────────────────────────────────────────────────────

type JobPlace = 'pending' | 'delayed' | 'active' | 'dead' | 'completed';

/** A failed attempt's entry as the model predicts it (its `at` is checked apart). */
type ErrorEntry = [attempt: number, message: string, stack: string | null];

interface MJob {
  id: string;
  group: string;
  /** Its lane score: its id shifted by its priority (includes/priority.lua). */
  score: number;
  /** 1..9; the hash holds it unless it is 5. */
  priority: number;
  attempts: number;
  maxAttempts: number;
  state: JobPlace;
  token: string | null;
  leaseUntil: number | null;
  lastError: string | null;
  payload: string;
  /** When it runs while delayed (ms, Redis clock, from the reply after a bounds check). */
  runAt: number | null;
  /** Failed attempts, newest first, at most ERRORS_KEPT. */
  errors: ErrorEntry[];
  /** Every token it was ever claimed under, oldest first. */
  tokens: string[];
}

/** A schedule's definition as `P:{Q}:schedule` holds it (DESIGN.md §2), and its run. */
interface MSchedule {
  definition: {
    group: string;
    everyMs: number | null;
    cron: string | null;
    timezone: string | null;
    /** JSON text. */
    payload: string;
    maxAttempts: number;
    backoff: null;
    priority: number;
  };
  nextRunAt: number;
  lastRunAt: number | null;
  lastJobId: string | null;
}

/** One due schedule as a tick's read (dueSchedules-2.lua) left it for the tick's fire. */
interface TickRead {
  id: string;
  /** Its score and definition (canonical) as read: the fire's compare-and-set. */
  expected: number;
  definition: string;
  /** The tick to fire and the next, from the read's now. */
  fired: number;
  next: number;
}

interface MState {
  seq: number;
  /** The rota of level 5 (`ring`); the other levels' rotas, in turn order (`levels`). */
  ring: string[];
  levels: Map<number, string[]>;
  paused: Set<string>;
  limits: Map<string, number>;
  active: Map<string, number>;
  /** Lane ids in ZPOPMIN order (by score; scores are unique). */
  lanes: Map<string, string[]>;
  jobs: Map<string, MJob>;
  /** Wake tokens pushed (nothing pops them in this test). */
  wakes: number;
  registered: Set<string>;
  /** Rate limits: max tokens per RATE_WINDOW_MS (burst = max); the buckets (tokens at `at`,
   * none: full); the groups short of a token → when the next comes (ms). */
  rates: Map<string, number>;
  windows: Map<string, { at: number; tokens: number }>;
  limited: Map<string, number>;
  /** Backlog bounds (group → the most pending + delayed jobs an enqueue may leave). */
  maxPending: Map<string, number>;
  schedules: Map<string, MSchedule>;
  /** The queue is in the registry of queues by an upsertSchedule (registering no group). */
  steered: boolean;
  /** Each tick call of the step whose read ran and whose fire has not yet. */
  reads: Map<Op, TickRead[]>;
  /** What the ticks did (coverage only, not state): fired, of them a missed tick's latest,
   * spent at a full group, skipped by the compare-and-set. */
  ticks: { fired: number; missed: number; spent: number; skipped: number };
  /** The jobs ticks made → the group their schedule had when it fired. */
  tickJobs: Map<string, string>;
  stats: {
    enqueued: number;
    claimed: number;
    completed: number;
    retried: number;
    reaped: number;
    dead: number;
  };
}

/** Redis TIME (ms) just before and just after a step: every script of the step ran between. */
interface Clock {
  t0: number;
  t1: number;
  /** Each schedule's next tick as Redis holds it after the step: which side of a tick
   * boundary that fell inside the step a tick read on (see {@link readDue}). */
  nextRuns?: Map<string, number>;
}

function emptyState(): MState {
  return {
    seq: 0,
    ring: [],
    levels: new Map(),
    paused: new Set(),
    limits: new Map(),
    active: new Map(),
    lanes: new Map(),
    jobs: new Map(),
    wakes: 0,
    registered: new Set(),
    rates: new Map(),
    windows: new Map(),
    limited: new Map(),
    maxPending: new Map(),
    schedules: new Map(),
    steered: false,
    reads: new Map(),
    ticks: { fired: 0, missed: 0, spent: 0, skipped: 0 },
    tickJobs: new Map(),
    stats: { enqueued: 0, claimed: 0, completed: 0, retried: 0, reaped: 0, dead: 0 },
  };
}

function cloneState(s: MState): MState {
  return {
    seq: s.seq,
    ring: [...s.ring],
    levels: new Map([...s.levels].map(([level, rota]) => [level, [...rota]])),
    paused: new Set(s.paused),
    limits: new Map(s.limits),
    active: new Map(s.active),
    lanes: new Map([...s.lanes].map(([g, lane]) => [g, [...lane]])),
    jobs: new Map(
      [...s.jobs].map(([id, job]) => [
        id,
        { ...job, tokens: [...job.tokens], errors: job.errors.map((e): ErrorEntry => [...e]) },
      ]),
    ),
    wakes: s.wakes,
    registered: new Set(s.registered),
    rates: new Map(s.rates),
    windows: new Map([...s.windows].map(([g, w]) => [g, { ...w }])),
    limited: new Map(s.limited),
    maxPending: new Map(s.maxPending),
    schedules: new Map(
      [...s.schedules].map(([id, sc]) => [id, { ...sc, definition: { ...sc.definition } }]),
    ),
    steered: s.steered,
    reads: new Map(s.reads),
    ticks: { ...s.ticks },
    tickJobs: new Map(s.tickJobs),
    stats: { ...s.stats },
  };
}

const activeOf = (s: MState, g: string): number => s.active.get(g) ?? 0;
const pendingOf = (s: MState, g: string): number => s.lanes.get(g)?.length ?? 0;

/** I1: the group belongs on the ring. */
function serviceable(s: MState, g: string): boolean {
  if (s.paused.has(g)) return false;
  const limit = s.limits.get(g);
  if (limit !== undefined && activeOf(s, g) >= limit) return false;
  if (s.limited.has(g)) return false;
  return pendingOf(s, g) > 0;
}

/** The level a lane head's score stands at (includes/priority.lua, levelOf). */
const levelOfScore = (score: number): number =>
  Math.min(9, Math.max(1, 5 + Math.floor(score / 10 ** 15)));

/** The level of g's lane head (5 for an empty lane). */
function headLevel(s: MState, g: string): number {
  const head = s.lanes.get(g)?.[0];
  return head === undefined ? 5 : levelOfScore(s.jobs.get(head)?.score ?? 0);
}

/** The rota of a level: the ring for 5. */
function rotaOf(s: MState, level: number): string[] {
  if (level === 5) return s.ring;
  const rota = s.levels.get(level) ?? [];
  s.levels.set(level, rota);
  return rota;
}

/** To the tail of its head's level. */
function enterRota(s: MState, g: string): void {
  rotaOf(s, headLevel(s, g)).push(g);
}

/** Off whichever rota holds it. */
function leaveRota(s: MState, g: string): void {
  s.ring = s.ring.filter((x) => x !== g);
  for (const [level, rota] of s.levels)
    s.levels.set(
      level,
      rota.filter((x) => x !== g),
    );
}

/** The level whose rota holds g, or null. */
function rotaLevel(s: MState, g: string): number | null {
  if (s.ring.includes(g)) return 5;
  for (const [level, rota] of s.levels) if (rota.includes(g)) return level;
  return null;
}

/** The next group a claim serves, off its rota: the most urgent level's first. */
function popRota(s: MState): string | undefined {
  for (let level = 1; level <= 9; level++) {
    const rota = rotaOf(s, level);
    if (rota.length > 0) return rota.shift();
  }
  return undefined;
}

/**
 * Re-ring (with a wake) on the transition to serviceable, at its head's level; de-ring on the
 * way out; a group that stays serviceable moves to the tail of its head's level when the write
 * changed that level (DESIGN.md §3, "Levels").
 */
function settle(s: MState, g: string, was: boolean): void {
  const now = serviceable(s, g);
  if (now && !was) {
    enterRota(s, g);
    s.wakes += 1;
  } else if (was && !now) {
    leaveRota(s, g);
  } else if (now && rotaLevel(s, g) !== headLevel(s, g)) {
    leaveRota(s, g);
    enterRota(s, g);
  }
}

function laneInsert(s: MState, g: string, job: MJob): void {
  const lane = s.lanes.get(g) ?? [];
  let at = lane.length;
  while (at > 0 && (s.jobs.get(lane[at - 1] as string)?.score ?? 0) > job.score) at -= 1;
  lane.splice(at, 0, job.id);
  s.lanes.set(g, lane);
}

function laneShift(s: MState, g: string): MJob | undefined {
  const lane = s.lanes.get(g);
  const id = lane?.shift();
  if (lane && lane.length === 0) s.lanes.delete(g);
  return id === undefined ? undefined : s.jobs.get(id);
}

function release(s: MState, job: MJob): void {
  const n = activeOf(s, job.group) - 1;
  if (n > 0) s.active.set(job.group, n);
  else s.active.delete(job.group);
}

/**
 * Record the failed attempt, then back to the front of its lane (original score), or delayed
 * until `runAt` (a retry's delay; the model's jobs have no backoff policy), or dead at
 * maxAttempts (kept: the default dead retention is far above a run's jobs).
 */
function requeue(s: MState, job: MJob, error: string, runAt: number | null = null): void {
  job.token = null;
  job.leaseUntil = null;
  job.errors = [[job.attempts, error, null] as ErrorEntry, ...job.errors].slice(0, ERRORS_KEPT);
  // The last attempt's reason: an empty one clears it (includes/requeueJob.lua).
  job.lastError = error === '' ? null : error;
  if (job.attempts >= job.maxAttempts) {
    job.state = 'dead';
    s.stats.dead += 1;
  } else if (runAt !== null) {
    job.state = 'delayed';
    job.runAt = runAt;
  } else {
    job.state = 'pending';
    laneInsert(s, job.group, job);
  }
}

/** A runAt the real reply claims, if the Redis clock allows it for `delayMs`; else NaN. */
function runAtFrom(real: Outcome, id: string, delayMs: number, clock: Clock): number {
  if (!('ok' in real) || real.ok === null || typeof real.ok !== 'object') return Number.NaN;
  const reply = real.ok as { id?: string; runAt?: number | null };
  const at = reply.runAt;
  if (reply.id !== id || typeof at !== 'number') return Number.NaN;
  return at >= clock.t0 + delayMs && at <= clock.t1 + delayMs ? at : Number.NaN;
}

function groupOutcome(s: MState, g: string): Outcome {
  const limit = s.limits.get(g) ?? null;
  const active = activeOf(s, g);
  const pending = pendingOf(s, g);
  const paused = s.paused.has(g);
  const state = paused
    ? 'PAUSED'
    : limit !== null && active >= limit
      ? 'SATURATED'
      : s.limited.has(g)
        ? 'RATE_LIMITED'
        : pending > 0
          ? 'READY'
          : 'IDLE';
  return { ok: { limit, active, pending, paused, onRing: state === 'READY', state } };
}

/** The lease guard (I5): JOB_NOT_FOUND, LEASE_LOST, or the job. */
function leaseHolder(s: MState, id: string, token: string): MJob | string {
  const job = s.jobs.get(id);
  if (!job || job.state === 'completed') return 'JOB_NOT_FOUND';
  if (job.state !== 'active' || job.token !== token) return 'LEASE_LOST';
  return job;
}

/** A deadline the real reply claims, if the Redis clock allows it; else NaN (a mismatch). */
function deadlineFrom(real: Outcome, id: string, leaseMs: number, clock: Clock): number {
  if (!('ok' in real) || real.ok === null || typeof real.ok !== 'object') return Number.NaN;
  const reply = real.ok as { id?: string; leaseUntil?: number | null };
  const at = reply.leaseUntil;
  if (reply.id !== id || typeof at !== 'number') return Number.NaN;
  return at >= clock.t0 + leaseMs && at <= clock.t1 + leaseMs ? at : Number.NaN;
}

/** When a bucket short of a token gets it back: max tokens refill per RATE_WINDOW_MS. */
function nextToken(w: { at: number; tokens: number }, max: number): number {
  return w.at + Math.ceil(((1 - w.tokens) * RATE_WINDOW_MS) / max);
}

/** An enqueue of one job into g would leave its backlog (pending + delayed) above its bound. */
function full(s: MState, g: string): boolean {
  const bound = s.maxPending.get(g);
  if (bound === undefined) return false;
  const delayed = [...s.jobs.values()].filter((j) => j.group === g && j.state === 'delayed');
  return pendingOf(s, g) + delayed.length + 1 > bound;
}

/** A daily cron's latest match at or before t (ms). */
const latestMatch = (atMs: number, t: number): number =>
  Math.floor((t - atMs) / DAY_MS) * DAY_MS + atMs;

/** The first tick after `now` of a new schedule (or one whose timing changed). */
function firstTick(timing: Timing, now: number): number {
  return 'everyMs' in timing ? now + timing.everyMs : latestMatch(timing.atMs, now) + DAY_MS;
}

/**
 * The tick to fire of a schedule due at `due`, read at `now` (≥ due), and its next: the latest
 * tick due, once (an interval keeps its phase), and the first after now.
 */
function ticksAt(d: MSchedule['definition'], due: number, now: number) {
  if (d.everyMs !== null) {
    const fired = due + Math.floor((now - due) / d.everyMs) * d.everyMs;
    return { fired, next: fired + d.everyMs };
  }
  const timing = TIMINGS.find((t) => 'cron' in t && t.cron === d.cron) as { atMs: number };
  const latest = latestMatch(timing.atMs, now);
  return { fired: Math.max(latest, due), next: latest + DAY_MS };
}

/**
 * A tick's read: the due schedules by (score, id), each with the tick it will fire. Its now lies
 * in [t0, t1]; when the two ends disagree on a schedule (a tick boundary inside the step, rare),
 * the one that left its next tick where Redis holds it after the step is taken.
 */
function readDue(s: MState, clock: Clock): TickRead[] {
  const reads: TickRead[] = [];
  const due = [...s.schedules].sort(([a, x], [b, y]) => x.nextRunAt - y.nextRunAt || cmp(a, b));
  for (const [id, sc] of due) {
    const at = (now: number) =>
      sc.nextRunAt <= now ? ticksAt(sc.definition, sc.nextRunAt, now) : null;
    const early = at(clock.t0);
    const late = at(clock.t1);
    let ticks = early;
    if (canonical(early) !== canonical(late)) {
      const held = clock.nextRuns?.get(id);
      ticks = (late?.next ?? sc.nextRunAt) === held ? late : early;
    }
    if (ticks === null) continue;
    reads.push({ id, expected: sc.nextRunAt, definition: canonical(sc.definition), ...ticks });
  }
  return reads;
}

/** A schedule as the engine lists it (Queue.schedules), as far as the model knows it. */
function scheduleView(id: string, sc: MSchedule): Record<string, unknown> {
  const { payload, ...definition } = sc.definition;
  return {
    id,
    ...definition,
    payload: JSON.parse(payload),
    nextRunAt: sc.nextRunAt,
    lastRunAt: sc.lastRunAt,
    lastJobId: sc.lastJobId,
  };
}

/**
 * Apply `op` to `s` (mutated) and return the reply the engine should have given. Values the
 * model cannot know (the Redis clock) are taken from `real` after a bounds check.
 */
function applyOp(s: MState, op: Op, real: Outcome, clock: Clock): Outcome {
  switch (op.kind) {
    case 'enqueue': {
      const g = op.group;
      // Judged before any write: a refused enqueue writes nothing (DESIGN.md §3).
      if (full(s, g)) return { err: 'GROUP_FULL' };
      const was = serviceable(s, g);
      s.seq += 1;
      const id = String(s.seq);
      const delayMs = op.timing && 'delayMs' in op.timing ? op.timing.delayMs : 0;
      const priority = op.priority ?? 5;
      const job: MJob = {
        id,
        group: g,
        // The lane runs by (priority, id): id + (priority − 5) × 10^15.
        score: s.seq + (priority - 5) * 10 ** 15,
        priority,
        attempts: 0,
        maxAttempts: op.maxAttempts,
        state: delayMs > 0 ? 'delayed' : 'pending',
        token: null,
        leaseUntil: null,
        lastError: null,
        payload: JSON.stringify(op.payload),
        runAt: delayMs > 0 ? runAtFrom(real, id, delayMs, clock) : null,
        errors: [],
        tokens: [],
      };
      s.jobs.set(id, job);
      // A delayed job is not pending: its group's standing is unchanged (no re-ring).
      if (job.state === 'pending') laneInsert(s, g, job);
      s.registered.add(g);
      s.stats.enqueued += 1;
      settle(s, g, was);
      return {
        ok: {
          id,
          group: g,
          state: job.state === 'delayed' ? 'DELAYED' : 'PENDING',
          attempts: 0,
          maxAttempts: op.maxAttempts,
          runAt: job.runAt,
          priority,
        },
      };
    }
    case 'claim': {
      for (;;) {
        const g = popRota(s);
        if (g === undefined) return { ok: null };
        if (!serviceable(s, g)) continue; // a stale head is dropped (never happens in the model)
        const job = laneShift(s, g) as MJob;
        s.active.set(g, activeOf(s, g) + 1);
        job.attempts += 1;
        job.state = 'active';
        job.token = op.token;
        job.tokens.push(op.token);
        job.leaseUntil = deadlineFrom(real, job.id, op.leaseMs, clock);
        s.stats.claimed += 1;
        const max = s.rates.get(g);
        if (max !== undefined) {
          // A full bucket starts at the first claim (the lease's start: leaseUntil − leaseMs).
          const w = s.windows.get(g) ?? {
            at: (job.leaseUntil as number) - op.leaseMs,
            tokens: max,
          };
          w.tokens -= 1;
          s.windows.set(g, w);
          if (w.tokens < 1) s.limited.set(g, nextToken(w, max));
        }
        if (serviceable(s, g)) enterRota(s, g);
        return { ok: claimReply(job) };
      }
    }
    case 'complete': {
      const job = leaseHolder(s, op.id, op.token);
      if (typeof job === 'string') return { err: job };
      const was = serviceable(s, job.group);
      release(s, job);
      job.state = 'completed';
      job.token = null;
      job.leaseUntil = null;
      s.stats.completed += 1;
      settle(s, job.group, was);
      return { ok: { id: job.id, group: job.group, state: 'COMPLETED', attempts: job.attempts } };
    }
    case 'retry': {
      const job = leaseHolder(s, op.id, op.token);
      if (typeof job === 'string') return { err: job };
      const was = serviceable(s, job.group);
      release(s, job);
      const delayMs = op.delayMs ?? 0;
      requeue(s, job, op.error, delayMs > 0 ? runAtFrom(real, job.id, delayMs, clock) : null);
      if (job.state !== 'dead') s.stats.retried += 1;
      settle(s, job.group, was);
      return {
        ok: {
          id: job.id,
          group: job.group,
          state: job.state.toUpperCase(),
          attempts: job.attempts,
          lastError: job.lastError,
          runAt: job.runAt,
        },
      };
    }
    case 'extendLease': {
      const job = leaseHolder(s, op.id, op.token);
      if (typeof job === 'string') return { err: job };
      // Only ever out: a later deadline is kept (extendLease-2.lua, ZADD GT); anything else
      // the reply claims is a mismatch (NaN).
      const current = job.leaseUntil as number;
      const reply = (real as { ok?: { leaseUntil?: number } }).ok?.leaseUntil;
      const fresh = deadlineFrom(real, job.id, op.leaseMs, clock);
      const kept = reply === current && current >= clock.t0 + op.leaseMs;
      job.leaseUntil = kept ? current : fresh > current ? fresh : Number.NaN;
      return { ok: { id: job.id, state: 'ACTIVE', token: job.token, leaseUntil: job.leaseUntil } };
    }
    case 'completeAndClaim': {
      // Each completion as complete, in order, then claim until the ring runs out, all in one
      // script; the claims happen whatever the completions answered. The API answers only
      // null (completed) or the error code for a completion.
      const reply = batchReplyOf(real);
      const refused = op.completions.map(({ id, token, tag }) => {
        const out = applyOp(s, { kind: 'complete', id, token, tag }, { err: 'n/a' }, clock);
        return 'err' in out ? out.err : null;
      });
      // One script reads TIME once: the completions' instant lies in the step's window, and
      // every claim of the call is leased from exactly that instant.
      const at = reply?.finishedAt;
      const finishedAt =
        typeof at === 'number' && at >= clock.t0 && at <= clock.t1 ? at : Number.NaN;
      const instant: Clock = { t0: finishedAt, t1: finishedAt };
      const claimed: unknown[] = [];
      for (const [i, token] of op.tokens.entries()) {
        const next = applyOp(
          s,
          { kind: 'claim', leaseMs: op.leaseMs, token },
          { ok: reply?.claimed[i] ?? null },
          instant,
        );
        if (!('ok' in next) || next.ok === null) break; // the real call stops here too
        claimed.push(next.ok);
      }
      return { ok: { refused, finishedAt, claimed } };
    }
    case 'repair':
      // A consistent queue has nothing to repair.
      return { ok: [] };
    case 'promote': {
      const job = s.jobs.get(op.id);
      if (!job || job.state === 'completed') return { err: 'JOB_NOT_FOUND' };
      const promoted = job.state === 'delayed';
      if (promoted) {
        const was = serviceable(s, job.group);
        job.state = 'pending';
        job.runAt = null;
        laneInsert(s, job.group, job);
        settle(s, job.group, was);
      }
      return { ok: { id: job.id, state: job.state.toUpperCase(), promoted } };
    }
    case 'reap': {
      // Reap takes every lease whose deadline passed at its own TIME, in (deadline, id) order.
      // That TIME is unknown but lies in [t0, t1]: the real count n must cut the ordered
      // active set where the deadlines cross it.
      const n = 'ok' in real && typeof real.ok === 'number' ? real.ok : -1;
      const ordered = [...s.jobs.values()]
        .filter((j) => j.state === 'active')
        .sort((a, b) => (a.leaseUntil as number) - (b.leaseUntil as number) || cmp(a.id, b.id));
      const last = n > 0 ? ordered[n - 1] : undefined;
      const next = n >= 0 ? ordered[n] : undefined;
      const consistent =
        n >= 0 &&
        n <= ordered.length &&
        (last === undefined || (last.leaseUntil as number) <= clock.t1) &&
        (next === undefined || (next.leaseUntil as number) > clock.t0);
      if (!consistent) {
        return {
          ok: `no cut of ${ordered.length} leases fits ${n} reaped in [${clock.t0}, ${clock.t1}]`,
        };
      }
      for (const job of ordered.slice(0, n)) {
        const was = serviceable(s, job.group);
        release(s, job);
        requeue(s, job, 'lease expired');
        settle(s, job.group, was);
        s.stats.reaped += 1;
      }
      return { ok: n };
    }
    case 'setLimit':
    case 'clearLimit':
    case 'resume': {
      const g = op.group;
      const was = serviceable(s, g);
      if (op.kind === 'setLimit') s.limits.set(g, op.limit);
      else if (op.kind === 'clearLimit') s.limits.delete(g);
      else s.paused.delete(g);
      s.registered.add(g);
      settle(s, g, was);
      return groupOutcome(s, g);
    }
    case 'setRateLimit':
    case 'clearRateLimit': {
      const g = op.group;
      const was = serviceable(s, g);
      const w = s.windows.get(g);
      if (op.kind === 'setRateLimit') {
        s.rates.set(g, op.max);
        // The bucket carries over, its tokens at most the new burst (= max); full, it goes.
        if (w !== undefined) w.tokens = Math.min(w.tokens, op.max);
        if (w !== undefined && w.tokens >= op.max) s.windows.delete(g);
        if (w !== undefined && w.tokens < 1) s.limited.set(g, nextToken(w, op.max));
        else s.limited.delete(g);
      } else {
        s.rates.delete(g);
        s.windows.delete(g);
        s.limited.delete(g);
      }
      s.registered.add(g);
      settle(s, g, was);
      return groupOutcome(s, g);
    }
    case 'pause': {
      s.paused.add(op.group);
      leaveRota(s, op.group);
      s.registered.add(op.group);
      return groupOutcome(s, op.group);
    }
    case 'setMaxPending': {
      // Jobs already held stay; the standing does not change (nothing is woken).
      if (op.maxPending === null) s.maxPending.delete(op.group);
      else s.maxPending.set(op.group, op.maxPending);
      s.registered.add(op.group);
      const out = groupOutcome(s, op.group) as { ok: Record<string, unknown> };
      return { ok: { ...out.ok, maxPending: op.maxPending } };
    }
    case 'upsertSchedule': {
      const t = op.timing;
      const definition: MSchedule['definition'] = {
        group: op.group,
        everyMs: 'everyMs' in t ? t.everyMs : null,
        cron: 'cron' in t ? t.cron : null,
        timezone: 'cron' in t ? t.timezone : null,
        payload: JSON.stringify(op.payload),
        maxAttempts: op.maxAttempts,
        backoff: null,
        priority: op.priority,
      };
      const old = s.schedules.get(op.id);
      const sameTiming =
        old !== undefined &&
        old.definition.everyMs === definition.everyMs &&
        old.definition.cron === definition.cron &&
        old.definition.timezone === definition.timezone;
      // A new timing is due at its first tick after the engine's read of the Redis clock.
      const claimed = (real as { ok?: { nextRunAt?: unknown } }).ok?.nextRunAt;
      const fits =
        typeof claimed === 'number' &&
        (claimed === firstTick(t, clock.t0) ||
          claimed === firstTick(t, clock.t1) ||
          ('everyMs' in t && claimed > firstTick(t, clock.t0) && claimed < firstTick(t, clock.t1)));
      const sc: MSchedule = {
        definition,
        nextRunAt: sameTiming ? old.nextRunAt : fits ? claimed : Number.NaN,
        lastRunAt: old?.lastRunAt ?? null,
        lastJobId: old?.lastJobId ?? null,
      };
      s.schedules.set(op.id, sc);
      s.steered = true;
      return { ok: scheduleView(op.id, sc) };
    }
    case 'removeSchedule':
      // The jobs it enqueued stay.
      return { ok: s.schedules.delete(op.id) };
    case 'lapse': {
      const sc = s.schedules.get(op.id);
      if (sc) sc.nextRunAt = op.to;
      return { ok: null };
    }
    case 'tickSchedules': {
      // The read, unless the linearization ran it already as a step of its own.
      const reads = s.reads.get(op) ?? readDue(s, clock);
      s.reads.delete(op);
      let fired = 0;
      for (const read of reads) {
        const sc = s.schedules.get(read.id);
        // The compare-and-set: moved on (another tick), re-timed, redefined or removed since.
        if (!sc || sc.nextRunAt !== read.expected || canonical(sc.definition) !== read.definition) {
          s.ticks.skipped += 1;
          continue;
        }
        const d = sc.definition;
        const job = applyOp(
          s,
          {
            kind: 'enqueue',
            group: d.group,
            maxAttempts: d.maxAttempts,
            payload: JSON.parse(d.payload),
            priority: d.priority,
          },
          { err: 'n/a' },
          clock,
        );
        if ('ok' in job) {
          sc.lastRunAt = read.fired;
          sc.lastJobId = (job.ok as { id: string }).id;
          s.tickJobs.set(sc.lastJobId, d.group);
          fired += 1;
          s.ticks.fired += 1;
          if (read.fired > read.expected) s.ticks.missed += 1;
        } else {
          // A group at its bound takes no tick's job: the tick is spent, the last run kept.
          s.ticks.spent += 1;
        }
        sc.nextRunAt = read.next;
      }
      return { ok: fired };
    }
  }
}

/** completeAndClaim's answer as {@link exec} reports it. */
interface BatchReply {
  refused: (string | null)[];
  finishedAt: number;
  claimed: Record<string, unknown>[];
}

function batchReplyOf(out: Outcome): BatchReply | undefined {
  if (!('ok' in out) || out.ok === null || typeof out.ok !== 'object') return undefined;
  const reply = out.ok as Partial<BatchReply>;
  return Array.isArray(reply.refused) && Array.isArray(reply.claimed)
    ? (reply as BatchReply)
    : undefined;
}

function claimReply(job: MJob | Job): Record<string, unknown> {
  return {
    id: job.id,
    group: job.group,
    state: 'state' in job && job.state === 'active' ? 'ACTIVE' : job.state,
    attempts: job.attempts,
    token: job.token,
    leaseUntil: job.leaseUntil,
    lastError: job.lastError,
    payload: typeof job.payload === 'string' ? JSON.parse(job.payload) : job.payload,
  };
}

// ── the real state, read straight from Redis ───────────────────────────────────────────────

/** Everything the engine keeps for one queue, in a canonical (comparable) form. */
interface Snapshot {
  ring: string[];
  paused: string[];
  glimit: [string, string][];
  gactive: [string, string][];
  lanes: [string, [string, number][]][];
  active: [string, number][];
  leases: [string, string][];
  dead: string[];
  /** `delayed`: id → runAt. */
  delayed: [string, number][];
  /** Each group's delayed index (id → runAt) and dead index (ids), non-empty ones. */
  groupDelayed: [string, [string, number][]][];
  groupDead: [string, string[]][];
  jobs: [string, Record<string, string>][];
  /** Each job's error list, newest first, without `at` (see {@link errorTimes}). */
  errors: [string, ErrorEntry[]][];
  stats: Record<string, number>;
  wake: number;
  seq: number;
  groups: string[];
  queueRegistered: boolean;
  /** Rate limits: `grate`, `gwindow` and `ratelimited` (group → reopening). */
  grate: [string, string][];
  gwindow: [string, string][];
  ratelimited: [string, number][];
  /** The members of `gseen`: every registered group (its scores are times, not modelled). */
  seen: string[];
  /** `gmaxpending`: group → its backlog bound. */
  maxPending: [string, string][];
  /** Each schedule: its definition (`schedule`, parsed), next tick (`schedules`) and last run
   * (`schedruns`); a field missing from one of the three shows as null. */
  schedules: [string, Record<string, unknown>][];
  strayKeys: string[];
}

const JOB_FIELDS = [
  'group',
  'state',
  'attempts',
  'maxAttempts',
  'token',
  'leaseUntil',
  'lastError',
  'payload',
  'runAt',
  'priority',
] as const;
const STAT_FIELDS = [
  'enqueued',
  'claimed',
  'completed',
  'retried',
  'reaped',
  'dead',
  'pending',
  'active',
  'saturated',
  'delayed',
] as const;

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byFirst = <T extends [string, ...unknown[]]>(a: T, b: T): number => cmp(a[0], b[0]);
const pairs = (flat: string[]): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
};

/**
 * This model's completed jobs are gone (I4's "completed" place is no key): the queue's completed
 * retention is set to count 0 by hand (no registration, which the model would see), the path
 * where complete deletes the hash. Retained completed jobs are modelled in
 * test/lanes/modelRetention.test.ts.
 */
async function forgetCompleted(redis: Redis, name: string): Promise<void> {
  await redis.hset(`${PREFIX}:{${name}}:settings`, 'completedCount', '0');
}

/** Every error entry's `at` read by the last {@link readSnapshot}, per job, newest first. */
const errorTimes = new Map<string, number[]>();

async function readSnapshot(redis: Redis, q: Queue): Promise<Snapshot> {
  const k = q.keys;
  const keys = await redis.keys(`${k.base.replace(/[*?[\]\\]/g, '\\$&')}*`);
  const fixed = new Set([
    k.delayed,
    k.glimit,
    k.gactive,
    k.ring,
    k.paused,
    k.wake,
    k.groups,
    k.active,
    k.leases,
    k.dead,
    k.seq,
    k.stats,
    k.settings,
    k.rate,
    k.rateWindow,
    k.rateLimited,
    // The oldest-pending index (metrics): a lower bound per lane, not modelled here;
    // its invariant is test/lanes/heads.property.test.ts's.
    k.heads,
    // The group rankings (Queue.topGroups): derived; the audit run after each step checks them
    // (RANK) and test/lanes/heads.property.test.ts holds them to the lanes and gactive.
    k.pendingRank,
    k.activeRank,
    // When each group was last registered (forgetting groups): its members, below.
    k.seen,
    // The steering history: entries, not state; test/lanes/history.test.ts's.
    k.history,
    // The payloads: read below, each beside its job's hash.
    k.payloads,
    // The rotas of the levels off 5: read below, with the ring, as one rota.
    k.levels,
    // The marker of a queue with levels: no state of its own (DESIGN.md §3, "Levels").
    k.prioritized,
    // The events per minute: counts, not state; test/lanes/throughput.test.ts's.
    k.throughput,
    // Backlog bounds and schedules: read below.
    k.maxPending,
    k.schedules,
    k.scheduleDefs,
    k.scheduleRuns,
  ]);
  const laneOf = new Map(GROUPS.map((g) => [k.lane(g), g]));
  const delayedOf = new Map(GROUPS.map((g) => [k.groupDelayed(g), g]));
  const deadOf = new Map(GROUPS.map((g) => [k.groupDead(g), g]));
  const jobKeys = keys.filter((key) => /^job:\d+$/.test(key.slice(k.base.length))).sort();
  const errorKeys = keys.filter((key) => /^job:\d+:errors$/.test(key.slice(k.base.length))).sort();
  const laneKeys = keys.filter((key) => laneOf.has(key)).sort();
  const delayedKeys = keys.filter((key) => delayedOf.has(key)).sort();
  const deadKeys = keys.filter((key) => deadOf.has(key)).sort();
  const known = new Set([...jobKeys, ...errorKeys, ...laneKeys, ...delayedKeys, ...deadKeys]);
  const strayKeys = keys.filter((key) => !fixed.has(key) && !known.has(key)).sort();

  const m = redis.multi();
  m.lrange(k.ring, 0, -1);
  m.smembers(k.paused);
  m.hgetall(k.glimit);
  m.hgetall(k.gactive);
  m.zrange(k.active, 0, -1, 'WITHSCORES');
  m.hgetall(k.leases);
  m.zrange(k.dead, 0, -1);
  m.hgetall(k.stats);
  m.llen(k.wake);
  m.get(k.seq);
  m.zrange(k.groups, 0, -1);
  m.sismember(`${PREFIX}:queues`, q.name);
  m.zrange(k.delayed, 0, -1, 'WITHSCORES');
  m.hgetall(k.rate);
  m.hgetall(k.rateWindow);
  m.zrange(k.rateLimited, 0, -1, 'WITHSCORES');
  m.zrange(k.seen, 0, -1);
  m.hgetall(k.maxPending);
  m.zrange(k.schedules, 0, -1, 'WITHSCORES');
  m.hgetall(k.scheduleDefs);
  m.hgetall(k.scheduleRuns);
  for (const key of laneKeys) m.zrange(key, 0, -1, 'WITHSCORES');
  for (const key of jobKeys) m.hgetall(key);
  for (const key of delayedKeys) m.zrange(key, 0, -1, 'WITHSCORES');
  for (const key of deadKeys) m.zrange(key, 0, -1);
  for (const key of errorKeys) m.lrange(key, 0, -1);
  m.hgetall(k.payloads);
  m.zrange(k.levels, 0, -1, 'WITHSCORES');
  const replies = ((await m.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  const at = <T>(i: number): T => replies[i] as T;
  // A job's payload is kept beside its hash (DESIGN.md §2, "Job layout"): read as its field, and
  // one whose job has no hash is a leak, reported as a stray key.
  const payloads = replies[replies.length - 2] as Record<string, string>;
  const leveled = pairs(replies[replies.length - 1] as string[]).map(
    ([g, score]): [string, number] => [g, Math.floor(Number(score) / 1e13)],
  );
  for (const id of Object.keys(payloads)) {
    if (!jobKeys.includes(k.job(id))) strayKeys.push(`${k.payloads} ${id}`);
  }
  const stats = at<Record<string, string>>(7);
  const base = 21;
  const scored = (flat: string[]) =>
    pairs(flat).map(([id, score]): [string, number] => [id, Number(score)]);
  const after = (list: unknown[], i: number) =>
    base + laneKeys.length + jobKeys.length + list.length + i;
  const entriesOf = (key: string, i: number) => {
    const raw = at<string[]>(
      base + laneKeys.length + jobKeys.length + delayedKeys.length + deadKeys.length + i,
    );
    const parsed = raw.map((text) => JSON.parse(text) as Record<string, unknown>);
    errorTimes.set(
      key.slice(k.base.length + 'job:'.length, -':errors'.length),
      parsed.map((e) => e.at as number),
    );
    return parsed.map(
      (e): ErrorEntry => [e.attempt as number, e.message as string, e.stack as string | null],
    );
  };
  errorTimes.clear();
  return {
    delayed: scored(at<string[]>(12)).sort(byFirst),
    groupDelayed: delayedKeys
      .map((key, i): [string, [string, number][]] => [
        delayedOf.get(key) as string,
        scored(at<string[]>(after([], i))).sort(byFirst),
      ])
      .sort(byFirst),
    groupDead: deadKeys
      .map((key, i): [string, string[]] => [
        deadOf.get(key) as string,
        at<string[]>(after(delayedKeys, i)).sort(),
      ])
      .sort(byFirst),
    // The error lists of live jobs. A completed job's list is left out: forgetting it with the
    // hash is the completion path's (includes/completeJob.lua), which this model does not
    // time; every other hash deletion forgets both (includes/retention.lua, `forget`).
    errors: errorKeys
      .map((key, i): [string, ErrorEntry[]] => [
        key.slice(k.base.length + 'job:'.length, -':errors'.length),
        entriesOf(key, i),
      ])
      .filter(([id]) => jobKeys.includes(`${k.base}job:${id}`))
      .sort(byFirst),
    ring: rotaEntries(
      at<string[]>(0),
      leveled.filter(([, level]) => level < 5),
      leveled.filter(([, level]) => level > 5),
    ),
    paused: at<string[]>(1).sort(),
    glimit: Object.entries(at<Record<string, string>>(2)).sort(byFirst),
    gactive: Object.entries(at<Record<string, string>>(3)).sort(byFirst),
    active: pairs(at<string[]>(4))
      .map(([id, score]): [string, number] => [id, Number(score)])
      .sort(byFirst),
    leases: Object.entries(at<Record<string, string>>(5)).sort(byFirst),
    dead: at<string[]>(6).sort(),
    stats: Object.fromEntries(STAT_FIELDS.map((f) => [f, Number(stats[f] ?? 0)])),
    wake: at<number>(8),
    seq: Number(at<string | null>(9) ?? 0),
    groups: at<string[]>(10).sort(),
    queueRegistered: at<number>(11) === 1,
    grate: Object.entries(at<Record<string, string>>(13)).sort(byFirst),
    gwindow: Object.entries(at<Record<string, string>>(14)).sort(byFirst),
    ratelimited: scored(at<string[]>(15)).sort(byFirst),
    seen: at<string[]>(16).sort(),
    maxPending: Object.entries(at<Record<string, string>>(17)).sort(byFirst),
    schedules: schedulesOf(
      scored(at<string[]>(18)),
      at<Record<string, string>>(19),
      at<Record<string, string>>(20),
    ),
    lanes: laneKeys
      .map((key, i): [string, [string, number][]] => [
        laneOf.get(key) as string,
        pairs(at<string[]>(base + i)).map(([id, score]): [string, number] => [id, Number(score)]),
      ])
      .sort(byFirst),
    jobs: jobKeys
      .map((key, i): [string, Record<string, string>] => {
        const h = at<Record<string, string>>(base + laneKeys.length + i);
        const id = key.slice(k.base.length + 'job:'.length);
        const fields: Record<string, string> = {};
        for (const f of JOB_FIELDS) if (h[f] !== undefined) fields[f] = h[f];
        // The payload in the hash is the previous layout's: reported as such, never merged.
        if (h.payload !== undefined) fields.payload = `in the job hash: ${h.payload}`;
        else if (payloads[id] !== undefined) fields.payload = payloads[id];
        return [id, fields];
      })
      .sort(byFirst),
    strayKeys,
  };
}

/** The schedules' three keys joined by id (a field one of them lacks is null). */
function schedulesOf(
  scores: [string, number][],
  definitions: Record<string, string>,
  runs: Record<string, string>,
): [string, Record<string, unknown>][] {
  const score = new Map(scores);
  const ids = new Set([...score.keys(), ...Object.keys(definitions), ...Object.keys(runs)]);
  return [...ids].sort().map((id): [string, Record<string, unknown>] => {
    const run = runs[id];
    const colon = run?.indexOf(':') ?? -1;
    return [
      id,
      {
        definition: definitions[id] === undefined ? null : JSON.parse(definitions[id]),
        nextRunAt: score.get(id) ?? null,
        lastRunAt: run === undefined ? null : Number(run.slice(0, colon)),
        lastJobId: run === undefined ? null : run.slice(colon + 1),
      },
    ];
  });
}

/**
 * The whole rota in claim order (levels 1–4, the ring, levels 6–9), a group off level 5 as
 * `<group>@<level>`.
 */
function rotaEntries(
  ring: string[],
  before: [string, number][],
  after: [string, number][],
): string[] {
  const entry = ([g, level]: [string, number]) => `${g}@${level}`;
  return [...before.map(entry), ...ring, ...after.map(entry)];
}

/** The model in the same canonical form. */
function modelSnapshot(s: MState): Snapshot {
  const jobs = [...s.jobs.values()];
  const live = jobs.filter((j) => j.state !== 'completed');
  let saturated = 0;
  for (const [g, limit] of s.limits) if (activeOf(s, g) >= limit) saturated += 1;
  return {
    ring: rotaEntries(
      s.ring,
      [1, 2, 3, 4].flatMap((l) => (s.levels.get(l) ?? []).map((g): [string, number] => [g, l])),
      [6, 7, 8, 9].flatMap((l) => (s.levels.get(l) ?? []).map((g): [string, number] => [g, l])),
    ),
    paused: [...s.paused].sort(),
    glimit: [...s.limits].map(([g, n]): [string, string] => [g, String(n)]).sort(byFirst),
    gactive: [...s.active].map(([g, n]): [string, string] => [g, String(n)]).sort(byFirst),
    lanes: [...s.lanes]
      .filter(([, lane]) => lane.length > 0)
      .map(([g, lane]): [string, [string, number][]] => [
        g,
        lane.map((id): [string, number] => [id, s.jobs.get(id)?.score ?? Number.NaN]),
      ])
      .sort(byFirst),
    active: live
      .filter((j) => j.state === 'active')
      .map((j): [string, number] => [j.id, j.leaseUntil as number])
      .sort(byFirst),
    leases: live
      .filter((j) => j.state === 'active')
      .map((j): [string, string] => [j.id, j.group])
      .sort(byFirst),
    dead: live
      .filter((j) => j.state === 'dead')
      .map((j) => j.id)
      .sort(),
    delayed: live
      .filter((j) => j.state === 'delayed')
      .map((j): [string, number] => [j.id, j.runAt as number])
      .sort(byFirst),
    groupDelayed: byGroup(live, 'delayed').map(([g, jobs]): [string, [string, number][]] => [
      g,
      jobs.map((j): [string, number] => [j.id, j.runAt as number]).sort(byFirst),
    ]),
    groupDead: byGroup(live, 'dead').map(([g, jobs]): [string, string[]] => [
      g,
      jobs.map((j) => j.id).sort(),
    ]),
    errors: live
      .filter((j) => j.errors.length > 0)
      .map((j): [string, ErrorEntry[]] => [j.id, j.errors])
      .sort(byFirst),
    jobs: live
      .map((j): [string, Record<string, string>] => {
        const h: Record<string, string> = {
          group: j.group,
          state: j.state,
          attempts: String(j.attempts),
          maxAttempts: String(j.maxAttempts),
        };
        if (j.token !== null) h.token = j.token;
        if (j.leaseUntil !== null) h.leaseUntil = String(j.leaseUntil);
        if (j.lastError !== null) h.lastError = j.lastError;
        if (j.runAt !== null) h.runAt = String(j.runAt);
        if (j.priority !== 5) h.priority = String(j.priority);
        h.payload = j.payload;
        const fields: Record<string, string> = {};
        for (const f of JOB_FIELDS) if (h[f] !== undefined) fields[f] = h[f];
        return [j.id, fields];
      })
      .sort(byFirst),
    stats: {
      ...s.stats,
      pending: [...s.lanes.values()].reduce((n, lane) => n + lane.length, 0),
      active: jobs.filter((j) => j.state === 'active').length,
      saturated,
      delayed: jobs.filter((j) => j.state === 'delayed').length,
    },
    wake: Math.min(64, s.wakes),
    seq: s.seq,
    groups: [...s.registered].sort(),
    seen: [...s.registered].sort(),
    queueRegistered: s.registered.size > 0 || s.steered,
    grate: [...s.rates]
      .map(([g, max]): [string, string] => [g, `${max}:${RATE_WINDOW_MS}:${max}`])
      .sort(byFirst),
    gwindow: [...s.windows]
      .map(([g, w]): [string, string] => [g, `${w.tokens}:${w.at}`])
      .sort(byFirst),
    ratelimited: [...s.limited].sort(byFirst),
    maxPending: [...s.maxPending].map(([g, n]): [string, string] => [g, String(n)]).sort(byFirst),
    schedules: [...s.schedules].sort(byFirst).map(([id, sc]): [string, Record<string, unknown>] => [
      id,
      {
        definition: sc.definition,
        nextRunAt: sc.nextRunAt,
        lastRunAt: sc.lastRunAt,
        lastJobId: sc.lastJobId,
      },
    ]),
    strayKeys: [],
  };
}

/** The jobs in `state`, by group (groups sorted; only groups with such jobs). */
function byGroup(jobs: readonly MJob[], state: JobPlace): [string, MJob[]][] {
  const out = new Map<string, MJob[]>();
  for (const j of jobs) if (j.state === state) out.set(j.group, [...(out.get(j.group) ?? []), j]);
  return [...out].sort(byFirst);
}

/** JSON with object keys sorted, so equal values compare equal as text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(byFirst))
      : v,
  );
}

// ── I1–I5, straight from Redis and the API's answers (no model) ────────────────────────────

/** What the API told us, across a run: the ground truth I4 and I5 are checked against. */
class Tracker {
  /** id → group, from enqueue replies. */
  readonly enqueued = new Map<string, string>();
  /** ids whose complete succeeded. */
  readonly completed = new Set<string>();
  /**
   * id → its tokens by attempt number, from claim replies. The attempt number (not the order
   * of the calls in a batch) says which claim came last: Redis may run a batch in any order.
   */
  readonly claims = new Map<string, Map<number, string>>();

  /**
   * The jobs the step's ticks made: a tick answers only how many, so they are the job hashes
   * after the step that no answer named, exactly that many (each is still held: nothing can
   * complete a job in the step that made it). Throws when the count differs.
   */
  recordTicks(ops: readonly Op[], outs: readonly Outcome[], snap: Snapshot): void {
    const made = ops.reduce((n, op, i) => {
      const out = outs[i] as Outcome;
      return op.kind === 'tickSchedules' && 'ok' in out ? n + (out.ok as number) : n;
    }, 0);
    const unnamed = snap.jobs.filter(([id]) => !this.enqueued.has(id));
    if (unnamed.length !== made) {
      throw new Error(
        `ticks: the step's ticks answered ${made} jobs, but ${unnamed.length} jobs no answer ` +
          `named appeared (${unnamed.map(([id]) => id)})`,
      );
    }
    for (const [id, fields] of unnamed) this.enqueued.set(id, fields.group as string);
  }

  /** Tokens a later claim of the same job replaced: I5 says they never act again. */
  superseded(id: string, token: string): boolean {
    const tokens = [...(this.claims.get(id) ?? new Map<number, string>())];
    const mine = tokens.find(([, t]) => t === token)?.[0];
    return mine !== undefined && tokens.some(([attempt]) => attempt > mine);
  }

  /** Record a step's answers; throws on an I5 violation (a superseded token that worked). */
  record(batchOps: readonly Op[], batchOuts: readonly Outcome[]): void {
    // completeAndClaim counts as the completes and the claims it is made of
    const ops: Op[] = [];
    const outs: Outcome[] = [];
    batchOps.forEach((op, i) => {
      const out = batchOuts[i] as Outcome;
      const reply = op.kind === 'completeAndClaim' ? batchReplyOf(out) : undefined;
      if (op.kind !== 'completeAndClaim' || reply === undefined) {
        ops.push(op);
        outs.push(out);
        return;
      }
      op.completions.forEach(({ id, token, tag }, j) => {
        const refused = reply.refused[j];
        ops.push({ kind: 'complete', id, token, tag });
        outs.push(refused === null ? { ok: { id } } : { err: String(refused) });
      });
      reply.claimed.forEach((job, j) => {
        ops.push({ kind: 'claim', leaseMs: op.leaseMs, token: op.tokens[j] as string });
        outs.push({ ok: job });
      });
    });
    ops.forEach((op, i) => {
      const out = outs[i] as Outcome;
      if (
        (op.kind === 'complete' || op.kind === 'retry' || op.kind === 'extendLease') &&
        'ok' in out &&
        this.superseded(op.id, op.token)
      ) {
        throw new Error(
          `I5: ${op.kind}(${op.id}) succeeded with token ${op.token}, superseded by a re-claim ` +
            `(tokens by attempt ${JSON.stringify([...(this.claims.get(op.id) ?? [])])})`,
        );
      }
    });
    ops.forEach((op, i) => {
      const out = outs[i] as Outcome;
      if (!('ok' in out) || out.ok === null) return;
      const reply = out.ok as { id: string; group: string; token: string };
      if (op.kind === 'enqueue') this.enqueued.set(reply.id, reply.group);
      if (op.kind === 'complete') this.completed.add(op.id);
      if (op.kind === 'claim') {
        const { attempts } = out.ok as { attempts: number };
        const tokens = this.claims.get(reply.id) ?? new Map<number, string>();
        tokens.set(attempts, reply.token);
        this.claims.set(reply.id, tokens);
      }
    });
  }
}

function parseLimit(raw: string | undefined): number | null {
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : null;
}

/** I1–I4 over a snapshot, I4 against the ids the API handed out. Throws naming the invariant. */
function checkInvariants(snap: Snapshot, tracker: Tracker): void {
  const limit = new Map(snap.glimit);
  const gactive = new Map(snap.gactive);
  const lanes = new Map(snap.lanes);
  const paused = new Set(snap.paused);
  const ring = new Set(snap.ring.map((entry) => entry.split('@')[0] as string));
  const rateLimited = new Set(snap.ratelimited.map(([g]) => g));
  const fail = (msg: string): never => {
    throw new Error(`${msg}\nsnapshot: ${canonical(snap)}`);
  };

  // I2
  if (ring.size !== snap.ring.length) fail(`I2: ring has duplicates: ${snap.ring.join(',')}`);

  // I3: gactive(g) = |{ id ∈ active : leases[id] = g }|, never negative, field gone at 0
  const leases = new Map(snap.leases);
  const activeIds = new Set(snap.active.map(([id]) => id));
  if (leases.size !== activeIds.size || [...activeIds].some((id) => !leases.has(id))) {
    fail(`I3: active ids and leases differ`);
  }
  const counted = new Map<string, number>();
  for (const [, g] of snap.leases) counted.set(g, (counted.get(g) ?? 0) + 1);
  for (const [g, raw] of snap.gactive) {
    if (!/^[1-9]\d*$/.test(raw)) fail(`I3: gactive[${g}] = ${raw} (must be > 0 or absent)`);
  }
  for (const g of new Set([...counted.keys(), ...gactive.keys()])) {
    const stored = Number(gactive.get(g) ?? 0);
    if (stored !== (counted.get(g) ?? 0)) {
      fail(`I3: gactive[${g}] = ${stored} but ${counted.get(g) ?? 0} active jobs lease it`);
    }
  }

  // I1 with levels: a group on the rota stands at its lane head's level (DESIGN.md §3).
  for (const entry of snap.ring) {
    const [g, at] = entry.split('@') as [string, string | undefined];
    const head = lanes.get(g)?.[0];
    const level = head ? Math.min(9, Math.max(1, 5 + Math.floor(head[1] / 1e15))) : null;
    if (head && level !== Number(at ?? 5)) {
      fail(`I1: ${g} is on the rota at level ${at ?? 5} but its lane head stands at ${level}`);
    }
  }

  // I1, for every group that exists anywhere
  const all = new Set([...GROUPS, ...ring, ...paused, ...limit.keys(), ...gactive.keys()]);
  for (const g of all) {
    const lim = parseLimit(limit.get(g));
    const active = Number(gactive.get(g) ?? 0);
    const should =
      !paused.has(g) &&
      (lim === null || active < lim) &&
      !rateLimited.has(g) &&
      (lanes.get(g)?.length ?? 0) > 0;
    if (ring.has(g) !== should) {
      fail(
        `I1: ${g} ${ring.has(g) ? 'is' : 'is not'} on the ring but paused=${paused.has(g)} ` +
          `limit=${lim} active=${active} rateLimited=${rateLimited.has(g)} ` +
          `pending=${lanes.get(g)?.length ?? 0}`,
      );
    }
  }

  // I4: every id enqueued is in exactly one of its lane, delayed, active, dead, completed (hash
  // gone); one in delayed is in its group's delayed index too (same runAt), one in dead in its
  // group's dead index, and no index holds anything else
  const inLane = new Map<string, string[]>();
  for (const [g, lane] of snap.lanes) {
    for (const [id] of lane) inLane.set(id, [...(inLane.get(id) ?? []), g]);
  }
  const dead = new Set(snap.dead);
  const delayed = new Map(snap.delayed);
  const hashes = new Set(snap.jobs.map(([id]) => id));
  const indexed = (index: [string, unknown][]) =>
    new Map(
      index.flatMap(([g, ids]) =>
        (ids as (string | [string, number])[]).map((e): [string, [string, number | null]] =>
          typeof e === 'string' ? [e, [g, null]] : [e[0], [g, e[1]]],
        ),
      ),
    );
  const groupDelayed = indexed(snap.groupDelayed);
  const groupDead = indexed(snap.groupDead);
  const indexEntries = (index: [string, unknown[]][]) =>
    index.reduce((n, [, ids]) => n + ids.length, 0);
  if (indexEntries(snap.groupDelayed) !== delayed.size) fail('I4: group delayed indexes differ');
  if (indexEntries(snap.groupDead) !== dead.size) fail('I4: group dead indexes differ');
  for (const [id, group] of tracker.enqueued) {
    const lanesOf = inLane.get(id) ?? [];
    if (lanesOf.some((g) => g !== group)) fail(`I4: job ${id} of ${group} is in lane ${lanesOf}`);
    const completed = tracker.completed.has(id);
    if (completed && hashes.has(id)) fail(`I4: job ${id} completed but its hash is still there`);
    const places = [
      lanesOf.length > 0,
      delayed.has(id),
      activeIds.has(id),
      dead.has(id),
      completed,
    ];
    if (places.filter(Boolean).length !== 1) {
      fail(
        `I4: job ${id} is in ${places.filter(Boolean).length} places ` +
          `(lane ${places[0]}, delayed ${places[1]}, active ${places[2]}, dead ${places[3]}, ` +
          `completed ${places[4]})`,
      );
    }
    if (
      delayed.has(id) &&
      canonical(groupDelayed.get(id)) !== canonical([group, delayed.get(id)])
    ) {
      fail(`I4: delayed job ${id} of ${group} is not in its group's delayed index at its runAt`);
    }
    if (dead.has(id) && groupDead.get(id)?.[0] !== group) {
      fail(`I4: dead job ${id} of ${group} is not in its group's dead index`);
    }
  }
  for (const id of [...inLane.keys(), ...delayed.keys(), ...activeIds, ...dead]) {
    if (!tracker.enqueued.has(id)) fail(`I4: job ${id} is in the queue but was never enqueued`);
  }
  if (snap.strayKeys.length > 0) fail(`stray keys: ${snap.strayKeys.join(', ')}`);
  for (const [id, fields] of snap.jobs) {
    if (fields.payload?.startsWith('in the job hash')) {
      fail(`layout: job ${id} holds its payload in its hash, not in the queue's payloads`);
    }
  }
}

// ── linearization: find the order Redis ran a batch in ─────────────────────────────────────

interface Linearized {
  state: MState;
  order: number[];
}

/**
 * An order of `ops` in which the model predicts every real reply and ends in `realKey`'s
 * state; null when there is none. Depth-first over permutations (a batch has ≤ 4 calls),
 * pruned at the first reply the model does not predict. A tickSchedules call is two scripts,
 * so it takes two places in the order: its read (unit `ops.length + i`, no reply of its own)
 * somewhere before its fire (unit i); `order` lists the calls only, by their fires.
 */
function linearize(
  pre: MState,
  ops: readonly Op[],
  outs: readonly Outcome[],
  clock: Clock,
  realKey: string,
  /** The order to try first: the order the calls were sent in. */
  prefer: readonly number[] = ops.map((_, i) => i),
): Linearized | null {
  const n = ops.length;
  const search = (s: MState, left: number[], order: number[]): Linearized | null => {
    if (left.length === 0) {
      return canonical(modelSnapshot(s)) === realKey
        ? { state: s, order: order.filter((i) => i < n) }
        : null;
    }
    for (const i of left) {
      const next = cloneState(s);
      if (i >= n) {
        const op = ops[i - n] as Op;
        next.reads.set(op, readDue(next, clock));
        const found = search(
          next,
          left.filter((j) => j !== i),
          [...order, i],
        );
        if (found) return found;
        continue;
      }
      if (left.includes(n + i)) continue; // a tick fires after its read
      const predicted = applyOp(next, ops[i] as Op, outs[i] as Outcome, clock);
      if (canonical(predicted) !== canonical(outs[i])) continue;
      const found = search(
        next,
        left.filter((j) => j !== i),
        [...order, i],
      );
      if (found) return found;
    }
    return null;
  };
  const units = prefer.flatMap((i) => (ops[i]?.kind === 'tickSchedules' ? [n + i, i] : [i]));
  return search(pre, units, []);
}

/** The closest order (most replies predicted), as a diff-able report for a failure. */
function closestMiss(
  pre: MState,
  ops: readonly Op[],
  outs: readonly Outcome[],
  clock: Clock,
): { order: number[]; predicted: Outcome[]; state: Snapshot } {
  let best: { order: number[]; predicted: Outcome[]; state: Snapshot; score: number } | null = null;
  for (const order of permutations(ops.map((_, i) => i))) {
    const s = cloneState(pre);
    const predicted: Outcome[] = [];
    for (const i of order) predicted[i] = applyOp(s, ops[i] as Op, outs[i] as Outcome, clock);
    const score = predicted.filter((p, i) => canonical(p) === canonical(outs[i])).length;
    if (!best || score > best.score) {
      best = { order, predicted, state: modelSnapshot(s), score };
    }
  }
  const { score: _, ...rest } = best as NonNullable<typeof best>;
  return rest;
}

function* permutations(items: number[]): Generator<number[]> {
  if (items.length <= 1) {
    yield items;
    return;
  }
  for (const [i, head] of items.entries()) {
    for (const rest of permutations(items.filter((_, j) => j !== i))) yield [head, ...rest];
  }
}

// ── the system under test ──────────────────────────────────────────────────────────────────

interface Real {
  /** One Queue per connection: every call of a batch goes out on its own socket. */
  queues: Queue[];
  /** A separate connection for TIME and snapshots. */
  admin: Redis;
  tracker: Tracker;
  steps: number;
  tokens: number;
  payloads: number;
}

interface ModelBox {
  s: MState;
}

/** What the runs covered (asserted at the end, so the property cannot pass vacuously). */
const coverage = {
  steps: 0,
  batches: 0,
  /** Batches the model had to reorder (Redis ran them in another order than listed). */
  reordered: 0,
  /**
   * Batches that could not have run in the order they were sent: a race seen from outside.
   * (Informational: a local Redis mostly runs them in sending order.)
   */
  raced: 0,
  claims: 0,
  reaped: 0,
  dead: 0,
  limitZero: 0,
  belowActive: 0,
  pausedWithActive: 0,
  supersededTried: 0,
  supersededWhileReclaimed: 0,
  heldRaces: 0,
  /** completeAndClaim calls that completed at least one job and claimed at least one. */
  completeAndClaim: 0,
  /** … that completed at least two and claimed at least two. */
  completeAndClaimMany: 0,
  /** … where one job was completed and then named again (JOB_NOT_FOUND the second time). */
  completeAndClaimRepeats: 0,
  /** … that mixed completions that succeeded with ones that were refused. */
  completeAndClaimMixed: 0,
  /** … whose claims stopped early, the ring having run out. */
  completeAndClaimShort: 0,
  repairs: 0,
  /** Enqueues that made a DELAYED job; retries that delayed one; promotions that moved one. */
  delayedEnqueues: 0,
  delayedRetries: 0,
  promoted: 0,
  /** promote of a job that was not delayed (answered unchanged). */
  promotedNothing: 0,
  /** setRateLimit calls; groups that came to their rate; clears of a rate-limited group. */
  rateLimitsSet: 0,
  rateLimitedClaims: 0,
  rateLimitedCleared: 0,
  /** setMaxPending calls; enqueues refused GROUP_FULL. */
  boundsSet: 0,
  groupFull: 0,
  /** Upserts that moved a schedule's next tick, and ones that kept it (timing unchanged). */
  schedulesTimed: 0,
  schedulesKept: 0,
  /** Jobs the ticks made; of them, missed ticks' latest; ticks spent at a full group; due
   * schedules a tick read and then did not fire (another tick, an upsert or removal between). */
  tickJobs: 0,
  missedTicks: 0,
  spentTicks: 0,
  casSkips: 0,
  /** removeSchedule calls that removed one. */
  schedulesRemoved: 0,
};

function toOutcome(op: Op, value: unknown): Outcome {
  if (
    op.kind === 'reap' ||
    op.kind === 'repair' ||
    op.kind === 'removeSchedule' ||
    op.kind === 'tickSchedules' ||
    op.kind === 'lapse'
  ) {
    return { ok: value };
  }
  if (op.kind === 'upsertSchedule') {
    const { queue: _, ...schedule } = value as Schedule;
    return { ok: schedule };
  }
  if (op.kind === 'completeAndClaim') {
    const reply = value as Awaited<ReturnType<Queue['completeAndClaim']>>;
    const answer: BatchReply = {
      refused: reply.refused.map((e) =>
        e === null ? null : e instanceof RingmasterError ? e.code : `UNEXPECTED ${String(e)}`,
      ),
      finishedAt: reply.finishedAt,
      claimed: reply.claimed.map((job) => claimReply(job)),
    };
    return { ok: answer };
  }
  if (
    op.kind === 'setLimit' ||
    op.kind === 'clearLimit' ||
    op.kind === 'pause' ||
    op.kind === 'resume' ||
    op.kind === 'setRateLimit' ||
    op.kind === 'clearRateLimit' ||
    op.kind === 'setMaxPending'
  ) {
    const g = value as GroupInfo;
    return {
      ok: {
        limit: g.limit,
        active: g.active,
        pending: g.pending,
        paused: g.paused,
        onRing: g.onRing,
        state: g.state,
        ...(op.kind === 'setMaxPending' ? { maxPending: g.maxPending } : {}),
      },
    };
  }
  const job = value as Job | null;
  if (job === null) return { ok: null };
  switch (op.kind) {
    case 'enqueue':
      return {
        ok: {
          id: job.id,
          group: job.group,
          state: job.state,
          attempts: job.attempts,
          maxAttempts: job.maxAttempts,
          runAt: job.runAt,
          priority: job.priority,
        },
      };
    case 'promote':
      return {
        ok: { id: job.id, state: job.state, promoted: (job as PromotedJob).promoted },
      };
    case 'claim':
      return { ok: claimReply(job) };
    case 'complete':
      return { ok: { id: job.id, group: job.group, state: job.state, attempts: job.attempts } };
    case 'retry':
      return {
        ok: {
          id: job.id,
          group: job.group,
          state: job.state,
          attempts: job.attempts,
          lastError: job.lastError,
          runAt: job.runAt,
        },
      };
    case 'extendLease':
      return { ok: { id: job.id, state: job.state, token: job.token, leaseUntil: job.leaseUntil } };
  }
}

async function exec(q: Queue, op: Op): Promise<Outcome> {
  try {
    let value: unknown;
    switch (op.kind) {
      case 'enqueue':
        value = await q.enqueue(op.group, op.payload, {
          maxAttempts: op.maxAttempts,
          priority: op.priority,
          ...op.timing,
        });
        break;
      case 'promote':
        value = await q.promote(op.id);
        break;
      case 'claim':
        value = await q.claim({ leaseMs: op.leaseMs, token: op.token });
        break;
      case 'complete':
        value = await q.complete(op.id, op.token);
        break;
      case 'retry':
        value =
          op.delayMs === undefined
            ? await q.retry(op.id, op.token, op.error)
            : await q.retry(op.id, op.token, { error: op.error, delayMs: op.delayMs });
        break;
      case 'extendLease':
        value = await q.extendLease(op.id, op.token, op.leaseMs);
        break;
      case 'completeAndClaim':
        value = await q.completeAndClaim(
          op.completions.map(({ id, token }) => ({ id, token })),
          // `claim` is left to default to the number of tokens on odd-length batches
          op.completions.length % 2 === 1
            ? { leaseMs: op.leaseMs, tokens: op.tokens }
            : { claim: op.tokens.length, leaseMs: op.leaseMs, tokens: op.tokens },
        );
        break;
      case 'reap':
        value = await q.reap();
        break;
      case 'repair':
        value = (await q.repair()).findings;
        break;
      case 'setLimit':
        value = await q.setLimit(op.group, op.limit);
        break;
      case 'clearLimit':
        value = await q.clearLimit(op.group);
        break;
      case 'pause':
        value = await q.pause(op.group);
        break;
      case 'resume':
        value = await q.resume(op.group);
        break;
      case 'setRateLimit':
        value = await q.setRateLimit(op.group, { max: op.max, windowMs: RATE_WINDOW_MS });
        break;
      case 'clearRateLimit':
        value = await q.clearRateLimit(op.group);
        break;
      case 'setMaxPending':
        value = await q.setMaxPending(op.group, op.maxPending);
        break;
      case 'upsertSchedule':
        value = await q.upsertSchedule({
          id: op.id,
          group: op.group,
          ...('everyMs' in op.timing
            ? { everyMs: op.timing.everyMs }
            : { cron: op.timing.cron, timezone: op.timing.timezone }),
          payload: op.payload,
          maxAttempts: op.maxAttempts,
          priority: op.priority,
        });
        break;
      case 'removeSchedule':
        value = await q.removeSchedule(op.id);
        break;
      case 'tickSchedules':
        value = await q.tickSchedules();
        break;
      case 'lapse':
        // XX: a schedule removed meanwhile stays removed.
        await q.redis.zadd(q.keys.schedules, 'XX', op.to, op.id);
        value = null;
        break;
    }
    return toOutcome(op, value);
  } catch (error) {
    if (error instanceof RingmasterError) return { err: error.code };
    return { err: `UNEXPECTED ${String(error)}` };
  }
}

async function redisMs(redis: Redis): Promise<number> {
  const [sec, usec] = await redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/** Turn an intent into a concrete call, choosing jobs and tokens from the model's state. */
function resolve(s: MState, intent: Intent, real: Real): Op {
  switch (intent.kind) {
    case 'enqueue': {
      const op: Op = {
        kind: 'enqueue',
        group: GROUPS[intent.group] as string,
        maxAttempts: intent.maxAttempts,
        payload: { op: real.payloads++ },
        priority: intent.priority,
      };
      // A runAt a minute past (by this machine's clock, which is the Redis server's) runs at once.
      if (intent.delay === 'past') op.timing = { runAt: Date.now() - 60_000 };
      if (intent.delay === 'long') op.timing = { delayMs: LONG_DELAY_MS };
      return op;
    }
    case 'promote': {
      const jobs = [...s.jobs.values()].sort((a, b) => a.score - b.score);
      const pool =
        intent.which === 'delayed'
          ? jobs.filter((j) => j.state === 'delayed')
          : jobs.filter((j) => j.state !== 'delayed');
      const job = pool[intent.pick % Math.max(1, pool.length)];
      if (intent.which === 'missing' || !job)
        return { kind: 'promote', id: String(990_000 + intent.pick) };
      return { kind: 'promote', id: job.id };
    }
    case 'claim':
      return { kind: 'claim', leaseMs: intent.lease, token: `t${real.tokens++}` };
    case 'reap':
    case 'repair':
      return { kind: intent.kind };
    case 'completeAndClaim':
      return {
        kind: 'completeAndClaim',
        // every pick sees the state before the call, so a held lease may be named twice
        completions: intent.picks.map(({ pick, how }) =>
          how === 'junk'
            ? { id: `j${pick}`, token: `t${pick}`, tag: 'junk' as const }
            : pickLease(s, pick, how === 'stale'),
        ),
        leaseMs: intent.lease,
        tokens: Array.from({ length: intent.claims }, () => `t${real.tokens++}`),
      };
    case 'setLimit': {
      const busy = [...s.active.keys()].sort();
      if (intent.belowActive && busy.length > 0) {
        const g = busy[intent.group % busy.length] as string;
        const limit = Math.min(intent.limit, activeOf(s, g) - 1);
        coverage.belowActive += 1;
        return { kind: 'setLimit', group: g, limit };
      }
      if (intent.limit === 0) coverage.limitZero += 1;
      return { kind: 'setLimit', group: GROUPS[intent.group] as string, limit: intent.limit };
    }
    case 'setRateLimit':
      coverage.rateLimitsSet += 1;
      return { kind: 'setRateLimit', group: GROUPS[intent.group] as string, max: intent.max };
    case 'setMaxPending':
      coverage.boundsSet += 1;
      return {
        kind: 'setMaxPending',
        group: GROUPS[intent.group] as string,
        maxPending: intent.maxPending,
      };
    case 'upsertSchedule': {
      const old = s.schedules.get(SCHEDULE_IDS[intent.id] as string)?.definition;
      const timing = TIMINGS[intent.timing] as Timing;
      const same =
        old !== undefined &&
        ('everyMs' in timing ? old.everyMs === timing.everyMs : old.cron === timing.cron);
      if (same) coverage.schedulesKept += 1;
      else coverage.schedulesTimed += 1;
      return {
        kind: 'upsertSchedule',
        id: SCHEDULE_IDS[intent.id] as string,
        group: GROUPS[intent.group] as string,
        timing,
        payload: { op: real.payloads++ },
        maxAttempts: intent.maxAttempts,
        priority: intent.priority,
      };
    }
    case 'removeSchedule':
      return { kind: 'removeSchedule', id: SCHEDULE_IDS[intent.id] as string };
    case 'tickSchedules':
      return { kind: 'tickSchedules' };
    case 'lapse': {
      // Back `ticks` ticks before now (this machine's clock, which is the Redis server's): an
      // interval's clear of its tick boundaries by LAPSE_PHASE_MS, a cron's onto a match. Mostly
      // one the model holds; sometimes any id (a removed or unknown one stays so: ZADD XX).
      const held = [...s.schedules.keys()].sort();
      const id =
        intent.id < SCHEDULE_IDS.length || held.length === 0
          ? (SCHEDULE_IDS[intent.id % SCHEDULE_IDS.length] as string)
          : (held[intent.id % held.length] as string);
      const d = s.schedules.get(id)?.definition;
      const now = Date.now();
      if (d === undefined) return { kind: 'lapse', id, to: now - LAPSE_PHASE_MS };
      if (d.everyMs !== null) {
        return { kind: 'lapse', id, to: now - intent.ticks * d.everyMs - LAPSE_PHASE_MS };
      }
      const { atMs } = TIMINGS.find((t) => 'cron' in t && t.cron === d.cron) as { atMs: number };
      return { kind: 'lapse', id, to: latestMatch(atMs, now) - intent.ticks * DAY_MS };
    }
    case 'clearRateLimit': {
      // `limited`: aim at a group at its rate, where clearing matters most
      const limited = [...s.limited.keys()].sort();
      const group =
        intent.limited && limited.length > 0
          ? (limited[intent.group % limited.length] as string)
          : (GROUPS[intent.group] as string);
      if (s.limited.has(group)) coverage.rateLimitedCleared += 1;
      return { kind: 'clearRateLimit', group };
    }
    case 'clearLimit':
    case 'pause':
    case 'resume': {
      // `busy`: aim at a group with jobs in flight, where pause and limits matter most
      const busy = [...s.active.keys()].sort();
      const group =
        intent.busy && busy.length > 0
          ? (busy[intent.group % busy.length] as string)
          : (GROUPS[intent.group] as string);
      if (intent.kind === 'pause' && activeOf(s, group) > 0) coverage.pausedWithActive += 1;
      return { kind: intent.kind, group };
    }
    default: {
      const { id, token, tag } = pickLease(s, intent.pick, intent.stale);
      if (intent.kind === 'complete') return { kind: 'complete', id, token, tag };
      if (intent.kind === 'retry') {
        const error = intent.withError ? `boom ${real.payloads++}` : '';
        const op: Op = { kind: 'retry', id, token, error, tag };
        if (intent.delay === 'zero') op.delayMs = 0;
        if (intent.delay === 'long') op.delayMs = LONG_DELAY_MS;
        return op;
      }
      return { kind: 'extendLease', id, token, leaseMs: intent.lease, tag };
    }
  }
}

/** A held lease, or a token that no longer holds one (superseded first), or a bogus one. */
function pickLease(
  s: MState,
  pick: number,
  stale: boolean,
): { id: string; token: string; tag: TokenTag } {
  const jobs = [...s.jobs.values()].sort((a, b) => a.score - b.score);
  if (!stale) {
    const held = jobs.filter((j) => j.state === 'active');
    const job = held[pick % Math.max(1, held.length)];
    if (job) return { id: job.id, token: job.token as string, tag: 'held' };
  }
  const superseded: { id: string; token: string }[] = [];
  const old: { id: string; token: string }[] = [];
  for (const job of jobs) {
    job.tokens.forEach((token, i) => {
      if (token === job.token) return;
      (i < job.tokens.length - 1 ? superseded : old).push({ id: job.id, token });
    });
  }
  if (superseded.length > 0 && pick % 3 !== 0) {
    const choice = superseded[pick % superseded.length] as { id: string; token: string };
    coverage.supersededTried += 1;
    if (s.jobs.get(choice.id)?.state === 'active') coverage.supersededWhileReclaimed += 1;
    return { ...choice, tag: 'superseded' };
  }
  if (old.length > 0)
    return { ...(old[pick % old.length] as { id: string; token: string }), tag: 'old' };
  const job = jobs[pick % Math.max(1, jobs.length)];
  return { id: job ? job.id : '999999', token: 'bogus', tag: 'bogus' };
}

function describeIntent(i: Intent): string {
  switch (i.kind) {
    case 'enqueue':
      return `enqueue(${GROUPS[i.group]}, max ${i.maxAttempts}${i.delay === 'none' ? '' : `, ${i.delay}`}${i.priority === 5 ? '' : `, priority ${i.priority}`})`;
    case 'promote':
      return `promote(${i.which} #${i.pick})`;
    case 'claim':
      return `claim(${i.lease}ms)`;
    case 'reap':
    case 'repair':
      return `${i.kind}()`;
    case 'setLimit':
      return i.belowActive
        ? `setLimit(busy #${i.group}, ≤${i.limit} below active)`
        : `setLimit(${GROUPS[i.group]}, ${i.limit})`;
    case 'setRateLimit':
      return `setRateLimit(${GROUPS[i.group]}, ${i.max} per hour)`;
    case 'setMaxPending':
      return `setMaxPending(${GROUPS[i.group]}, ${i.maxPending})`;
    case 'upsertSchedule':
      return `upsertSchedule(${SCHEDULE_IDS[i.id]}, ${GROUPS[i.group]}, ${JSON.stringify(TIMINGS[i.timing])}, max ${i.maxAttempts}, priority ${i.priority})`;
    case 'removeSchedule':
      return `removeSchedule(${SCHEDULE_IDS[i.id]})`;
    case 'tickSchedules':
      return 'tickSchedules()';
    case 'lapse':
      return `lapse(${SCHEDULE_IDS[i.id]}, ${i.ticks} ticks back)`;
    case 'clearRateLimit':
      return i.limited
        ? `clearRateLimit(rate-limited #${i.group})`
        : `clearRateLimit(${GROUPS[i.group]})`;
    case 'clearLimit':
    case 'pause':
    case 'resume':
      return i.busy ? `${i.kind}(busy #${i.group})` : `${i.kind}(${GROUPS[i.group]})`;
    case 'completeAndClaim': {
      const picks = i.picks.map(({ pick, how }) => `${how} #${pick}`).join(', ');
      return `completeAndClaim([${picks}], claim ${i.claims}, ${i.lease}ms)`;
    }
    default:
      return `${i.kind}(${i.stale ? 'stale' : 'held'} #${i.pick}${i.kind === 'extendLease' ? `, ${i.lease}ms` : ''}${i.kind === 'retry' && i.delay !== 'policy' ? `, delay ${i.delay}` : ''})`;
  }
}

class Step implements fc.AsyncCommand<ModelBox, Real> {
  /**
   * @param intents the calls, resolved against the model in this order
   * @param fire the order the calls are sent in (all at once, each on its own connection)
   */
  constructor(
    readonly intents: readonly Intent[],
    readonly fire: readonly number[],
  ) {}

  check(): boolean {
    return true;
  }

  async run(m: ModelBox, r: Real): Promise<void> {
    const ops = this.intents.map((intent) => resolve(m.s, intent, r));
    const conn = r.steps++;
    const clock: Clock = { t0: await redisMs(r.admin), t1: 0 };
    const sent: Promise<Outcome>[] = [];
    for (const i of this.fire) {
      sent[i] = exec(r.queues[(conn + i) % r.queues.length] as Queue, ops[i] as Op);
    }
    const outs = await Promise.all(sent);
    clock.t1 = await redisMs(r.admin);
    const snap = await readSnapshot(r.admin, r.queues[0] as Queue);
    clock.nextRuns = new Map(
      snap.schedules.map(([id, sc]): [string, number] => [id, sc.nextRunAt as number]),
    );

    const context = () =>
      `step ${conn}: ${ops.map((op, i) => `${JSON.stringify(op)} → ${canonical(outs[i])}`).join('\n  ')}`;
    try {
      for (const out of outs) {
        if ('err' in out && out.err.startsWith('UNEXPECTED')) throw new Error(out.err);
      }
      r.tracker.record(ops, outs);
      r.tracker.recordTicks(ops, outs, snap);
      checkInvariants(snap, r.tracker);
      for (const [id, times] of errorTimes) {
        // Newest first, and none from after the step (the Redis clock of every script).
        if (times.some((t, i) => t > clock.t1 || (i > 0 && t > (times[i - 1] as number)))) {
          throw new Error(`job ${id}'s error times ${times} are not newest first by ${clock.t1}`);
        }
      }
      const { findings } = await (r.queues[0] as Queue).audit();
      if (findings.length > 0) throw new Error(`audit found ${JSON.stringify(findings)}`);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${context()}`);
    }

    const found = linearize(m.s, ops, outs, clock, canonical(snap), this.fire);
    if (!found) {
      // A readable diff of the closest order the model found against what Redis holds.
      const miss = closestMiss(m.s, ops, outs, clock);
      const plain = (v: unknown): unknown => JSON.parse(canonical(v));
      let diff = '';
      try {
        deepStrictEqual(
          plain({ replies: miss.predicted, state: miss.state }),
          plain({ replies: outs, state: snap }),
        );
      } catch (error) {
        diff = (error as Error).message;
      }
      throw new Error(
        `no order of the batch matches Redis; closest order [${miss.order}], ` +
          `model (+ actual) vs Redis (- expected):\n${diff}\n${context()}`,
      );
    }
    if (m.s.schedules.size > 0 || found.state.schedules.size > 0) {
      const page = await (r.queues[0] as Queue).schedules({ first: 500 });
      this.checkSchedules(m.s, found.state, page, snap);
    }
    coverage.dead += found.state.stats.dead - m.s.stats.dead;
    coverage.tickJobs += found.state.ticks.fired - m.s.ticks.fired;
    coverage.missedTicks += found.state.ticks.missed - m.s.ticks.missed;
    coverage.spentTicks += found.state.ticks.spent - m.s.ticks.spent;
    coverage.casSkips += found.state.ticks.skipped - m.s.ticks.skipped;
    for (const g of found.state.limited.keys()) {
      if (!m.s.limited.has(g)) coverage.rateLimitedClaims += 1;
    }
    m.s = found.state;
    this.count(ops, outs, found.order);
  }

  /**
   * The engine's listing equals the model's schedules, and each job a tick of the step made
   * (by the model) is, when the model has it pending, in the lane of the group its schedule
   * had, in Redis, and in no lane when not.
   */
  private checkSchedules(before: MState, after: MState, page: SchedulePage, snap: Snapshot): void {
    const listed = page.schedules.map(({ queue: _, ...schedule }) => schedule);
    const modelled = [...after.schedules].sort(byFirst).map(([id, sc]) => scheduleView(id, sc));
    if (canonical(listed) !== canonical(modelled) || page.totalCount !== modelled.length) {
      throw new Error(
        `schedules: the engine lists ${canonical(listed)}, the model holds ${canonical(modelled)}`,
      );
    }
    const lanes = new Map(snap.lanes);
    for (const [jobId, group] of after.tickJobs) {
      if (before.tickJobs.has(jobId)) continue;
      const pending = after.jobs.get(jobId)?.state === 'pending';
      const inLane = lanes.get(group)?.some(([id]) => id === jobId) ?? false;
      if (pending !== inLane) {
        throw new Error(
          `schedules: a tick made job ${jobId} into ${group}, ${pending ? 'pending' : 'not pending'} ` +
            `by the model, ${inLane ? 'in' : 'not in'} its lane in Redis`,
        );
      }
    }
  }

  private count(ops: Op[], outs: Outcome[], order: number[]): void {
    coverage.steps += 1;
    if (ops.length > 1) coverage.batches += 1;
    if (order.some((i, at) => i !== at)) coverage.reordered += 1;
    if (order.some((i, at) => i !== this.fire[at])) coverage.raced += 1;
    // two calls of the batch aiming at the same held lease (a call naming it twice is no race)
    const held = ops.flatMap((op) => [
      ...new Set(
        (op.kind === 'completeAndClaim' ? op.completions : [op])
          .filter((c) => 'tag' in c && c.tag === 'held')
          .map((c) => ('id' in c ? c.id : '')),
      ),
    ]);
    if (new Set(held).size < held.length) coverage.heldRaces += 1;
    ops.forEach((op, i) => {
      const out = outs[i] as Outcome;
      if (op.kind === 'enqueue' && 'err' in out && out.err === 'GROUP_FULL')
        coverage.groupFull += 1;
      if (!('ok' in out)) return;
      if (op.kind === 'claim' && out.ok !== null) coverage.claims += 1;
      if (op.kind === 'reap') coverage.reaped += out.ok as number;
      if (op.kind === 'repair') coverage.repairs += 1;
      const state = (out.ok as { state?: string } | null)?.state;
      if (op.kind === 'enqueue' && state === 'DELAYED') coverage.delayedEnqueues += 1;
      if (op.kind === 'removeSchedule' && out.ok === true) coverage.schedulesRemoved += 1;
      if (op.kind === 'retry' && state === 'DELAYED') coverage.delayedRetries += 1;
      if (op.kind === 'promote') {
        if ((out.ok as { promoted: boolean }).promoted) coverage.promoted += 1;
        else coverage.promotedNothing += 1;
      }
      const reply = op.kind === 'completeAndClaim' ? batchReplyOf(out) : undefined;
      if (op.kind === 'completeAndClaim' && reply) {
        const completed = reply.refused.filter((e) => e === null).length;
        const claimed = reply.claimed.length;
        if (completed >= 1 && claimed >= 1) coverage.completeAndClaim += 1;
        if (completed >= 2 && claimed >= 2) coverage.completeAndClaimMany += 1;
        if (completed >= 1 && completed < reply.refused.length) coverage.completeAndClaimMixed += 1;
        if (claimed < op.tokens.length) coverage.completeAndClaimShort += 1;
        const done = new Set<string>();
        op.completions.forEach(({ id }, j) => {
          if (done.has(id) && reply.refused[j] === 'JOB_NOT_FOUND') {
            coverage.completeAndClaimRepeats += 1;
          }
          if (reply.refused[j] === null) done.add(id);
        });
      }
    });
  }

  toString(): string {
    const calls = this.fire.map((i) => describeIntent(this.intents[i] as Intent));
    return `Step(${calls.join(' ‖ ')})`;
  }
}

// ── arbitraries ────────────────────────────────────────────────────────────────────────────

const groupArb = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: HOT_GROUPS - 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: GROUPS.length - 1 }) },
);
const leaseArb = fc.constantFrom(...LEASES);
const leaseOpArb = (kind: 'complete' | 'retry' | 'extendLease', stale: boolean) =>
  fc.record({
    kind: fc.constant(kind),
    pick: fc.nat({ max: 1000 }),
    stale: fc.constant(stale),
    lease: leaseArb,
    withError: fc.boolean(),
    delay: fc.constantFrom<RetryDelay>('policy', 'policy', 'zero', 'long'),
  });
/**
 * completeAndClaim: 0–4 completions (mostly held leases, or mostly stale ones; a few ids that
 * are not decimal), then 0–4 claims. `size: 'max'` so batches of 4 are as common as short ones.
 */
const completeAndClaimArb = (stale: boolean): fc.Arbitrary<Intent> =>
  fc.record({
    kind: fc.constant('completeAndClaim' as const),
    picks: fc.array(
      fc.record({
        pick: fc.nat({ max: 1000 }),
        how: fc.oneof(
          { weight: stale ? 1 : 6, arbitrary: fc.constant('held' as const) },
          { weight: stale ? 6 : 1, arbitrary: fc.constant('stale' as const) },
          { weight: 1, arbitrary: fc.constant('junk' as const) },
        ),
      }),
      { maxLength: 4, size: 'max' },
    ),
    claims: fc.integer({ min: 0, max: 4 }),
    lease: leaseArb,
  });

const intentArb: fc.Arbitrary<Intent> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group: groupArb,
      maxAttempts: fc.integer({ min: 1, max: 3 }),
      delay: fc.constantFrom<Delay>('none', 'none', 'none', 'past', 'long'),
      // Half at the default, the rest anywhere in 1..9: the lane runs by (priority, id).
      priority: fc.oneof(fc.constant(5), fc.integer({ min: 1, max: 9 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('promote' as const),
      pick: fc.nat({ max: 1000 }),
      which: fc.constantFrom(
        'delayed' as const,
        'delayed' as const,
        'other' as const,
        'missing' as const,
      ),
    }),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('claim' as const), lease: leaseArb }) },
  { weight: 3, arbitrary: leaseOpArb('complete', false) },
  { weight: 2, arbitrary: leaseOpArb('retry', false) },
  { weight: 2, arbitrary: leaseOpArb('extendLease', false) },
  { weight: 3, arbitrary: completeAndClaimArb(false) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      leaseOpArb('complete', true),
      leaseOpArb('retry', true),
      leaseOpArb('extendLease', true),
      completeAndClaimArb(true),
    ),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('reap' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group: groupArb,
      limit: fc.integer({ min: 0, max: 3 }),
      belowActive: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('clearLimit' as const, 'pause' as const, 'resume' as const),
      group: groupArb,
      busy: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setRateLimit' as const),
      group: fc.integer({ min: 0, max: HOT_GROUPS - 1 }),
      max: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('clearRateLimit' as const),
      group: groupArb,
      limited: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setMaxPending' as const),
      group: fc.integer({ min: 0, max: HOT_GROUPS - 1 }),
      maxPending: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 3, nil: null }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('upsertSchedule' as const),
      id: fc.nat({ max: SCHEDULE_IDS.length - 1 }),
      group: fc.integer({ min: 0, max: HOT_GROUPS - 1 }),
      timing: fc.nat({ max: TIMINGS.length - 1 }),
      maxAttempts: fc.integer({ min: 1, max: 3 }),
      priority: fc.oneof(fc.constant(5), fc.integer({ min: 1, max: 9 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('removeSchedule' as const),
      id: fc.nat({ max: SCHEDULE_IDS.length - 1 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tickSchedules' as const) }) },
);

/** A batch of calls, each with a priority that orders their sending. */
const batchArb = fc
  .array(fc.tuple(intentArb, fc.nat({ max: 7 })), { minLength: 1, maxLength: MAX_BATCH })
  .map((calls) => {
    const priority = (i: number): number => calls[i]?.[1] ?? 0;
    const fire = calls.map((_, i) => i).sort((a, b) => priority(a) - priority(b) || a - b);
    return new Step(
      calls.map(([intent]) => intent),
      fire,
    );
  });
/**
 * Tickers racing: 2–3 ticks at once, with an upsert or removal of a schedule or an enqueue
 * beside them (the compare-and-set's cases), sent in a random order.
 */
const tickRaceArb = fc
  .tuple(
    fc.integer({ min: 2, max: 3 }),
    fc.oneof(
      fc.record({
        kind: fc.constant('upsertSchedule' as const),
        id: fc.nat({ max: SCHEDULE_IDS.length - 1 }),
        group: fc.integer({ min: 0, max: HOT_GROUPS - 1 }),
        // mostly an interval of a minute: the timing of most lapsed schedules, kept
        timing: fc.oneof(fc.constant(0), fc.nat({ max: TIMINGS.length - 1 })),
        maxAttempts: fc.integer({ min: 1, max: 3 }),
        priority: fc.constant(5),
      }),
      fc.record({
        kind: fc.constant('removeSchedule' as const),
        id: fc.nat({ max: SCHEDULE_IDS.length - 1 }),
      }),
      fc.record({
        kind: fc.constant('enqueue' as const),
        group: fc.integer({ min: 0, max: HOT_GROUPS - 1 }),
        maxAttempts: fc.constant(1),
        delay: fc.constant<Delay>('none'),
        priority: fc.constant(5),
      }),
    ),
    fc.array(fc.nat({ max: 7 }), { minLength: 4, maxLength: 4 }),
  )
  .map(([ticks, beside, priorities]) => {
    const intents: Intent[] = [
      ...Array.from({ length: ticks }, (): Intent => ({ kind: 'tickSchedules' })),
      beside,
    ];
    const priority = (i: number): number => priorities[i] ?? 0;
    const fire = intents.map((_, i) => i).sort((a, b) => priority(a) - priority(b) || a - b);
    return new Step(intents, fire);
  });

/**
 * repair is only exact on a quiet queue (its totals are recounted outside any one script, see
 * src/lanes/queue/reconcile.ts), so it runs as a step of its own.
 */
const stepArb = fc.oneof(
  { weight: 20, arbitrary: batchArb },
  { weight: 1, arbitrary: fc.constant(new Step([{ kind: 'repair' }], [0])) },
  { weight: 2, arbitrary: tickRaceArb },
  // A lapse stands for time passing, so it runs alone: between a tick's read and its fire it
  // would be a write no engine makes.
  {
    weight: 4,
    arbitrary: fc
      .record({
        kind: fc.constant('lapse' as const),
        id: fc.nat({ max: 4 * SCHEDULE_IDS.length - 1 }),
        ticks: fc.nat({ max: 3 }),
      })
      .map((intent) => new Step([intent], [0])),
  },
);

// ── the tests ──────────────────────────────────────────────────────────────────────────────

describe('engine model (DESIGN.md §3, I1–I5)', () => {
  const redis = useTestRedis();
  let connections: Redis[] = [];
  let admin: Redis;
  let runs = 0;

  beforeAll(() => {
    connections = Array.from({ length: CONNECTIONS }, () => redis.client());
    admin = redis.client();
  });
  afterAll(async () => {
    await Promise.all([...connections, admin].map((c) => c.quit().catch(() => undefined)));
  });

  it(
    'random interleavings of every operation, from 4 connections, match the model and keep I1–I5',
    async () => {
      const constraints: fc.CommandsContraints = { maxCommands: MAX_STEPS, size: 'max' };
      if (env.FC_REPLAY_PATH) constraints.replayPath = env.FC_REPLAY_PATH;
      const property = fc.asyncProperty(fc.commands([stepArb], constraints), async (steps) => {
        const name = `model-${runs++}-${Math.random().toString(36).slice(2, 8)}`;
        await forgetCompleted(admin, name);
        const setup = () => ({
          model: { s: emptyState() },
          real: {
            queues: connections.map((c) => new Queue(c, name, { prefix: PREFIX })),
            admin,
            tracker: new Tracker(),
            steps: 0,
            tokens: 0,
            payloads: 0,
          },
        });
        try {
          await fc.asyncModelRun(setup, steps);
        } finally {
          // Runs leave no keys behind, so KEYS in readSnapshot stays cheap over many runs.
          const keys = await admin.keys(`${PREFIX}:{${name}}:*`);
          if (keys.length > 0) await admin.unlink(...keys);
        }
      });
      const params: fc.Parameters<[Iterable<fc.AsyncCommand<ModelBox, Real>>]> = {
        numRuns: NUM_RUNS,
      };
      if (env.FC_SEED !== undefined) params.seed = Number(env.FC_SEED);
      if (env.FC_PATH !== undefined) params.path = env.FC_PATH;
      const details = await fc.check(property, params);
      if (details.failed) {
        const replayPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0]))?.[1];
        const replay =
          `FC_SEED=${details.seed} FC_PATH=${details.counterexamplePath ?? ''}` +
          (replayPath ? ` FC_REPLAY_PATH='${replayPath}'` : '') +
          ' npx vitest run test/lanes/model.test.ts';
        const cause = details.errorInstance;
        const why = cause instanceof Error ? (cause.stack ?? cause.message) : String(cause);
        throw new Error(
          `${fc.defaultReportMessage(details)}\n\nReplay: ${replay}\n\nError: ${why}`,
        );
      }

      // The runs must have reached the situations the invariants are about.
      if (!REPLAYING && NUM_RUNS >= DEFAULT_RUNS) {
        // about a fifth of what the default runs reach, so chance never trips them
        expect(coverage.batches).toBeGreaterThan(800);
        expect(coverage.reordered).toBeGreaterThan(500);
        expect(coverage.claims).toBeGreaterThan(300);
        expect(coverage.reaped).toBeGreaterThan(80);
        expect(coverage.dead).toBeGreaterThan(60);
        expect(coverage.limitZero).toBeGreaterThan(40);
        expect(coverage.belowActive).toBeGreaterThan(80);
        expect(coverage.pausedWithActive).toBeGreaterThan(20);
        expect(coverage.supersededTried).toBeGreaterThan(150);
        expect(coverage.supersededWhileReclaimed).toBeGreaterThan(20);
        expect(coverage.heldRaces).toBeGreaterThan(50);
        expect(coverage.completeAndClaim).toBeGreaterThan(20);
        expect(coverage.completeAndClaimMany).toBeGreaterThan(2);
        expect(coverage.completeAndClaimRepeats).toBeGreaterThan(5);
        expect(coverage.completeAndClaimMixed).toBeGreaterThan(20);
        expect(coverage.completeAndClaimShort).toBeGreaterThan(20);
        expect(coverage.repairs).toBeGreaterThan(20);
        expect(coverage.rateLimitsSet).toBeGreaterThan(100);
        expect(coverage.rateLimitedClaims).toBeGreaterThan(20);
        expect(coverage.rateLimitedCleared).toBeGreaterThan(2);
        expect(coverage.delayedEnqueues).toBeGreaterThan(50);
        expect(coverage.delayedRetries).toBeGreaterThan(10);
        expect(coverage.promoted).toBeGreaterThan(30);
        expect(coverage.promotedNothing).toBeGreaterThan(20);
        expect(coverage.groupFull).toBeGreaterThan(20);
        expect(coverage.schedulesKept).toBeGreaterThan(12);
        expect(coverage.schedulesRemoved).toBeGreaterThan(30);
        expect(coverage.tickJobs).toBeGreaterThan(50);
        expect(coverage.missedTicks).toBeGreaterThan(40);
        expect(coverage.spentTicks).toBeGreaterThan(6);
        expect(coverage.casSkips).toBeGreaterThan(12);
      }
      const what = REPLAYING ? 'a replay' : `${NUM_RUNS} runs`;
      console.info(`engine model coverage over ${what}: ${JSON.stringify(coverage)}`);
    },
    Math.max(120_000, NUM_RUNS * 1_000),
  );

  // The checks above only mean something if they can fail: each corruption below, written by
  // hand into a queue the engine left consistent, must be caught by the invariant it breaks,
  // and the model must refuse a state it did not produce.
  describe('the checks catch what they are for', () => {
    async function consistentQueue(label: string) {
      const name = `${label}-${Math.random().toString(36).slice(2, 8)}`;
      await forgetCompleted(admin, name);
      const q = new Queue(admin, name, { prefix: PREFIX });
      const tracker = new Tracker();
      const ops: Op[] = [];
      const outs: Outcome[] = [];
      const run = async (op: Op) => {
        const out = await exec(q, op);
        ops.push(op);
        outs.push(out);
        return out;
      };
      await run({ kind: 'setLimit', group: 'g00', limit: 1 });
      // jobs 1, 2 in g00 (limit 1), 3 in g01, 4 in g02; job 1 is claimed: ring [g01, g02]
      for (const group of ['g00', 'g00', 'g01', 'g02']) {
        await run({ kind: 'enqueue', group, maxAttempts: 2, payload: { op: 0 } });
      }
      await run({ kind: 'claim', leaseMs: LONG_LEASE_MS, token: 'a' });
      tracker.record(ops, outs);
      checkInvariants(await readSnapshot(admin, q), tracker);
      return { q, tracker, k: q.keys };
    }

    const corruptions: [string, RegExp, (k: Queue['keys'], r: Redis) => Promise<unknown>][] = [
      ['a duplicate on the ring', /^I2/, (k, r) => r.rpush(k.ring, 'g01')],
      ['a serviceable group missing from the ring', /^I1/, (k, r) => r.lrem(k.ring, 0, 'g01')],
      ['a saturated group on the ring', /^I1/, (k, r) => r.rpush(k.ring, 'g00')],
      ['a paused group on the ring', /^I1/, (k, r) => r.sadd(k.paused, 'g01')],
      ['gactive off by one', /^I3/, (k, r) => r.hincrby(k.gactive, 'g01', 1)],
      ['gactive left at 0', /^I3/, (k, r) => r.hset(k.gactive, 'g00', '0')],
      ['a lease without its active entry', /^I3/, (k, r) => r.hset(k.leases, '999', 'g00')],
      ['a job lost from its lane', /^I4/, (k, r) => r.zrem(k.lane('g00'), '2')],
      ['a job in two places', /^I4/, (k, r) => r.zadd(k.dead, 1, '3')],
      ['a job in another group’s lane', /^I4/, (k, r) => r.zadd(k.lane('g02'), 3, '3')],
      ['a job nobody enqueued', /^I4/, (k, r) => r.zadd(k.dead, 1, '77')],
      [
        'a delayed job missing from its group’s delayed index',
        /^I4/,
        (k, r) => r.multi().zrem(k.lane('g00'), '2').zadd(k.delayed, 9, '2').exec(),
      ],
      [
        'a dead job missing from its group’s dead index',
        /^I4/,
        (k, r) => r.multi().zrem(k.lane('g00'), '2').zadd(k.dead, 9, '2').exec(),
      ],
      [
        'a delayed job at another runAt in its group’s index',
        /^I4/,
        (k, r) =>
          r
            .multi()
            .zrem(k.lane('g00'), '2')
            .zadd(k.delayed, 9, '2')
            .zadd(k.groupDelayed('g00'), 10, '2')
            .exec(),
      ],
      ['a stray key', /^stray/, (k, r) => r.set(`${k.base}g:nil:pending`, 'x')],
      ['a payload whose job is gone', /^stray/, (k, r) => r.hset(k.payloads, '77', '{}')],
      [
        'a payload in its job hash (the older job layout)',
        /^layout/,
        (k, r) => r.multi().hset(k.job('2'), 'payload', '{"op":0}').hdel(k.payloads, '2').exec(),
      ],
    ];

    for (const [what, invariant, corrupt] of corruptions) {
      it(`detects ${what}`, async () => {
        const { q, tracker, k } = await consistentQueue(`check-${what.replace(/\W+/g, '-')}`);
        await corrupt(k, admin);
        const snap = await readSnapshot(admin, q);
        expect(() => checkInvariants(snap, tracker)).toThrow(invariant);
      });
    }

    it('detects a superseded token that succeeds (I5)', () => {
      const tracker = new Tracker();
      const claim = (token: string): Op => ({ kind: 'claim', leaseMs: 1, token });
      const claimed = (token: string, attempts: number): Outcome => ({
        ok: { id: '1', group: 'g00', token, attempts },
      });
      // one batch: claims b (attempt 2) and a (attempt 1), reported in the other order
      tracker.record([claim('b'), claim('a')], [claimed('b', 2), claimed('a', 1)]);
      const stale: Op = { kind: 'complete', id: '1', token: 'a', tag: 'superseded' };
      const held: Op = { kind: 'complete', id: '1', token: 'b', tag: 'held' };
      expect(() => tracker.record([stale], [{ err: 'LEASE_LOST' }])).not.toThrow();
      expect(() => tracker.record([held], [{ ok: { id: '1' } }])).not.toThrow();
      expect(() => tracker.record([stale], [{ ok: { id: '1' } }])).toThrow(/^I5/);
      // the same inside a completeAndClaim batch, beside a completion that may succeed
      const batch: Op = {
        kind: 'completeAndClaim',
        completions: [
          { id: '1', token: 'b', tag: 'held' },
          { id: '1', token: 'a', tag: 'superseded' },
        ],
        leaseMs: 1,
        tokens: [],
      };
      const answer = (refused: (string | null)[]): Outcome => ({
        ok: { refused, finishedAt: 0, claimed: [] },
      });
      expect(() => tracker.record([batch], [answer([null, 'JOB_NOT_FOUND'])])).not.toThrow();
      expect(() => tracker.record([batch], [answer(['LEASE_LOST', null])])).toThrow(/^I5/);
    });

    it('the model fires a lapsed schedule’s latest tick once, and refuses a second job', async () => {
      const name = `check-tick-${Math.random().toString(36).slice(2, 8)}`;
      await forgetCompleted(admin, name);
      const q = new Queue(admin, name, { prefix: PREFIX });
      const s = emptyState();
      const t0 = await redisMs(admin);
      const upsert: Op = {
        kind: 'upsertSchedule',
        id: 's0',
        group: 'g00',
        timing: TIMINGS[0] as Timing,
        payload: { op: 0 },
        maxAttempts: 1,
        priority: 5,
      };
      const upserted = await exec(q, upsert);
      const clock: Clock = { t0, t1: await redisMs(admin) };
      expect(canonical(applyOp(s, upsert, upserted, clock))).toBe(canonical(upserted));
      // two ticks missed: the latest fires, once
      const lapse: Op = { kind: 'lapse', id: 's0', to: t0 - 2 * 60_000 - LAPSE_PHASE_MS };
      applyOp(s, lapse, await exec(q, lapse), clock);
      const tick: Op = { kind: 'tickSchedules' };
      const ticked = await exec(q, tick);
      expect(ticked).toEqual({ ok: 1 });
      const after: Clock = { t0, t1: await redisMs(admin) };
      const key = canonical(await readSnapshot(admin, q));
      const found = linearize(s, [tick], [ticked], after, key);
      expect(found?.state.schedules.get('s0')).toMatchObject({
        lastRunAt: t0 - LAPSE_PHASE_MS,
        nextRunAt: t0 + 60_000 - LAPSE_PHASE_MS,
        lastJobId: '1',
      });
      expect(linearize(s, [tick], [{ ok: 2 }], after, key)).toBeNull();
      const again: Op = { kind: 'tickSchedules' };
      expect(linearize(s, [tick, again], [{ ok: 1 }, { ok: 1 }], after, key)).toBeNull();
      expect(linearize(s, [tick, again], [{ ok: 1 }, { ok: 0 }], after, key)).not.toBeNull();
    });

    it('the model refuses a state, a reply or a reap count it did not produce', async () => {
      const { q } = await consistentQueue('check-model');
      const s = emptyState();
      const clock: Clock = { t0: 0, t1: Number.MAX_SAFE_INTEGER };
      const replay: [Op, Outcome][] = [
        [{ kind: 'setLimit', group: 'g00', limit: 1 }, { ok: null }],
        [{ kind: 'enqueue', group: 'g00', maxAttempts: 2, payload: { op: 0 } }, { ok: null }],
        [{ kind: 'enqueue', group: 'g00', maxAttempts: 2, payload: { op: 0 } }, { ok: null }],
        [{ kind: 'enqueue', group: 'g01', maxAttempts: 2, payload: { op: 0 } }, { ok: null }],
        [{ kind: 'enqueue', group: 'g02', maxAttempts: 2, payload: { op: 0 } }, { ok: null }],
      ];
      for (const [op, out] of replay) applyOp(s, op, out, clock);
      const leaseUntil = Number((await admin.zscore(q.keys.active, '1')) ?? 0);
      const claimOut = { ok: { id: '1', leaseUntil } };
      applyOp(s, { kind: 'claim', leaseMs: LONG_LEASE_MS, token: 'a' }, claimOut, {
        t0: leaseUntil - LONG_LEASE_MS,
        t1: leaseUntil - LONG_LEASE_MS,
      });
      const key = canonical(await readSnapshot(admin, q));
      expect(linearize(s, [], [], clock, key)).not.toBeNull();

      // I1–I4 cannot see these; the model must: the ring turned around, a lost lastError
      await admin.multi().del(q.keys.ring).rpush(q.keys.ring, 'g02', 'g01').exec();
      const turned = await readSnapshot(admin, q);
      expect(() => checkInvariants(turned, new Tracker())).not.toThrow(/^I[12]/);
      expect(linearize(s, [], [], clock, canonical(turned))).toBeNull();
      await admin.multi().del(q.keys.ring).rpush(q.keys.ring, 'g01', 'g02').exec();
      expect(linearize(s, [], [], clock, canonical(await readSnapshot(admin, q)))).not.toBeNull();
      await admin.hset(q.keys.job('3'), 'lastError', 'made up');
      expect(linearize(s, [], [], clock, canonical(await readSnapshot(admin, q)))).toBeNull();
      await admin.hdel(q.keys.job('3'), 'lastError');

      // a reply it would not give, and a reap that skipped an expired lease
      const wrong = [
        { ok: { limit: 2, active: 1, pending: 1, paused: false, onRing: true, state: 'READY' } },
      ];
      const setLimit: Op = { kind: 'setLimit', group: 'g00', limit: 1 };
      expect(linearize(s, [setLimit], wrong, clock, key)).toBeNull();
      // a completeAndClaim whose claims were not all leased at the instant of its completions,
      // or that claimed fewer jobs than the ring held
      const batch: Op = {
        kind: 'completeAndClaim',
        completions: [],
        leaseMs: 1000,
        tokens: ['x', 'y'],
      };
      const at = leaseUntil;
      const claimed = (id: string, group: string, token: string, until: number) => ({
        id,
        group,
        state: 'ACTIVE',
        attempts: 1,
        token,
        leaseUntil: until,
        lastError: null,
        payload: { op: 0 },
      });
      const answer = (...jobs: unknown[]): Outcome => ({
        ok: { refused: [], finishedAt: at, claimed: jobs },
      });
      const both = [claimed('3', 'g01', 'x', at + 1000), claimed('4', 'g02', 'y', at + 1000)];
      const exact = answer(...both);
      expect(canonical(applyOp(cloneState(s), batch, exact, clock))).toBe(canonical(exact));
      for (const wrong of [
        answer(claimed('3', 'g01', 'x', at + 1000), claimed('4', 'g02', 'y', at + 1001)),
        answer(claimed('3', 'g01', 'x', at + 1000)),
        { ok: { refused: [], finishedAt: at + 1, claimed: both } },
      ]) {
        expect(canonical(applyOp(cloneState(s), batch, wrong, clock))).not.toBe(canonical(wrong));
      }
      const late: Clock = { t0: leaseUntil + 1, t1: leaseUntil + 1 };
      expect(canonical(applyOp(cloneState(s), { kind: 'reap' }, { ok: 0 }, late))).not.toBe(
        canonical({ ok: 0 }),
      );
    });
  });
});
