/**
 * Section 2 — flat cost as tenants grow: the Redis-side cost of each script (INFO commandstats
 * µs per EVALSHA, measured with nothing but that script running) and the client-side calls/s,
 * with 10, 10,000 and 100,000 groups on the ring.
 *
 * Every size is its own queue in the same Redis, and each round measures every script at every
 * size (in a rotating order), so a noisy moment on a shared machine hits all sizes alike.
 * Each script is measured doing the same thing at every size:
 * - enqueue    a job for a group already on the ring (the ring is unchanged);
 * - claim      the head group, which keeps pending work and rotates to the tail;
 * - complete   one of those jobs, its group's only permit; the group stays serviceable;
 * - setLimit   a new limit on a ring group that does not park it (no ring change);
 * - clearLimit a parked group (limit 0, one pending job), which re-rings at the tail;
 * - resume     a paused group with one pending job, which re-rings at the tail;
 * - pause      one of those groups, now on the ring: an LREM, O(ring) by design;
 * - setLimit 0 (reported, not a target) one of the clearLimit groups: parking de-rings, LREM.
 * - setLimit timed  a timed override (forMs 1) of a ring group's limit that does not
 *                park it: the plain call plus ZADD overrides, HSET goverride;
 * - applyOverrides  one due revert per call (`applyOverrides-6.lua` with batch 1, sent as the
 *                Queue sends it): the revert of one of those, back to the limit before; a
 *                batch of b costs about b of these.
 * Both run in windows of min(batch, size) distinct groups, after setLimit.
 * - readMetrics the queue's numbers for GET /metrics, once the round's claims' stale
 *   entries of the oldest-pending index are mended (an unmeasured read until it is settled:
 *   that mending is amortised over the claims, at most 100 per read), so every size reads an
 *   exact index: cardinalities, stats and one step over `heads`.
 * The last four run in windows of `batch` calls — resume, clearLimit, then pause and setLimit 0
 * take those groups off again — so the ring is back at its nominal size after each round and
 * holds at most 2 × `batch` more during one. The O(ring) pair comes last and windows are large
 * (250 in the full run): a window of 20 calls right after an LREM over 100,000 entries measured
 * mostly the refill of the CPU caches that scan evicted (+40% on clearLimit), not the script.
 */
import type { Redis } from 'ioredis';
import { type Job, type Queue, Ringmaster } from '../src/lanes/index.js';
import { type CapCostResult, capCost } from './capCost.js';
import { type LevelCostResult, levelCost } from './levelCost.js';
import { type RateCostResult, rateCost } from './rateCost.js';
import { type BenchRedis, fresh } from './redis.js';
import {
  done,
  measure,
  measureChanges,
  measureClaims,
  newTally,
  observeScripts,
  type Registers,
  type ScriptCost,
  type Tally,
} from './scriptCost.js';
import { pool, progress } from './util.js';

export interface FlatCostOptions {
  /**
   * Delayed jobs not yet due in the second queue of the delayed-jobs case (claim and
   * enqueue cost with 100,000 delayed jobs beside the same calls with none).
   */
  delayed: number;
  /** Ring sizes (the 10, 10,000, 100,000), each its own queue in the same Redis. */
  sizes: readonly number[];
  /** Rounds; each measures every script at every size (sizes in a rotating order). */
  rounds: number;
  /** Calls of enqueue, claim, complete and setLimit per size and round. */
  calls: number;
  /** Batch size of the alternating measurements. */
  batch: number;
  /** Batches of each alternating measurement per size and round. */
  batchesPerRound: number;
  /**
   * Rate-limited groups in the second queue of the rate-limit case (claim of a group
   * with a rate limit and setRateLimit beside 100,000 rate-limited groups and beside none).
   */
  rateLimited?: number;
  /** Groups at each level of the levels case (bench/levelCost.ts); none: not run. */
  perLevel?: number;
}

export const SCRIPTS = [
  'enqueue',
  'claim',
  'complete',
  'setLimit',
  'clearLimit',
  'resume',
  'pause',
  'setLimit 0',
  // Timed overrides: a timed setLimit, and one revert applied at its deadline
  'setLimit timed',
  'applyOverrides',
  'cancelOverride',
  'readMetrics',
  'setWeight',
  'setRateLimit',
  'clearRateLimit',
] as const;
export type ScriptName = (typeof SCRIPTS)[number];

/** The target applies to these; pause (and a parking setLimit) may be O(ring). */
export const FLAT_TARGETS: readonly ScriptName[] = [
  'claim',
  'complete',
  'enqueue',
  'setLimit',
  'clearLimit',
  'resume',
  'setLimit timed',
  'applyOverrides',
  'cancelOverride',
  'readMetrics',
  'setWeight',
  'setRateLimit',
  'clearRateLimit',
];

export interface FlatCostResult {
  sizes: number[];
  /** script → ring size → cost */
  costs: Record<ScriptName, Record<number, ScriptCost>>;
  /** script → usec per call at the largest size ÷ at the smallest */
  ratio: Record<ScriptName, number>;
  /** The delayed-jobs case (see {@link delayedCost}). */
  delayed?: DelayedCostResult;
  /** The rate-limit case (bench/rateCost.ts). */
  rated?: RateCostResult;
  /** The queue-cap case (bench/capCost.ts). */
  capped?: CapCostResult;
  /** The levels case (bench/levelCost.ts). */
  levels?: LevelCostResult;
}

/** Scripts measured beside a queue's delayed jobs. */
export const DELAYED_SCRIPTS = ['enqueue', 'claim'] as const;
export type DelayedScriptName = (typeof DELAYED_SCRIPTS)[number];

/**
 * Claim and enqueue on two queues alike but for their delayed jobs: none, and `delayed` jobs not
 * yet due (each claim looks for due ones: a ZRANGEBYSCORE … LIMIT on `delayed`, O(log n)).
 */
export interface DelayedCostResult {
  delayed: number;
  /** script → cost with no delayed job and with `delayed` of them */
  costs: Record<DelayedScriptName, { none: ScriptCost; many: ScriptCost }>;
  /** script → usec per call with `delayed` jobs ÷ with none */
  ratio: Record<DelayedScriptName, number>;
}

const QUEUE = 'bench-flat';
const SETUP_BATCH = 1_000;
/** High enough that claims never saturate a ring group. */
const RING_LIMIT = 1_000_000;

/** One ring size: its queue and where its rota stands. */
interface Ring {
  size: number;
  /**
   * Handles on one measuring connection (one call at a time per window, scriptCost.ts'
   * `CONCURRENCY` in flight).
   */
  queue: Queue;
  paused: string[];
  parked: string[];
  /** Claims (and enqueues, setLimits) so far: claim m serves ring group m mod size. */
  served: number;
  tallies: Record<ScriptName, Tally>;
}

export async function flatCost(redis: BenchRedis, o: FlatCostOptions): Promise<FlatCostResult> {
  await fresh(redis.admin);
  const conn = redis.connect();
  try {
    const rings: Ring[] = [];
    for (const size of o.sizes) {
      progress(`flat cost: building a ring of ${size} groups`);
      rings.push(await build(redis, conn, o, size));
    }
    // Round 0 warms up the client (JIT) and is not counted.
    for (let round = 0; round <= o.rounds; round++) {
      if (round > 0 && (round === 1 || round % 4 === 0 || round === o.rounds)) {
        progress(`flat cost: round ${round} of ${o.rounds}`);
      }
      for (let i = 0; i < rings.length; i++) {
        const ring = rings[(i + round) % rings.length] as Ring;
        await measureRound(redis.admin, conn, o, ring, round > 0);
      }
    }
    const costs = Object.fromEntries(SCRIPTS.map((s) => [s, {}])) as FlatCostResult['costs'];
    for (const ring of rings) {
      for (const name of SCRIPTS) costs[name][ring.size] = done(ring.tallies[name]);
    }
    const delayed = await delayedCost(redis, conn, o);
    const rated = o.rateLimited ? await rateCost(redis, conn, o, o.rateLimited) : undefined;
    const capped = await capCost(redis, conn, o);
    const levels = o.perLevel ? await levelCost(redis, conn, o, o.perLevel) : undefined;
    const first = o.sizes[0] as number;
    const last = o.sizes.at(-1) as number;
    const ratio = Object.fromEntries(
      SCRIPTS.map((s) => [
        s,
        (costs[s][last] as ScriptCost).usecPerCall / (costs[s][first] as ScriptCost).usecPerCall,
      ]),
    ) as Record<ScriptName, number>;
    return {
      sizes: [...o.sizes],
      costs,
      ratio,
      delayed,
      capped,
      ...(rated ? { rated } : {}),
      ...(levels ? { levels } : {}),
    };
  } finally {
    conn.disconnect();
  }
}

/**
 * A queue with `size` groups on the ring — each with a limit it never reaches and one pending
 * job — plus two pools of `batch` groups off the ring: paused with one pending job (for resume),
 * and parked at limit 0 with one pending job (for clearLimit).
 */
async function build(
  redis: BenchRedis,
  conn: Redis,
  o: FlatCostOptions,
  size: number,
): Promise<Ring> {
  const name = `${QUEUE}-${size}`;
  const setupConn = redis.connect({ enableAutoPipelining: true });
  try {
    const setup = new Ringmaster(setupConn).queue(name);
    const paused = Array.from({ length: o.batch }, (_, j) => `p${j}`);
    const parked = Array.from({ length: o.batch }, (_, j) => `c${j}`);
    // The pools first, while the ring is empty, so their setup LREMs cost nothing.
    await Promise.all(paused.map((g) => setup.enqueue(g, { g })));
    await Promise.all(paused.map((g) => setup.pause(g)));
    await Promise.all(parked.map((g) => setup.setLimit(g, 0)));
    await Promise.all(parked.map((g) => setup.enqueue(g, { g })));
    await pool(size, SETUP_BATCH, async (i) => {
      await setup.setLimit(`r${i}`, RING_LIMIT);
      await setup.enqueue(`r${i}`, { i });
    });
    const queue = new Ringmaster(conn, { onScript: observeScripts }).queue(name);
    // Asked once per connection before its first enqueue or claim: not in a measured window.
    await queue.checkLayout();
    const length = await conn.llen(queue.keys.ring);
    if (length !== size) throw new Error(`flat cost: ring of ${name} has ${length}, not ${size}`);
    const tallies = Object.fromEntries(SCRIPTS.map((s) => [s, newTally()])) as Ring['tallies'];
    return { size, queue, paused, parked, served: 0, tallies };
  } finally {
    setupConn.disconnect();
  }
}

/**
 * One round at one size. Enqueue m and claim m both go to ring group m mod size, enqueues
 * first, so every claimed group keeps a pending job and rotates to the tail; the completes then
 * release what the claims took. The batch pairs put the ring back as it was.
 */
async function measureRound(
  admin: Redis,
  conn: Redis,
  o: FlatCostOptions,
  ring: Ring,
  count: boolean,
): Promise<void> {
  const { queue, size, paused, parked } = ring;
  const t = (name: ScriptName) => (count ? ring.tallies[name] : newTally());
  const run = (
    n: number,
    op: (i: number) => Promise<unknown>,
    registers: Registers,
    tally: Tally,
  ) => measure(admin, conn, queue, n, op, registers, tally);
  // Every measured steering call changes what it steers (measureChanges checks the history).
  const steer = (n: number, op: (i: number) => Promise<unknown>, name: ScriptName) =>
    measureChanges(admin, conn, queue, n, op, t(name), name);
  const base = ring.served;
  const group = (i: number) => `r${(base + i) % size}`;

  await run(o.calls, (i) => queue.enqueue(group(i), { i }), 'sadd', t('enqueue'));
  // Claims and completes alternate in windows of at most one claim per group, so every
  // complete releases its group's only permit (the same path at every size).
  const window = Math.min(o.calls, size);
  for (let start = 0; start < o.calls; start += window) {
    const n = Math.min(window, o.calls - start);
    const claimed: Job[] = [];
    await run(
      n,
      async () => {
        const job = await queue.claim();
        if (job === null) throw new Error('flat cost: claim found nothing');
        claimed.push(job);
      },
      false,
      t('claim'),
    );
    const expected = new Set(Array.from({ length: n }, (_, i) => group(start + i)));
    if (!claimed.every((job) => expected.has(job.group))) {
      throw new Error('flat cost: claims served other groups than the ones enqueued to');
    }
    await run(
      n,
      (i) => {
        const job = claimed[i] as Job;
        return queue.complete(job.id, job.token as string);
      },
      false,
      t('complete'),
    );
  }
  // Each call changes its group's limit, at every size: the k-th visit of a group sets one of
  // two values by k's parity, neither the RING_LIMIT - 2 the cancelled timed overrides below
  // leave. (A value by round left every call after a small ring's first lap a no-op, which
  // writes no history entry: 10 groups measured a cheaper script than 100,000.)
  const limit = (i: number) => RING_LIMIT - 1 - 2 * (Math.floor((base + i) / size) % 2);
  await steer(o.calls, (i) => queue.setLimit(group(i), limit(i)), 'setLimit');
  ring.served += o.calls;
  while (!(await queue.metrics()).settled) {
    // Mend what this round's claims left stale, unmeasured (amortised over the claims).
  }
  await run(o.calls, () => queue.metrics(), false, t('readMetrics'));

  // Timed setLimits on distinct ring groups (none parks), then their reverts, one per
  // script call, once the Redis clock has passed their deadlines (1 ms).
  const timed = Math.min(o.batch, size);
  await steer(
    timed,
    (i) => queue.setLimit(group(i), RING_LIMIT - 2, { forMs: 1 }),
    'setLimit timed',
  );
  const last = await conn.zrange(queue.keys.overrides, -1, -1, 'WITHSCORES');
  while (last[1] !== undefined && (await redisMs(conn)) <= Number(last[1])) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await run(timed, () => applyOneOverride(conn, queue), false, t('applyOverrides'));
  const left = await conn.zcard(queue.keys.overrides);
  if (left !== 0) throw new Error(`flat cost: ${left} timed overrides not reverted`);
  // …and timed ones cancelled (the limit they set stays: below RING_LIMIT, none parks).
  for (let i = 0; i < timed; i++)
    await queue.setLimit(group(i), RING_LIMIT - 2, { forMs: 3_600_000 });
  await steer(timed, (i) => queue.cancelOverride(group(i), 'limit'), 'cancelOverride');
  // Weights and rate limits set and taken off again on ring groups (the ring does not change:
  // no claim runs in between, and a rate of 1,000,000 a hour limits nothing).
  await steer(timed, (i) => queue.setWeight(group(i), 2), 'setWeight');
  await steer(timed, (i) => queue.setWeight(group(i), 1), 'setWeight');
  const rate = { max: 1_000_000, windowMs: 3_600_000 };
  await steer(timed, (i) => queue.setRateLimit(group(i), rate), 'setRateLimit');
  await steer(timed, (i) => queue.clearRateLimit(group(i)), 'clearRateLimit');

  // The two O(ring) de-rings come last: an LREM over 100,000 entries evicts the CPU caches,
  // and a window measured right after one would mostly measure their refill.
  for (let b = 0; b < o.batchesPerRound; b++) {
    await steer(o.batch, (j) => queue.resume(paused[j] as string), 'resume');
    await steer(o.batch, (j) => queue.clearLimit(parked[j] as string), 'clearLimit');
    await steer(o.batch, (j) => queue.pause(paused[j] as string), 'pause');
    await steer(o.batch, (j) => queue.setLimit(parked[j] as string, 0), 'setLimit 0');
  }
  const length = await conn.llen(queue.keys.ring);
  if (length !== size) throw new Error(`flat cost: ring drifted to ${length}, expected ${size}`);
}

/** Redis' clock (ms). */
async function redisMs(conn: Redis): Promise<number> {
  const [sec, usec] = await conn.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

/**
 * One `applyOverrides-6.lua` call with batch 1, keys and ARGV as `Commands.applyOverrides` sends
 * them (the slot guard last): one due revert, so n calls measure n reverts.
 */
function applyOneOverride(conn: Redis, queue: Queue): Promise<unknown> {
  const k = queue.keys;
  const run = (
    conn as unknown as Record<string, (...args: (string | number)[]) => Promise<unknown>>
  ).ringmaster_applyOverrides;
  if (!run) throw new Error('flat cost: applyOverrides is not defined on the connection');
  return run.call(
    conn,
    k.glimit,
    k.gactive,
    k.ring,
    k.paused,
    k.wake,
    k.stats,
    k.guard,
    1,
    'timer',
    queue.historyMaxLen,
  );
}

/** Groups on the ring of each queue of the delayed-jobs case. */
const DELAYED_RING = 10;

/**
 * Claim and enqueue beside `o.delayed` delayed jobs not yet due (enqueued with a delay
 * of a day, in a group of their own) and beside none, on two queues otherwise alike (ten ring groups with
 * a limit they never reach), measured in alternating windows as the ring sizes are. Every claim
 * serves a job (the ring never runs out), so it runs the promotion's look-up and nothing else of
 * it; `redis.call` per call shows the same commands either way.
 */
async function delayedCost(
  redis: BenchRedis,
  conn: Redis,
  o: FlatCostOptions,
): Promise<DelayedCostResult> {
  progress(`flat cost: ${o.delayed} delayed jobs beside the claims`);
  const setupConn = redis.connect({ enableAutoPipelining: true });
  const queues: Record<'none' | 'many', Queue> = {} as Record<'none' | 'many', Queue>;
  try {
    for (const which of ['none', 'many'] as const) {
      const name = `${QUEUE}-delayed-${which}`;
      const setup = new Ringmaster(setupConn).queue(name);
      await pool(DELAYED_RING, DELAYED_RING, async (i) => {
        await setup.setLimit(`r${i}`, RING_LIMIT);
        await setup.enqueue(`r${i}`, { i });
      });
      if (which === 'many') {
        // Delayed a day, in a group of their own: none falls due during the run.
        await pool(o.delayed, SETUP_BATCH, (i) =>
          setup.enqueue('later', { i }, { delayMs: 86_400_000 }),
        );
        const count = await setupConn.zcard(setup.keys.delayed);
        if (count !== o.delayed) throw new Error(`flat cost: ${count} delayed, not ${o.delayed}`);
      }
      queues[which] = new Ringmaster(conn, { onScript: observeScripts }).queue(name);
      await queues[which].checkLayout();
    }
  } finally {
    setupConn.disconnect();
  }
  const tallies = {
    none: { enqueue: newTally(), claim: newTally() },
    many: { enqueue: newTally(), claim: newTally() },
  };
  let served = 0;
  for (let round = 0; round <= o.rounds; round++) {
    const order = round % 2 === 0 ? (['none', 'many'] as const) : (['many', 'none'] as const);
    for (const which of order) {
      const queue = queues[which];
      const t = (name: DelayedScriptName) => (round > 0 ? tallies[which][name] : newTally());
      const group = (i: number) => `r${(served + i) % DELAYED_RING}`;
      await measure(
        redis.admin,
        conn,
        queue,
        o.calls,
        (i) => queue.enqueue(group(i), { i }),
        'sadd',
        t('enqueue'),
      );
      await measureClaims(redis.admin, conn, queue, o.calls, t('claim'), 'beside delayed jobs');
    }
    served += o.calls;
  }
  const costs = Object.fromEntries(
    DELAYED_SCRIPTS.map((name) => [
      name,
      { none: done(tallies.none[name]), many: done(tallies.many[name]) },
    ]),
  ) as DelayedCostResult['costs'];
  const ratio = Object.fromEntries(
    DELAYED_SCRIPTS.map((name) => [
      name,
      costs[name].many.usecPerCall / costs[name].none.usecPerCall,
    ]),
  ) as Record<DelayedScriptName, number>;
  return { delayed: o.delayed, costs, ratio };
}
