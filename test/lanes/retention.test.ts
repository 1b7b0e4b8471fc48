/**
 * The completed retention (DESIGN.md §2 "Retention", §3 complete/completeAndClaim):
 * a completed job is kept (its hash, state completed with finishedAt, in `completed` and its
 * group's index) while it is among the newest `count` and younger than `ageMs`; each completion
 * trims at most 2 of the oldest past the policy per job it keeps; count 0 deletes the hash and
 * its error list at once. `Queue.setRetention` / `Queue.retention`.
 */
import { describe, expect, it } from 'vitest';
import {
  Defaults,
  ErrorCode,
  type Job,
  type Queue,
  RingmasterError,
} from '../../src/lanes/index.js';
import {
  escapeGlob,
  redisNow,
  scanAll,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

/**
 * The queue's keys (and the registry) byte for byte, with each key's absolute expiry
 * (PEXPIRETIME), which does not count down as a PTTL does: equal snapshots mean nothing of the
 * queue was written.
 */
async function snapshot(q: Queue): Promise<Map<string, string>> {
  const r = q.redis;
  const keys = [...(await scanAll(r, `${escapeGlob(q.keys.base)}*`)), 'emq:queues'].sort();
  const out = new Map<string, string>();
  for (const key of keys) {
    const [dump, expiry] = await Promise.all([r.dumpBuffer(key), r.call('PEXPIRETIME', key)]);
    out.set(key, `${dump?.toString('hex') ?? 'nil'}|${expiry}`);
  }
  return out;
}

/** Enqueue `n` jobs round robin over `groups` and claim them all; returns them in claim order. */
async function claimedJobs(q: Queue, n: number, groups = ['a', 'b']): Promise<Job[]> {
  for (let i = 0; i < n; i++) await q.enqueue(groups[i % groups.length] as string, { i });
  const jobs: Job[] = [];
  for (let i = 0; i < n; i++) jobs.push((await q.claim()) as Job);
  return jobs;
}

/** An error history on a job, as the failure path keeps it (the list only matters here). */
async function withErrors(q: Queue, id: string): Promise<void> {
  await q.redis.lpush(q.keys.errors(id), JSON.stringify({ attempt: 1, at: 1, message: 'x' }));
}

/**
 * The retained completed jobs, checked for agreement: `completed` equals the union of the group
 * indexes (same scores), and every member's hash says completed at that score. Returns the ids.
 */
async function retained(q: Queue, groups = ['a', 'b']): Promise<string[]> {
  const r = q.redis;
  const all = await r.zrange(q.keys.completed, 0, -1, 'WITHSCORES');
  const byGroup: string[] = [];
  for (const g of groups)
    byGroup.push(...(await r.zrange(q.keys.groupCompleted(g), 0, -1, 'WITHSCORES')));
  const pairs = (flat: string[]) => {
    const out: string[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push(`${flat[i]}@${flat[i + 1]}`);
    return out.sort();
  };
  expect(pairs(byGroup)).toEqual(pairs(all));
  const ids: string[] = [];
  for (let i = 0; i + 1 < all.length; i += 2) {
    const id = all[i] as string;
    ids.push(id);
    const [state, finishedAt, token, leaseUntil] = await r.hmget(
      q.keys.job(id),
      'state',
      'finishedAt',
      'token',
      'leaseUntil',
    );
    expect({ id, state, finishedAt, token, leaseUntil }).toEqual({
      id,
      state: 'completed',
      finishedAt: all[i + 1],
      token: null,
      leaseUntil: null,
    });
  }
  return ids.sort((x, y) => Number(x) - Number(y));
}

/** Whether a job left no trace: no hash, no error list, in no completed index. */
async function gone(q: Queue, id: string, group: string): Promise<boolean> {
  const r = q.redis;
  return (
    (await r.exists(q.keys.job(id), q.keys.errors(id))) === 0 &&
    (await r.zscore(q.keys.completed, id)) === null &&
    (await r.zscore(q.keys.groupCompleted(group), id)) === null
  );
}

describe('the default completed retention', () => {
  it('keeps a completed job: state COMPLETED with finishedAt, in completed and its group index', async () => {
    const q = engine.queue();
    const [job] = await claimedJobs(q, 1);
    const j = job as Job;
    const done = await q.complete(j.id, j.token as string);
    expect(done).toMatchObject({ id: j.id, state: 'COMPLETED', token: null, leaseUntil: null });
    expect(await retained(q)).toEqual([j.id]);
    expect(await q.redis.zscore(q.keys.completed, j.id)).toBe(String(done.finishedAt));
    expect(await q.job(j.id)).toMatchObject({
      state: 'COMPLETED',
      finishedAt: done.finishedAt,
      attempts: 1,
      claimedAt: j.claimedAt,
      payload: { i: 0 },
    });
    expect((await q.counts()).completed).toBe(1);
    expect((await q.snapshot()).counts.completed).toBe(1);
    expect(await statsOf(q)).toMatchObject({ completed: 1, active: 0 });
    expect(await q.retention()).toEqual({
      completed: Defaults.completedRetention,
      dead: Defaults.deadRetention,
    });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('completeAndClaim keeps its completions the same way, stamped with the call’s finishedAt', async () => {
    const q = engine.queue();
    const jobs = await claimedJobs(q, 4);
    const result = await q.completeAndClaim(
      jobs.map((j) => ({ id: j.id, token: j.token as string })),
      { claim: 0 },
    );
    expect(result.refused).toEqual([null, null, null, null]);
    expect(await retained(q)).toEqual(jobs.map((j) => j.id));
    for (const j of jobs) {
      expect(await q.redis.zscore(q.keys.groupCompleted(j.group), j.id)).toBe(
        String(result.finishedAt),
      );
    }
  });

  it('an idempotency key answers the retained job as it is (COMPLETED, attempts, finishedAt)', async () => {
    const q = engine.queue();
    const job = await q.enqueue('a', { n: 1 }, { key: 'k' });
    const claimed = (await q.claim()) as Job;
    const done = await q.complete(claimed.id, claimed.token as string);
    const before = await snapshot(q);
    const again = await q.enqueue('a', { n: 1 }, { key: 'k' });
    expect(again).toMatchObject({
      id: job.id,
      state: 'COMPLETED',
      attempts: 1,
      finishedAt: done.finishedAt,
      token: null,
    });
    expect(await snapshot(q)).toEqual(before);
  });
});

describe('count bound', () => {
  it('count 3, ten completions one by one: the newest 3 kept, the rest gone with their error lists', async () => {
    const q = engine.queue();
    expect(await q.setRetention({ completed: { count: 3 } })).toEqual({
      completed: { count: 3, ageMs: Defaults.completedRetention.ageMs },
      dead: Defaults.deadRetention,
    });
    const jobs = await claimedJobs(q, 10);
    for (const j of jobs) await withErrors(q, j.id);
    for (const [i, j] of jobs.entries()) {
      await q.complete(j.id, j.token as string);
      // Never above the bound: each completion trims what its own job pushes over it.
      expect(await q.redis.zcard(q.keys.completed)).toBe(Math.min(i + 1, 3));
    }
    const kept = await retained(q);
    expect(kept).toHaveLength(3);
    // One by one, each at a later or equal instant: the last three completed are the ones kept
    // (ties at one millisecond go by id text, as Redis orders equal scores).
    for (const j of jobs.filter((x) => !kept.includes(x.id))) {
      expect(await gone(q, j.id, j.group)).toBe(true);
    }
    for (const id of kept) expect(await q.redis.exists(q.keys.errors(id))).toBe(1);
    expect(await statsOf(q)).toMatchObject({ completed: 10 });
    expect((await q.counts()).completed).toBe(3);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a lowered bound is reached incrementally: at most 2 trimmed per job kept', async () => {
    const q = engine.queue();
    const first = await claimedJobs(q, 10);
    for (const j of first) await q.complete(j.id, j.token as string);
    expect(await q.redis.zcard(q.keys.completed)).toBe(10);
    await q.setRetention({ completed: { count: 2 } });
    // setRetention trims nothing itself.
    expect(await q.redis.zcard(q.keys.completed)).toBe(10);
    const more = await claimedJobs(q, 6);
    const sizes: number[] = [];
    for (const j of more) {
      await q.complete(j.id, j.token as string);
      sizes.push(await q.redis.zcard(q.keys.completed));
    }
    // Each completion adds one and trims two of the oldest: one fewer each time.
    expect(sizes).toEqual([9, 8, 7, 6, 5, 4]);
    const batch = await claimedJobs(q, 3);
    await q.completeAndClaim(
      batch.map((j) => ({ id: j.id, token: j.token as string })),
      { claim: 0 },
    );
    // 4 + 3 kept, at most 6 trimmed, down to the bound of 2.
    expect(await retained(q)).toHaveLength(2);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('completeAndClaim: count 3, batches of 5 keep exactly 3, the group indexes in step', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 3 } });
    const jobs = await claimedJobs(q, 10, ['a', 'b', 'c']);
    for (const j of jobs) await withErrors(q, j.id);
    const complete = (part: Job[]) =>
      q.completeAndClaim(
        part.map((j) => ({ id: j.id, token: j.token as string })),
        { claim: 0 },
      );
    const one = await complete(jobs.slice(0, 5));
    expect(one.refused.every((r) => r === null)).toBe(true);
    expect(await retained(q, ['a', 'b', 'c'])).toHaveLength(3);
    await complete(jobs.slice(5));
    const kept = await retained(q, ['a', 'b', 'c']);
    expect(kept).toHaveLength(3);
    // The second batch is newer: its jobs are the ones kept.
    for (const id of kept) expect(jobs.slice(5).map((j) => j.id)).toContain(id);
    for (const j of jobs.filter((x) => !kept.includes(x.id))) {
      expect(await gone(q, j.id, j.group)).toBe(true);
    }
    expect(await statsOf(q)).toMatchObject({ completed: 10, active: 0 });
    expect((await q.audit()).findings).toEqual([]);
  });
});

describe('the reaper trims what the completions leave', () => {
  it('switched to count 0, the jobs kept before go with the next reap, not with the completions', async () => {
    const q = engine.queue();
    const kept = await claimedJobs(q, 5);
    for (const j of kept) await q.complete(j.id, j.token as string);
    await q.setRetention({ completed: { count: 0 } });
    // The fastest path reads nothing more: completions under count 0 leave the old ones.
    const [late] = await claimedJobs(q, 1);
    await q.complete((late as Job).id, (late as Job).token as string);
    expect(await q.redis.zcard(q.keys.completed)).toBe(5);
    await q.reap();
    expect(await q.redis.zcard(q.keys.completed)).toBe(0);
    for (const j of [...kept, late as Job]) expect(await gone(q, j.id, j.group)).toBe(true);
    expect((await q.audit()).findings).toEqual([]);
  });
});

describe('age bound', () => {
  it('jobs older than ageMs go with the next completions (at most 2 per job kept)', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 100, ageMs: 50 } });
    const old = await claimedJobs(q, 3);
    for (const j of old) await q.complete(j.id, j.token as string);
    const last = Number(await q.redis.zscore(q.keys.completed, (old[2] as Job).id));
    await untilRedisTimePasses(q.redis, last + 50);
    const fresh = await claimedJobs(q, 2);
    await q.complete((fresh[0] as Job).id, (fresh[0] as Job).token as string);
    // Two of the three old ones trimmed by this one completion, the third by the next.
    expect(await q.redis.zcard(q.keys.completed)).toBe(2);
    await q.complete((fresh[1] as Job).id, (fresh[1] as Job).token as string);
    expect(await retained(q)).toEqual(fresh.map((j) => j.id));
    for (const j of old) expect(await gone(q, j.id, j.group)).toBe(true);
  });

  it('past the count and past the age in one call: the count’s victims, then the aged ones after them', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 2, ageMs: 50 } });
    const old = await claimedJobs(q, 2);
    for (const j of old) await q.complete(j.id, j.token as string);
    const last = Number(await q.redis.zscore(q.keys.completed, (old[1] as Job).id));
    await untilRedisTimePasses(q.redis, last + 50);
    const [fresh] = await claimedJobs(q, 1);
    // Three kept, count 2: the oldest goes by the count; the next is past the age too, so it
    // goes by the age in the same call (at most 2 per job kept).
    await q.complete((fresh as Job).id, (fresh as Job).token as string);
    expect(await retained(q)).toEqual([(fresh as Job).id]);
    for (const j of old) expect(await gone(q, j.id, j.group)).toBe(true);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('ageMs null keeps by count alone, stored as none', async () => {
    const q = engine.queue();
    const policy = await q.setRetention({ completed: { count: 5, ageMs: null } });
    expect(policy.completed).toEqual({ count: 5, ageMs: null });
    expect(await q.redis.hget(q.keys.settings, 'completedAgeMs')).toBe('none');
    expect((await q.retention()).completed).toEqual({ count: 5, ageMs: null });
    const jobs = await claimedJobs(q, 2);
    for (const j of jobs) await q.complete(j.id, j.token as string);
    expect(await retained(q)).toHaveLength(2);
  });
});

describe('count 0: completed jobs are not kept', () => {
  it('complete deletes the hash and its error list at once; the reply is as before', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    const [j] = await claimedJobs(q, 1);
    const job = j as Job;
    await withErrors(q, job.id);
    const done = await q.complete(job.id, job.token as string);
    expect(done).toMatchObject({ id: job.id, state: 'COMPLETED', attempts: 1 });
    expect(done.finishedAt).toEqual(expect.any(Number));
    expect(await gone(q, job.id, job.group)).toBe(true);
    expect(await q.job(job.id)).toBeNull();
    expect(await q.redis.exists(q.keys.completed)).toBe(0);
    expect(await statsOf(q)).toMatchObject({ completed: 1 });
    expect((await q.counts()).completed).toBe(0);
  });

  it('completeAndClaim deletes a batch, error lists included', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    const jobs = await claimedJobs(q, 5);
    for (const j of jobs) await withErrors(q, j.id);
    const result = await q.completeAndClaim(
      jobs.map((j) => ({ id: j.id, token: j.token as string })),
      { claim: 1 },
    );
    expect(result.refused).toEqual([null, null, null, null, null]);
    for (const j of jobs) expect(await gone(q, j.id, j.group)).toBe(true);
    expect(await statsOf(q)).toMatchObject({ completed: 5 });
  });
});

describe('setRetention and retention()', () => {
  it('a field left out keeps what is stored; each policy is set apart', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 7, ageMs: 1_000 } });
    expect(await q.setRetention({ completed: { count: 9 } })).toEqual({
      completed: { count: 9, ageMs: 1_000 },
      dead: Defaults.deadRetention,
    });
    expect(await q.setRetention({ dead: { ageMs: null } })).toEqual({
      completed: { count: 9, ageMs: 1_000 },
      dead: { count: Defaults.deadRetention.count, ageMs: null },
    });
    expect(await q.setRetention({})).toEqual(await q.retention());
    expect(await q.redis.hgetall(q.keys.settings)).toEqual({
      completedCount: '9',
      completedAgeMs: '1000',
      deadAgeMs: 'none',
      // The queue's identity, written by the engine's first state check (DESIGN.md §3).
      epoch: expect.any(String),
    });
    expect(await q.known()).toBe(true);
  });

  it('accepts the bounds', async () => {
    const q = engine.queue();
    expect(
      await q.setRetention({
        completed: { count: 1_000_000, ageMs: 31_536_000_000 },
        dead: { count: 0, ageMs: 1 },
      }),
    ).toEqual({
      completed: { count: 1_000_000, ageMs: 31_536_000_000 },
      dead: { count: 0, ageMs: 1 },
    });
  });

  it.each([
    ['completed not an object', { completed: 5 }, 'completed'],
    ['completed an array', { completed: [] }, 'completed'],
    ['an unknown field', { completed: { count: 1, max: 2 } }, 'completed.max'],
    ['a negative count', { completed: { count: -1 } }, 'completed'],
    ['a count over 1,000,000', { dead: { count: 1_000_001 } }, 'dead'],
    ['a fractional count', { dead: { count: 1.5 } }, 'dead'],
    ['a null count', { completed: { count: null } }, 'completed'],
    ['ageMs 0', { completed: { ageMs: 0 } }, 'completed'],
    ['ageMs over 365 days', { dead: { ageMs: 31_536_000_001 } }, 'dead'],
    ['ageMs as text', { dead: { ageMs: '5' } }, 'dead'],
    ['ageMs NaN', { completed: { ageMs: Number.NaN } }, 'completed'],
    ['a good completed and a bad dead', { completed: { count: 1 }, dead: { count: -1 } }, 'dead'],
  ])('refuses %s (BAD_USER_INPUT) and writes nothing', async (_name, policies, argument) => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 4 } });
    const before = await snapshot(q);
    const error = await q.setRetention(policies as never).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RingmasterError);
    expect((error as RingmasterError).code).toBe(ErrorCode.BAD_USER_INPUT);
    expect((error as RingmasterError).argument).toBe(argument);
    expect(await snapshot(q)).toEqual(before);
  });

  it('retention() reads garbage stored by hand as the defaults, as the scripts do', async () => {
    const q = engine.queue();
    await q.redis.hset(q.keys.settings, {
      completedCount: 'lots',
      completedAgeMs: '-5',
      deadCount: '99999999999999999999',
      deadAgeMs: 'none',
    });
    expect(await q.retention()).toEqual({
      completed: Defaults.completedRetention,
      dead: { count: Defaults.deadRetention.count, ageMs: null },
    });
    // and the scripts keep jobs by those defaults
    const [j] = await claimedJobs(q, 1);
    await q.complete((j as Job).id, (j as Job).token as string);
    expect(await retained(q)).toEqual([(j as Job).id]);
  });

  it('a never-used queue reads the defaults and registers nothing', async () => {
    const q = engine.queue();
    const before = await snapshot(q);
    expect(await q.retention()).toEqual({
      completed: Defaults.completedRetention,
      dead: Defaults.deadRetention,
    });
    expect(await snapshot(q)).toEqual(before);
  });
});

describe('the clock', () => {
  it('finishedAt is the Redis time of the completion', async () => {
    const q = engine.queue();
    const [j] = await claimedJobs(q, 1);
    const t0 = await redisNow(q.redis);
    const done = await q.complete((j as Job).id, (j as Job).token as string);
    const t1 = await redisNow(q.redis);
    expect(done.finishedAt).toBeGreaterThanOrEqual(t0);
    expect(done.finishedAt).toBeLessThanOrEqual(t1);
  });
});
