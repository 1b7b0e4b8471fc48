/**
 * Property test of rate limits with short windows (like delayed.property.test.ts):
 * random interleavings of enqueues (costs 1..burst), claims, completeAndClaim, completions,
 * reaps, limits, pauses and short pauses of the test itself (so tokens refill on the Redis
 * clock), over groups with token buckets of 1–3 tokens per 30–120 ms and a burst of 1–4, in
 * steps of 1–3 calls fired at once on 3 connections. How many tokens have refilled is the
 * clock's to say, so rather than an exact model these hold:
 * - after every step: I1 with the rate clause (on the ring ⇔ not paused, below its limit, not in
 *   `ratelimited`, pending > 0), I2, every group in `ratelimited` has a rate and a bucket that
 *   parses, holds at most burst, and is short now of what it waits for, and `Queue.audit()`
 *   reports nothing;
 * - at the end, from the claim times the API answered (`claimedAt`, the Redis clock): never over
 *   the rate — the bucket bound: for any two claims of a group at t1 ≤ t2, the costs of its
 *   claims in [t1, t2] sum to at most burst + max × (t2 − t1) / windowMs;
 * - and every rate-limited group re-joins: after the last window ends, claims (with a reap
 *   between them, no timing asserted) drain every lane.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/rateLimit.property.test.ts
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Job, Queue, RingmasterError } from '../../src/lanes/index.js';
import { useTestRedis } from '../support/redis.js';

const GROUPS = ['a', 'b', 'c'] as const;
const CONNECTIONS = 3;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 25;
const REPLAYING = process.env.FC_SEED !== undefined;

type Call =
  | { kind: 'enqueue'; group: number; cost: number }
  | { kind: 'claim' }
  | { kind: 'completeAndClaim'; pick: number; claims: number }
  | { kind: 'complete'; pick: number }
  | { kind: 'reap' }
  | { kind: 'setLimit'; group: number; limit: number }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: number }
  | { kind: 'sleep'; ms: number };

interface Rate {
  max: number;
  windowMs: number;
  burst: number;
}

interface Tracker {
  /** Claims (time: ms, Redis clock, as the API answered; cost) per group. */
  claims: Map<string, { at: number; cost: number }[]>;
  /** Each job's cost, as enqueued. */
  costs: Map<string, number>;
  rates: readonly Rate[];
  /** Jobs held (claimed, not completed). */
  held: Job[];
}

const coverage = { steps: 0, claims: 0, rateLimitedSeen: 0, windowsFull: 0 };

function record(t: Tracker, jobs: readonly Job[]): void {
  for (const job of jobs) {
    const cost = t.costs.get(job.id) ?? 1;
    t.claims.set(job.group, [
      ...(t.claims.get(job.group) ?? []),
      { at: Number(job.claimedAt), cost },
    ]);
    t.held.push(job);
    coverage.claims += 1;
  }
}

async function run(q: Queue, call: Call, t: Tracker): Promise<void> {
  try {
    switch (call.kind) {
      case 'enqueue': {
        // A cost of 1..burst (above it the enqueue is refused: test/lanes/rateBucket.test.ts).
        const cost = 1 + (call.cost % (t.rates[call.group] as Rate).burst);
        const job = await q.enqueue(GROUPS[call.group] as string, null, { cost });
        t.costs.set(job.id, cost);
        return;
      }
      case 'claim': {
        const job = await q.claim({ leaseMs: 600_000 });
        if (job) record(t, [job]);
        return;
      }
      case 'completeAndClaim': {
        const done = t.held.splice(call.pick % Math.max(1, t.held.length), 1);
        const result = await q.completeAndClaim(
          done.map((j) => ({ id: j.id, token: j.token as string })),
          { claim: call.claims, leaseMs: 600_000 },
        );
        record(t, result.claimed);
        return;
      }
      case 'complete': {
        const [job] = t.held.splice(call.pick % Math.max(1, t.held.length), 1);
        if (job) await q.complete(job.id, job.token as string);
        return;
      }
      case 'reap':
        await q.reap();
        return;
      case 'setLimit':
        await q.setLimit(GROUPS[call.group] as string, call.limit);
        return;
      case 'clearLimit':
        await q.clearLimit(GROUPS[call.group] as string);
        return;
      case 'pause':
        await q.pause(GROUPS[call.group] as string);
        return;
      case 'resume':
        await q.resume(GROUPS[call.group] as string);
        return;
      case 'sleep':
        await new Promise((resolve) => setTimeout(resolve, call.ms));
        return;
    }
  } catch (error) {
    if (!(error instanceof RingmasterError)) throw error;
    throw new Error(`${call.kind}: unexpected ${error.code} ${error.message}`);
  }
}

/** I1 with the rate clause, I2, and `ratelimited` consistent with `grate` and `gwindow`. */
async function check(admin: Redis, q: Queue): Promise<void> {
  const k = q.keys;
  const m = admin.multi();
  m.lrange(k.ring, 0, -1);
  m.smembers(k.paused);
  m.hgetall(k.glimit);
  m.hgetall(k.gactive);
  m.zrange(k.rateLimited, 0, -1, 'WITHSCORES');
  m.hgetall(k.rate);
  m.hgetall(k.rateWindow);
  for (const g of GROUPS) m.zcard(k.lane(g));
  const replies = ((await m.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  const [ring, paused, limits, actives, limitedFlat, rates, windows] = replies as [
    string[],
    string[],
    Record<string, string>,
    Record<string, string>,
    string[],
    Record<string, string>,
    Record<string, string>,
  ];
  const limited = new Map<string, number>();
  for (let i = 0; i < limitedFlat.length; i += 2) {
    limited.set(limitedFlat[i] as string, Number(limitedFlat[i + 1]));
  }
  if (new Set(ring).size !== ring.length) throw new Error(`I2: ${ring}`);
  for (const [i, g] of GROUPS.entries()) {
    const pending = replies[7 + i] as number;
    const limit = limits[g] === undefined ? null : Number(limits[g]);
    const active = Number(actives[g] ?? 0);
    const serviceable =
      !paused.includes(g) && (limit === null || active < limit) && !limited.has(g) && pending > 0;
    if (ring.includes(g) !== serviceable) {
      throw new Error(
        `I1: ${g} on ring ${ring.includes(g)}, paused ${paused.includes(g)}, limit ${limit}, active ${active}, rate-limited ${limited.has(g)}, pending ${pending}`,
      );
    }
  }
  for (const [g, until] of limited) {
    coverage.rateLimitedSeen += 1;
    const [max, windowMs, burst] = (rates[g] ?? '').split(':').map(Number);
    const bucket = /^(-?\d+):(\d+)$/.exec(windows[g] ?? '');
    if (!max || !windowMs || !burst || bucket === null) {
      throw new Error(`${g} rate-limited until ${until}, bucket ${windows[g]}, rate ${rates[g]}`);
    }
    const [tokens, at] = [Number(bucket[1]), Number(bucket[2])];
    // What it holds at its reopening: at least one token, at most burst (whole windows fold in).
    const held = (ms: number) => tokens + Math.floor(((ms - at) * max) / windowMs);
    if (tokens > burst || held(until) < 1 || until <= at) {
      throw new Error(
        `${g} rate-limited until ${until} with bucket ${windows[g]}, rate ${rates[g]}`,
      );
    }
  }
  const { findings } = await q.audit();
  if (findings.length > 0) throw new Error(`audit: ${JSON.stringify(findings)}`);
}

/**
 * The bucket bound: for any claims of a group at t1 ≤ t2, the costs claimed in [t1, t2] sum to
 * at most burst + max × (t2 − t1) / windowMs. O(claims²) per group, a few hundred at most.
 */
function checkBucket(t: Tracker, rates: readonly Rate[]): void {
  for (const [i, g] of GROUPS.entries()) {
    const { max, windowMs, burst } = rates[i] as Rate;
    const claims = [...(t.claims.get(g) ?? [])].sort((a, b) => a.at - b.at);
    for (let a = 0; a < claims.length; a++) {
      let spent = 0;
      const from = (claims[a] as { at: number }).at;
      for (let b = a; b < claims.length; b++) {
        const { at, cost } = claims[b] as { at: number; cost: number };
        spent += cost;
        if (spent * windowMs > burst * windowMs + max * (at - from)) {
          throw new Error(
            `${g}: ${spent} tokens claimed in [${from}, ${at}] (max ${max} per ${windowMs} ms, burst ${burst}): ${JSON.stringify(claims)}`,
          );
        }
        if (spent >= burst) coverage.windowsFull += 1;
      }
    }
  }
}

const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const callArb: fc.Arbitrary<Call> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group,
      cost: fc.nat({ max: 3 }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('completeAndClaim' as const),
      pick: fc.nat({ max: 100 }),
      claims: fc.integer({ min: 0, max: 4 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat({ max: 100 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reap' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group,
      limit: fc.integer({ min: 0, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('clearLimit' as const, 'pause' as const, 'resume' as const),
      group,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('sleep' as const),
      ms: fc.constantFrom(5, 20, 50),
    }),
  },
);
const stepArb = fc.array(callArb, { minLength: 1, maxLength: CONNECTIONS });
const rateArb: fc.Arbitrary<Rate> = fc.record({
  max: fc.integer({ min: 1, max: 3 }),
  windowMs: fc.constantFrom(30, 60, 120),
  burst: fc.integer({ min: 1, max: 4 }),
});

describe('rate limits with short windows, interleaved with claims, limits and pauses', () => {
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

  it('never over the rate (the bucket bound), keeps I1 with the rate clause, and every group re-joins', async () => {
    let runs = 0;
    const property = fc.asyncProperty(
      fc.array(rateArb, { minLength: GROUPS.length, maxLength: GROUPS.length }),
      fc.array(stepArb, { minLength: 5, maxLength: 30, size: 'max' }),
      async (rates, steps) => {
        const name = `rated-${runs++}-${Math.random().toString(36).slice(2, 8)}`;
        const queues = connections.map((c) => new Queue(c, name));
        const q = queues[0] as Queue;
        const t: Tracker = { claims: new Map(), held: [], costs: new Map(), rates };
        try {
          for (const [i, g] of GROUPS.entries()) await q.setRateLimit(g, rates[i] as Rate);
          for (const [n, step] of steps.entries()) {
            await Promise.all(step.map((call, i) => run(queues[i] as Queue, call, t)));
            coverage.steps += 1;
            try {
              await check(admin, q);
            } catch (error) {
              throw new Error(
                `after step ${n} ${JSON.stringify(step)}: ${(error as Error).message}`,
              );
            }
          }
          // Drain: free every group of its limit and pause, then claim until every lane is
          // empty, waiting out windows on the way (bounded: each wait ends a window).
          for (const g of GROUPS) {
            await q.clearLimit(g);
            await q.resume(g);
          }
          const lanes = async () =>
            (await Promise.all(GROUPS.map((g) => q.redis.zcard(q.keys.lane(g))))).reduce(
              (a, b) => a + b,
              0,
            );
          for (let round = 0; (await lanes()) > 0; round++) {
            if (round > 200) throw new Error('a rate-limited group never re-joined the ring');
            const { claimed } = await q.completeAndClaim([], { claim: 10, leaseMs: 600_000 });
            record(t, claimed);
            if (claimed.length === 0) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              await q.reap();
            }
            await check(admin, q);
          }
          checkBucket(t, rates);
        } finally {
          const keys = await admin.keys(`emq:{${name}}:*`);
          if (keys.length > 0) await admin.unlink(...keys);
        }
      },
    );
    const params: fc.Parameters<[Rate[], Call[][]]> = { numRuns: RUNS };
    if (process.env.FC_SEED !== undefined) params.seed = Number(process.env.FC_SEED);
    if (process.env.FC_PATH !== undefined) params.path = process.env.FC_PATH;
    await fc.assert(property, params);
    console.info(`rate-limit property coverage: ${JSON.stringify(coverage)}`);
    if (!REPLAYING && RUNS >= 25) {
      expect(coverage.rateLimitedSeen).toBeGreaterThan(50);
      expect(coverage.windowsFull).toBeGreaterThan(30);
    }
  }, 300_000);
});
