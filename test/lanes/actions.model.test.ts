/**
 * Property test of the operator actions among the job traffic (the style of
 * model.test.ts): random sequences of enqueue (now and delayed), claim, complete, retry (to dead
 * at maxAttempts), promote, delayed, dead and completed jobs placed by the key layout, setLimit/clearLimit/pause/resume, and
 * requeueDead / removeJobs / purgeGroup by ids, by group and for the whole queue with small
 * limits, over 6 groups. Each step is one call, and a small pure model of DESIGN.md §3 predicts
 * its answer exactly (which job a claim gets, `{ count, remaining, skipped }` of an action).
 *
 * After every step, against what Redis holds (read raw, not through the engine's reads):
 * - the model's state key by key: the ring in order, every lane in order, the members of
 *   `active`, `delayed`, `dead`, `completed` and each group's delayed/dead/completed index,
 *   every job hash's state and attempts, every removed job's hash and error list gone;
 * - the counters and totals: `removed`, `requeued`, `pending`, `delayed`, `active`;
 * - `Queue.audit()` finds nothing (I1–I4 and the totals).
 *
 * Replay a failure: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/actions.model.test.ts
 * (FC_NUM_RUNS overrides the number of runs).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Job, JobActionResult, Queue } from '../../src/lanes/internal.js';
import { placeJob } from '../support/jobs.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

const GROUPS = ['a', 'b', 'c', 'd', 'e:f', 'ü'] as const;
const env = process.env;
const NUM_RUNS = env.FC_NUM_RUNS ? Number(env.FC_NUM_RUNS) : 60;
const LEASE_MS = 600_000;

type Place = 'pending' | 'delayed' | 'active' | 'dead' | 'completed' | 'gone';
type Indexed = 'delayed' | 'dead' | 'completed';

interface MJob {
  id: string;
  group: string;
  place: Place;
  attempts: number;
  maxAttempts: number;
  /** Its score in the index of its place (delayed, dead, completed). */
  at: number;
  token: string | null;
  /** Removed by an operator action: its hash and its error list are gone. */
  removed?: boolean;
}

interface Model {
  jobs: Map<string, MJob>;
  ring: string[];
  paused: Set<string>;
  limits: Map<string, number>;
  removed: number;
  requeued: number;
}

const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
const byIndex = (x: MJob, y: MJob) => x.at - y.at || byBytes(x.id, y.id);
const byScore = (x: MJob, y: MJob) => Number(x.id) - Number(y.id);

const jobsOf = (m: Model, place: Place, group?: string) =>
  [...m.jobs.values()].filter(
    (j) => j.place === place && (group === undefined || j.group === group),
  );
const lane = (m: Model, g: string) => jobsOf(m, 'pending', g).sort(byScore);
const activeOf = (m: Model, g: string) => jobsOf(m, 'active', g).length;

function serviceable(m: Model, g: string): boolean {
  if (m.paused.has(g)) return false;
  const limit = m.limits.get(g);
  if (limit !== undefined && activeOf(m, g) >= limit) return false;
  return lane(m, g).length > 0;
}

/** Re-ring on the transition to serviceable; de-ring on the way out (settleGroup). */
function settle(m: Model, g: string, was: boolean): void {
  const now = serviceable(m, g);
  if (now && !was) m.ring.push(g);
  else if (was && !now) m.ring = m.ring.filter((x) => x !== g);
}

// ── operations ───────────────────────────────────────────────────────────────────────────

type Select = { ids: number[] } | { group: number } | { all: true };
type Op =
  | { kind: 'enqueue'; group: number; maxAttempts: number }
  | { kind: 'place'; group: number; place: Indexed }
  | { kind: 'enqueueDelayed'; group: number }
  | { kind: 'promote'; pick: number }
  | { kind: 'claim' }
  | { kind: 'complete' | 'retry'; pick: number }
  | { kind: 'setLimit'; group: number; limit: number }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: number }
  | { kind: 'requeueDead'; select: Select; reset: boolean; limit: number }
  | { kind: 'removeJobs'; select: Select; state: number; limit: number }
  | { kind: 'purgeGroup'; group: number; limit: number };

const group = fc.nat({ max: GROUPS.length - 1 });
const select: fc.Arbitrary<Select> = fc.oneof(
  fc.record({ ids: fc.array(fc.nat({ max: 60 }), { minLength: 1, maxLength: 5 }) }),
  fc.record({ group }),
  fc.constant({ all: true as const }),
);
const limit = fc.integer({ min: 1, max: 3 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group,
      maxAttempts: fc.integer({ min: 1, max: 2 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('place' as const),
      group,
      place: fc.constantFrom('delayed' as const, 'dead' as const, 'completed' as const),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('enqueueDelayed' as const), group }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('promote' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('retry' as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group,
      limit: fc.integer({ min: 0, max: 2 }),
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
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('requeueDead' as const),
      select,
      reset: fc.boolean(),
      limit,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('removeJobs' as const),
      select,
      state: fc.nat({ max: 4 }),
      limit,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('purgeGroup' as const), group, limit }) },
);

/** A run's first steps: jobs in every place, so the actions find work from the start. */
const seed: fc.Arbitrary<Op[]> = fc.array(
  fc.oneof(
    fc.record({
      kind: fc.constant('place' as const),
      group,
      place: fc.constantFrom('delayed' as const, 'dead' as const, 'completed' as const),
    }),
    fc.record({ kind: fc.constant('enqueue' as const), group, maxAttempts: fc.constant(1) }),
  ),
  { minLength: 3, maxLength: 10 },
);

/** The known ids a selection's indexes pick (every id the run minted, and a few never minted). */
function idsOf(m: Model, picks: number[]): string[] {
  const known = [...m.jobs.keys()];
  // Mostly known ids; now and then one never minted.
  return picks.map((p) => known[p % (known.length + 1)] ?? String(900_000 + p));
}

const STATES = ['PENDING', 'DELAYED', 'DEAD', 'COMPLETED', undefined] as const;

/** Apply `o` to the model and the queue; the answer must be the model's. */
async function step(q: Queue, m: Model, o: Op): Promise<void> {
  switch (o.kind) {
    case 'enqueue': {
      const g = GROUPS[o.group] as string;
      const was = serviceable(m, g);
      const job = await q.enqueue(g, { g }, { maxAttempts: o.maxAttempts });
      m.jobs.set(job.id, {
        id: job.id,
        group: g,
        place: 'pending',
        attempts: 0,
        maxAttempts: o.maxAttempts,
        at: 0,
        token: null,
      });
      settle(m, g, was);
      return;
    }
    case 'place': {
      const g = GROUPS[o.group] as string;
      // Far in the future, so no promotion moves it during a run.
      const at =
        o.place === 'delayed'
          ? Date.now() + 3_600_000 + (m.jobs.size % 4)
          : Date.now() - 1_000 + (m.jobs.size % 3);
      const id = await placeJob(q, g, o.place, { at });
      m.jobs.set(id, {
        id,
        group: g,
        place: o.place,
        attempts: { delayed: 0, dead: 3, completed: 1 }[o.place],
        maxAttempts: 3,
        at,
        token: null,
      });
      return;
    }
    case 'enqueueDelayed': {
      // The engine's delayed enqueue: an hour ahead, so nothing promotes it during a run.
      const g = GROUPS[o.group] as string;
      const job = await q.enqueue(g, { g }, { delayMs: 3_600_000 });
      expect(job.state).toBe('DELAYED');
      m.jobs.set(job.id, {
        id: job.id,
        group: g,
        place: 'delayed',
        attempts: 0,
        maxAttempts: job.maxAttempts,
        at: job.runAt as number,
        token: null,
      });
      return;
    }
    case 'promote': {
      const delayed = jobsOf(m, 'delayed').sort(byScore);
      const job = delayed[o.pick % Math.max(1, delayed.length)];
      if (!job) return;
      const was = serviceable(m, job.group);
      expect((await q.promote(job.id)).promoted).toBe(true);
      job.place = 'pending';
      settle(m, job.group, was);
      return;
    }
    case 'claim': {
      const job = await q.claim({ leaseMs: LEASE_MS });
      const g = m.ring.shift();
      if (g === undefined) {
        expect(job).toBeNull();
        return;
      }
      const head = lane(m, g)[0] as MJob;
      expect(job?.id).toBe(head.id);
      head.place = 'active';
      head.attempts += 1;
      head.token = (job as Job).token;
      if (serviceable(m, g)) m.ring.push(g);
      return;
    }
    case 'complete':
    case 'retry': {
      const held = jobsOf(m, 'active').sort(byScore);
      const job = held[o.pick % Math.max(1, held.length)];
      if (!job) return;
      const was = serviceable(m, job.group);
      if (o.kind === 'complete') {
        await q.complete(job.id, job.token as string);
        // Retained (when the completion scripts keep completed jobs) or gone.
        const at = await q.redis.zscore(q.keys.completed, job.id);
        job.place = at === null ? 'gone' : 'completed';
        job.at = Number(at);
      } else {
        const after = await q.retry(job.id, job.token as string, 'failed');
        if (job.attempts >= job.maxAttempts) {
          expect(after.state).toBe('DEAD');
          job.place = 'dead';
          job.at = Number(await q.redis.zscore(q.keys.dead, job.id));
        } else {
          expect(after.state).toBe('PENDING');
          job.place = 'pending';
        }
      }
      job.token = null;
      settle(m, job.group, was);
      return;
    }
    case 'setLimit':
    case 'clearLimit':
    case 'pause':
    case 'resume': {
      const g = GROUPS[o.group] as string;
      const was = serviceable(m, g);
      if (o.kind === 'setLimit') {
        await q.setLimit(g, o.limit);
        m.limits.set(g, o.limit);
      } else if (o.kind === 'clearLimit') {
        await q.clearLimit(g);
        m.limits.delete(g);
      } else if (o.kind === 'pause') {
        await q.pause(g);
        m.paused.add(g);
      } else {
        await q.resume(g);
        m.paused.delete(g);
      }
      settle(m, g, was);
      return;
    }
    case 'requeueDead': {
      const chosen = chooseSelect(m, o.select);
      const real = await q.requeueDead(chosen, { resetAttempts: o.reset, limit: o.limit });
      expect(real).toEqual(modelRequeue(m, chosen, o.reset, o.limit));
      return;
    }
    case 'removeJobs':
    case 'purgeGroup': {
      const state = o.kind === 'purgeGroup' ? 'PENDING' : STATES[o.state];
      let chosen =
        o.kind === 'purgeGroup' ? { group: GROUPS[o.group] as string } : chooseSelect(m, o.select);
      // A group or all needs a state; all cannot take PENDING: those selections go by ids.
      if (!('ids' in chosen) && (state === undefined || ('all' in chosen && state === 'PENDING'))) {
        chosen = { ids: idsOf(m, [0, 1, 2]) };
      }
      const call = { ...chosen, state } as Parameters<Queue['removeJobs']>[0];
      const real =
        o.kind === 'purgeGroup'
          ? await q.purgeGroup(GROUPS[o.group] as string, { limit: o.limit })
          : await q.removeJobs(call, { limit: o.limit });
      expect(real).toEqual(modelRemove(m, chosen, state, o.limit));
      return;
    }
  }
}

function chooseSelect(m: Model, s: Select): { ids: string[] } | { group: string } | { all: true } {
  if ('ids' in s) return { ids: idsOf(m, s.ids) };
  if ('group' in s) return { group: GROUPS[s.group] as string };
  return { all: true };
}

function modelRequeue(
  m: Model,
  chosen: { ids: string[] } | { group: string } | { all: true },
  reset: boolean,
  limit: number,
): JobActionResult {
  let candidates: MJob[];
  let skipped = 0;
  if ('ids' in chosen) {
    const unique = [...new Set(chosen.ids)];
    skipped = chosen.ids.length - unique.length;
    candidates = [];
    for (const id of unique) {
      const job = m.jobs.get(id);
      if (job?.place === 'dead') candidates.push(job);
      else skipped += 1;
    }
  } else {
    candidates = jobsOf(m, 'dead', 'group' in chosen ? chosen.group : undefined)
      .sort(byIndex)
      .slice(0, limit);
  }
  const groups: { g: string; was: boolean }[] = [];
  for (const job of candidates) {
    if (!groups.some((x) => x.g === job.group)) {
      groups.push({ g: job.group, was: serviceable(m, job.group) });
    }
  }
  for (const job of candidates) {
    job.place = 'pending';
    if (reset) job.attempts = 0;
  }
  // settleAfterGain, group by group in the order the script met them.
  for (const { g, was } of groups) settle(m, g, was);
  m.requeued += candidates.length;
  const remaining =
    'ids' in chosen ? 0 : jobsOf(m, 'dead', 'group' in chosen ? chosen.group : undefined).length;
  return { count: candidates.length, remaining, skipped };
}

const PLACE_OF = {
  PENDING: 'pending',
  DELAYED: 'delayed',
  DEAD: 'dead',
  COMPLETED: 'completed',
} as const;

function modelRemove(
  m: Model,
  chosen: { ids: string[] } | { group: string } | { all: true },
  state: (typeof STATES)[number],
  limit: number,
): JobActionResult {
  const wanted = state === undefined ? undefined : PLACE_OF[state];
  let candidates: MJob[];
  let skipped = 0;
  if ('ids' in chosen) {
    const unique = [...new Set(chosen.ids)];
    skipped = chosen.ids.length - unique.length;
    candidates = [];
    for (const id of unique) {
      const job = m.jobs.get(id);
      const removable = job && ['pending', 'delayed', 'dead', 'completed'].includes(job.place);
      if (job && removable && (wanted === undefined || job.place === wanted)) candidates.push(job);
      else skipped += 1;
    }
  } else {
    const place = wanted as Place;
    const g = 'group' in chosen ? chosen.group : undefined;
    candidates = jobsOf(m, place, g)
      .sort(place === 'pending' ? byScore : byIndex)
      .slice(0, limit);
  }
  const groups: { g: string; was: boolean }[] = [];
  for (const job of candidates) {
    if (job.place === 'pending' && !groups.some((x) => x.g === job.group)) {
      groups.push({ g: job.group, was: serviceable(m, job.group) });
    }
  }
  for (const job of candidates) {
    job.place = 'gone';
    job.removed = true;
  }
  for (const { g, was } of groups) settle(m, g, was);
  m.removed += candidates.length;
  const remaining =
    'ids' in chosen
      ? 0
      : jobsOf(m, wanted as Place, 'group' in chosen ? chosen.group : undefined).length;
  return { count: candidates.length, remaining, skipped };
}

// ── the comparison ──────────────────────────────────────────────────────────────────────

/** Redis against the model, key by key, and the counters. */
async function compare(q: Queue, m: Model): Promise<void> {
  const r = q.redis;
  const k = q.keys;
  const sorted = (ids: string[]) => [...ids].sort();
  expect(await r.lrange(k.ring, 0, -1)).toEqual(m.ring);
  for (const g of GROUPS) {
    expect(await r.zrange(k.lane(g), 0, -1)).toEqual(lane(m, g).map((j) => j.id));
    for (const [place, key] of [
      ['delayed', k.groupDelayed(g)],
      ['dead', k.groupDead(g)],
      ['completed', k.groupCompleted(g)],
    ] as [Indexed, string][]) {
      expect(sorted(await r.zrange(key, 0, -1)), `${g} ${place}`).toEqual(
        sorted(jobsOf(m, place, g).map((j) => j.id)),
      );
    }
  }
  for (const [place, key] of [
    ['active', k.active],
    ['delayed', k.delayed],
    ['dead', k.dead],
    ['completed', k.completed],
  ] as [Place, string][]) {
    expect(sorted(await r.zrange(key, 0, -1)), place).toEqual(
      sorted(jobsOf(m, place).map((j) => j.id)),
    );
  }
  for (const job of m.jobs.values()) {
    const [state, attempts] = await r.hmget(k.job(job.id), 'state', 'attempts');
    if (job.place === 'gone') {
      expect(state, `job ${job.id} gone`).toBeNull();
      if (job.removed) expect(await r.exists(k.errors(job.id)), `${job.id} errors`).toBe(0);
    } else {
      expect([job.id, state, Number(attempts)]).toEqual([job.id, job.place, job.attempts]);
    }
  }
  const stats = await r.hgetall(k.stats);
  const n = (f: string) => Number(stats[f] ?? 0);
  expect({
    removed: n('removed'),
    requeued: n('requeued'),
    pending: n('pending'),
    delayed: n('delayed'),
    active: n('active'),
  }).toEqual({
    removed: m.removed,
    requeued: m.requeued,
    pending: jobsOf(m, 'pending').length,
    delayed: jobsOf(m, 'delayed').length,
    active: jobsOf(m, 'active').length,
  });
  expect((await q.audit()).findings).toEqual([]);
}

const coverage = { requeued: 0, removed: 0, deRinged: 0, reRinged: 0 };

describe('operator actions among the traffic (property)', () => {
  it('answers, places, ring, counters and audit agree with the model after every step', async () => {
    await fc.assert(
      fc.asyncProperty(seed, fc.array(op, { minLength: 5, maxLength: 40 }), async (first, rest) => {
        const ops = [...first, ...rest];
        const q = engine.queue();
        const m: Model = {
          jobs: new Map(),
          ring: [],
          paused: new Set(),
          limits: new Map(),
          removed: 0,
          requeued: 0,
        };
        for (const [i, o] of ops.entries()) {
          const ringBefore = [...m.ring];
          const removedBefore = m.removed;
          const requeuedBefore = m.requeued;
          try {
            await step(q, m, o);
            await compare(q, m);
          } catch (error) {
            throw new Error(`step ${i} ${JSON.stringify(o)}: ${(error as Error).message}`);
          }
          if (o.kind === 'requeueDead' && m.requeued > requeuedBefore) {
            coverage.requeued += 1;
            if (m.ring.length > ringBefore.length) coverage.reRinged += 1;
          }
          if ((o.kind === 'removeJobs' || o.kind === 'purgeGroup') && m.removed > removedBefore) {
            coverage.removed += 1;
            if (m.ring.length < ringBefore.length) coverage.deRinged += 1;
          }
        }
      }),
      {
        numRuns: NUM_RUNS,
        ...(env.FC_SEED ? { seed: Number(env.FC_SEED) } : {}),
        ...(env.FC_PATH ? { path: env.FC_PATH } : {}),
      },
    );
    console.info(`[actions.model] coverage ${JSON.stringify(coverage)}`);
    expect(coverage.requeued).toBeGreaterThan(5);
    expect(coverage.removed).toBeGreaterThan(5);
    expect(coverage.reRinged).toBeGreaterThan(0);
    expect(coverage.deRinged).toBeGreaterThan(0);
  }, 600_000);
});
