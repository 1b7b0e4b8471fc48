/**
 * Property tests of weights (DESIGN.md §3, "Weights", and its weighted bound):
 * - with random weights, backlogs, enqueues between claims and claims in random batches
 *   (claim, completeAndClaim), the groups served are exactly those of a pure model of the
 *   weighted ring (a round serves each group its weight in consecutive claims, in ring order; a
 *   group that empties leaves and re-joins at the tail with a fresh round);
 * - with limits, completions and pauses as well, the weighted bound holds: while group B stays
 *   on the ring, between two consecutive claims of B any other group A is served at most w_A
 *   times; and Queue.audit stays clean.
 *
 * Replay: W_SEED=<seed> W_PATH=<path> npx vitest run test/lanes/weights.property.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c', 'd', 'e'] as const;
const RUNS = Number(process.env.W_RUNS ?? 60);
const replay = {
  ...(process.env.W_SEED === undefined ? {} : { seed: Number(process.env.W_SEED) }),
  ...(process.env.W_PATH === undefined ? {} : { path: process.env.W_PATH }),
};

/** The weighted ring of DESIGN.md §3, in memory: lanes as counts. */
class Model {
  ring: string[] = [];
  turns = new Map<string, number>();
  lanes = new Map<string, number>();
  constructor(readonly weights: Record<string, number>) {}

  enqueue(group: string): void {
    const n = this.lanes.get(group) ?? 0;
    this.lanes.set(group, n + 1);
    if (n === 0) {
      this.ring.push(group); // re-ring: a fresh round
      this.turns.delete(group);
    }
  }

  claim(): string | null {
    const group = this.ring.shift();
    if (group === undefined) return null;
    const left = (this.lanes.get(group) ?? 0) - 1;
    this.lanes.set(group, left);
    const weight = this.weights[group] ?? 1;
    if (left === 0) {
      this.turns.delete(group);
    } else {
      const turns = (this.turns.get(group) ?? 0) + 1;
      if (turns < weight) {
        this.turns.set(group, turns);
        this.ring.unshift(group);
      } else {
        this.turns.delete(group);
        this.ring.push(group);
      }
    }
    return group;
  }
}

type Step = { kind: 'enqueue'; group: number; n: number } | { kind: 'claim'; n: number };

const groupArb = fc.integer({ min: 0, max: GROUPS.length - 1 });
const weightsArb = fc.array(fc.integer({ min: 1, max: 4 }), {
  minLength: GROUPS.length,
  maxLength: GROUPS.length,
});
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group: groupArb,
      n: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('claim' as const),
      n: fc.integer({ min: 1, max: 7 }),
    }),
  },
);

/** `n` claims: one claim() when n is 1, else one completeAndClaim of n. */
async function claimBatch(q: Queue, n: number): Promise<string[]> {
  if (n === 1) {
    const job = await q.claim();
    return job ? [job.group] : [];
  }
  return (await q.completeAndClaim([], { claim: n })).claimed.map((j) => j.group);
}

describe('weights, random histories', () => {
  it(
    'serve exactly what the weighted ring model serves, batch or not',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          weightsArb,
          fc.array(stepArb, { minLength: 1, maxLength: 30 }),
          async (ws, steps) => {
            runs += 1;
            const q = engine.queue();
            const weights = Object.fromEntries(GROUPS.map((g, i) => [g, ws[i] ?? 1]));
            for (const g of GROUPS)
              if ((weights[g] ?? 1) > 1) await q.setWeight(g, weights[g] ?? 1);
            const model = new Model(weights);
            for (const step of steps) {
              if (step.kind === 'enqueue') {
                const g = GROUPS[step.group] as string;
                for (let i = 0; i < step.n; i++) {
                  await q.enqueue(g, i);
                  model.enqueue(g);
                }
              } else {
                const expected: string[] = [];
                for (let i = 0; i < step.n; i++) {
                  const g = model.claim();
                  if (g !== null) expected.push(g);
                }
                expect(await claimBatch(q, step.n)).toEqual(expected);
              }
              expect(await q.ring()).toEqual(model.ring);
            }
            const turns = await q.redis.hgetall(q.keys.turns);
            expect(turns).toEqual(
              Object.fromEntries([...model.turns].map(([g, n]) => [g, String(n)])),
            );
            expect((await q.audit()).findings).toEqual([]);
          },
        ),
        { numRuns: RUNS, ...replay },
      );
      if (replay.path === undefined) expect(runs).toBeGreaterThanOrEqual(RUNS);
    },
    60_000 + RUNS * 500,
  );

  type Op =
    | { kind: 'enqueue'; group: number; n: number }
    | { kind: 'claim'; n: number }
    | { kind: 'complete'; pick: number }
    | { kind: 'setLimit'; group: number; limit: number }
    | { kind: 'clearLimit' | 'pause' | 'resume'; group: number };
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    stepArb,
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat(50) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('setLimit' as const),
        group: groupArb,
        limit: fc.integer({ min: 0, max: 4 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constantFrom('clearLimit' as const, 'pause' as const, 'resume' as const),
        group: groupArb,
      }),
    },
  );

  it(
    'keep the weighted bound with limits, completions and pauses',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          weightsArb,
          fc.array(opArb, { minLength: 1, maxLength: 40 }),
          async (ws, ops) => {
            runs += 1;
            const q = engine.queue();
            const weights = Object.fromEntries(GROUPS.map((g, i) => [g, ws[i] ?? 1]));
            for (const g of GROUPS)
              if ((weights[g] ?? 1) > 1) await q.setWeight(g, weights[g] ?? 1);
            // What happened, in order: each claim's group, and the ring after each call.
            const events: ({ claimed: string } | { ring: string[] })[] = [];
            const held: { id: string; token: string }[] = [];
            let n = 0;
            for (const op of ops) {
              switch (op.kind) {
                case 'enqueue':
                  for (let i = 0; i < op.n; i++) await q.enqueue(GROUPS[op.group] as string, n++);
                  break;
                case 'claim': {
                  const claimed =
                    op.n === 1
                      ? [await q.claim()].filter((j) => j !== null)
                      : (await q.completeAndClaim([], { claim: op.n })).claimed;
                  for (const job of claimed) {
                    held.push({ id: job.id, token: job.token as string });
                    events.push({ claimed: job.group });
                  }
                  break;
                }
                case 'complete': {
                  const lease = held.splice(op.pick % Math.max(1, held.length), 1)[0];
                  if (lease) await q.complete(lease.id, lease.token);
                  break;
                }
                case 'setLimit':
                  await q.setLimit(GROUPS[op.group] as string, op.limit);
                  break;
                default:
                  await q[op.kind](GROUPS[op.group] as string);
              }
              events.push({ ring: await q.ring() });
            }
            for (const b of GROUPS) {
              // Claims of each other group since B's last claim; null while B is off the ring.
              let since: Map<string, number> | null = null;
              for (const e of events) {
                if ('ring' in e) {
                  if (!e.ring.includes(b)) since = null;
                } else if (e.claimed === b) {
                  if (since) {
                    for (const [a, count] of since) {
                      expect(count, `${a} served between two claims of ${b}`).toBeLessThanOrEqual(
                        weights[a] ?? 1,
                      );
                    }
                  }
                  since = new Map();
                } else if (since) {
                  since.set(e.claimed, (since.get(e.claimed) ?? 0) + 1);
                }
              }
            }
            expect((await q.audit()).findings).toEqual([]);
          },
        ),
        { numRuns: RUNS, ...replay },
      );
      if (replay.path === undefined) expect(runs).toBeGreaterThanOrEqual(RUNS);
    },
    60_000 + RUNS * 500,
  );
});
