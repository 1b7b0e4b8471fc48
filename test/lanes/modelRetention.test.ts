/**
 * Property test of the completed retention and the queue pause (DESIGN.md §2
 * "Retention", §3 complete / completeAndClaim / pauseQueue), against an exact model.
 *
 * Random sequences of enqueue, claim, complete, completeAndClaim (held leases, repeats within a
 * batch, and tokens of jobs already completed), setRetention (count 0..5 or 1,000; ageMs none,
 * short or long), pauseQueue, resumeQueue and short waits, on one connection, one call at a time.
 * The model keeps what `completed` must hold, in Redis' own order (score, then member bytes),
 * and trims it exactly as `trim` in includes/retention.lua does — the oldest past the count, then
 * those past the age, at most 2 per job kept per call — using each call's own instant (the
 * `finishedAt` it answered). After every step:
 * - `completed` is the model's, member by member and score by score, and each group's index is
 *   the model's for that group;
 * - every completed job is kept (hash state completed at that finishedAt, token and leaseUntil
 *   gone) or gone (no hash, no error list);
 * - a completion of a job already completed is LEASE_LOST while it is kept and within the age,
 *   JOB_NOT_FOUND once it is gone or past the age at the call's instant, trimmed or not (the
 *   same id twice in a batch: as the policy then in force says);
 * - claims while the queue is paused claim nothing; otherwise exactly min(asked, pending);
 * - stats.completed, counts().completed (the kept jobs within the age, at its instant) and
 *   state() agree with the model.
 * At the end of a run the audit finds nothing.
 *
 * Replay a failure with the seed and path fast-check prints:
 *   MR_SEED=<seed> MR_PATH=<path> npx vitest run test/lanes/modelRetention.test.ts
 * MR_RUNS overrides the number of runs (default 100).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { escapeGlob, redisNow, scanAll, useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c'] as const;
const TRIM_PER_ADD = 2;

type Op =
  | { kind: 'enqueue'; group: number }
  | { kind: 'claim' }
  | { kind: 'complete'; pick: Pick }
  /** `all`: every lease held, in the order taken, besides the picks. */
  | { kind: 'completeAndClaim'; picks: Pick[]; all: boolean; claim: number }
  | { kind: 'setRetention'; count: number; ageMs: number | null | undefined }
  | { kind: 'pauseQueue' | 'resumeQueue' }
  | { kind: 'wait'; ms: number };

/** A completion: a lease held (its index among those held), or one of a job completed before. */
interface Pick {
  readonly from: 'held' | 'done';
  readonly at: number;
}

const pickArb: fc.Arbitrary<Pick> = fc.record({
  from: fc.oneof(
    { weight: 5, arbitrary: fc.constant('held' as const) },
    { weight: 1, arbitrary: fc.constant('done' as const) },
  ),
  at: fc.nat(50),
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group: fc.nat(GROUPS.length - 1),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: pickArb }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('completeAndClaim' as const),
      picks: fc.array(pickArb, { maxLength: 5 }),
      all: fc.boolean(),
      claim: fc.nat(3),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('setRetention' as const),
      count: fc.constantFrom(0, 1, 2, 3, 5, 1_000),
      ageMs: fc.constantFrom(undefined, null, 15, 60_000),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('pauseQueue' as const, 'resumeQueue' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.nat(25) }) },
);

/** One kept job in `completed`: its id, finishedAt (the score) and group. */
interface Kept {
  readonly id: string;
  readonly at: number;
  readonly group: string;
}

/** Redis' order of a sorted set: by score, then by member bytes (decimal ids: ASCII). */
const order = (x: Kept, y: Kept) => x.at - y.at || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

class Model {
  count = 1_000;
  ageMs: number | null = 3_600_000;
  paused = false;
  pending = 0;
  completedTotal = 0;
  held: { id: string; token: string; group: string }[] = [];
  /** Every job completed, with its last token. */
  done: { id: string; token: string; group: string }[] = [];
  kept: Kept[] = [];
  /** How often the paths of interest were taken (coverage). */
  trims = 0;
  forgets = 0;

  /** Kept, and within the age at `now` (Redis ms): a job past it is gone to every call too. */
  isKept(id: string, now: number): boolean {
    const kept = this.kept.find((k) => k.id === id);
    return kept !== undefined && (this.ageMs === null || kept.at >= now - this.ageMs);
  }

  /** What becomes of jobs completed at `now` by one call (includes/finishCompleted.lua). */
  finish(jobs: { id: string; group: string }[], now: number): void {
    this.completedTotal += jobs.length;
    if (jobs.length === 0) return;
    if (this.count === 0) {
      this.forgets += 1;
      return;
    }
    for (const j of jobs) this.kept.push({ id: j.id, at: now, group: j.group });
    this.kept.sort(order);
    const max = TRIM_PER_ADD * jobs.length;
    let victims: Kept[] = [];
    const over = this.kept.length - this.count;
    if (over > 0) victims = this.kept.slice(0, Math.min(over, max));
    if (this.ageMs !== null && victims.length < max) {
      const old = this.kept.filter((k) => k.at < now - (this.ageMs as number));
      victims.push(...old.slice(victims.length, max));
    }
    if (victims.length > 0) this.trims += 1;
    const out = new Set(victims.map((v) => v.id));
    this.kept = this.kept.filter((k) => !out.has(k.id));
  }
}

const codeOf = (error: unknown): string => {
  if (error instanceof RingmasterError) return error.code;
  throw error;
};

async function check(q: Queue, m: Model): Promise<void> {
  const r = q.redis;
  const flat = await r.zrange(q.keys.completed, 0, -1, 'WITHSCORES');
  const real: string[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) real.push(`${flat[i]}@${flat[i + 1]}`);
  expect(real, 'completed').toEqual(m.kept.map((k) => `${k.id}@${k.at}`));
  for (const g of GROUPS) {
    const mine = await r.zrange(q.keys.groupCompleted(g), 0, -1, 'WITHSCORES');
    const got: string[] = [];
    for (let i = 0; i + 1 < mine.length; i += 2) got.push(`${mine[i]}@${mine[i + 1]}`);
    expect(got, `g:${g}:completed`).toEqual(
      m.kept.filter((k) => k.group === g).map((k) => `${k.id}@${k.at}`),
    );
  }
  for (const j of m.done) {
    const kept = m.kept.find((k) => k.id === j.id);
    const fields = await r.hmget(q.keys.job(j.id), 'state', 'finishedAt', 'token', 'leaseUntil');
    // Every job here has a payload, kept beside its hash and deleted with it.
    const payload = await r.hexists(q.keys.payloads, j.id);
    if (kept) {
      expect(fields, `job ${j.id} kept`).toEqual(['completed', String(kept.at), null, null]);
      expect(payload, `job ${j.id}'s payload kept`).toBe(1);
    } else {
      expect(await r.exists(q.keys.job(j.id), q.keys.errors(j.id)), `job ${j.id} gone`).toBe(0);
      expect(payload, `job ${j.id}'s payload gone`).toBe(0);
    }
  }
  expect(Number((await r.hget(q.keys.stats, 'completed')) ?? 0)).toBe(m.completedTotal);
  // counts() leaves out what is past the age though kept (no trim yet), as of its own instant,
  // somewhere between the two reads of the clock around it.
  const before = await redisNow(r);
  const counted = (await q.counts()).completed;
  const after = await redisNow(r);
  const keptAt = (now: number) =>
    m.ageMs === null
      ? m.kept.length
      : m.kept.filter((k) => k.at >= now - (m.ageMs as number)).length;
  expect(counted).toBeGreaterThanOrEqual(keptAt(after));
  expect(counted).toBeLessThanOrEqual(keptAt(before));
  expect(await q.state()).toBe(m.paused ? 'PAUSED' : 'RUNNING');
}

/** The completion a pick names (undefined when there is none to name). */
function resolve(m: Model, p: Pick): { id: string; token: string; group: string } | undefined {
  const from = p.from === 'held' ? m.held : m.done;
  return from[p.at % Math.max(1, from.length)];
}

async function step(q: Queue, m: Model, op: Op, n: { payload: number }): Promise<void> {
  switch (op.kind) {
    case 'enqueue': {
      await q.enqueue(GROUPS[op.group] as string, n.payload++);
      m.pending += 1;
      return;
    }
    case 'claim': {
      const job = await q.claim({ token: `t${n.payload++}` });
      expect(job !== null).toBe(!m.paused && m.pending > 0);
      if (job) {
        m.pending -= 1;
        m.held.push({ id: job.id, token: job.token as string, group: job.group });
      }
      return;
    }
    case 'complete': {
      const c = resolve(m, op.pick);
      if (!c) return;
      if (op.pick.from === 'done') {
        // The call's instant is between these two readings of the clock.
        const before = await redisNow(q.redis);
        const got = codeOf(await q.complete(c.id, c.token).catch((e: unknown) => e));
        const after = await redisNow(q.redis);
        const want = (now: number) =>
          m.isKept(c.id, now) ? ErrorCode.LEASE_LOST : ErrorCode.JOB_NOT_FOUND;
        expect([want(before), want(after)]).toContain(got);
        return;
      }
      const done = await q.complete(c.id, c.token);
      m.held = m.held.filter((h) => h.id !== c.id);
      m.done.push(c);
      m.finish([c], done.finishedAt as number);
      return;
    }
    case 'completeAndClaim': {
      const all: Pick[] = op.all ? m.held.map((_, at) => ({ from: 'held', at })) : [];
      const picked = [...all, ...op.picks]
        .map((p) => ({ p, c: resolve(m, p) }))
        .filter((x): x is { p: Pick; c: { id: string; token: string; group: string } } => !!x.c);
      const tokens = Array.from({ length: op.claim }, () => `t${n.payload++}`);
      const result = await q.completeAndClaim(
        picked.map(({ c }) => ({ id: c.id, token: c.token })),
        { claim: op.claim, tokens },
      );
      // Expected answers, judged against the state before the call at the call's instant.
      const expected: (string | null)[] = [];
      const finishing: { id: string; token: string; group: string }[] = [];
      // A held lease completes the first time; named again in the same batch it is answered
      // as a second complete would be under the policy in force. A job completed before is
      // judged by what the queue holds before the call (kept and within the age: LEASE_LOST;
      // gone, or past the age at the call's instant: JOB_NOT_FOUND).
      const completing = new Set<string>();
      for (const { p, c } of picked) {
        if (completing.has(c.id)) {
          expected.push(m.count > 0 ? ErrorCode.LEASE_LOST : ErrorCode.JOB_NOT_FOUND);
        } else if (p.from === 'held') {
          expected.push(null);
          finishing.push(c);
          completing.add(c.id);
        } else {
          expected.push(
            m.isKept(c.id, result.finishedAt) ? ErrorCode.LEASE_LOST : ErrorCode.JOB_NOT_FOUND,
          );
        }
      }
      expect(result.refused.map((e) => (e === null ? null : e.code))).toEqual(expected);
      m.held = m.held.filter((h) => !finishing.some((f) => f.id === h.id));
      m.done.push(...finishing);
      m.finish(finishing, result.finishedAt);
      const claims = m.paused ? 0 : Math.min(op.claim, m.pending);
      expect(result.claimed).toHaveLength(claims);
      m.pending -= claims;
      for (const job of result.claimed as Job[]) {
        m.held.push({ id: job.id, token: job.token as string, group: job.group });
      }
      return;
    }
    case 'setRetention': {
      const policy = await q.setRetention({
        completed:
          op.ageMs === undefined ? { count: op.count } : { count: op.count, ageMs: op.ageMs },
      });
      m.count = op.count;
      if (op.ageMs !== undefined) m.ageMs = op.ageMs;
      expect(policy.completed).toEqual({ count: m.count, ageMs: m.ageMs });
      return;
    }
    case 'pauseQueue':
      await q.pauseQueue();
      m.paused = true;
      return;
    case 'resumeQueue':
      await q.resumeQueue();
      m.paused = false;
      return;
    case 'wait':
      await new Promise((resolve) => setTimeout(resolve, op.ms));
      return;
  }
}

/** A run starts with the default policy or a small one, so trims are common. */
const startArb = fc.option(
  fc.record({
    kind: fc.constant('setRetention' as const),
    count: fc.constantFrom(0, 1, 2, 3),
    ageMs: fc.constantFrom(undefined, null, 15),
  }),
  { freq: 3 },
);

const params: fc.Parameters<[Op | null, Op[]]> = {
  numRuns: Number(process.env.MR_RUNS ?? 100),
  ...(process.env.MR_SEED === undefined ? {} : { seed: Number(process.env.MR_SEED) }),
  ...(process.env.MR_PATH === undefined ? {} : { path: process.env.MR_PATH }),
};

describe('completed retention and the queue pause, against a model', () => {
  it('random completions, policies and pauses keep completed, the group indexes and the hashes as the model says', async () => {
    let runs = 0;
    const coverage = {
      trimmed: 0,
      forgotten: 0,
      pausedClaims: 0,
      lateRefusals: 0,
      completions: 0,
    };
    await fc.assert(
      fc.asyncProperty(
        startArb,
        fc.array(opArb, { minLength: 5, maxLength: 45, size: 'max' }),
        async (start, rest) => {
          runs += 1;
          const ops = start === null ? rest : [start, ...rest];
          const q = engine.queue();
          const m = new Model();
          const n = { payload: 0 };
          try {
            for (const op of ops) {
              await step(q, m, op, n);
              await check(q, m);
              if (m.paused && (op.kind === 'claim' || op.kind === 'completeAndClaim')) {
                coverage.pausedClaims += 1;
              }
              if (op.kind === 'complete' && op.pick.from === 'done') coverage.lateRefusals += 1;
            }
            expect((await q.audit()).findings).toEqual([]);
            coverage.trimmed += m.trims;
            coverage.completions += m.completedTotal;
            coverage.forgotten += m.forgets;
          } finally {
            const keys = await scanAll(q.redis, `${escapeGlob(q.keys.base)}*`);
            if (keys.length > 0) await q.redis.unlink(...keys);
          }
        },
      ),
      params,
    );
    if (params.path === undefined) {
      expect(runs).toBe(params.numRuns);
      // The interesting paths were taken, not only the default's keep-everything.
      expect(coverage.trimmed, JSON.stringify(coverage)).toBeGreaterThan(10);
      expect(coverage.forgotten).toBeGreaterThan(10);
      expect(coverage.pausedClaims).toBeGreaterThan(5);
      expect(coverage.lateRefusals).toBeGreaterThan(5);
    }
  }, 120_000);
});
