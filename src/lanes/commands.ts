/**
 * Typed, named wrappers over the Lua scripts (STYLE.md 5). Callers pass `{ group, limit }`;
 * the wrapper orders KEYS and ARGV exactly as each script's header lists them, so the
 * TypeScript side can never drift from the script. ioredis `defineCommand` runs them with
 * EVALSHA and falls back to EVAL on NOSCRIPT (after a restart or SCRIPT FLUSH).
 */
import type { Connection } from './connectionState.js';
import { dataOutOfRange } from './errors.js';
import type { ClaimedJob, ClaimReply } from './jobs.js';
import type { QueueKeys } from './keys.js';
import { loadScripts } from './lua.js';
import type { RedisClient } from './redisConnection.js';

type Arg = string | number;
type ScriptFn = (...args: Arg[]) => Promise<unknown>;

/** `{ limit, active, pending, paused }` as `includes/groupReply.lua` returns it. */
export type GroupReply = [limit: string | null, active: string, pending: number, paused: number];
/** `readSnapshot-8.lua`'s reply; group fields are flat, four per group as in `GroupReply`. */
export type SnapshotReply = [
  at: number,
  ring: string[],
  total: number,
  pageIds: string[],
  pageFields: (string | number | null)[],
  pickedFields: (string | number | null)[],
  cards: [groups: number, paused: number, active: number, dead: number],
  stats: string[],
];
/** `{ subject, kind, expected, found, … }` flat, as the reconcile scripts report findings. */
export type FlatFindings = string[];
/** `reconcileGroups-9.lua`'s reply. */
export type ReconcileGroupsReply = [findings: FlatFindings, pending: number, saturated: number];

/** `{ id, [field, value, ...] }` as the job scripts return it. */
export type JobReply = [id: string, fields: string[]];
/**
 * `enqueue-12.lua`'s reply: the job, and whether it is new (0), the one an idempotency key made
 * earlier (1, nothing written), or none because the key was used for another request (2: the
 * id of that request's job, no fields, nothing written), or none because `runAt` is more than
 * 30 days from the Redis clock's now (3: id null, fields `['now', ms]`, nothing written).
 */
export type EnqueueReply = [id: string, fields: string[], outcome: 0 | 1 | 2 | 3];
/**
 * `promoteJob-8.lua`'s reply: the job after the call and whether it was moved (1) or was not
 * delayed (0, nothing written); or a negative status code (JOB_NOT_FOUND).
 */
export type PromoteReply = [id: string, fields: string[], promoted: 0 | 1] | number;
/** `reap-12.lua`'s reply: counts of jobs reaped, promoted, trimmed (completed, dead). */
export type ReapReply = [
  reaped: number,
  promoted: number,
  trimmedCompleted: number,
  trimmedDead: number,
];
/** A backoff policy as the enqueue script stores it (validated by the engine). */
export interface BackoffArgs {
  readonly type: 'FIXED' | 'EXPONENTIAL';
  readonly delayMs: number;
  readonly maxDelayMs: number | null;
  readonly jitter: number;
}
/**
 * `completeAndClaim-8.lua`'s reply: statuses are 1 (completed) or a negative status code
 * (JOB_NOT_FOUND, LEASE_LOST, DATA_OUT_OF_RANGE: see `ScriptStatus`).
 */
export type CompleteAndClaimReply = [
  finishedAt: number,
  statuses: number[],
  claimedAt: string | null,
  leaseUntil: string | null,
  claimed: ClaimedJob[],
];

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
/** Tries of a script refused with NOSCRIPT (see `run`). */
const NOSCRIPT_ATTEMPTS = 5;

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

/** The scripts of one queue, bound to one connection (whose scripts `Connection` defined). */
export class Commands {
  private readonly redis: RedisClient;

  constructor(
    connection: Connection,
    private readonly k: QueueKeys,
  ) {
    this.redis = connection.redis;
  }

  /**
   * Run a script. ioredis answers NOSCRIPT with one EVAL fallback; a SCRIPT FLUSH storm can
   * still refuse that once more, so a refused call is retried (a NOSCRIPT reply means the
   * script did not run, so a retry cannot apply it twice). A script that refused a stored
   * number (`includes/safeInteger.lua`) is reported as RingmasterError DATA_OUT_OF_RANGE.
   * A queue script gets the slot guard (`QueueKeys.guard`) as its last key, after its own.
   */
  private async run(name: string, keys: string[], args: Arg[]): Promise<unknown> {
    const fn = (this.redis as unknown as Record<string, ScriptFn>)[`${COMMAND_PREFIX}${name}`];
    if (!fn) throw new Error(`script ${name} is not defined`);
    const declared = UNGUARDED.has(name) ? keys : [...keys, this.k.guard];
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn.call(this.redis, ...declared, ...args);
      } catch (error) {
        const noScript = error instanceof Error && error.message.startsWith('NOSCRIPT');
        if (!noScript || attempt >= NOSCRIPT_ATTEMPTS) throw dataOutOfRange(error) ?? error;
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

  /** `setLimit-8.lua` */
  setLimit(p: { group: string; limit: number }): Promise<GroupReply> {
    return this.run('setLimit', this.groupKeys(p.group), [p.group, p.limit]) as Promise<GroupReply>;
  }

  /** `clearLimit-8.lua` */
  clearLimit(p: { group: string }): Promise<GroupReply> {
    return this.run('clearLimit', this.groupKeys(p.group), [p.group]) as Promise<GroupReply>;
  }

  /** `pause-7.lua` */
  pause(p: { group: string }): Promise<GroupReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.lane(p.group), k.groups, k.stats];
    return this.run('pause', keys, [p.group]) as Promise<GroupReply>;
  }

  /** `resume-8.lua` */
  resume(p: { group: string }): Promise<GroupReply> {
    return this.run('resume', this.groupKeys(p.group), [p.group]) as Promise<GroupReply>;
  }

  /**
   * `register-1.lua`: add this queue's name to the registry `registry` (`P:queues`), as SADD
   * does, but allowed at maxmemory (for the steering calls). Resolves to 1 when added, else 0.
   */
  register(p: { registry: string; queue: string }): Promise<number> {
    return this.run('register', [p.registry], [p.queue]) as Promise<number>;
  }

  /**
   * `enqueue-12.lua`; `payload` is JSON text or '' for none. `key`: an idempotency key with how
   * long it is remembered (ms) and the request's fingerprint, or undefined for none. At most
   * one of `delayMs` (ms from now) and `runAt` (ms since the epoch, Redis clock); `backoff`
   * the job's retry policy, or undefined for none.
   */
  enqueue(p: {
    group: string;
    payload: string;
    maxAttempts: number;
    key?: { name: string; ttlMs: number; fingerprint: string } | undefined;
    delayMs?: number | undefined;
    runAt?: number | undefined;
    backoff?: BackoffArgs | undefined;
  }): Promise<EnqueueReply> {
    const k = this.k;
    const keys = [
      ...this.groupKeys(p.group),
      k.seq,
      k.idem(p.key?.name ?? ''),
      k.delayed,
      k.groupDelayed(p.group),
    ];
    const b = p.backoff;
    const args = [
      k.base,
      p.group,
      p.payload,
      p.maxAttempts,
      p.key?.ttlMs ?? '',
      p.key?.fingerprint ?? '',
      p.delayMs ?? '',
      p.runAt ?? '',
      b?.type ?? '',
      b?.delayMs ?? '',
      b?.maxDelayMs ?? '',
      b ? String(b.jitter) : '',
    ];
    return this.run('enqueue', keys, args) as Promise<EnqueueReply>;
  }

  /** `claim-7.lua`; null when no group is serviceable. */
  claim(p: { leaseMs: number; token: string; defaultMaxAttempts: number }): Promise<ClaimReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.active, k.leases, k.stats];
    const args = [k.base, p.leaseMs, p.token, p.defaultMaxAttempts];
    return this.run('claim', keys, args) as Promise<ClaimReply>;
  }

  /** `complete-9.lua`; a negative number is a status code (see errors.ts). */
  complete(p: { id: string; token: string }): Promise<JobReply | number> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.stats, k.job(p.id)];
    return this.run('complete', keys, [k.base, p.id, p.token]) as Promise<JobReply | number>;
  }

  /**
   * `completeAndClaim-8.lua`: complete each `{ id, token }` in order, then claim one job per
   * token in `claimTokens`, in one round trip.
   */
  completeAndClaim(p: {
    completions: readonly { id: string; token: string }[];
    claimTokens: readonly string[];
    leaseMs: number;
    defaultMaxAttempts: number;
  }): Promise<CompleteAndClaimReply> {
    const k = this.k;
    const args: Arg[] = [k.base, p.leaseMs, p.defaultMaxAttempts, p.completions.length];
    for (const c of p.completions) args.push(c.id, c.token);
    for (const t of p.claimTokens) args.push(t);
    return this.run(
      'completeAndClaim',
      [...this.releaseKeys(), k.stats],
      args,
    ) as Promise<CompleteAndClaimReply>;
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
  promoteJob(p: { id: string }): Promise<PromoteReply> {
    const k = this.k;
    const keys = [k.glimit, k.gactive, k.ring, k.paused, k.wake, k.stats, k.delayed, k.job(p.id)];
    return this.run('promoteJob', keys, [k.base, p.id]) as Promise<PromoteReply>;
  }

  /** `extendLease-2.lua`; a negative number is a status code (see errors.ts). */
  extendLease(p: { id: string; token: string; leaseMs: number }): Promise<JobReply | number> {
    const k = this.k;
    return this.run('extendLease', [k.active, k.job(p.id)], [p.id, p.token, p.leaseMs]) as Promise<
      JobReply | number
    >;
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
   * `readSnapshot-8.lua`: one moment of the queue — `[at, ring, total, pageIds, pageFields,
   * pickedFields, cards, stats]` as its header lists them.
   */
  readSnapshot(p: {
    first: number;
    min: string;
    prefix: string;
    picked: readonly string[];
  }): Promise<SnapshotReply> {
    const k = this.k;
    return this.run(
      'readSnapshot',
      [k.glimit, k.gactive, k.paused, k.ring, k.groups, k.stats, k.active, k.dead],
      [k.base, p.first, p.min, p.prefix, ...p.picked],
    ) as Promise<SnapshotReply>;
  }

  /** `reconcileLeases-3.lua`: make `active` and `leases` agree (mode 'repair') or report it. */
  reconcileLeases(p: { mode: 'audit' | 'repair' }): Promise<FlatFindings> {
    const k = this.k;
    return this.run(
      'reconcileLeases',
      [k.active, k.leases, k.groups],
      [k.base, p.mode],
    ) as Promise<FlatFindings>;
  }

  /** `reconcileGroups-9.lua`: check or fix I1–I3 for one batch of groups. */
  reconcileGroups(p: {
    mode: 'audit' | 'repair';
    groups: string[];
  }): Promise<ReconcileGroupsReply> {
    const k = this.k;
    const keys = [...this.releaseKeys(), k.groups, k.stats];
    return this.run('reconcileGroups', keys, [
      k.base,
      p.mode,
      ...p.groups,
    ]) as Promise<ReconcileGroupsReply>;
  }
}
