/**
 * The oldest-pending index `P:{Q}:heads` (DESIGN.md §2, §3 "Oldest pending"; includes/heads.lua)
 * and `Queue.metrics().oldestPending` (readMetrics-7.lua), against a brute-force minimum over
 * every lane.
 *
 * Property: after any interleaving of enqueues (at once, delayed a few ms, delayed long then
 * promoted by id), claims (leases long, or 1 ms so the reaper takes them back), completions,
 * completeAndClaim, retries (back to the lane at once, or dead at the last attempt), reaps,
 * requeues of dead jobs, removals of pending jobs, pauses and limits, each job enqueued at a
 * random priority and some given a new one (changeJobPriority):
 * - the index invariant holds: a group is in `heads` exactly when its lane is not empty, at a
 *   value ≤ its lane's lowest job id (checked from the raw keys before the metrics read mends
 *   anything);
 * - `metrics()` answers, settled, the job with the lowest id over all lanes — the oldest,
 *   whatever the priorities of the jobs ahead of it in its lane — (none when every lane is
 *   empty), with its lane score, its `enqueuedAt` and an age of `at − enqueuedAt`;
 * - after that read, every entry of `heads` left at the front is exact (the read mended it);
 * - the group rankings (includes/groupRanks.lua; DESIGN.md §3, "Group rankings") equal the
 *   truth: `gpending` holds exactly the non-empty lanes at minus their sizes, `gactiverank`
 *   exactly the fields of `gactive` at minus their counts, and `topGroups` answers, for each
 *   ranking, the brute-force order (counts descending, oldest pending id ascending; ties in
 *   group order).
 *
 * Replay: FC_SEED=<seed> FC_PATH=<path> npx vitest run test/lanes/heads.property.test.ts
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const GROUPS = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
const RUNS = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : 60;
const REPLAYING = process.env.FC_SEED !== undefined;

type Call =
  | {
      kind: 'enqueue';
      group: number;
      maxAttempts: number;
      delay: 'none' | 'short' | 'long';
      priority: number;
    }
  | { kind: 'changePriority'; pick: number; priority: number }
  | { kind: 'claim'; short: boolean }
  | { kind: 'complete' | 'retry'; pick: number }
  | { kind: 'completeAndClaim'; pick: number; claims: number }
  | { kind: 'reap' }
  | { kind: 'promote'; pick: number }
  | { kind: 'requeueDead'; group: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'pause' | 'resume'; group: number }
  | { kind: 'setLimit'; group: number; limit: number }
  | { kind: 'sleep' };

const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const pick = fc.nat(1_000);
// Half the jobs at the default priority, the rest anywhere from 1 to 9 (DESIGN.md §3 "Priorities").
const priority = fc.oneof(fc.constant(5), fc.integer({ min: 1, max: 9 }));
const callArb: fc.Arbitrary<Call> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group,
      maxAttempts: fc.integer({ min: 1, max: 2 }),
      delay: fc.constantFrom('none' as const, 'none' as const, 'short' as const, 'long' as const),
      priority,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('changePriority' as const), pick, priority }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('claim' as const), short: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constantFrom('complete' as const, 'retry' as const), pick }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('completeAndClaim' as const),
      pick,
      claims: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'reap' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('promote' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('requeueDead' as const), group }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constantFrom('pause' as const, 'resume' as const), group }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group,
      limit: fc.integer({ min: 0, max: 2 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'sleep' as const }) },
);

interface Tracker {
  /** Job ids enqueued, in order. */
  readonly ids: string[];
  /** Leases held: id → token. */
  readonly leases: Map<string, string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function apply(q: Queue, call: Call, t: Tracker): Promise<void> {
  const leased = (n: number): [string, string] | undefined => {
    const all = [...t.leases];
    return all.length === 0 ? undefined : all[n % all.length];
  };
  try {
    switch (call.kind) {
      case 'enqueue': {
        const delayMs = call.delay === 'short' ? 2 : call.delay === 'long' ? 600_000 : undefined;
        const job = await q.enqueue(GROUPS[call.group] as string, null, {
          maxAttempts: call.maxAttempts,
          ...(delayMs === undefined ? {} : { delayMs }),
          priority: call.priority,
        });
        t.ids.push(job.id);
        return;
      }
      case 'changePriority': {
        const id = t.ids[call.pick % Math.max(1, t.ids.length)];
        if (id !== undefined) await q.changeJobPriority(id, call.priority);
        return;
      }
      case 'claim': {
        const job = await q.claim({ leaseMs: call.short ? 1 : 60_000 });
        if (job) t.leases.set(job.id, job.token as string);
        return;
      }
      case 'complete':
      case 'retry': {
        const lease = leased(call.pick);
        if (!lease) return;
        t.leases.delete(lease[0]);
        if (call.kind === 'complete') await q.complete(lease[0], lease[1]);
        else await q.retry(lease[0], lease[1], { error: 'failed', delayMs: 0 });
        return;
      }
      case 'completeAndClaim': {
        const lease = leased(call.pick);
        if (lease) t.leases.delete(lease[0]);
        const result = await q.completeAndClaim(lease ? [{ id: lease[0], token: lease[1] }] : [], {
          claim: call.claims,
          leaseMs: 60_000,
        });
        for (const job of result.claimed) t.leases.set(job.id, job.token as string);
        return;
      }
      case 'reap':
        await q.reap();
        return;
      case 'promote': {
        const id = t.ids[call.pick % Math.max(1, t.ids.length)];
        if (id !== undefined) await q.promote(id);
        return;
      }
      case 'requeueDead':
        await q.requeueDead({ group: GROUPS[call.group] as string });
        return;
      case 'remove': {
        const id = t.ids[call.pick % Math.max(1, t.ids.length)];
        if (id !== undefined) await q.removeJobs({ ids: [id], state: 'PENDING' });
        return;
      }
      case 'pause':
      case 'resume':
        await q[call.kind](GROUPS[call.group] as string);
        return;
      case 'setLimit':
        await q.setLimit(GROUPS[call.group] as string, call.limit);
        return;
      case 'sleep':
        await sleep(3);
        return;
    }
  } catch (error) {
    // A lease the reaper took back meanwhile: the call is refused, nothing changed.
    if (error instanceof RingmasterError && ['LEASE_LOST', 'JOB_NOT_FOUND'].includes(error.code))
      return;
    throw error;
  }
}

/**
 * Each group's oldest pending job `{ id, score }` — the lowest id in its lane, whatever its
 * priority (undefined for an empty lane) — and `heads`, raw.
 */
async function rawHeads(redis: Redis, q: Queue) {
  const m = redis.multi();
  for (const g of GROUPS) m.zrange(q.keys.lane(g), 0, -1, 'WITHSCORES');
  m.zrange(q.keys.heads, 0, -1, 'WITHSCORES');
  const replies = ((await m.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value as string[];
  });
  const lanes = new Map<string, { id: string; score: number }>();
  GROUPS.forEach((g, i) => {
    const r = replies[i] as string[];
    for (let j = 0; j < r.length; j += 2) {
      const id = r[j] as string;
      const oldest = lanes.get(g);
      if (!oldest || Number(id) < Number(oldest.id)) lanes.set(g, { id, score: Number(r[j + 1]) });
    }
  });
  const flat = replies[GROUPS.length] as string[];
  const heads = new Map<string, number>();
  for (let i = 0; i < flat.length; i += 2) heads.set(flat[i] as string, Number(flat[i + 1]));
  return { lanes, heads };
}

/** The rankings against the lanes and `gactive`, raw, and `topGroups` against brute force. */
async function checkRanks(redis: Redis, q: Queue): Promise<void> {
  const m = redis.multi();
  for (const g of GROUPS) m.zrange(q.keys.lane(g), 0, -1);
  m.hgetall(q.keys.gactive);
  m.zrange(q.keys.pendingRank, 0, -1, 'WITHSCORES');
  m.zrange(q.keys.activeRank, 0, -1, 'WITHSCORES');
  const replies = ((await m.exec()) ?? []).map(([err, value]) => {
    if (err) throw err;
    return value;
  });
  const pending = new Map<string, number>();
  const oldest = new Map<string, number>();
  GROUPS.forEach((g, i) => {
    const ids = replies[i] as string[];
    if (ids.length > 0) {
      pending.set(g, ids.length);
      oldest.set(g, Math.min(...ids.map(Number)));
    }
  });
  const active = new Map(
    Object.entries(replies[GROUPS.length] as Record<string, string>).map(([g, n]) => [
      g,
      Number(n),
    ]),
  );
  const asMap = (flat: string[]) => {
    const out = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) out.set(flat[i] as string, -Number(flat[i + 1]));
    return out;
  };
  expect(asMap(replies[GROUPS.length + 1] as string[])).toEqual(pending);
  expect(asMap(replies[GROUPS.length + 2] as string[])).toEqual(active);

  const byCount = (counts: Map<string, number>) =>
    [...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1)).map(([g]) => g);
  const expected = {
    PENDING: byCount(pending),
    ACTIVE: byCount(active),
    OLDEST_PENDING: [...oldest].sort(([, x], [, y]) => x - y).map(([g]) => g),
  };
  for (const by of ['PENDING', 'ACTIVE', 'OLDEST_PENDING'] as const) {
    const first = 1 + (pending.size % 4);
    const top = await q.topGroups(by, first);
    expect(top.map((g) => g.id)).toEqual(expected[by].slice(0, first));
    for (const g of top) {
      expect(g.pending).toBe(pending.get(g.id) ?? 0);
      expect(g.active).toBe(active.get(g.id) ?? 0);
      expect(g.oldestPendingId).toBe(oldest.has(g.id) ? String(oldest.get(g.id)) : null);
    }
  }
}

async function check(redis: Redis, q: Queue): Promise<void> {
  await checkRanks(redis, q);
  const { lanes, heads } = await rawHeads(redis, q);
  for (const [g, head] of lanes) {
    const bound = heads.get(g);
    if (bound === undefined) throw new Error(`heads: group ${g} has pending work but no entry`);
    if (bound > Number(head.id))
      throw new Error(`heads: ${g} at ${bound} > its lane's oldest id ${head.id}`);
  }
  for (const g of heads.keys()) {
    if (!lanes.has(g)) throw new Error(`heads: group ${g} has an entry but an empty lane`);
  }
  let oldest: { id: string; score: number } | undefined;
  for (const head of lanes.values())
    if (!oldest || Number(head.id) < Number(oldest.id)) oldest = head;

  const m = await q.metrics();
  expect(m.settled).toBe(true);
  if (!oldest) {
    expect(m.oldestPending).toBeNull();
    return;
  }
  expect(m.oldestPending?.id).toBe(oldest.id);
  expect(m.oldestPending?.score).toBe(oldest.score);
  const enqueuedAt = Number(await redis.hget(q.keys.job(oldest.id), 'enqueuedAt'));
  expect(m.oldestPending?.enqueuedAt).toBe(enqueuedAt);
  expect(m.oldestPending?.ageMs).toBe(Math.max(0, m.at - enqueuedAt));
  // The read mended the front of the index: its first entry is exact now.
  const after = await redis.zrange(q.keys.heads, 0, 0, 'WITHSCORES');
  expect(after).toEqual([[...lanes].find(([, h]) => h.id === oldest.id)?.[0], oldest.id]);
}

describe('oldest pending job: heads index vs brute force', () => {
  const engine = useEngine();

  it('agrees with the minimum over every lane after random sequences', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(callArb, { minLength: 1, maxLength: 40 }), async (calls) => {
        const q = engine.queue();
        const t: Tracker = { ids: [], leases: new Map() };
        for (const call of calls) {
          await apply(q, call, t);
          await check(engine.redis(), q);
        }
      }),
      {
        numRuns: RUNS,
        ...(REPLAYING ? { seed: Number(process.env.FC_SEED) } : {}),
        ...(process.env.FC_PATH !== undefined ? { path: process.env.FC_PATH } : {}),
      },
    );
  }, 120_000);

  it('works off a backlog of stale entries maxSteps at a time, settled once done', async () => {
    const q = engine.queue();
    for (const g of GROUPS) await q.enqueue(g, null);
    const seconds: Job[] = [];
    for (const g of GROUPS) seconds.push(await q.enqueue(g, null));
    // Claim every lane's first job: every entry of heads goes stale (its lane's head rose);
    // none is dropped, as no lane is empty.
    for (let i = 0; i < GROUPS.length; i++) await q.claim();
    expect(await engine.redis().zcard(q.keys.heads)).toBe(GROUPS.length);

    const first = await q.metrics({ maxSteps: 2 });
    expect(first).toMatchObject({ settled: false, oldestPending: null, mended: 2 });
    const second = await q.metrics({ maxSteps: 2 });
    expect(second).toMatchObject({ settled: false, oldestPending: null, mended: 2 });
    const third = await q.metrics({ maxSteps: 2 });
    expect(third.settled).toBe(true);
    expect(third.oldestPending?.id).toBe(seconds[0]?.id);
    expect(await engine.redis().zrange(q.keys.heads, 0, -1, 'WITHSCORES')).toEqual(
      GROUPS.flatMap((g, i) => [g, seconds[i]?.id]),
    );
    // Settled and exact: a read mends nothing.
    expect((await q.metrics()).mended).toBe(0);
  });

  it('a dead job requeued to an empty lane is noted in heads', async () => {
    const q = engine.queue();
    const job = await q.enqueue('a', null, { maxAttempts: 1 });
    const claimed = await q.claim();
    await q.retry(job.id, claimed?.token as string, 'boom');
    // The claim dropped a's entry: it emptied the lane.
    expect((await q.metrics()).oldestPending).toBeNull();
    expect(await engine.redis().zcard(q.keys.heads)).toBe(0);
    await q.requeueDead({ group: 'a' });
    expect(await engine.redis().zscore(q.keys.heads, 'a')).toBe(job.id);
    expect((await q.metrics()).oldestPending?.id).toBe(job.id);
  });

  it('repair indexes a lane another writer filled', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const later = await q.enqueue('b', null);
    // A seed writer's lane: a bare id at a score below every Ringmaster job, no heads entry.
    await r.zadd(q.keys.lane('a'), 0, 'seed-1');
    await r.zadd(q.keys.groups, 0, 'a');
    expect((await q.metrics()).oldestPending?.id).toBe(later.id);
    await q.repair();
    expect(await r.zscore(q.keys.heads, 'a')).toBe('0');
    const m = await q.metrics();
    expect(m.oldestPending).toMatchObject({
      id: 'seed-1',
      score: 0,
      enqueuedAt: null,
      ageMs: null,
    });
  });

  it('refuses a maxSteps out of range before sending anything', async () => {
    const q = engine.queue();
    await expect(q.metrics({ maxSteps: 0 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'maxSteps',
    });
  });
});
