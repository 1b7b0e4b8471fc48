/**
 * Property test of levels (DESIGN.md §3, "Levels", and the bound restated per level): with random
 * priorities, weights, backlogs, enqueues between claims and claims in random batches (claim,
 * completeAndClaim), the groups served and the rota after each call are exactly those of a pure
 * model — the most urgent level with a group first, strictly, each level a weighted ring, a
 * group at the level of its lane's head — and, on the claims the engine made:
 * - strict: every claim serves the most urgent level on the rota before it;
 * - the bound per level: while group B stays at level L, between two consecutive claims of B
 *   another group A is served at most w_A times at level L;
 * and Queue.audit stays clean.
 *
 * Replay: L_SEED=<seed> L_PATH=<path> npx vitest run test/lanes/levels.property.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Queue, RotaEntry } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c', 'd', 'e'] as const;
const RUNS = Number(process.env.L_RUNS ?? 150);
const replay = {
  ...(process.env.L_SEED === undefined ? {} : { seed: Number(process.env.L_SEED) }),
  ...(process.env.L_PATH === undefined ? {} : { path: process.env.L_PATH }),
};

/** Levels of DESIGN.md §3 in memory: each lane its scores, each level a weighted ring. */
class Model {
  rotas = new Map<number, string[]>();
  turns = new Map<string, number>();
  lanes = new Map<string, number[]>();
  constructor(readonly weights: Record<string, number>) {}

  private levelOf(group: string): number | null {
    const head = this.lanes.get(group)?.[0];
    return head === undefined ? null : 5 + Math.floor(head / 1e15);
  }

  private rota(level: number): string[] {
    let rota = this.rotas.get(level);
    if (rota === undefined) {
      rota = [];
      this.rotas.set(level, rota);
    }
    return rota;
  }

  private leave(group: string, level: number): void {
    const rota = this.rota(level);
    rota.splice(rota.indexOf(group), 1);
  }

  enqueue(group: string, id: number, priority: number): void {
    const before = this.levelOf(group);
    const lane = this.lanes.get(group) ?? [];
    lane.push(id + (priority - 5) * 1e15);
    lane.sort((x, y) => x - y);
    this.lanes.set(group, lane);
    const after = this.levelOf(group) as number;
    if (before === after) return;
    if (before !== null) this.leave(group, before);
    this.rota(after).push(group); // the tail of its level, a fresh round
    this.turns.delete(group);
  }

  /** The group served, the level it was served at and its level after (null: off), or null. */
  claim(): { group: string; level: number; after: number | null } | null {
    for (let level = 1; level <= 9; level++) {
      const rota = this.rota(level);
      const group = rota.shift();
      if (group === undefined) continue;
      (this.lanes.get(group) as number[]).shift();
      const now = this.levelOf(group);
      const weight = this.weights[group] ?? 1;
      if (now === null) {
        this.turns.delete(group);
      } else if (now !== level) {
        this.turns.delete(group);
        this.rota(now).push(group);
      } else {
        const turns = (this.turns.get(group) ?? 0) + 1;
        if (turns < weight) {
          this.turns.set(group, turns);
          rota.unshift(group);
        } else {
          this.turns.delete(group);
          rota.push(group);
        }
      }
      return { group, level, after: now };
    }
    return null;
  }

  entries(): RotaEntry[] {
    const out: RotaEntry[] = [];
    for (let level = 1; level <= 9; level++) {
      for (const group of this.rota(level)) out.push({ group, level });
    }
    return out;
  }
}

type Step =
  | { kind: 'enqueue'; group: number; n: number; priority: number }
  | { kind: 'claim'; n: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group: fc.integer({ min: 0, max: GROUPS.length - 1 }),
      n: fc.integer({ min: 1, max: 4 }),
      // Mostly a few levels, so groups share them; now and then any.
      priority: fc.oneof(fc.constantFrom(2, 5, 5, 8), fc.integer({ min: 1, max: 9 })),
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

/** Each claim (its group, the level served, the group's level after) and the rota after each call. */
type History = ({ claimed: string; level: number; after: number | null } | { rota: RotaEntry[] })[];

async function claimBatch(q: Queue, n: number): Promise<string[]> {
  if (n === 1) {
    const job = await q.claim();
    return job ? [job.group] : [];
  }
  return (await q.completeAndClaim([], { claim: n })).claimed.map((j) => j.group);
}

/**
 * The bound per level over a history of claims (group, level) and rotas after each call: while
 * B stays at level L, between two of its claims another group A is served at most w_A times
 * at L.
 */
function checkBound(history: History, weights: Record<string, number>): void {
  for (const b of GROUPS) {
    let level: number | null = null;
    let counts = new Map<string, number>();
    for (const event of history) {
      if ('rota' in event) {
        const at = event.rota.find((e) => e.group === b)?.level ?? null;
        if (at !== level) {
          level = at;
          counts = new Map();
        }
      } else if (event.claimed === b) {
        level = event.after;
        counts = new Map();
      } else if (level !== null && event.level === level) {
        const n = (counts.get(event.claimed) ?? 0) + 1;
        counts.set(event.claimed, n);
        expect(
          n,
          `${event.claimed} served ${n} times at level ${level} between two of ${b}'s`,
        ).toBeLessThanOrEqual(weights[event.claimed] ?? 1);
      }
    }
  }
}

describe('levels, random histories', () => {
  it(
    'serve exactly what the model of levels serves, strictly by level, each level within its bound',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.integer({ min: 1, max: 3 }), {
            minLength: GROUPS.length,
            maxLength: GROUPS.length,
          }),
          fc.array(stepArb, { minLength: 1, maxLength: 30 }),
          async (ws, steps) => {
            runs += 1;
            const q = engine.queue();
            const weights = Object.fromEntries(GROUPS.map((g, i) => [g, ws[i] ?? 1]));
            for (const g of GROUPS) {
              if ((weights[g] ?? 1) > 1) await q.setWeight(g, weights[g] ?? 1);
            }
            const model = new Model(weights);
            const history: History = [];
            for (const step of steps) {
              if (step.kind === 'enqueue') {
                const g = GROUPS[step.group] as string;
                for (let i = 0; i < step.n; i++) {
                  const job = await q.enqueue(g, i, { priority: step.priority });
                  model.enqueue(g, Number(job.id), step.priority);
                }
              } else {
                const expected: { group: string; level: number; after: number | null }[] = [];
                for (let i = 0; i < step.n; i++) {
                  const served = model.claim();
                  if (served !== null) expected.push(served);
                }
                const before = await q.rota();
                const got = await claimBatch(q, step.n);
                expect(got).toEqual(expected.map((e) => e.group));
                // Strict: the first claim of the call serves the most urgent level there was.
                if (expected[0]) expect(expected[0].level).toBe(before[0]?.level);
                for (const e of expected) {
                  history.push({ claimed: e.group, level: e.level, after: e.after });
                }
              }
              const rota = await q.rota();
              expect(rota).toEqual(model.entries());
              history.push({ rota });
            }
            checkBound(history, weights);
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
