/**
 * Typed, named wrappers over the Lua scripts. Callers pass `{ group, limit }`; the wrapper
 * orders KEYS and ARGV exactly as each script's header lists them, so the TypeScript side can
 * never drift from the script. They run as the functions of one library (FCALL), or by EVALSHA
 * where Redis or its user has no FCALL (DESIGN.md §3, "How scripts run").
 */
import { dataOutOfRange } from '../errors.js';
import type { QueueKeys } from '../keys.js';
import { masterClients, type RedisClient } from '../redis/client.js';
import { type FunctionFlag, functionLibrary, loadScripts } from './lua.js';

type Arg = string | number;
type ScriptFn = (...args: Arg[]) => Promise<unknown>;

/** A group's fields as `includes/groupReply.lua` returns them (`GroupFields` in state.ts). */
export type GroupReply = (string | number | null)[];
/** `readSnapshot-10.lua`'s reply; group fields are flat, GROUP_FIELD_COUNT per group. */
export type SnapshotReply = [
  at: number,
  ring: string[],
  total: number,
  pageIds: string[],
  pageFields: (string | number | null)[],
  pickedFields: (string | number | null)[],
  cards: [groups: number, paused: number, active: number, dead: number, completed: number],
  stats: string[],
  queuePaused: 0 | 1,
  ringSize: number,
  ringLevels: number[],
];
/**
 * `setRetention-1.lua`'s reply: the policies in force, defaults filled in; an age null for no
 * age bound.
 */
export type RetentionReply = [
  completedCount: number,
  completedAgeMs: number | null,
  deadCount: number,
  deadAgeMs: number | null,
];
/**
 * `setQueueLimit-3.lua`'s reply: status (1, or -1 refused), the cap (text, null for none), the
 * jobs in flight, the sum of the reserves and the pending timed cap (JSON, null for none).
 */
export type QueueLimitReply = [
  status: number,
  limit: string | null,
  inFlight: number,
  reserved: number | string | null,
  override?: string | null,
];
/** `{ subject, kind, expected, found, … }` flat, as the reconcile scripts report findings. */
export type FlatFindings = string[];
/** `reconcileGroups-9.lua`'s reply. */
export type ReconcileGroupsReply = [findings: FlatFindings, pending: number, saturated: number];

/**
 * `readJobs-4.lua`'s reply: the index's total (or the group's active count; of a completed or
 * dead index, the jobs its retention keeps), 1 when more members follow, and the page's ids,
 * scores (as Redis writes them) and job hashes (flat).
 */
export type ReadJobsReply = [
  total: number,
  more: 0 | 1,
  ids: string[],
  scores: string[],
  fields: string[][],
];
/**
 * A claimed job as the claim scripts return it (`includes/claimJobs.lua`), positional, null for
 * a missing field. Its token, claimedAt and leaseUntil are shared by the whole batch and come
 * beside it (see {@link ClaimReply}).
 */
export type ClaimedJob = [
  id: string,
  group: string,
  attempts: string,
  maxAttempts: string,
  enqueuedAt: string | null,
  payload: string | null,
  lastError: string | null,
  progress: string | null,
];

/**
 * `{ claimedAt, leaseUntil, claimed, nextRunAt }` of a script that claims
 * (`includes/claimJobs.lua`, claimReply): claimedAt and leaseUntil are ms as text, null when
 * nothing was claimed; nextRunAt is the earliest run-at time (ms, Redis clock) in the queue's
 * `delayed` when fewer jobs were claimed than asked on a running queue, else null.
 */
export type ClaimReply = [
  claimedAt: string | null,
  leaseUntil: string | null,
  claimed: ClaimedJob[],
  nextRunAt: number | null,
];

/**
 * `readJob-4.lua`'s reply: the job hash flat (`payload` appended when it has one) and its error
 * list's entries (JSON text, newest first); both empty when the job is gone.
 */
export type ReadJobReply = [fields: string[], errors: string[]];
/** `{ count, remaining, skipped }` of `requeueDead-8.lua` and `removeJobs-10.lua`. */
export type JobActionReply = [count: number, remaining: number, skipped: number];
/**
 * A step of `reconcileIndexes-3.lua` ('queue' or 'group'): findings, next rank or -1, tallies,
 * and the change of the queue-wide index's size the step made (repair) or would make (audit).
 */
export type ReconcileIndexesReply = [
  findings: FlatFindings,
  next: number,
  tallies: string[],
  delta: number,
];
/** The history ARGV a steering script takes last: [actor, cap] (`QueueCore.historyArgs`). */
export type HistoryArgs = readonly [actor: string, cap: number];
/** The kinds of job with a queue-wide and a per-group index (I4). */
export type PairedKind = 'delayed' | 'dead' | 'completed';

/** `{ id, [field, value, ...] }` as the job scripts return it. */
export type JobReply = [id: string, fields: string[]];
/**
 * `enqueue-12.lua`'s reply: the job, and whether it is new (0), the one an idempotency key made
 * earlier (1, nothing written), or none because the key was used for another request (2: the
 * id of that request's job, no fields, nothing written), or none because `runAt` is more than
 * 30 days from the Redis clock's now (3: id null, fields `['now', ms]`, nothing written), or
 * none because the group is at its backlog bound (4: id null, fields `[bound, held]`, counts;
 * nothing written; DESIGN.md §3, "Backlog bounds"), none because the debounce key's live job is
 * of another group (5: its id, fields `['group', its group]`, nothing written), or the debounce
 * key's live job with its payload and run time replaced (6), or none because the job's cost
 * is above the burst of its group's rate limit (7: id null, fields `['burst', burst]`, nothing
 * written; DESIGN.md §3, "Rate limits").
 */
export type EnqueueReply = [id: string, fields: string[], outcome: 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7];
/**
 * `enqueueMany-9.lua`'s reply: every job's {@link EnqueueReply} (outcome 0, 1 or 6) in input order
 * (status 0); or the call refused, nothing written — status 2, job `index` (1-based)'s key was
 * used for another request, for job `id` before the call or (id null) by job `first` of this
 * call; status 3, job `index`'s runAt is more than 30 days from the Redis clock's `now`;
 * status 4, the call's `adding` new jobs for `group` (job `index` its first) would pass its
 * backlog bound, `held` the pending + delayed jobs it holds (DESIGN.md §3, "Backlog bounds");
 * status 5, job `index`'s debounce key names a job of another `group`: job `id` waiting before
 * the call, or (id null) job `first` of this call; status 7, job `index`'s cost is above the
 * `burst` of its group's rate limit.
 */
export type EnqueueManyReply =
  | [status: 0, replies: EnqueueReply[]]
  | [status: 2, index: number, id: string | null, first: number | null]
  | [status: 3, index: number, now: number]
  | [status: 4, index: number, group: string, bound: number, held: number, adding: number]
  | [status: 5, index: number, id: string | null, group: string, first: number | null]
  | [status: 7, index: number, burst: number];
/** One job of {@link Commands.enqueueMany}, as {@link Commands.enqueue} takes it (validated). */
export interface EnqueueArgs {
  readonly group: string;
  /** JSON text, or '' for none. */
  readonly payload: string;
  readonly maxAttempts: number;
  /** The idempotency key with how long it is remembered (ms) and the request's fingerprint. */
  readonly key?: { name: string; ttlMs: number; fingerprint: string } | undefined;
  readonly delayMs?: number | undefined;
  readonly runAt?: number | undefined;
  readonly backoff?: BackoffArgs | undefined;
  /** 1..9, or undefined for the default 5 (sent as '': nothing written for it). */
  readonly priority?: number | undefined;
  /** Tokens its claim takes, 2..1,000,000, or undefined for the default 1 (nothing sent). */
  readonly cost?: number | undefined;
  /**
   * The debounce key's name and its window (ms, 1..2,592,000,000); sent with `delayMs` equal to
   * the window, never with `key` or `runAt` (DESIGN.md §3, "Debounce").
   */
  readonly debounce?: { key: string; windowMs: number } | undefined;
}
/**
 * A job's arguments after its maxAttempts (and, for enqueueMany, its key's name), as
 * `enqueue-12.lua` (ARGV[5..12]) and `enqueueMany-9.lua` (each job's 8 before its priority)
 * take them: keyTtlMs, fingerprint, delayMs, runAt, backoff type, delayMs, maxDelayMs, jitter;
 * '' for each one absent.
 */
function jobTailArgs(p: EnqueueArgs): Arg[] {
  const b = p.backoff;
  return [
    p.key?.ttlMs ?? '',
    p.key?.fingerprint ?? '',
    p.delayMs ?? '',
    p.runAt ?? '',
    b?.type ?? '',
    b?.delayMs ?? '',
    b?.maxDelayMs ?? '',
    b ? String(b.jitter) : '',
  ];
}
/**
 * `promoteJob-8.lua`'s reply: the job after the call and whether it was moved (1) or was not
 * delayed (0, nothing written); or a negative status code (JOB_NOT_FOUND).
 */
export type PromoteReply = [id: string, fields: string[], promoted: 0 | 1] | number;
/**
 * `changeJobPriority-5.lua`'s reply: the job after the call and whether its priority was changed
 * (1) or it was left as it was (0, nothing written); or a negative status code (JOB_NOT_FOUND).
 */
export type ChangePriorityReply = [id: string, fields: string[], changed: 0 | 1] | number;
/**
 * `reap-12.lua`'s reply: counts of jobs reaped, promoted, trimmed (completed, dead), groups
 * reopened, and job watches dropped past their time.
 */
export type ReapReply = [
  reaped: number,
  promoted: number,
  trimmedCompleted: number,
  trimmedDead: number,
  /** Groups whose rate window reopened (left `ratelimited`), DESIGN.md §3 "Rate limits". */
  reopened: number,
  /** Registrations in `P:{Q}:watched` past their time, dropped (DESIGN.md §4.4). */
  unwatched: number,
];
/** A backoff policy as the enqueue script stores it (validated by the engine). */
export interface BackoffArgs {
  readonly type: 'FIXED' | 'EXPONENTIAL';
  readonly delayMs: number;
  readonly maxDelayMs: number | null;
  readonly jitter: number;
}
/**
 * `completeAndClaim-1.lua`'s reply: statuses are 1 (completed) or a negative status code
 * (JOB_NOT_FOUND, LEASE_LOST, DATA_OUT_OF_RANGE: see `ScriptStatus`); nextRunAt (ms, Redis
 * clock) the earliest delayed job's run-at time when fewer were claimed than asked on a running
 * queue, else null.
 */
export type CompleteAndClaimReply = [
  finishedAt: number,
  statuses: number[],
  claimedAt: string | null,
  leaseUntil: string | null,
  claimed: ClaimedJob[],
  nextRunAt: number | null,
];

/**
 * `readMetrics-7.lua`'s reply: `[at, ring, groups, paused, rateLimited, active, dead, completed,
 * stats (flat), oldest ([id, score, enqueuedAt | null] or null), settled, steps, cap, workers]`.
 */
export type MetricsReply = [
  at: number,
  ring: number,
  groups: number,
  paused: number,
  rateLimited: number,
  active: number,
  dead: number,
  completed: number,
  stats: string[],
  oldest: [id: string, score: string, enqueuedAt: string | null] | null,
  settled: 0 | 1,
  steps: number,
  cap: [limit: string | null, reserved: string | null],
  workers: number,
  schedules: number,
];

/** `readTopGroups-3.lua`'s reply (see its header). */
export type TopGroupsReply = [
  at: number,
  settled: 0 | 1,
  ids: string[],
  fields: (string | number | null)[],
  oldest: (string | null)[],
];

/**
 * `readWorkers-3.lua`'s reply: the Redis clock, the live workers' ids, their JSON (null when
 * missing), and each one's counted leases (null unless it is a GraphQL client).
 */
export type WorkersReply = [
  now: number,
  ids: string[],
  infos: (string | null)[],
  leases: (number | null)[],
];

/** What a worker says of itself at a heartbeat (`workerBeat-2.lua`); null for unknown. */
export interface WorkerBeat {
  readonly id: string;
  readonly hostname: string | null;
  readonly pid: number | null;
  readonly concurrency: number | null;
  /** Jobs it holds now; null for a GraphQL client (its leases are counted instead). */
  readonly active: number | null;
  readonly version: string | null;
  readonly heartbeatMs: number;
  /** A worker starting now: its startedAt is this beat. */
  readonly fresh: boolean;
}

/**
 * `checkLayout-9.lua`'s reply: status 0 (the engine's layout; `found` is the mark, null for a
 * queue that never minted an id, which is left unmarked), 1 (marked `found`, another layout), 2
 * (no mark, and jobs of the layout before: the totals pending, delayed, active and the sizes of
 * completed and dead follow) or 3 (no mark, totals of none, yet jobs evident: the ring's length,
 * active, delayed and gactive's length).
 */
export type LayoutReply = [
  status: 0 | 1 | 2 | 3,
  found: string | null,
  pending?: number,
  delayed?: number,
  active?: number,
  completed?: number,
  dead?: number,
];

/**
 * `upgradeLayout-2.lua`'s reply: status 0 (done: the queue is of the engine's layout, or never
 * minted an id), 1 (marked `mark`, another layout: nothing written), 2 (a step done, more ids to
 * visit) or 3 (`seq` is not a non-negative integer: `mark` holds its text); the payloads this
 * step moved, the last id it visited (0 for none) and the queue's last id.
 */
export type UpgradeLayoutReply = [
  status: 0 | 1 | 2 | 3,
  mark: string | null,
  moved: number,
  visitedTo: number,
  lastId: number,
];

/**
 * `checkEpoch-5.lua`'s reply: the epoch, 1 when it is not the one the engine knew, then `seq`
 * and the stats totals as stored (null when missing), the groups with a limit and the paused
 * groups (counts).
 */
export type EpochReply = [
  epoch: string,
  lost: 0 | 1,
  seq: string | null,
  pending: string | null,
  delayed: string | null,
  active: string | null,
  limits: number,
  paused: number,
];

/**
 * Told of every script call an engine makes (`RingmasterOptions.onScript`): the script's name
 * (`claim`, `enqueue`, … the file name without `-N.lua`), how long the call took (ms, from
 * sending to the reply, NOSCRIPT retries and a library load included) and whether it
 * succeeded (false for any error, a refused status code answered as a reply being a success).
 * Must not throw; an exception it throws is ignored.
 */
export type ScriptObserver = (name: string, durationMs: number, ok: boolean) => void;

/** `Commands.clock`'s script: TIME alone (its one key, the slot guard, only routes it). */
const CLOCK_LUA = "return redis.call('TIME')";

const SCRIPTS = loadScripts();
/**
 * Scripts whose keys are not one queue's (the registry `P:queues` lives in a slot of its own):
 * sent without the queue's slot guard, which would make them cross slots.
 */
const UNGUARDED = new Set(['register']);
/** Keys the caller declares for `script`: its own, plus the slot guard for a queue script. */
const declaredKeys = (script: { name: string; numberOfKeys: number }) =>
  script.numberOfKeys + (UNGUARDED.has(script.name) ? 0 : 1);
const COMMAND_PREFIX = 'ringmaster_';
/** Tries of a script refused with NOSCRIPT or "Function not found" (see `run`). */
const NOSCRIPT_ATTEMPTS = 5;

/** The scripts that only read: `no-writes`, so they run at maxmemory and on a replica. */
const READ_ONLY = new Set([
  'readCounts',
  'readGroups',
  'readJob',
  'readJobLogs',
  'readJobs',
  'readSnapshot',
]);
/**
 * The scripts that add a job or its data: no flag, so Redis refuses them at maxmemory before
 * they run (as an EVALSHA is refused at its first write that may add memory).
 */
const ADDS_DATA = new Set([
  'enqueue',
  'enqueueMany',
  'fireSchedules',
  'upsertSchedule',
  'addJobLog',
  'updateJobProgress',
  'watchJobs',
]);
/** Each script's Redis Function flag (DESIGN.md §3, "How scripts run"). */
export function functionFlag(name: string): FunctionFlag {
  if (READ_ONLY.has(name)) return 'no-writes';
  return ADDS_DATA.has(name) ? 'none' : 'allow-oom';
}

/** Every script as one Redis Function library, for Redis 7.0 and newer. */
export const LIBRARY = functionLibrary(SCRIPTS, functionFlag);

/**
 * How each client runs the scripts: as the library's functions (FCALL) until Redis answers that
 * it has no FCALL or that this user may not run it or load the library (Redis 6.2, an ACL
 * without them), then by EVALSHA for good; `loading` is the FUNCTION LOAD on the wire.
 */
const clientModes = new WeakMap<RedisClient, { eval: boolean; loading?: Promise<boolean> }>();

function modeOf(redis: RedisClient) {
  let mode = clientModes.get(redis);
  if (mode === undefined) {
    mode = { eval: false };
    clientModes.set(redis, mode);
  }
  return mode;
}

/** A refusal meaning this Redis or user has no Functions: `unknown command`, or NOPERM. */
const NO_FUNCTIONS = /^ERR unknown command|^NOPERM/;

/**
 * How a node answers FUNCTION LOAD (without REPLACE) of a library it holds. Its name is a hash
 * of its text, so that library is this one: loaded already.
 */
const ALREADY_LOADED = /^ERR Library '\w+' already exists/;

/**
 * Load the library on `redis`, on every master of a Cluster; calls made while one load is on the
 * wire share it. FUNCTION LOAD without REPLACE: a node that holds it answers "already exists"
 * before compiling anything, where REPLACE would compile it again (~0.1 s of that node's event
 * loop), and send it to its replicas and append-only file, to be compiled there again (each
 * restart replays every load in the file). Resolves to whether every node holds it: one that
 * refused (a read-only replica, a node down or busy) fails no call, which then runs by EVALSHA
 * (see `send`).
 */
export function loadLibrary(redis: RedisClient): Promise<boolean> {
  const mode = modeOf(redis);
  if (mode.loading !== undefined) return mode.loading;
  const loading = masterClients(redis)
    .then((nodes) =>
      Promise.allSettled(
        nodes.map((node) =>
          node.call('FUNCTION', 'LOAD', LIBRARY.code).catch((error: unknown) => {
            if (error instanceof Error && ALREADY_LOADED.test(error.message)) return LIBRARY.name;
            throw error;
          }),
        ),
      ),
    )
    .then((loads) => {
      const refused = (load: PromiseSettledResult<unknown>) =>
        load.status === 'rejected' &&
        load.reason instanceof Error &&
        NO_FUNCTIONS.test(load.reason.message);
      if (loads.some(refused)) mode.eval = true;
      return loads.every((load) => load.status === 'fulfilled');
    })
    .finally(() => {
      if (mode.loading === loading) delete mode.loading;
    });
  mode.loading = loading;
  return loading;
}

/**
 * Define every script on `redis` that is not defined there yet: ioredis keeps the definitions
 * on the client itself, so a second call on the same client (another `Connection`) defines
 * nothing. Called by `Connection`'s constructor.
 */
export function defineScripts(redis: RedisClient): void {
  const defined = redis as unknown as Record<string, unknown>;
  for (const script of SCRIPTS) {
    const command = `${COMMAND_PREFIX}${script.name}`;
    if (typeof defined[command] === 'function') continue;
    redis.defineCommand(command, { numberOfKeys: declaredKeys(script), lua: script.lua });
  }
}

/** The scripts' names and key counts, for the test that loads each one into Redis. */
export const scriptNames = SCRIPTS.map((s) => s.name);

/** The inlined source of each script, by name (for SCRIPT LOAD checks and benchmarks). */
export function scriptSource(name: string): string {
  const script = SCRIPTS.find((s) => s.name === name);
  if (!script) throw new Error(`no script named ${name}`);
  return script.lua;
}

/**
 * What {@link Commands} uses of a connection: a client on which {@link defineScripts} ran, and
 * the observer of its script calls. `Connection` (redis/connection.ts) is one; declared here so
 * that this module, which `Connection` imports, imports nothing back.
 */
export interface ScriptConnection {
  readonly redis: RedisClient;
  readonly onScript?: ScriptObserver | undefined;
}

/** The scripts of one queue, bound to one connection (whose scripts `Connection` defined). */
export class Commands {
  private readonly redis: RedisClient;
  private readonly observer: ScriptObserver | undefined;

  constructor(
    connection: ScriptConnection,
    private readonly k: QueueKeys,
  ) {
    this.redis = connection.redis;
    this.observer = connection.onScript;
  }

  /**
   * Run a script: FCALL, the library loaded and the call sent again on "Function not found"
   * (once: missing again, the call goes by EVALSHA); by EVALSHA (ioredis' one EVAL fallback on
   * NOSCRIPT) once the connection has no FCALL. A flush storm can refuse the retry once more, so
   * a refused call is tried up to 5 times (a refused call did not run, so a retry cannot apply
   * it twice). A script that refused a stored
   * number (`includes/safeInteger.lua`) is reported as RingmasterError DATA_OUT_OF_RANGE.
   * A queue script gets the slot guard (`QueueKeys.guard`) as its last key, after its own.
   */
  private async run(name: string, keys: string[], args: Arg[]): Promise<unknown> {
    const observe = this.observer;
    if (observe === undefined) return this.send(name, keys, args);
    const started = performance.now();
    let ok = false;
    try {
      const reply = await this.send(name, keys, args);
      ok = true;
      return reply;
    } finally {
      try {
        observe(name, performance.now() - started, ok);
      } catch {
        // An observer's failure is not the call's.
      }
    }
  }

  /** {@link run} without the observer. */
  private async send(name: string, keys: string[], args: Arg[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, ScriptFn>)[`${COMMAND_PREFIX}${name}`];
    if (!fn) throw new Error(`script ${name} is not defined`);
    const declared = UNGUARDED.has(name) ? keys : [...keys, this.k.guard];
    const mode = modeOf(this.redis);
    // This call by EVALSHA: the library could not be loaded where it was missing, or was
    // missing again after this call loaded it.
    let byEval = false;
    let loaded = false;
    for (let attempt = 1; ; attempt++) {
      // Whether this attempt went by FCALL: calls in flight beside it may have switched the
      // connection to EVALSHA since, and a refusal of this one is still this one's to retry.
      let byFcall = false;
      try {
        if (mode.eval || byEval) return await fn.call(this.redis, ...declared, ...args);
        byFcall = true;
        const fcall = `${LIBRARY.functionPrefix}${name}`;
        return await this.redis.call('FCALL', fcall, declared.length, ...declared, ...args);
      } catch (error) {
        const message = error instanceof Error ? error.message : '';
        if (byFcall && NO_FUNCTIONS.test(message) && /fcall/i.test(message)) {
          mode.eval = true;
          attempt--;
          continue;
        }
        const missing = message.startsWith('NOSCRIPT') || message === 'ERR Function not found';
        if (!missing || attempt >= NOSCRIPT_ATTEMPTS) throw dataOutOfRange(error) ?? error;
        if (byFcall) {
          // One load per call: gone again after it (a flush storm, a node that lost it
          // meanwhile), the call runs by EVALSHA rather than load it over and over.
          byEval = loaded || !(await loadLibrary(this.redis));
          loaded = true;
        }
      }
    }
  }

  private groupKeys(group: string): string[] {
    const k = this.k;
    return [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.lane(group), k.groups, k.stats];
  }

  /** The first seven keys of every script that releases a permit (and may re-ring). */
  private releaseKeys(): string[] {
    const k = this.k;
    return [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.active, k.leases];
  }

  /**
   * `setLimit-8.lua`; `forMs` (ms) makes it a timed override, undefined a plain call; `history`
   * the `[actor, cap]` of `QueueCore.historyArgs`.
   */
  setLimit(p: {
    group: string;
    limit: number;
    forMs?: number | undefined;
    history: HistoryArgs;
  }): Promise<GroupReply> {
    return this.run('setLimit', this.groupKeys(p.group), [
      p.group,
      p.limit,
      p.forMs ?? '',
      ...p.history,
    ]) as Promise<GroupReply>;
  }

  /** `clearLimit-8.lua` */
  clearLimit(p: { group: string; history: HistoryArgs }): Promise<GroupReply> {
    return this.run('clearLimit', this.groupKeys(p.group), [
      p.group,
      ...p.history,
    ]) as Promise<GroupReply>;
  }

  /** `pause-7.lua`; `forMs` (ms) makes it a timed pause, undefined a plain one. */
  pause(p: {
    group: string;
    forMs?: number | undefined;
    history: HistoryArgs;
  }): Promise<GroupReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.lane(p.group), k.groups, k.stats];
    return this.run('pause', keys, [p.group, p.forMs ?? '', ...p.history]) as Promise<GroupReply>;
  }

  /** `resume-8.lua`; `forMs` (ms) makes it a timed resume, undefined a plain one. */
  resume(p: {
    group: string;
    forMs?: number | undefined;
    history: HistoryArgs;
  }): Promise<GroupReply> {
    return this.run('resume', this.groupKeys(p.group), [
      p.group,
      p.forMs ?? '',
      ...p.history,
    ]) as Promise<GroupReply>;
  }

  /** `setWeight-8.lua`: `history` is the steering history's [actor, cap] (`QueueCore.historyArgs`). */
  setWeight(p: {
    group: string;
    weight: number;
    history: [actor: string, cap: number];
  }): Promise<GroupReply> {
    const args = [p.group, p.weight, ...p.history];
    return this.run('setWeight', this.groupKeys(p.group), args) as Promise<GroupReply>;
  }

  /**
   * Redis' clock on the queue's node now (ms since the epoch): TIME inside an EVAL that declares
   * the slot guard, so on a Redis Cluster it is read on the master serving the queue's slot,
   * whose clock the queue's scripts read (`includes/nowMs.lua`); on one Redis, that Redis'.
   * One round trip; reads and writes no key (runs at maxmemory too).
   */
  async clock(): Promise<number> {
    const [sec, usec] = (await this.redis.eval(CLOCK_LUA, 1, this.k.guard)) as [string, string];
    return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
  }

  /**
   * `register-1.lua`: add this queue's name to the registry `registry` (`P:queues`), as SADD
   * does, but allowed at maxmemory (for the steering calls). Resolves to 1 when added, else 0.
   */
  register(p: { registry: string; queue: string }): Promise<number> {
    return this.run('register', [p.registry], [p.queue]) as Promise<number>;
  }

  /**
   * `checkEpoch-5.lua`: the queue's epoch (written as `fresh` when it has none), whether it is
   * not `known`, and what the queue holds. See
   * {@link EpochReply}.
   */
  checkEpoch(p: { known: string | null; fresh: string }): Promise<EpochReply> {
    const k = this.k;
    return this.run(
      'checkEpoch',
      [k.settings, k.seq, k.stats, k.glimit, k.paused],
      [p.known ?? '', p.fresh],
    ) as Promise<EpochReply>;
  }

  /**
   * `checkLayout-9.lua`: is the queue of job layout `layout` (marking an empty queue that has no
   * mark)? See {@link LayoutReply}.
   */
  checkLayout(p: { layout: string }): Promise<LayoutReply> {
    const k = this.k;
    return this.run(
      'checkLayout',
      [k.settings, k.stats, k.completed, k.dead, k.seq, k.ring, k.active, k.delayed, k.gactive],
      [p.layout],
    ) as Promise<LayoutReply>;
  }

  /**
   * `upgradeLayout-2.lua`: one step of the in-place upgrade to job layout `layout`, visiting at
   * most `batch` job ids from the stored cursor. See {@link UpgradeLayoutReply}.
   */
  upgradeLayout(p: { layout: string; batch: number }): Promise<UpgradeLayoutReply> {
    const k = this.k;
    return this.run(
      'upgradeLayout',
      [k.settings, k.seq],
      [k.base, p.layout, p.batch],
    ) as Promise<UpgradeLayoutReply>;
  }

  /**
   * `enqueue-12.lua`; `payload` is JSON text or '' for none. `key`: an idempotency key with how
   * long it is remembered (ms) and the request's fingerprint, or undefined for none. At most
   * one of `delayMs` (ms from now) and `runAt` (ms since the epoch, Redis clock); `backoff`
   * the job's retry policy, or undefined for none; `priority` 1..9, undefined for the default.
   */
  enqueue(p: EnqueueArgs, idFloor: number | null): Promise<EnqueueReply> {
    const k = this.k;
    const keys = [
      ...this.groupKeys(p.group),
      k.seq,
      // A debounced job's record in the idem key's place: the engine never sends both.
      p.debounce === undefined ? k.idem(p.key?.name ?? '') : k.debounce(p.debounce.key),
      k.delayed,
      k.groupDelayed(p.group),
    ];
    const args = [k.base, p.group, p.payload, p.maxAttempts, ...jobTailArgs(p), idFloor ?? ''];
    // A priority only when not the default: the common job is sent one argument less.
    const more = p.debounce !== undefined || p.cost !== undefined;
    if (p.priority !== undefined || more) args.push(p.priority ?? '');
    // A debounce key and its window after it, only for a debounced job ('' before a cost).
    if (more) args.push(p.debounce?.key ?? '', p.debounce?.windowMs ?? '');
    // A cost last, only when not the default 1.
    if (p.cost !== undefined) args.push(p.cost);
    return this.run('enqueue', keys, args) as Promise<EnqueueReply>;
  }

  /**
   * `enqueueMany-9.lua`: the jobs (1..1,000, validated) in one atomic call, each as
   * {@link enqueue} sends it, the key's name in place of its key (the script builds the idem
   * keys, the lanes and the groups' delayed indexes from the base).
   */
  enqueueMany(jobs: readonly EnqueueArgs[], idFloor: number | null): Promise<EnqueueManyReply> {
    const k = this.k;
    const keys = [
      k.glimit,
      k.gactive,
      k.ring,
      k.paused,
      k.wake,
      k.groups,
      k.stats,
      k.seq,
      k.delayed,
    ];
    const args: Arg[] = [k.base, jobs.length];
    // Each job's priority only when one of the call has one: the common call is sent none (the
    // script tells the two apart by the count of its arguments).
    // Each job's debounce key and window after its priority only when one of the call has one
    // (or a cost, which comes last: stride 16).
    const costs = jobs.some((p) => p.cost !== undefined);
    const debounces = costs || jobs.some((p) => p.debounce !== undefined);
    const priorities = debounces || jobs.some((p) => p.priority !== undefined);
    for (const p of jobs) {
      args.push(p.group, p.payload, p.maxAttempts, p.key?.name ?? '', ...jobTailArgs(p));
      if (priorities) args.push(p.priority ?? '');
      if (debounces) args.push(p.debounce?.key ?? '', p.debounce?.windowMs ?? '');
      if (costs) args.push(p.cost ?? '');
    }
    args.push(idFloor ?? '');
    return this.run('enqueueMany', keys, args) as Promise<EnqueueManyReply>;
  }

  /**
   * `dueSchedules-2.lua`: the Redis clock's now (ms), then up to `limit` due schedules after
   * the first `offset`, flat `[id, nextRunAt (as Redis writes it), definition JSON | null]` each.
   */
  dueSchedules(p: { limit: number; offset: number }): Promise<(string | number | null)[]> {
    const k = this.k;
    return this.run('dueSchedules', [k.schedules, k.scheduleDefs], [p.limit, p.offset]) as Promise<
      (string | number | null)[]
    >;
  }

  /**
   * `fireSchedules-11.lua`: fire each schedule whose score is still `expected` and whose
   * definition still hashes to `sha`; answers flat `[id, jobId | null]` in input order.
   */
  fireSchedules(
    fires: readonly {
      id: string;
      expected: string;
      next: number;
      sha: string;
      firedAt: number;
      job: EnqueueArgs;
    }[],
    idFloor: number | null,
  ): Promise<(string | null)[]> {
    const k = this.k;
    const keys = [
      k.glimit,
      k.gactive,
      k.ring,
      k.paused,
      k.wake,
      k.groups,
      k.stats,
      k.seq,
      k.schedules,
      k.scheduleDefs,
      k.scheduleRuns,
    ];
    const args: Arg[] = [k.base, idFloor ?? '', fires.length];
    for (const f of fires) {
      const b = f.job.backoff;
      args.push(
        f.id,
        f.expected,
        // A cron with no match left is never due again.
        Number.isFinite(f.next) ? f.next : '+inf',
        f.sha,
        f.firedAt,
        f.job.group,
        f.job.payload,
        f.job.maxAttempts,
        b?.type ?? '',
        b?.delayMs ?? '',
        b?.maxDelayMs ?? '',
        b ? String(b.jitter) : '',
        f.job.priority ?? '',
      );
    }
    return this.run('fireSchedules', keys, args) as Promise<(string | null)[]>;
  }

  /**
   * `upsertSchedule-3.lua`: `[status (1 created, 0 replaced, −1 refused: the queue is full),
   * nextRunAt, runs | null]`.
   */
  upsertSchedule(p: {
    id: string;
    definition: string;
    nextRunAt: number;
    max: number;
    history: HistoryArgs;
  }): Promise<[status: number, nextRunAt: string | null, runs: string | null]> {
    const k = this.k;
    return this.run(
      'upsertSchedule',
      [k.schedules, k.scheduleDefs, k.scheduleRuns],
      [p.id, p.definition, p.nextRunAt, p.max, ...p.history],
    ) as Promise<[number, string | null, string | null]>;
  }

  /** `removeSchedule-3.lua`: 1 when a schedule was removed, 0 when there was none. */
  removeSchedule(p: { id: string; history: HistoryArgs }): Promise<0 | 1> {
    const k = this.k;
    return this.run(
      'removeSchedule',
      [k.schedules, k.scheduleDefs, k.scheduleRuns],
      [p.id, ...p.history],
    ) as Promise<0 | 1>;
  }

  /**
   * `readSchedules-3.lua`: `[total, more, entries]`, each entry `[id, definition, nextRunAt |
   * null, runs | null]`.
   */
  readSchedules(p: {
    after: string | null;
    first: number;
  }): Promise<
    [total: number, more: 0 | 1, entries: [string, string, string | null, string | null][]]
  > {
    const k = this.k;
    return this.run(
      'readSchedules',
      [k.schedules, k.scheduleDefs, k.scheduleRuns],
      [p.after ?? '', p.first],
    ) as Promise<[number, 0 | 1, [string, string, string | null, string | null][]]>;
  }

  /**
   * `claim-1.lua`: promote up to `promoteBatch` due delayed jobs, then claim one job unless the
   * queue is paused; the reply's claimed list is empty when nothing was claimed.
   */
  claim(p: {
    leaseMs: number;
    token: string;
    defaultMaxAttempts: number;
    promoteBatch: number;
    workerId: string | null;
  }): Promise<ClaimReply> {
    const k = this.k;
    const args = [
      k.base,
      p.leaseMs,
      p.token,
      p.defaultMaxAttempts,
      p.promoteBatch,
      p.workerId ?? '',
    ];
    // Its keys are built from the base (claim-1.lua): only `settings` is declared, beside the guard.
    return this.run('claim', [this.k.settings], args) as Promise<ClaimReply>;
  }

  /**
   * `complete-11.lua`; `result` is its JSON text, '' for none. A negative number is a status
   * code (see errors.ts).
   */
  complete(p: { id: string; token: string; result: string }): Promise<JobReply | number> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.stats, k.job(p.id), k.settings, k.completed];
    const args = [k.base, p.id, p.token, p.result];
    return this.run('complete', keys, args) as Promise<JobReply | number>;
  }

  /**
   * `completeAndClaim-1.lua`: complete each `{ id, token, result }` in order (`result` its
   * JSON text, '' for none), then (promoting up to
   * `promoteBatch` due delayed jobs first) claim one job per token in `claimTokens` unless the
   * queue is paused, in one round trip.
   */
  completeAndClaim(p: {
    completions: readonly { id: string; token: string; result: string }[];
    claimTokens: readonly string[];
    leaseMs: number;
    defaultMaxAttempts: number;
    promoteBatch: number;
    workerId: string | null;
  }): Promise<CompleteAndClaimReply> {
    const k = this.k;
    const args: Arg[] = [
      k.base,
      p.leaseMs,
      p.defaultMaxAttempts,
      p.promoteBatch,
      p.completions.length,
      p.workerId ?? '',
    ];
    for (const c of p.completions) args.push(c.id, c.token, c.result);
    for (const t of p.claimTokens) args.push(t);
    // Its keys are built from the base (completeAndClaim-1.lua): only `settings` is declared, beside the guard.
    return this.run('completeAndClaim', [this.k.settings], args) as Promise<CompleteAndClaimReply>;
  }

  /**
   * `pauseQueue-1.lua`: 1 when the queue was running (now paused), else 0. `history`: the
   * history ARGV (`QueueCore.historyArgs`: actor, cap), as for every steering script below.
   */
  pauseQueue(history: HistoryArgs): Promise<number> {
    return this.run('pauseQueue', [this.k.settings], [...history]) as Promise<number>;
  }

  /**
   * `setQueueLimit-3.lua`: the queue's cap set (`limit` a count) or cleared (null); `forMs` (ms)
   * makes a set timed (DESIGN.md §4.8). Answers the status (1, or -1: below the sum of the
   * reserves, nothing written) and the cap as it stands after.
   */
  setQueueLimit(p: {
    limit: number | null;
    forMs?: number | undefined;
    history: HistoryArgs;
  }): Promise<QueueLimitReply> {
    const k = this.k;
    return this.run(
      'setQueueLimit',
      [k.settings, k.wake, k.active],
      [p.limit ?? '', p.forMs ?? '', ...p.history],
    ) as Promise<QueueLimitReply>;
  }

  /**
   * `setReserve-9.lua`: `group`'s reserve (a count, 0 clears it). Answers the status (1; -1
   * above the group's limit, -2 the sum past the cap: nothing written) and the group's fields.
   */
  setReserve(p: {
    group: string;
    reserve: number;
    history: HistoryArgs;
  }): Promise<[status: number, fields: GroupReply]> {
    const args = [p.group, p.reserve, ...p.history];
    return this.run('setReserve', [...this.groupKeys(p.group), this.k.settings], args) as Promise<
      [number, GroupReply]
    >;
  }

  /**
   * `setMaxPending-8.lua`: `group`'s backlog bound (a count, null clears it); the group's fields
   * after (DESIGN.md §3, "Backlog bounds").
   */
  setMaxPending(p: {
    group: string;
    maxPending: number | null;
    history: HistoryArgs;
  }): Promise<GroupReply> {
    const args = [p.group, p.maxPending ?? '', ...p.history];
    return this.run('setMaxPending', this.groupKeys(p.group), args) as Promise<GroupReply>;
  }

  /**
   * `setDefaultMaxPending-1.lua`: the queue's default backlog bound (a count, null clears it);
   * answers it as it stands after (its text, or null for none).
   */
  setDefaultMaxPending(p: {
    maxPending: number | null;
    history: HistoryArgs;
  }): Promise<string | null> {
    const args = [p.maxPending ?? '', ...p.history];
    return this.run('setDefaultMaxPending', [this.k.maxPending], args) as Promise<string | null>;
  }

  /** `resumeQueue-2.lua`: 1 when the queue was paused (now running, a wake pushed), else 0. */
  resumeQueue(history: HistoryArgs): Promise<number> {
    return this.run('resumeQueue', [this.k.settings, this.k.wake], [...history]) as Promise<number>;
  }

  /**
   * `setRetention-1.lua`: each field given is stored ('' keeps the stored one; an age 'none' is
   * no age bound); answers the policies in force after.
   */
  setRetention(p: {
    completedCount: string;
    completedAgeMs: string;
    deadCount: string;
    deadAgeMs: string;
    history: HistoryArgs;
  }): Promise<RetentionReply> {
    return this.run(
      'setRetention',
      [this.k.settings],
      [p.completedCount, p.completedAgeMs, p.deadCount, p.deadAgeMs, ...p.history],
    ) as Promise<RetentionReply>;
  }

  /**
   * `retry-12.lua`; a negative number is a status code (see errors.ts). `error` and `stack`
   * ('' for none) cut to their lengths already; `delayMs` overrides the job's backoff policy
   * (undefined: the policy); `r` in [0, 1) for the policy's jitter.
   */
  retry(p: {
    id: string;
    token: string;
    error: string;
    stack: string;
    delayMs?: number | undefined;
    r: number;
  }): Promise<JobReply | number> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.dead, k.stats, k.delayed, k.settings, k.job(p.id)];
    const args = [k.base, p.id, p.token, p.error, p.stack, p.delayMs ?? '', p.r];
    return this.run('retry', keys, args) as Promise<JobReply | number>;
  }

  /** `promoteJob-8.lua`: a delayed job to its lane now (see {@link PromoteReply}). */
  promoteJob(p: { id: string; history: HistoryArgs }): Promise<PromoteReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.stats, k.delayed, k.job(p.id)];
    return this.run('promoteJob', keys, [k.base, p.id, ...p.history]) as Promise<PromoteReply>;
  }

  /** `changeJobPriority-5.lua`: a pending or delayed job's new priority, 1..9 (see the script). */
  changeJobPriority(p: {
    id: string;
    priority: number;
    history: HistoryArgs;
  }): Promise<ChangePriorityReply> {
    const k = this.k;
    return this.run(
      'changeJobPriority',
      [k.job(p.id), k.glimit, k.gactive, k.ring, k.paused],
      [k.base, p.id, p.priority, ...p.history],
    ) as Promise<ChangePriorityReply>;
  }

  /** `extendLease-2.lua`; a negative number is a status code (see errors.ts). */
  extendLease(p: { id: string; token: string; leaseMs: number }): Promise<JobReply | number> {
    const k = this.k;
    return this.run(
      'extendLease',
      [k.active, k.job(p.id)],
      [p.id, p.token, p.leaseMs, k.base],
    ) as Promise<JobReply | number>;
  }

  /** `updateJobProgress-2.lua`; a negative number is a status code (see errors.ts). */
  updateJobProgress(p: {
    id: string;
    token: string;
    progress: string;
  }): Promise<JobReply | number> {
    const k = this.k;
    return this.run(
      'updateJobProgress',
      [k.active, k.job(p.id)],
      [p.id, p.token, p.progress, k.base],
    ) as Promise<JobReply | number>;
  }

  /**
   * `addJobLog-2.lua`: `[seq, at, count]` of the line added (count: the lines kept), or a
   * negative status code (see errors.ts).
   */
  addJobLog(p: {
    id: string;
    token: string;
    line: string;
    kept: number;
  }): Promise<[seq: string, at: string, count: number] | number> {
    const k = this.k;
    return this.run(
      'addJobLog',
      [k.active, k.job(p.id)],
      [p.id, p.token, p.line, p.kept, k.base],
    ) as Promise<[string, string, number] | number>;
  }

  /**
   * `readJobLogs-3.lua`: `[exists, total, entries]`, up to `count` entries after seq `after`
   * (0: from the first), or with `tail` the newest `count`.
   */
  readJobLogs(p: {
    id: string;
    after: number;
    count: number;
    tail: boolean;
  }): Promise<[exists: number, total: number, entries: string[]]> {
    const k = this.k;
    return this.run(
      'readJobLogs',
      [k.job(p.id), k.logs(p.id), k.settings],
      [p.after === 0 ? '' : p.after, p.count, p.tail ? '1' : '0'],
    ) as Promise<[number, number, string[]]>;
  }

  /**
   * `reap-12.lua`: reap at most `batch` expired leases, promote at most `batch` due delayed
   * jobs and trim at most `batch` completed and dead jobs past their retention; `r` in [0, 1)
   * for the backoff jitter.
   */
  reap(p: { batch: number; r: number }): Promise<ReapReply> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.dead, k.stats, k.delayed, k.settings, k.completed];
    return this.run('reap', keys, [k.base, p.batch, p.r]) as Promise<ReapReply>;
  }

  /**
   * `watchJobs-1.lua`: register `ids` (1..1,000) in `P:{Q}:watched` until now + `ttlMs` (Redis
   * clock; only ever later). Answers that time (ms).
   */
  watchJobs(p: { ids: readonly string[]; ttlMs: number }): Promise<number> {
    return this.run('watchJobs', [this.k.watched], [p.ttlMs, ...p.ids]) as Promise<number>;
  }

  /** `readGroups-3.lua`: `[limit, active, pending, paused]` of each group, flat. */
  readGroups(p: { groups: readonly string[] }): Promise<(string | number | null)[]> {
    const k = this.k;
    return this.run(
      'readGroups',
      [k.glimit, k.gactive, k.paused],
      [k.base, ...p.groups],
    ) as Promise<(string | number | null)[]>;
  }

  /**
   * `readTopGroups-3.lua`: the first `first` groups of ranking `by` — `[at, settled, ids,
   * fields (GROUP_FIELD_COUNT per id, flat), oldest ([id, enqueuedAt] per id, flat)]`.
   */
  readTopGroups(p: { by: string; first: number; maxSteps: number }): Promise<TopGroupsReply> {
    const k = this.k;
    return this.run(
      'readTopGroups',
      [k.glimit, k.gactive, k.paused],
      [k.base, p.by, p.first, p.maxSteps],
    ) as Promise<TopGroupsReply>;
  }

  /**
   * `readSnapshot-10.lua`: one moment of the queue — `[at, ring, total, pageIds, pageFields,
   * pickedFields, cards, stats, queuePaused, ringSize, ringLevels]` as its header lists them.
   */
  readSnapshot(p: {
    first: number;
    min: string;
    prefix: string;
    /** the ring's first n groups, or -1 for all */
    ringFirst: number;
    picked: readonly string[];
  }): Promise<SnapshotReply> {
    const k = this.k;
    return this.run(
      'readSnapshot',
      [
        k.glimit,
        k.gactive,
        k.paused,
        k.ring,
        k.groups,
        k.stats,
        k.active,
        k.dead,
        k.completed,
        k.settings,
      ],
      [k.base, p.first, p.min, p.prefix, p.ringFirst, ...p.picked],
    ) as Promise<SnapshotReply>;
  }

  /**
   * `readJobs-4.lua`: a page of `index` after the cursor (`afterScore` '' for none), in
   * `order`; with `group`, only active jobs leased to it (`index` is then `active`); with
   * `kind` ('completed' or 'dead': `index` is that kind's, scored by finish time), only the
   * jobs its retention keeps now.
   */
  readJobs(p: {
    index: string;
    order: 'asc' | 'desc';
    first: number;
    afterScore: string;
    afterId: string;
    group: string;
    kind: '' | 'completed' | 'dead';
  }): Promise<ReadJobsReply> {
    const k = this.k;
    return this.run(
      'readJobs',
      [p.index, k.leases, k.gactive, k.settings],
      [k.base, p.order, p.first, p.afterScore, p.afterId, p.group, p.kind],
    ) as Promise<ReadJobsReply>;
  }

  /**
   * `readJob-4.lua`: job `id`'s hash (its payload appended) and error list, both empty when it
   * is gone or past its retention age (see {@link ReadJobReply}).
   */
  readJob(p: { id: string }): Promise<ReadJobReply> {
    const k = this.k;
    return this.run(
      'readJob',
      [k.job(p.id), k.payloads, k.errors(p.id), k.settings],
      [p.id],
    ) as Promise<ReadJobReply>;
  }

  /**
   * `requeueDead-8.lua`: dead jobs back to their lanes — the ids given, or up to `limit` of a
   * group's dead jobs, or of the queue's.
   */
  requeueDead(p: {
    resetAttempts: boolean;
    limit: number;
    select: { ids: readonly string[] } | { group: string } | { all: true };
    history: HistoryArgs;
  }): Promise<JobActionReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.active, k.dead, k.stats];
    const args: Arg[] = [k.base, p.resetAttempts ? '1' : '0', p.limit];
    if ('ids' in p.select) args.push('ids', ...p.select.ids);
    else if ('group' in p.select) args.push('group', p.select.group);
    else args.push('all');
    args.push(...p.history);
    return this.run('requeueDead', keys, args) as Promise<JobActionReply>;
  }

  /**
   * `removeJobs-10.lua`: delete jobs not running — the ids given (`state` '' for any), or up to
   * `limit` of a group's jobs in `state`, or of the queue's (not 'pending').
   */
  removeJobs(p: {
    state: 'pending' | PairedKind | '';
    limit: number;
    select: { ids: readonly string[] } | { group: string } | { all: true };
    history: HistoryArgs;
  }): Promise<JobActionReply> {
    const k = this.k;
    const keys = [
      k.glimit,
      k.gactive,
      k.ring,
      k.paused,
      k.wake,
      k.active,
      k.delayed,
      k.dead,
      k.completed,
      k.stats,
    ];
    const mode = 'ids' in p.select ? 'ids' : 'group' in p.select ? 'group' : 'all';
    const args: Arg[] = [k.base, mode, p.state, p.limit];
    if ('ids' in p.select) args.push(...p.select.ids);
    else if ('group' in p.select) args.push(p.select.group);
    args.push(...p.history);
    return this.run('removeJobs', keys, args) as Promise<JobActionReply>;
  }

  /**
   * `reconcileIndexes-3.lua` op 'payloads' (or 'results'), one step: HSCAN `batch` fields of
   * `payloads` (`results`) from `cursor`; the findings (a payload or result whose job has no
   * hash) and the next cursor ('0': done).
   */
  reconcilePayloads(p: {
    hash: 'payloads' | 'results';
    mode: 'audit' | 'repair';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings, cursor: string]> {
    return this.run('reconcileIndexes', this.pairedKeys(), [
      this.k.base,
      p.mode,
      p.hash,
      p.cursor,
      p.batch,
      ...p.history,
    ]) as Promise<[FlatFindings, string]>;
  }

  /**
   * `reconcileOverrides-2.lua`, one step: SCAN `batch` entries of the timed-override data
   * (`goverride`, op 'data') or deadlines (`overrides`, op 'deadlines') from `cursor`, in
   * `mode`; the findings (kind OVERRIDE, subject `<kind>:<group>`) and the next cursor ('0':
   * done).
   */
  reconcileOverrides(p: {
    mode: 'audit' | 'repair';
    op: 'data' | 'deadlines';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings, cursor: string]> {
    const k = this.k;
    return this.run(
      'reconcileOverrides',
      [k.overrides, k.overrideData],
      [k.base, p.mode, p.op, p.cursor, p.batch, ...p.history],
    ) as Promise<[FlatFindings, string]>;
  }

  /**
   * `reconcileBuckets-2.lua`, one step: HSCAN `batch` rate-limit buckets (`gwindow`) from
   * `cursor`, in `mode`; the findings (kind RATE, subject the group: a malformed bucket, or one
   * of a group with no rate) and the next cursor ('0': done).
   */
  reconcileBuckets(p: {
    mode: 'audit' | 'repair';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings, cursor: string]> {
    const k = this.k;
    return this.run(
      'reconcileBuckets',
      [k.rateWindow, k.rate],
      [k.base, p.mode, p.cursor, p.batch, ...p.history],
    ) as Promise<[FlatFindings, string]>;
  }

  /**
   * `reconcileSchedules-3.lua`, one step: SCAN `batch` fields of the schedules' definitions
   * (op 'definitions', reads only: `[now (ms), cursor, flat [id, definition, score | null,
   * runs | null] each]`), next ticks (op 'entries') or last runs (op 'runs') from `cursor`, in
   * `mode`; the findings (kind SCHEDULE, subject the schedule id) and the next cursor ('0': done).
   */
  reconcileSchedules(p: {
    mode: 'audit' | 'repair';
    op: 'definitions';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<[now: number, cursor: string, entries: (string | null)[]]>;
  reconcileSchedules(p: {
    mode: 'audit' | 'repair';
    op: 'entries' | 'runs';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings, cursor: string]>;
  reconcileSchedules(p: {
    mode: 'audit' | 'repair';
    op: 'definitions' | 'entries' | 'runs';
    cursor: string;
    batch: number;
    history: HistoryArgs;
  }): Promise<unknown> {
    const k = this.k;
    return this.run(
      'reconcileSchedules',
      [k.schedules, k.scheduleDefs, k.scheduleRuns],
      [k.base, p.mode, p.op, ...p.history, p.cursor, p.batch],
    );
  }

  /**
   * `reconcileSchedules-3.lua` op 'mend' (repair only), one atomic step: per schedule, a
   * compare-and-set on its next tick as read (`score`, null for none) and its definition's
   * SHA-1: action 'next' sets its next tick to `next` (ms; Infinity: never due), 'remove' drops
   * its three fields. Answers per schedule 1 (written) or 0 (it moved on: left alone).
   */
  mendSchedules(
    mends: readonly {
      id: string;
      action: 'next' | 'remove';
      score: string | null;
      sha: string;
      next: number | null;
      found: string;
      expected: string;
    }[],
    history: HistoryArgs,
  ): Promise<(0 | 1)[]> {
    const k = this.k;
    const args: Arg[] = [k.base, 'repair', 'mend', ...history, mends.length];
    for (const m of mends) {
      const next = m.next === null ? '' : Number.isFinite(m.next) ? m.next : '+inf';
      args.push(m.id, m.action, m.score ?? '', m.sha, next, m.found, m.expected);
    }
    return this.run(
      'reconcileSchedules',
      [k.schedules, k.scheduleDefs, k.scheduleRuns],
      args,
    ) as Promise<(0 | 1)[]>;
  }

  /**
   * `reconcileReserves-1.lua`, one atomic step: the stored sum of the reserves against
   * `greserve` (and the cap), in `mode`; the findings (kind RESERVE, subject `reserved` or `cap`).
   */
  reconcileReserves(p: {
    mode: 'audit' | 'repair';
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings]> {
    return this.run('reconcileReserves', [this.k.settings], [p.mode, ...p.history]) as Promise<
      [FlatFindings]
    >;
  }

  /**
   * `reconcileDue-2.lua`, one atomic step: the queue's "next due at" (`settings` delayedAt,
   * reopenAt) against the earliest of `delayed` and `ratelimited`, in `mode`; the findings (kind
   * DUE, subject the field).
   */
  reconcileDue(p: {
    mode: 'audit' | 'repair';
    history: HistoryArgs;
  }): Promise<[findings: FlatFindings]> {
    return this.run(
      'reconcileDue',
      [this.k.settings, this.k.delayed],
      [p.mode, ...p.history],
    ) as Promise<[FlatFindings]>;
  }

  /**
   * `reconcileIndexes-3.lua`, one step: walk `batch` members of the queue-wide index of `kind`
   * (`group` undefined) or of a group's from rank `start`, in `mode`.
   */
  reconcileIndexes(p: {
    mode: 'audit' | 'repair';
    kind: PairedKind;
    group?: string | undefined;
    start: number;
    batch: number;
    history: HistoryArgs;
  }): Promise<ReconcileIndexesReply> {
    const args: Arg[] =
      p.group === undefined
        ? ['queue', p.kind, p.start, p.batch]
        : ['group', p.kind, p.group, p.start, p.batch];
    return this.run('reconcileIndexes', this.pairedKeys(), [
      this.k.base,
      p.mode,
      ...args,
      ...p.history,
    ]) as Promise<ReconcileIndexesReply>;
  }

  /** `reconcileIndexes-3.lua` op 'cards': `[delayed, dead, completed]` sizes of each group's. */
  pairedCards(p: { groups: readonly string[] }): Promise<number[]> {
    return this.run('reconcileIndexes', this.pairedKeys(), [
      this.k.base,
      'audit',
      'cards',
      ...p.groups,
    ]) as Promise<number[]>;
  }

  private pairedKeys(): string[] {
    return [this.k.delayed, this.k.dead, this.k.completed];
  }

  /** `reconcileLeases-3.lua`: make `active` and `leases` agree (mode 'repair') or report it. */
  reconcileLeases(p: { mode: 'audit' | 'repair'; history: HistoryArgs }): Promise<FlatFindings> {
    const k = this.k;
    return this.run(
      'reconcileLeases',
      [k.active, k.leases, k.groups],
      [k.base, p.mode, ...p.history],
    ) as Promise<FlatFindings>;
  }

  /**
   * `setRateLimit-8.lua`: a token bucket, `max` tokens per `windowMs` (ms), `burst` held at most;
   * `actor`, `cap`: history.
   */
  setRateLimit(p: {
    group: string;
    max: number;
    windowMs: number;
    burst: number;
    history: [actor: string, cap: number];
  }): Promise<GroupReply> {
    return this.run('setRateLimit', this.groupKeys(p.group), [
      p.group,
      p.max,
      p.windowMs,
      p.burst,
      ...p.history,
    ]) as Promise<GroupReply>;
  }

  /** `clearRateLimit-8.lua`: remove the group's rate limit; `history`: [actor, cap]. */
  clearRateLimit(p: { group: string; history: [actor: string, cap: number] }): Promise<GroupReply> {
    return this.run('clearRateLimit', this.groupKeys(p.group), [
      p.group,
      ...p.history,
    ]) as Promise<GroupReply>;
  }

  /** `reconcileGroups-9.lua`: check or fix I1–I3 for one batch of groups. */
  reconcileGroups(p: {
    mode: 'audit' | 'repair';
    groups: string[];
    history: HistoryArgs;
  }): Promise<ReconcileGroupsReply> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.groups, k.stats];
    return this.run('reconcileGroups', keys, [
      k.base,
      p.mode,
      ...p.history,
      ...p.groups,
    ]) as Promise<ReconcileGroupsReply>;
  }

  /** `cancelOverride-4.lua`: drop the group's pending timed override of `kind` (DESIGN.md §4.8). */
  cancelOverride(p: {
    group: string;
    kind: 'limit' | 'pause';
    history: HistoryArgs;
  }): Promise<GroupReply> {
    const k = this.k;
    return this.run(
      'cancelOverride',
      [k.glimit, k.gactive, k.paused, k.lane(p.group)],
      [p.group, p.kind, ...p.history],
    ) as Promise<GroupReply>;
  }

  /**
   * `forgetGroups-5.lua`: forget at most `batch` groups unseen for `graceMs` that are idle and
   * unset (DESIGN.md §3, "Forgetting groups"); answers `[forgotten, kept]`.
   */
  forgetGroups(p: { graceMs: number; batch: number }): Promise<[number, number]> {
    const k = this.k;
    return this.run(
      'forgetGroups',
      [k.groups, k.seen, k.glimit, k.gactive, k.paused],
      [k.base, p.graceMs, p.batch],
    ) as Promise<[number, number]>;
  }

  /**
   * `applyOverrides-6.lua`: revert up to `batch` due timed overrides (DESIGN.md §4.8); answers
   * `[applied, next deadline (ms) or null]`.
   */
  applyOverrides(p: { batch: number; history: HistoryArgs }): Promise<[number, number | null]> {
    const k = this.k;
    return this.run(
      'applyOverrides',
      [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.stats],
      [p.batch, ...p.history],
    ) as Promise<[number, number | null]>;
  }

  /**
   * `reaperLock-2.lua`: 1 when `id` took the queue's reaper lock for `lockMs` (the queue due by
   * `intervalMs` since its last pass began), else 0.
   */
  reaperLock(p: { id: string; intervalMs: number; lockMs: number }): Promise<0 | 1> {
    const k = this.k;
    return this.run(
      'reaperLock',
      [k.reaper, k.reapedAt],
      [p.id, p.intervalMs, p.lockMs],
    ) as Promise<0 | 1>;
  }

  /** `reaperUnlock-1.lua`: 1 when the lock was `id`'s (now released), else 0. */
  reaperUnlock(p: { id: string }): Promise<0 | 1> {
    return this.run('reaperUnlock', [this.k.reaper], [p.id]) as Promise<0 | 1>;
  }

  /**
   * `readCounts-8.lua`: `[groups, onRing, paused, saturated, pending, delayed, active, dead,
   * completed]` of one instant; saturated/pending/delayed as stored (null when missing), dead
   * and completed without the jobs past their retention age.
   */
  readCounts(): Promise<(number | string | null)[]> {
    const k = this.k;
    return this.run(
      'readCounts',
      [k.groups, k.ring, k.paused, k.stats, k.active, k.dead, k.completed, k.settings],
      [],
    ) as Promise<(number | string | null)[]>;
  }

  /**
   * `readThroughput-1.lua`: `[current, counts]` — the current minute (minutes since the epoch,
   * Redis clock) and, flat, enqueued, claimed, completed and failed of each of the last
   * `minutes` minutes, oldest first.
   */
  readThroughput(p: { minutes: number }): Promise<[current: number, counts: number[]]> {
    return this.run('readThroughput', [this.k.throughput], [p.minutes]) as Promise<
      [number, number[]]
    >;
  }

  /**
   * `readMetrics-7.lua`: the queue's cardinalities, `stats` and its oldest pending job, mending
   * at most `maxSteps` stale entries of `heads` on the way.
   */
  readMetrics(p: { maxSteps: number }): Promise<MetricsReply> {
    const k = this.k;
    return this.run(
      'readMetrics',
      [k.ring, k.stats, k.paused, k.groups, k.active, k.dead, k.completed],
      [k.base, p.maxSteps],
    ) as Promise<MetricsReply>;
  }

  /** `workerBeat-2.lua`: register or refresh a worker; answers `[now, lapsesAt]` (ms). */
  workerBeat(b: WorkerBeat): Promise<[number, number]> {
    const k = this.k;
    return this.run(
      'workerBeat',
      [k.workers, k.workerInfo],
      [
        b.id,
        b.hostname ?? '',
        b.pid ?? '',
        b.concurrency ?? '',
        b.active ?? '',
        b.version ?? '',
        b.heartbeatMs,
        b.fresh ? '1' : '',
      ],
    ) as Promise<[number, number]>;
  }

  /** `workerGone-2.lua`: 1 when worker `id` was registered (now removed), else 0. */
  workerGone(id: string): Promise<number> {
    const k = this.k;
    return this.run('workerGone', [k.workers, k.workerInfo], [id]) as Promise<number>;
  }

  /** `pruneWorkers-2.lua`: forget at most `batch` lapsed workers; answers how many. */
  pruneWorkers(batch: number): Promise<number> {
    const k = this.k;
    return this.run('pruneWorkers', [k.workers, k.workerInfo], [batch]) as Promise<number>;
  }

  /** `readWorkers-3.lua`: the live workers (at most `max`). */
  readWorkers(max: number): Promise<WorkersReply> {
    const k = this.k;
    return this.run(
      'readWorkers',
      [k.workers, k.workerInfo, k.active],
      [k.base, max, ''],
    ) as Promise<WorkersReply>;
  }

  /** `readWorkers-3.lua` counting only: `[now, live workers]`. */
  countWorkers(): Promise<[number, number]> {
    const k = this.k;
    return this.run(
      'readWorkers',
      [k.workers, k.workerInfo, k.active],
      [k.base, 1, '1'],
    ) as Promise<[number, number]>;
  }
}
