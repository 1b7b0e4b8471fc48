/**
 * A model test of the queue's cap and the groups' reserves (DESIGN.md §3, "The queue's cap and
 * reserves"; I7–I9): random sequences of enqueue (at random priorities: groups on every level,
 * DESIGN.md §3 "Levels"), claims (completeAndClaim asking 1–5), complete,
 * setQueueLimit, clearQueueLimit, setReserve and setLimit over 5 groups, run against the real
 * engine and a small model of counts. After every step:
 * - never over a group's limit nor the cap: a claim takes no job of a group at its limit, and
 *   none while the queue is at its cap; after it, in flight ≤ cap unless it took nothing;
 * - the reserve guarantee: in a scarce claim (fewer permits left after it than the reserves sum
 *   to), every job taken while any group is owed its reserve goes to an owed group;
 * - work conservation: a claim takes min(asked, free permits, what the groups could take) jobs —
 *   no permit idles while a serviceable group waits;
 * - the rules: a refused setReserve / setQueueLimit is predicted by the model and writes
 *   nothing; the stored sum equals the reserves and never exceeds the cap; the audit is clean.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/queueCap.model.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Job, Queue } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c', 'd', 'e'] as const;
const env = process.env;
const RUNS = env.FC_NUM_RUNS ? Number(env.FC_NUM_RUNS) : 40;

type Op =
  | { kind: 'enqueue'; group: number; n: number; priority: number }
  | { kind: 'claim'; n: number }
  | { kind: 'complete'; pick: number }
  | { kind: 'setQueueLimit'; limit: number }
  | { kind: 'clearQueueLimit' }
  | { kind: 'setReserve'; group: number; reserve: number }
  | { kind: 'setLimit'; group: number; limit: number };

const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group,
      n: fc.integer({ min: 1, max: 4 }),
      // Half at the default; the rest at any level, so groups stand on `levels` too.
      priority: fc.oneof(fc.constant(5), fc.integer({ min: 1, max: 9 })),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      n: fc.integer({ min: 1, max: 5 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('setQueueLimit' as const),
      limit: fc.integer({ min: 0, max: 8 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('clearQueueLimit' as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('setReserve' as const),
      group,
      reserve: fc.integer({ min: 0, max: 4 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group,
      limit: fc.integer({ min: 0, max: 4 }),
    }),
  },
);

/** The model: what the rules of §3 need of each group, and the queue's cap. */
interface Model {
  cap: number | null;
  pending: Record<string, number>;
  active: Record<string, number>;
  limit: Record<string, number | null>;
  reserve: Record<string, number>;
  held: Job[];
}

const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const inFlight = (m: Model): number => sum(GROUPS.map((g) => m.active[g] as number));
const reserved = (m: Model): number => sum(GROUPS.map((g) => m.reserve[g] as number));
const room = (m: Model, g: string): number => {
  const limit = m.limit[g];
  const left = limit === null || limit === undefined ? Infinity : limit - (m.active[g] as number);
  return Math.max(0, Math.min(m.pending[g] as number, left));
};
/** Owed its reserve: work waiting, below its limit and below its reserve held at that limit. */
const owed = (m: Model, g: string): boolean => {
  const held = Math.min(m.reserve[g] as number, m.limit[g] ?? Infinity);
  return room(m, g) > 0 && (m.active[g] as number) < held;
};

async function step(q: Queue, m: Model, o: Op): Promise<void> {
  switch (o.kind) {
    case 'enqueue': {
      const g = GROUPS[o.group] as string;
      for (let i = 0; i < o.n; i++) await q.enqueue(g, i, { priority: o.priority });
      m.pending[g] = (m.pending[g] as number) + o.n;
      return;
    }
    case 'claim': {
      const free = m.cap === null ? Infinity : Math.max(0, m.cap - inFlight(m));
      const could = sum(GROUPS.map((g) => room(m, g)));
      const scarce = m.cap !== null && free - Math.min(o.n, free) < reserved(m);
      const { claimed } = await q.completeAndClaim([], { claim: o.n, leaseMs: 600_000 });
      // Work conservation, and never over the cap.
      expect(claimed.length).toBe(Math.min(o.n, free, could));
      for (const job of claimed) {
        // The reserve guarantee: in a scarce claim, while any group is owed, the job is one's.
        const owedNow = GROUPS.filter((g) => owed(m, g));
        if (scarce && owedNow.length > 0) expect(owedNow).toContain(job.group);
        // Never over a group's limit: each job taken was room the model had.
        expect(room(m, job.group)).toBeGreaterThan(0);
        m.pending[job.group] = (m.pending[job.group] as number) - 1;
        m.active[job.group] = (m.active[job.group] as number) + 1;
        m.held.push(job);
      }
      if (m.cap !== null && claimed.length > 0) expect(inFlight(m)).toBeLessThanOrEqual(m.cap);
      return;
    }
    case 'complete': {
      if (m.held.length === 0) return;
      const [job] = m.held.splice(o.pick % m.held.length, 1) as [Job];
      await q.complete(job.id, job.token as string);
      m.active[job.group] = (m.active[job.group] as number) - 1;
      return;
    }
    case 'setQueueLimit': {
      const call = q.setQueueLimit(o.limit);
      if (o.limit < reserved(m)) {
        await expect(call).rejects.toMatchObject({ code: 'BAD_USER_INPUT', argument: 'limit' });
        return;
      }
      await call;
      m.cap = o.limit;
      return;
    }
    case 'clearQueueLimit':
      await q.clearQueueLimit();
      m.cap = null;
      return;
    case 'setReserve': {
      const g = GROUPS[o.group] as string;
      const before = m.reserve[g] as number;
      const after = reserved(m) - before + o.reserve;
      const limit = m.limit[g];
      const refused =
        (limit !== null && limit !== undefined && o.reserve > limit) ||
        (o.reserve > before && m.cap !== null && after > m.cap);
      const call = q.setReserve(g, o.reserve);
      if (refused) {
        await expect(call).rejects.toMatchObject({ code: 'BAD_USER_INPUT', argument: 'reserve' });
        return;
      }
      expect((await call).reserve).toBe(o.reserve);
      m.reserve[g] = o.reserve;
      return;
    }
    case 'setLimit': {
      const g = GROUPS[o.group] as string;
      await q.setLimit(g, o.limit);
      m.limit[g] = o.limit;
      return;
    }
  }
}

describe('the queue cap and reserves, against a model', () => {
  it('never over a limit or the cap, reserves first when scarce, no permit idle', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
        const q = engine.queue();
        const m: Model = {
          cap: null,
          pending: Object.fromEntries(GROUPS.map((g) => [g, 0])),
          active: Object.fromEntries(GROUPS.map((g) => [g, 0])),
          limit: Object.fromEntries(GROUPS.map((g) => [g, null])),
          reserve: Object.fromEntries(GROUPS.map((g) => [g, 0])),
          held: [],
        };
        for (const o of ops) {
          await step(q, m, o);
          const cap = await q.cap();
          expect(cap).toMatchObject({ limit: m.cap, active: inFlight(m), reserved: reserved(m) });
          if (m.cap !== null) expect(reserved(m)).toBeLessThanOrEqual(m.cap);
        }
        expect((await q.audit()).findings).toEqual([]);
      }),
      {
        numRuns: RUNS,
        ...(env.FC_SEED ? { seed: Number(env.FC_SEED) } : {}),
        ...(env.FC_PATH ? { path: env.FC_PATH } : {}),
      },
    );
  }, 120_000);
});
