/**
 * How the flat-cost section (bench/flatCost.ts) and its rate-limit case (bench/rateCost.ts)
 * measure one script: windows of calls between two reads of commandstats, tallied into a
 * {@link ScriptCost}.
 */
import type { Redis } from 'ioredis';
import type { Job, Queue } from '../src/lanes/index.js';
import { commandStats, scriptCalls, statsDelta, totalCalls } from './redis.js';
import { now, percentile, pool } from './util.js';

/** Calls in flight in a measurement window (and in the unmeasured completions after claims). */
const CONCURRENCY = 16;

export interface ScriptCost {
  calls: number;
  /**
   * Redis µs per call: the median over measurement windows of commandstats' script usec ÷
   * calls (the median, so a window in which another process preempted Redis does not count).
   */
  usecPerCall: number;
  /** The same over all windows together (mean). */
  meanUsecPerCall: number;
  /** Client calls/s through the engine's Queue API, `concurrency` in flight. */
  callsPerSec: number;
  /** Commands each call runs inside the script (redis.call), from commandstats. */
  redisCallsPerCall: number;
  /** Ring length (LLEN) when the measurement started. */
  ring: number;
}

export interface Tally {
  calls: number;
  usec: number;
  nested: number;
  ms: number;
  ring: number;
  /** µs per call of each measurement window. */
  windows: number[];
}

/**
 * `n` claims of `queue` measured as one script (see {@link measure}), then the jobs they took
 * completed, unmeasured, so the next round finds the same ring. `where` names the case in the
 * error a claim that finds nothing throws.
 */
export async function measureClaims(
  admin: Redis,
  conn: Redis,
  queue: Queue,
  n: number,
  tally: Tally,
  where: string,
): Promise<void> {
  const claimed: Job[] = [];
  await measure(
    admin,
    conn,
    queue,
    n,
    async () => {
      const job = await queue.claim();
      if (job === null) throw new Error(`flat cost: a claim ${where} found nothing`);
      claimed.push(job);
    },
    false,
    tally,
  );
  await pool(claimed.length, CONCURRENCY, (i) => {
    const job = claimed[i] as Job;
    return queue.complete(job.id, job.token as string);
  });
}

/**
 * `measure` for steering calls that each change something (a steering script writes a history
 * entry exactly when it does): fails the run when the history did not grow by `n`, so no size
 * measures the cheaper no-op path. Skipped on Redis 6.2 (no entries-added).
 */
export async function measureChanges(
  admin: Redis,
  conn: Redis,
  queue: Queue,
  n: number,
  op: (i: number) => Promise<unknown>,
  tally: Tally,
  what: string,
): Promise<void> {
  const before = await historyAdded(conn, queue);
  await measure(admin, conn, queue, n, op, 'script', tally);
  const after = await historyAdded(conn, queue);
  if (before !== undefined && after !== before + n) {
    throw new Error(
      `flat cost: ${n} measured ${what} calls wrote ${(after ?? 0) - before} history entries: some changed nothing`,
    );
  }
}

/**
 * Entries ever added to the queue's history stream (XINFO STREAM entries-added), 0 before the
 * first; undefined on Redis 6.2, which does not count them (the check is then skipped).
 */
export async function historyAdded(conn: Redis, queue: Queue): Promise<number | undefined> {
  if ((await conn.exists(queue.keys.history)) === 0) return 0;
  const info = (await conn.xinfo('STREAM', queue.keys.history)) as unknown[];
  const at = info.indexOf('entries-added');
  return at < 0 ? undefined : Number(info[at + 1]);
}

export function newTally(): Tally {
  return { calls: 0, usec: 0, nested: 0, ms: 0, ring: -1, windows: [] };
}

export function done(t: Tally): ScriptCost {
  return {
    calls: t.calls,
    usecPerCall: percentile(t.windows, 50),
    meanUsecPerCall: t.usec / t.calls,
    callsPerSec: t.calls / (t.ms / 1000),
    redisCallsPerCall: t.nested / t.calls,
    ring: t.ring,
  };
}

/**
 * The engine's state-loss checks (`checkEpoch-5.lua`, DESIGN.md §3 "A Redis that lost a queue's
 * state"): asked by itself when a queue is used a second or more after its last check, so a
 * window may carry one. Counted by {@link observeScripts}, given as the measured engine's
 * `onScript`, and taken out of a window as a registration refresh is.
 */
let epochChecks = 0;
/** The measured engine's `onScript`: counts its state-loss checks. */
export const observeScripts = (name: string): void => {
  if (name === 'checkEpoch') epochChecks += 1;
};
/** Commands a state-loss check runs inside its script (HMGET, GET, HGET, HLEN, SCARD, TIME). */
const EPOCH_CHECK_COMMANDS = 6;

/** How a measured call registers its queue: a steering call's script, an enqueue's SADD, none. */
export type Registers = 'script' | 'sadd' | false;

/**
 * Run `n` calls of one script (`CONCURRENCY` in flight) between two reads of commandstats and
 * add them to `tally`. `registers`: the Queue method registers the queue, which its connection
 * does at most every 5 s (REGISTRATION_REFRESH_MS), so a window may carry one refresh: an SADD
 * P:queues beside an enqueue, or for a steering call `register-1.lua` (one more script call,
 * PERSIST and SADD). A refresh is not part of the script's cost: its commands are taken out of
 * the nested count, and its script call out of the call count (its few µs stay in the window's
 * usec, spread over `n` calls).
 */
export async function measure(
  admin: Redis,
  conn: Redis,
  queue: Queue,
  n: number,
  op: (i: number) => Promise<unknown>,
  registers: Registers,
  tally: Tally,
): Promise<Tally> {
  const ring = await conn.llen(queue.keys.ring);
  if (tally.ring < 0) tally.ring = ring;
  await admin.config('RESETSTAT');
  const before = await commandStats(admin);
  const checksBefore = epochChecks;
  const t0 = now();
  await pool(n, CONCURRENCY, op);
  tally.ms += now() - t0;
  const delta = statsDelta(before, await commandStats(admin));
  // A check is sent without being awaited: one still on the wire is counted, not yet run.
  const checks = epochChecks - checksBefore;
  const scripts = scriptCalls(delta);
  const epochCalls = Math.min(checks, Math.max(0, scripts.calls - n));
  scripts.calls -= epochCalls;
  const refreshes = scripts.calls - n;
  if (refreshes < 0 || refreshes > (registers === 'script' ? 1 : 0)) {
    throw new Error(`flat cost: expected ${n} script calls, commandstats saw ${scripts.calls}`);
  }
  // A steering call's refresh is register-1.lua (PERSIST, SADD); an enqueue's a plain SADD,
  // the only SADD of such a window (enqueue's script sends none).
  const registryCalls =
    registers === 'script'
      ? 2 * refreshes
      : registers === 'sadd'
        ? (delta.get('sadd')?.calls ?? 0)
        : 0;
  tally.calls += n;
  tally.usec += scripts.usec;
  tally.windows.push(scripts.usec / n);
  tally.nested +=
    totalCalls(delta) - scripts.calls - registryCalls - epochCalls * (1 + EPOCH_CHECK_COMMANDS);
  return tally;
}
