/**
 * A model test of backlog bounds (DESIGN.md §3, "Backlog bounds"): random sequences of enqueue
 * (pending or delayed), enqueueMany batches over several groups, claims, completions, retries,
 * promotions, setMaxPending and setDefaultMaxPending over 3 groups, run against the real engine
 * and a model of each group's pending and delayed counts. After every step:
 * - the model predicts every refusal: an enqueue (a batch: any of its groups) is refused with
 *   GROUP_FULL exactly when it would leave a group above its effective bound (its own, else the
 *   default), and a refused call writes nothing (the counts stay the model's);
 * - an enqueue that succeeded never left a group it touched above its bound;
 * - retries and promotions are never refused (they may leave a group above a bound lowered
 *   since); the audit is clean at the end.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/maxPending.model.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c'] as const;
const env = process.env;
const RUNS = env.FC_NUM_RUNS ? Number(env.FC_NUM_RUNS) : 30;
const LATER = 3_600_000;

type Op =
  | { kind: 'enqueue'; group: number; delayed: boolean }
  | { kind: 'enqueueMany'; jobs: { group: number; delayed: boolean }[] }
  | { kind: 'claim' }
  | { kind: 'complete'; pick: number }
  | { kind: 'retry'; pick: number }
  | { kind: 'promote'; pick: number }
  | { kind: 'setMaxPending'; group: number; bound: number | null }
  | { kind: 'setDefaultMaxPending'; bound: number | null };

const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const bound = fc.option(fc.integer({ min: 0, max: 5 }), { nil: null });
const job = fc.record({ group, delayed: fc.boolean() });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('enqueue' as const), group, delayed: fc.boolean() }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('enqueueMany' as const),
      jobs: fc.array(job, { minLength: 1, maxLength: 5 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('promote' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('setMaxPending' as const), group, bound }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('setDefaultMaxPending' as const), bound }),
  },
);

interface Model {
  pending: Record<string, number>;
  /** Delayed job ids per group (promotion picks one). */
  delayed: Record<string, string[]>;
  own: Record<string, number | null>;
  fallback: number | null;
  active: Job[];
}

const boundOf = (m: Model, g: string): number | null => m.own[g] ?? m.fallback;
const held = (m: Model, g: string): number => (m.pending[g] ?? 0) + (m.delayed[g]?.length ?? 0);

/** Whether adding `count` jobs per group passes a bound: the model's GROUP_FULL. */
function full(m: Model, adding: Map<string, number>): boolean {
  for (const [g, n] of adding) {
    const b = boundOf(m, g);
    if (b !== null && held(m, g) + n > b) return true;
  }
  return false;
}

async function refusedOrNot(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => ({ value }),
    (error: unknown) => {
      if (error instanceof RingmasterError && error.code === 'GROUP_FULL') return 'GROUP_FULL';
      throw error;
    },
  );
}

async function step(q: Queue, m: Model, o: Op): Promise<void> {
  switch (o.kind) {
    case 'enqueue':
    case 'enqueueMany': {
      const jobs = o.kind === 'enqueue' ? [{ group: o.group, delayed: o.delayed }] : o.jobs;
      const adding = new Map<string, number>();
      for (const j of jobs) {
        const g = GROUPS[j.group] as string;
        adding.set(g, (adding.get(g) ?? 0) + 1);
      }
      const predicted = full(m, adding);
      const args = jobs.map((j) => ({
        group: GROUPS[j.group] as string,
        payload: 1,
        options: j.delayed ? { delayMs: LATER } : {},
      }));
      const result = await refusedOrNot(
        o.kind === 'enqueue'
          ? q.enqueue(args[0]?.group as string, 1, args[0]?.options)
          : q.enqueueMany(args),
      );
      expect(result === 'GROUP_FULL', `${JSON.stringify(o)} refused`).toBe(predicted);
      if (result === 'GROUP_FULL') return;
      const made =
        o.kind === 'enqueue'
          ? [(result as { value: Job }).value]
          : (result as { value: Job[] }).value;
      for (const created of made) {
        if (created.state === 'DELAYED') m.delayed[created.group]?.push(created.id);
        else m.pending[created.group] = (m.pending[created.group] ?? 0) + 1;
      }
      // The bound is never passed by an enqueue.
      for (const g of adding.keys()) {
        const b = boundOf(m, g);
        if (b !== null) expect(held(m, g)).toBeLessThanOrEqual(b);
      }
      return;
    }
    case 'claim': {
      const claimed = await q.claim({ leaseMs: 600_000 });
      if (claimed) {
        m.pending[claimed.group] = (m.pending[claimed.group] ?? 0) - 1;
        m.active.push(claimed);
      }
      return;
    }
    case 'complete':
    case 'retry': {
      if (m.active.length === 0) return;
      const [j] = m.active.splice(o.pick % m.active.length, 1) as [Job];
      if (o.kind === 'complete') {
        await q.complete(j.id, j.token as string);
        return;
      }
      const after = await q.retry(j.id, j.token as string, { error: 'again' });
      if (after.state === 'PENDING') m.pending[j.group] = (m.pending[j.group] ?? 0) + 1;
      return;
    }
    case 'promote': {
      const all = GROUPS.flatMap((g) => (m.delayed[g] ?? []).map((id) => [g, id] as const));
      if (all.length === 0) return;
      const [g, id] = all[o.pick % all.length] as readonly [string, string];
      await q.promote(id);
      m.delayed[g] = (m.delayed[g] ?? []).filter((d) => d !== id);
      m.pending[g] = (m.pending[g] ?? 0) + 1;
      return;
    }
    case 'setMaxPending': {
      const g = GROUPS[o.group] as string;
      expect((await q.setMaxPending(g, o.bound)).maxPending).toBe(o.bound);
      m.own[g] = o.bound;
      return;
    }
    case 'setDefaultMaxPending':
      expect(await q.setDefaultMaxPending(o.bound)).toBe(o.bound);
      m.fallback = o.bound;
      return;
  }
}

describe('backlog bounds, against a model', () => {
  it('an enqueue is refused exactly when it would pass a bound, and never passes one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40 }), async (ops) => {
        const q = engine.queue();
        const m: Model = {
          pending: Object.fromEntries(GROUPS.map((g) => [g, 0])),
          delayed: Object.fromEntries(GROUPS.map((g) => [g, []])),
          own: Object.fromEntries(GROUPS.map((g) => [g, null])),
          fallback: null,
          active: [],
        };
        for (const o of ops) {
          await step(q, m, o);
          for (const g of GROUPS) {
            expect((await q.group(g)).pending, `${g} pending`).toBe(m.pending[g]);
            expect(await q.redis.zcard(q.keys.groupDelayed(g)), `${g} delayed`).toBe(
              m.delayed[g]?.length,
            );
          }
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
