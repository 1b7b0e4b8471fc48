/**
 * Property test of the failure and delay path (model-based, like model.test.ts):
 * random interleavings of delayed enqueues (short delays, a runAt already past), enqueues with
 * backoff policies (FIXED, EXPONENTIAL with a cap and jitter), claims with leases short enough
 * to expire, completions, retries (by the policy, an explicit 0, a short explicit delay),
 * completeAndClaim, reaps (which promote due jobs and take back expired leases with their
 * backoff), promote, limits and pauses, and pauses of a few ms so that delays come due — in
 * steps of 1–3 calls fired at once on 3 connections.
 *
 * Delays here are real (tens of ms on the Redis clock), so which jobs are due is the clock's to
 * say; rather than an exact model (model.test.ts keeps one, with delays a run never outlives),
 * after every step the invariants are checked from the raw keys:
 * - I1 ring ⇔ serviceable (a group whose only work is delayed is not), I2 no duplicates,
 *   I3 active counts = leases;
 * - I4 every job enqueued is in exactly one place — its lane, `delayed`, `active`, `dead` or
 *   completed — its hash's state says the same, a delayed job is in its group's delayed index at
 *   its runAt (the hash's too) and a dead one in its group's dead index, and those indexes hold
 *   nothing else;
 * - the totals pending, delayed and active equal the sets they count, every error list holds
 *   at most 10 entries, newest attempt first;
 * - `Queue.audit()` reports nothing.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/delayed.property.test.ts
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BackoffPolicyInput,
  Defaults,
  type Job,
  Queue,
  RingmasterError,
} from '../../src/lanes/index.js';
import { useTestRedis } from '../support/redis.js';

const GROUPS = ['a', 'b', 'c', 'd', 'e'] as const;
const CONNECTIONS = 3;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 80;
const REPLAYING = process.env.FC_SEED !== undefined;

type Timing = { kind: 'none' } | { kind: 'delay'; ms: number } | { kind: 'past' };

type Call =
  | {
      kind: 'enqueue';
      group: number;
      maxAttempts: number;
      timing: Timing;
      backoff: BackoffPolicyInput | null;
    }
  | { kind: 'claim'; leaseMs: number }
  | { kind: 'complete' | 'retry'; pick: number; delay: 'policy' | 'zero' | number }
  | { kind: 'completeAndClaim'; pick: number; claims: number }
  | { kind: 'reap' }
  | { kind: 'promote'; pick: number }
  | { kind: 'setLimit'; group: number; limit: number }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: number }
  | { kind: 'sleep'; ms: number };

const timingArb: fc.Arbitrary<Timing> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('delay' as const),
      ms: fc.integer({ min: 1, max: 80 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'past' as const }) },
);
const backoffArb: fc.Arbitrary<BackoffPolicyInput | null> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('FIXED' as const),
      delayMs: fc.integer({ min: 0, max: 60 }),
      jitter: fc.constantFrom(0, 0.5, 1),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('EXPONENTIAL' as const),
      delayMs: fc.integer({ min: 1, max: 30 }),
      maxDelayMs: fc.constantFrom(40, 80),
      jitter: fc.constantFrom(0, 0.3),
    }),
  },
);
const groupArb = fc.integer({ min: 0, max: GROUPS.length - 1 });
const callArb: fc.Arbitrary<Call> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group: groupArb,
      maxAttempts: fc.integer({ min: 1, max: 4 }),
      timing: timingArb,
      backoff: backoffArb,
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      leaseMs: fc.constantFrom(1, 5, 60_000),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom('complete' as const, 'retry' as const, 'retry' as const),
      pick: fc.nat({ max: 100 }),
      delay: fc.oneof(
        fc.constantFrom('policy' as const, 'policy' as const, 'zero' as const),
        fc.integer({ min: 1, max: 50 }),
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('completeAndClaim' as const),
      pick: fc.nat({ max: 100 }),
      claims: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'reap' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('promote' as const), pick: fc.nat({ max: 100 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group: groupArb,
      limit: fc.integer({ min: 0, max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('clearLimit' as const, 'pause' as const, 'resume' as const),
      group: groupArb,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('sleep' as const),
      ms: fc.integer({ min: 5, max: 40 }),
    }),
  },
);
const stepArb = fc.array(callArb, { minLength: 1, maxLength: CONNECTIONS });

/** What the calls answered across a run. */
interface Tracker {
  enqueued: Map<string, string>;
  completed: Set<string>;
  /** Leases handed out (possibly gone since): id → token. */
  leases: Map<string, string>;
}

const coverage = {
  steps: 0,
  delayedEnqueues: 0,
  delayedRetries: 0,
  /** Jobs a reap promoted (stats.delayed fell across a reap with no promote call). */
  reapPromotions: 0,
  promoted: 0,
  reapedToDelayed: 0,
  dead: 0,
  claims: 0,
};

/** The codes a call may be refused with here: a lease another call took back or finished. */
const EXPECTED_REFUSALS = new Set(['LEASE_LOST', 'JOB_NOT_FOUND']);

async function run(q: Queue, call: Call, t: Tracker): Promise<void> {
  const held = [...t.leases];
  const pick = (n: number) => held[n % Math.max(1, held.length)];
  try {
    switch (call.kind) {
      case 'enqueue': {
        const options: Parameters<Queue['enqueue']>[2] = {
          maxAttempts: call.maxAttempts,
          ...(call.backoff ? { backoff: call.backoff } : {}),
          ...(call.timing.kind === 'delay' ? { delayMs: call.timing.ms } : {}),
          ...(call.timing.kind === 'past' ? { runAt: Date.now() - 1_000 } : {}),
        };
        const job = await q.enqueue(GROUPS[call.group] as string, { n: t.enqueued.size }, options);
        t.enqueued.set(job.id, job.group);
        if (job.state === 'DELAYED') coverage.delayedEnqueues += 1;
        return;
      }
      case 'claim': {
        const job = await q.claim({ leaseMs: call.leaseMs });
        if (job) {
          t.leases.set(job.id, job.token as string);
          coverage.claims += 1;
        }
        return;
      }
      case 'complete':
      case 'retry': {
        const lease = pick(call.pick);
        if (!lease) return;
        const [id, token] = lease;
        if (call.kind === 'complete') {
          await q.complete(id, token);
          t.completed.add(id);
          return;
        }
        const delayMs =
          call.delay === 'policy' ? undefined : call.delay === 'zero' ? 0 : call.delay;
        const job: Job =
          delayMs === undefined
            ? await q.retry(id, token, 'failed')
            : await q.retry(id, token, { error: 'failed', stack: 'at here', delayMs });
        if (job.state === 'DELAYED') coverage.delayedRetries += 1;
        if (job.state === 'DEAD') coverage.dead += 1;
        return;
      }
      case 'completeAndClaim': {
        const lease = pick(call.pick);
        const completions = lease ? [{ id: lease[0], token: lease[1] }] : [];
        const result = await q.completeAndClaim(completions, { claim: call.claims, leaseMs: 5 });
        if (lease && result.refused[0] === null) t.completed.add(lease[0]);
        for (const job of result.claimed) t.leases.set(job.id, job.token as string);
        return;
      }
      case 'reap': {
        const before = Number((await q.redis.hget(q.keys.stats, 'delayed')) ?? 0);
        await q.reap();
        // Promotions show as a fall of the delayed total (a reap's own backoffs raise it).
        const after = Number((await q.redis.hget(q.keys.stats, 'delayed')) ?? 0);
        if (after < before) coverage.reapPromotions += before - after;
        if (after > before) coverage.reapedToDelayed += after - before;
        return;
      }
      case 'promote': {
        const ids = [...t.enqueued.keys()];
        const id = ids[call.pick % Math.max(1, ids.length)] ?? '1';
        const job = await q.promote(id);
        if (job.promoted) coverage.promoted += 1;
        return;
      }
      case 'setLimit':
        await q.setLimit(GROUPS[call.group] as string, call.limit);
        return;
      case 'clearLimit':
      case 'pause':
      case 'resume':
        await q[call.kind](GROUPS[call.group] as string);
        return;
      case 'sleep':
        await new Promise((resolve) => setTimeout(resolve, call.ms));
        return;
    }
  } catch (error) {
    if (error instanceof RingmasterError && EXPECTED_REFUSALS.has(error.code)) return;
    throw error;
  }
}

/** Every invariant, from the raw keys; throws naming the one broken. */
async function check(redis: Redis, q: Queue, t: Tracker): Promise<void> {
  const k = q.keys;
  const m = redis.multi();
  m.lrange(k.ring, 0, -1);
  m.smembers(k.paused);
  m.hgetall(k.glimit);
  m.hgetall(k.gactive);
  m.zrange(k.active, 0, -1);
  m.hgetall(k.leases);
  m.zrange(k.dead, 0, -1);
  m.zrange(k.delayed, 0, -1, 'WITHSCORES');
  m.hgetall(k.stats);
  m.zrange(k.completed, 0, -1);
  for (const g of GROUPS) {
    m.zrange(k.lane(g), 0, -1);
    m.zrange(k.groupDelayed(g), 0, -1, 'WITHSCORES');
    m.zrange(k.groupDead(g), 0, -1);
  }
  const ids = [...t.enqueued.keys()];
  for (const id of ids) {
    m.hmget(k.job(id), 'state', 'runAt', 'group');
    m.lrange(k.errors(id), 0, -1);
  }
  const replies = ((await m.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  const at = <T>(i: number) => replies[i] as T;
  const ring = at<string[]>(0);
  const paused = new Set(at<string[]>(1));
  const limits = at<Record<string, string>>(2);
  const gactive = at<Record<string, string>>(3);
  const active = new Set(at<string[]>(4));
  const leases = at<Record<string, string>>(5);
  const dead = new Set(at<string[]>(6));
  const delayedFlat = at<string[]>(7);
  const delayed = new Map<string, string>();
  for (let i = 0; i < delayedFlat.length; i += 2)
    delayed.set(delayedFlat[i] as string, delayedFlat[i + 1] as string);
  const stats = at<Record<string, string>>(8);
  const completed = new Set(at<string[]>(9));
  const lanes = new Map<string, string[]>();
  const groupDelayed = new Map<string, Map<string, string>>();
  const groupDead = new Map<string, Set<string>>();
  GROUPS.forEach((g, i) => {
    lanes.set(g, at<string[]>(10 + i * 3));
    const flat = at<string[]>(11 + i * 3);
    const index = new Map<string, string>();
    for (let j = 0; j < flat.length; j += 2) index.set(flat[j] as string, flat[j + 1] as string);
    groupDelayed.set(g, index);
    groupDead.set(g, new Set(at<string[]>(12 + i * 3)));
  });
  const base = 10 + GROUPS.length * 3;

  // I2, I3
  if (new Set(ring).size !== ring.length) throw new Error(`I2: ring ${ring}`);
  for (const g of GROUPS) {
    const leased = Object.values(leases).filter((x) => x === g).length;
    if (Number(gactive[g] ?? 0) !== leased)
      throw new Error(`I3: ${g} gactive ${gactive[g]} vs ${leased}`);
  }
  // I1: delayed work never makes a group serviceable
  for (const g of GROUPS) {
    const limit = limits[g] === undefined ? null : Number(limits[g]);
    const should =
      !paused.has(g) &&
      (limit === null || Number(gactive[g] ?? 0) < limit) &&
      (lanes.get(g)?.length ?? 0) > 0;
    if (ring.includes(g) !== should) {
      throw new Error(
        `I1: ${g} on ring ${ring.includes(g)}, serviceable ${should} (delayed ${groupDelayed.get(g)?.size})`,
      );
    }
  }
  // I4
  const inLane = new Map<string, string>();
  for (const [g, lane] of lanes) for (const id of lane) inLane.set(id, g);
  ids.forEach((id, i) => {
    const group = t.enqueued.get(id) as string;
    const [state, runAt] = at<(string | null)[]>(base + i * 2);
    const errors = at<string[]>(base + i * 2 + 1);
    const places: [string, boolean][] = [
      ['pending', inLane.has(id)],
      ['delayed', delayed.has(id)],
      ['active', active.has(id)],
      ['dead', dead.has(id)],
      ['completed', t.completed.has(id) && (state === null || completed.has(id))],
    ];
    const where = places.filter(([, yes]) => yes).map(([p]) => p);
    if (where.length !== 1)
      throw new Error(`I4: job ${id} is in ${where.join(', ') || 'no place'}`);
    const place = where[0] as string;
    if (place === 'pending' && inLane.get(id) !== group)
      throw new Error(`I4: job ${id} in another lane`);
    if (place !== 'completed' && state !== place)
      throw new Error(`I4: job ${id} in ${place}, state ${state}`);
    if (place === 'delayed') {
      const score = delayed.get(id);
      if (groupDelayed.get(group)?.get(id) !== score || runAt !== score) {
        throw new Error(
          `I4: delayed job ${id} runAt ${runAt}, delayed ${score}, group index ${groupDelayed.get(group)?.get(id)}`,
        );
      }
    } else if (runAt !== null) {
      throw new Error(`job ${id} (${place}) keeps runAt ${runAt}`);
    }
    if (place === 'dead' && !groupDead.get(group)?.has(id))
      throw new Error(`I4: dead job ${id} not in its group index`);
    if (errors.length > Defaults.errorsKept)
      throw new Error(`job ${id} keeps ${errors.length} errors`);
    const attempts = errors.map((e) => (JSON.parse(e) as { attempt: number }).attempt);
    if (attempts.some((a, j) => j > 0 && a >= (attempts[j - 1] as number))) {
      throw new Error(`job ${id}'s errors are not newest first: ${attempts}`);
    }
  });
  const indexed = (index: Map<string, Map<string, string> | Set<string>>) =>
    [...index.values()].reduce((n, s) => n + s.size, 0);
  if (indexed(groupDelayed) !== delayed.size)
    throw new Error('I4: group delayed indexes hold other jobs');
  if (indexed(groupDead) !== dead.size) throw new Error('I4: group dead indexes hold other jobs');
  // totals
  const pending = [...lanes.values()].reduce((n, lane) => n + lane.length, 0);
  const totals = { pending, delayed: delayed.size, active: active.size };
  for (const [field, n] of Object.entries(totals)) {
    if (Number(stats[field] ?? 0) !== n)
      throw new Error(`totals: stats.${field} ${stats[field]} vs ${n}`);
  }
  const { findings } = await q.audit();
  if (findings.length > 0) throw new Error(`audit: ${JSON.stringify(findings)}`);
}

describe('delays, backoff and promotion interleaved with claims and completions (I1–I4)', () => {
  const redis = useTestRedis();
  let connections: Redis[] = [];
  let admin: Redis;

  beforeAll(() => {
    connections = Array.from({ length: CONNECTIONS }, () => redis.client());
    admin = redis.client();
  });
  afterAll(async () => {
    await Promise.all([...connections, admin].map((c) => c.quit().catch(() => undefined)));
  });

  it('keeps every invariant after every step', async () => {
    let runs = 0;
    const property = fc.asyncProperty(
      fc.array(stepArb, { minLength: 5, maxLength: 40, size: 'max' }),
      async (steps) => {
        const name = `delayed-${runs++}-${Math.random().toString(36).slice(2, 8)}`;
        const queues = connections.map((c) => new Queue(c, name));
        const t: Tracker = { enqueued: new Map(), completed: new Set(), leases: new Map() };
        try {
          for (const [n, step] of steps.entries()) {
            await Promise.all(step.map((call, i) => run(queues[i] as Queue, call, t)));
            coverage.steps += 1;
            try {
              await check(admin, queues[0] as Queue, t);
            } catch (error) {
              throw new Error(
                `after step ${n} ${JSON.stringify(step)}: ${(error as Error).message}`,
              );
            }
          }
        } finally {
          const keys = await admin.keys(`emq:{${name}}:*`);
          if (keys.length > 0) await admin.unlink(...keys);
        }
      },
    );
    const params: fc.Parameters<[Call[][]]> = { numRuns: RUNS };
    if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED);
    if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH;
    await fc.assert(property, params);
    console.info(`delayed property coverage: ${JSON.stringify(coverage)}`);
    if (!REPLAYING && RUNS >= 80) {
      expect(coverage.delayedEnqueues).toBeGreaterThan(50);
      expect(coverage.delayedRetries).toBeGreaterThan(10);
      expect(coverage.reapPromotions).toBeGreaterThan(20);
      expect(coverage.promoted).toBeGreaterThan(5);
      expect(coverage.reapedToDelayed).toBeGreaterThan(3);
      expect(coverage.dead).toBeGreaterThan(5);
    }
  }, 300_000);
});
