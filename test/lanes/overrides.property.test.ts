/**
 * Property test of timed overrides (DESIGN.md §4.8; like model.test.ts): random
 * sequences of plain and timed setLimit / pause / resume, clearLimit, cancelOverride, enqueues,
 * claims, completions, and time passing — against a model of each group's limit, pause and
 * pending reverts. Timed calls are either short (1–10 ms: due by the next tick) or an hour
 * (never due in a run); a tick waits until the Redis clock has passed every short deadline, then
 * drives `applyOverrides` directly, so which reverts apply is exact without a timed assertion.
 *
 * After every step: each group's limit, pause and pending reverts (their revertTo) equal the
 * model's, `Queue.audit()` reports nothing (I1–I4 and the totals, so every revert kept the ring,
 * the wake and the saturated count in line), and at a tick the number applied is the model's.
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/overrides.property.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GroupInfo, Queue } from '../../src/lanes/index.js';
import { untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c'] as const;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 40;
const LONG_MS = 3_600_000;

type Timing = 'plain' | 'short' | 'long';

type Step =
  | { kind: 'setLimit'; group: number; limit: number; timing: Timing; forMs: number }
  | { kind: 'pause' | 'resume'; group: number; timing: Timing; forMs: number }
  | { kind: 'clearLimit' | 'enqueue'; group: number }
  | { kind: 'cancel'; group: number; what: 'limit' | 'pause' }
  | { kind: 'claim' | 'complete' | 'tick' };

interface Pending {
  readonly revertTo: number | boolean | null;
  readonly short: boolean;
}

interface ModelGroup {
  limit: number | null;
  paused: boolean;
  limitOverride: Pending | null;
  pauseOverride: Pending | null;
}

const timing = fc.constantFrom<Timing>('plain', 'short', 'long');
const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('setLimit' as const),
    group,
    limit: fc.integer({ min: 0, max: 3 }),
    timing,
    forMs: fc.integer({ min: 1, max: 10 }),
  }),
  fc.record({
    kind: fc.constantFrom('pause' as const, 'resume' as const),
    group,
    timing,
    forMs: fc.integer({ min: 1, max: 10 }),
  }),
  fc.record({ kind: fc.constant('clearLimit' as const), group }),
  fc.record({ kind: fc.constant('enqueue' as const), group }),
  fc.record({
    kind: fc.constant('cancel' as const),
    group,
    what: fc.constantFrom('limit', 'pause'),
  }),
  fc.record({ kind: fc.constantFrom('claim' as const, 'complete' as const, 'tick' as const) }),
);

function forMsOf(t: Timing, forMs: number): number | undefined {
  return t === 'plain' ? undefined : t === 'short' ? forMs : LONG_MS;
}

/**
 * The model's pending revert after a call of its kind setting `value`: none for a plain call,
 * and none for a timed one whose revertTo (the pending one's, else `current`) is `value` — a
 * revert that would change nothing makes it the plain call (DESIGN.md §4.8).
 */
function timed<T extends number | boolean | null>(
  forMs: number | undefined,
  t: Timing,
  pending: Pending | null,
  current: T,
  value: T,
): Pending | null {
  if (forMs === undefined) return null;
  const revertTo = pending ? pending.revertTo : current;
  return revertTo === value ? null : { revertTo, short: t === 'short' };
}

async function run(q: Queue, steps: Step[]): Promise<void> {
  const model = new Map<string, ModelGroup>(
    GROUPS.map((g) => [
      g,
      { limit: null, paused: false, limitOverride: null, pauseOverride: null },
    ]),
  );
  const held: { id: string; token: string }[] = [];
  const m = (i: number) => model.get(GROUPS[i] as string) as ModelGroup;

  for (const s of steps) {
    switch (s.kind) {
      case 'setLimit': {
        const g = m(s.group);
        const forMs = forMsOf(s.timing, s.forMs);
        await q.setLimit(GROUPS[s.group] as string, s.limit, { forMs });
        g.limitOverride = timed(forMs, s.timing, g.limitOverride, g.limit, s.limit);
        g.limit = s.limit;
        break;
      }
      case 'pause': {
        const g = m(s.group);
        const forMs = forMsOf(s.timing, s.forMs);
        await q.pause(GROUPS[s.group] as string, { forMs });
        g.pauseOverride = timed(forMs, s.timing, g.pauseOverride, g.paused, true);
        g.paused = true;
        break;
      }
      case 'clearLimit':
        await q.clearLimit(GROUPS[s.group] as string);
        m(s.group).limit = null;
        m(s.group).limitOverride = null;
        break;
      case 'resume': {
        const g = m(s.group);
        const forMs = forMsOf(s.timing, s.forMs);
        await q.resume(GROUPS[s.group] as string, { forMs });
        g.pauseOverride = timed(forMs, s.timing, g.pauseOverride, g.paused, false);
        g.paused = false;
        break;
      }
      case 'cancel':
        await q.cancelOverride(GROUPS[s.group] as string, s.what);
        if (s.what === 'limit') m(s.group).limitOverride = null;
        else m(s.group).pauseOverride = null;
        break;
      case 'enqueue':
        await q.enqueue(GROUPS[s.group] as string, null);
        break;
      case 'claim': {
        const job = await q.claim({ leaseMs: LONG_MS });
        if (job?.token) held.push({ id: job.id, token: job.token });
        break;
      }
      case 'complete': {
        const job = held.shift();
        if (job) await q.complete(job.id, job.token);
        break;
      }
      case 'tick': {
        const last = Math.max(
          0,
          ...(await Promise.all(GROUPS.map((g) => q.group(g)))).flatMap((g) =>
            [g.limitOverride, g.pauseOverride]
              .filter((o) => o !== null && o.until - o.setAt <= 10)
              .map((o) => o?.until ?? 0),
          ),
        );
        await untilRedisTimePasses(q.redis, last);
        let due = 0;
        for (const g of model.values()) {
          if (g.limitOverride?.short) {
            g.limit = g.limitOverride.revertTo as number | null;
            g.limitOverride = null;
            due += 1;
          }
          if (g.pauseOverride?.short) {
            g.paused = g.pauseOverride.revertTo as boolean;
            g.pauseOverride = null;
            due += 1;
          }
        }
        expect((await q.applyOverrides()).applied).toBe(due);
        break;
      }
    }
    await check(q, model);
  }
}

async function check(q: Queue, model: Map<string, ModelGroup>): Promise<void> {
  const seen = await Promise.all(GROUPS.map((g) => q.group(g)));
  const brief = (g: GroupInfo) => ({
    limit: g.limit,
    paused: g.paused,
    limitRevertTo: g.limitOverride ? g.limitOverride.revertTo : 'none',
    pauseRevertTo: g.pauseOverride ? g.pauseOverride.revertTo : 'none',
  });
  const expected = GROUPS.map((id) => {
    const g = model.get(id) as ModelGroup;
    return {
      limit: g.limit,
      paused: g.paused,
      limitRevertTo: g.limitOverride ? g.limitOverride.revertTo : 'none',
      pauseRevertTo: g.pauseOverride ? g.pauseOverride.revertTo : 'none',
    };
  });
  expect(seen.map(brief)).toEqual(expected);
  expect((await q.audit()).findings).toEqual([]);
}

describe('timed overrides against a model', () => {
  it('plain calls, timed calls, cancels and time passing agree with the model; audit stays clean', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        await run(engine.queue(), steps);
      }),
      {
        numRuns: RUNS,
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
        ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
      },
    );
  }, 120_000);
});
