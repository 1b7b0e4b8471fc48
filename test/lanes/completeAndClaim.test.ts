/**
 * `Queue.completeAndClaim(completions, { claim, leaseMs, tokens })` is exactly `complete` for
 * each `{ id, token }` in order, then `claim` repeated up to `claim` times until nothing is
 * serviceable — in one script: the same rota, the same permits, the same wakes, the same
 * answers, and the claims still happen when completions are refused.
 *
 * Most tests build the same state in two queues (twins, identical ids and tokens), run the batch
 * on one and the same completes and claims one by one on the other, and compare the answers and
 * every key of the two queues (times aside: one script has one instant, several have several).
 */
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, Limits, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { escapeGlob, rawState, redisNow, scanAll, snapshot, useEngine } from '../support/lanes.js';

const engine = useEngine();

// ── helpers ────────────────────────────────────────────────────────────────────────────────

interface Batch {
  completions: { id: string; token: string }[];
  claim: number;
  leaseMs: number;
  tokens: string[];
}

/** What a batch answered, comparable between twins: error codes, and jobs without times. */
interface Answer {
  refused: (string | null)[];
  claimed: Record<string, unknown>[];
}

/**
 * A job with its instants replaced by what must hold between them: the lease is leaseMs long
 * from the claim, and the other instants exist or not. The queue name is checked and dropped
 * (twins have different names).
 */
function timeless(q: Queue, job: Job): Record<string, unknown> {
  expect(job.queue).toBe(q.name);
  const { queue: _, enqueuedAt, claimedAt, leaseUntil, finishedAt, ...rest } = job;
  return {
    ...rest,
    enqueuedAt: enqueuedAt === null ? null : 'set',
    claimedAt: claimedAt === null ? null : 'set',
    lease:
      leaseUntil === null
        ? null
        : claimedAt === null
          ? `until ${leaseUntil}`
          : leaseUntil - claimedAt,
    finishedAt: finishedAt === null ? null : 'set',
  };
}

/** The batch, one call; also checks the instants it reports against the Redis clock. */
async function together(q: Queue, b: Batch): Promise<Answer> {
  const t0 = await redisNow(q.redis);
  const reply = await q.completeAndClaim(b.completions, {
    claim: b.claim,
    leaseMs: b.leaseMs,
    tokens: b.tokens,
  });
  const t1 = await redisNow(q.redis);
  expect(reply.refused).toHaveLength(b.completions.length);
  expect(reply.finishedAt).toBeGreaterThanOrEqual(t0);
  expect(reply.finishedAt).toBeLessThanOrEqual(t1);
  expect(reply.claimed.length).toBeLessThanOrEqual(b.claim);
  reply.claimed.forEach((job, i) => {
    // One script, one instant: every claim is stamped with the time the completions were.
    expect(job.claimedAt).toBe(reply.finishedAt);
    expect(job.leaseUntil).toBe(reply.finishedAt + b.leaseMs);
    expect(job.token).toBe(b.tokens[i]);
  });
  return {
    refused: reply.refused.map((e) => {
      if (e === null) return null;
      expect(e).toBeInstanceOf(RingmasterError);
      return e.code;
    }),
    claimed: reply.claimed.map((job) => timeless(q, job)),
  };
}

/** The same batch as separate complete and claim calls. */
async function oneByOne(q: Queue, b: Batch): Promise<Answer> {
  const refused: (string | null)[] = [];
  for (const c of b.completions) {
    try {
      const done = await q.complete(c.id, c.token);
      expect(done.state).toBe('COMPLETED');
      refused.push(null);
    } catch (error) {
      if (!(error instanceof RingmasterError)) throw error;
      refused.push(error.code);
    }
  }
  const claimed: Record<string, unknown>[] = [];
  for (let i = 0; i < b.claim; i += 1) {
    const job = await q.claim({ leaseMs: b.leaseMs, token: b.tokens[i] as string });
    if (job === null) break;
    claimed.push(timeless(q, job));
  }
  return { refused, claimed };
}

/**
 * Every key of the queue (names relative to its base), read by type: lists in order, sets and
 * hashes sorted. Instants are replaced by what must hold between them: a job's lease is stored
 * as its length from the claim, and an `active` score must equal its job's leaseUntil field.
 */
async function stateOf(q: Queue): Promise<Record<string, unknown>> {
  const r = q.redis;
  const base = q.keys.base;
  const keys = (await scanAll(r, `${escapeGlob(base)}*`)).sort();
  const out: Record<string, unknown> = {};
  const jobs: Record<string, Record<string, string>> = {};
  for (const key of keys) {
    const name = key.slice(base.length);
    const type = await r.type(key);
    if (type === 'string') out[name] = await r.get(key);
    // a job's error entries: each stamped with the time it failed (masked as `set`)
    else if (type === 'list' && name.endsWith(':errors')) {
      out[name] = (await r.lrange(key, 0, -1)).map((e) => ({ ...JSON.parse(e), at: 'set' }));
    } else if (type === 'list') out[name] = await r.lrange(key, 0, -1);
    else if (type === 'set') out[name] = (await r.smembers(key)).sort();
    // `dead` and `completed` and their group indexes are scored by the time a job died or
    // completed: only their members compare between twins
    else if (type === 'zset' && /(^|:)(dead|completed)$|^gseen$/.test(name)) {
      out[name] = (await r.zrange(key, 0, -1)).sort();
    } else if (type === 'zset') out[name] = await r.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'hash') {
      const h = await r.hgetall(key);
      if (name.startsWith('job:')) jobs[name.slice('job:'.length)] = h;
      // The queue's epoch is random per queue (its identity), not part of what it holds.
      if (name === 'settings' && h.epoch !== undefined) h.epoch = 'E';
      out[name] = Object.entries(h).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    } else out[name] = `unexpected type ${type}`;
  }
  for (const [id, h] of Object.entries(jobs)) {
    const masked: Record<string, string> = { ...h };
    for (const f of ['enqueuedAt', 'claimedAt', 'finishedAt']) if (f in h) masked[f] = 'set';
    if (h.leaseUntil !== undefined) {
      masked.leaseUntil =
        h.claimedAt === undefined ? h.leaseUntil : `+${Number(h.leaseUntil) - Number(h.claimedAt)}`;
    }
    out[`job:${id}`] = Object.entries(masked).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  const active = (out.active as string[] | undefined) ?? [];
  const leases: [string, string][] = [];
  for (let i = 0; i + 1 < active.length; i += 2) {
    const id = active[i] as string;
    const score = active[i + 1] as string;
    const until = jobs[id]?.leaseUntil;
    // The deadline in `active` is the job's own; a lease without a hash keeps its raw score.
    leases.push([id, until === undefined ? score : score === until ? 'leaseUntil' : `≠ ${score}`]);
  }
  if (out.active !== undefined) out.active = leases.sort(([a], [b]) => Number(a) - Number(b));
  return out;
}

/**
 * Two queues with the same history: `build` runs on each (it must be deterministic: explicit
 * tokens, no clocks) and returns what the test needs (taken from the first twin).
 */
async function twins<T>(build: (q: Queue) => Promise<T>): Promise<[Queue, Queue, T]> {
  const one = engine.queue();
  const two = engine.queue();
  const made = await build(one);
  const again = await build(two);
  const untimed = (k: string, v: unknown) =>
    k === 'queue' || k.endsWith('At') || k === 'leaseUntil' ? 0 : v;
  expect(JSON.stringify(again, untimed)).toBe(JSON.stringify(made, untimed));
  expect(await stateOf(two)).toEqual(await stateOf(one));
  return [one, two, made];
}

/** Run `batch` on one twin and one by one on the other; both must agree in every respect. */
async function expectSameAsOneByOne(
  one: Queue,
  two: Queue,
  batch: Batch,
  { audit = true } = {},
): Promise<Answer> {
  const expected = await oneByOne(one, batch);
  const actual = await together(two, batch);
  expect(actual).toEqual(expected);
  expect(await stateOf(two)).toEqual(await stateOf(one));
  // (a hand-written foreign state is not consistent to begin with: no audit there)
  if (audit) expect((await two.audit()).findings).toEqual([]);
  return actual;
}

async function seed(q: Queue): Promise<Job> {
  await q.setLimit('a', 1);
  await q.enqueue('a', { n: 1 });
  await q.enqueue('a', { n: 2 });
  await q.enqueue('b', { n: 3 });
  return (await q.claim({ token: 'first' })) as Job;
}

const tokens = (stem: string, n: number) => Array.from({ length: n }, (_, i) => `${stem}${i}`);
const codes = (refused: (RingmasterError | null)[]) => refused.map((e) => e?.code ?? null);

// ── one completion, one claim (the old shape) ─────────────────────────────────────────────

describe('completeAndClaim, one completion and one claim', () => {
  it('leaves Redis as complete then claim would, and returns the claimed job', async () => {
    const [one, two, j] = await twins(seed);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [{ id: j.id, token: 'first' }],
      claim: 1,
      leaseMs: 30_000,
      tokens: ['next'],
    });
    expect(answer.refused).toEqual([null]);
    expect(answer.claimed).toEqual([
      expect.objectContaining({ group: 'b', state: 'ACTIVE', token: 'next', attempts: 1 }),
    ]);
    // Kept by the default completed retention, as complete keeps it.
    expect(await two.job(j.id)).toMatchObject({ state: 'COMPLETED', token: null });
  });

  it('claims one job by default, under a fresh token, leased for 30 s', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const { refused, claimed, finishedAt } = await q.completeAndClaim([
      { id: j.id, token: j.token as string },
    ]);
    expect(codes(refused)).toEqual([null]);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({
      group: 'b',
      state: 'ACTIVE',
      leaseUntil: finishedAt + 30_000,
    });
    expect(claimed[0]?.token).toMatch(/^[0-9a-f-]{36}$/);
    expect((await rawState(q)).leases).toEqual({ [claimed[0]?.id as string]: 'b' });
  });

  it('re-rings a group the completion frees, in rota order, with its wake', async () => {
    const q = engine.queue();
    const j = await seed(q); // a at its limit: ring [b]
    await engine.redis().del(q.keys.wake);
    const { refused, claimed } = await q.completeAndClaim([{ id: j.id, token: j.token as string }]);
    expect(codes(refused)).toEqual([null]);
    // b was the head; a re-joined behind it on completion.
    expect(claimed.map((job) => job.group)).toEqual(['b']);
    const state = await rawState(q);
    expect(state.ring).toEqual(['a']);
    expect(state.wake).toBe(1);
    expect(state.gactive).toEqual({ b: '1' });
    expect(state.stats).toMatchObject({
      completed: '1',
      claimed: '2',
      active: '1',
      saturated: '0',
    });
  });

  it('still claims when the completion is refused, and reports why', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const stale = await q.completeAndClaim([{ id: j.id, token: 'not-the-token' }]);
    expect(codes(stale.refused)).toEqual([ErrorCode.LEASE_LOST]);
    expect(stale.refused[0]).toBeInstanceOf(RingmasterError);
    expect(stale.claimed.map((job) => job.group)).toEqual(['b']);
    // a still holds its permit: the refused completion changed nothing.
    expect((await rawState(q)).gactive).toEqual({ a: '1', b: '1' });

    const missing = await q.completeAndClaim([{ id: '424242', token: 'tok' }]);
    expect(codes(missing.refused)).toEqual([ErrorCode.JOB_NOT_FOUND]);
    expect(missing.claimed).toEqual([]);
  });
});

// ── batches ────────────────────────────────────────────────────────────────────────────────

describe('completeAndClaim, batches', () => {
  it('several completions and claims equal the same completes then claims, one by one', async () => {
    // a (limit 2), b (limit 1), c (limit 3), d (no limit), e (no limit, maxAttempts 1)
    const build = async (q: Queue) => {
      await q.setLimit('a', 2);
      await q.setLimit('b', 1);
      await q.setLimit('c', 3);
      for (const g of ['a', 'a', 'a', 'a', 'b', 'b', 'c', 'c', 'd', 'd', 'd']) {
        await q.enqueue(g, { g });
      }
      await q.enqueue('e', { g: 'e' }, { maxAttempts: 1 });
      const held: Record<string, string> = {};
      for (const token of tokens('k', 6)) {
        const job = (await q.claim({ token })) as Job;
        held[job.id] = token;
      }
      // 9 (d) back to its lane and claimed again: its first token k3 is superseded
      await q.retry('9', held['9'] as string, 'again');
      // 12 (e, one attempt) retried into dead: its token k4 no longer holds anything
      await q.retry('12', held['12'] as string);
      for (const token of ['k6', 'k7']) {
        const job = (await q.claim({ token })) as Job;
        held[job.id] = token;
      }
      return held;
    };
    const [one, two, held] = await twins(build);
    expect(held).toEqual({
      '1': 'k0',
      '5': 'k1',
      '7': 'k2',
      '9': 'k7',
      '12': 'k4',
      '2': 'k5',
      '8': 'k6',
    });
    const before = await rawState(two);
    expect(before.ring).toEqual(['d']);
    expect(before.gactive).toEqual({ a: '2', b: '1', c: '2', d: '1' });

    const answer = await expectSameAsOneByOne(one, two, {
      completions: [
        { id: '1', token: 'k0' }, // a: frees a permit, a re-rings (saturated at 2)
        { id: '5', token: 'k1' }, // b: frees its only permit, b re-rings
        { id: '9', token: 'k3' }, // superseded by the re-claim
        { id: '1', token: 'k0' }, // the same job again: kept (retention), not active
        { id: '12', token: 'k4' }, // dead
        { id: 'abc', token: 'k0' }, // not a job id
        { id: '424242', token: 'k0' }, // no such job
        { id: '2', token: 'bogus' }, // wrong token
        { id: '2', token: 'k5' }, // then the right one
        { id: '7', token: 'k2' }, // c, below its limit: stays where it is
        { id: '3', token: 'k0' }, // pending, never claimed
      ],
      claim: 6,
      leaseMs: 45_000,
      tokens: tokens('n', 6),
    });
    expect(answer.refused).toEqual([
      null,
      null,
      ErrorCode.LEASE_LOST,
      ErrorCode.LEASE_LOST,
      ErrorCode.LEASE_LOST,
      ErrorCode.JOB_NOT_FOUND,
      ErrorCode.JOB_NOT_FOUND,
      ErrorCode.LEASE_LOST,
      null,
      null,
      ErrorCode.LEASE_LOST,
    ]);
    // ring [d] + a, b re-ringed in that order: d, a, b, then the rota goes round
    expect(answer.claimed.map((job) => `${job.group}:${job.id}`)).toEqual([
      'd:10',
      'a:3',
      'b:6',
      'd:11',
      'a:4',
    ]);
    const after = await rawState(two);
    expect(after.ring).toEqual([]);
    expect(after.wake).toBe(before.wake + 2);
    expect(after.gactive).toEqual({ a: '2', b: '1', c: '1', d: '3' });
  });

  it.each([
    ['kept by the retention: LEASE_LOST', null, ErrorCode.LEASE_LOST],
    ['with retention count 0: JOB_NOT_FOUND', 0, ErrorCode.JOB_NOT_FOUND],
  ] as const)(
    'the same job twice in one batch: the second is answered as a second complete is, %s',
    async (_name, keep, again) => {
      const build = async (q: Queue) => {
        if (keep !== null) await q.setRetention({ completed: { count: keep } });
        await q.setLimit('a', 3);
        for (let i = 0; i < 4; i += 1) await q.enqueue('a', i);
        for (const token of ['x', 'y', 'z']) await q.claim({ token });
      };
      const [one, two] = await twins(build);
      const answer = await expectSameAsOneByOne(one, two, {
        completions: [
          { id: '1', token: 'x' },
          { id: '1', token: 'x' },
          { id: '2', token: 'wrong' },
          { id: '2', token: 'y' },
          { id: '2', token: 'y' },
          { id: '3', token: 'z' },
          { id: '3', token: 'wrong' },
        ],
        claim: 0,
        leaseMs: 1_000,
        tokens: [],
      });
      expect(answer.refused).toEqual([null, again, ErrorCode.LEASE_LOST, null, again, null, again]);
      const s = await rawState(two);
      expect(s.stats).toMatchObject({ completed: '3', active: '0', claimed: '3' });
      expect(s.gactive).toEqual({});
      expect(s.ring).toEqual(['a']);
    },
  );

  it('stale, bogus and foreign tokens change nothing, good ones beside them complete', async () => {
    const q = engine.queue();
    await q.setLimit('a', 1);
    await q.enqueue('a', 1, { maxAttempts: 3 });
    await q.enqueue('b', 2);
    const first = (await q.claim({ token: 'old', leaseMs: 1 })) as Job;
    const b = (await q.claim({ token: 'b' })) as Job;
    await q.retry(first.id, 'old');
    const again = (await q.claim({ token: 'new' })) as Job;
    expect(again).toMatchObject({ id: first.id, attempts: 2 });
    const before = await rawState(q);

    const { refused, claimed } = await q.completeAndClaim(
      [
        { id: first.id, token: 'old' }, // superseded by the re-claim (I5)
        { id: first.id, token: 'b' }, // another job's token
        { id: b.id, token: 'new' },
        { id: b.id, token: 'b' },
      ],
      { claim: 2, tokens: ['c1', 'c2'] },
    );
    expect(codes(refused)).toEqual([
      ErrorCode.LEASE_LOST,
      ErrorCode.LEASE_LOST,
      ErrorCode.LEASE_LOST,
      null,
    ]);
    expect(claimed).toEqual([]);
    const after = await rawState(q);
    expect(after).toEqual({
      ...before,
      active: [first.id],
      leases: { [first.id]: 'a' },
      gactive: { a: '1' },
      stats: { ...before.stats, completed: '1', active: '1' },
    });
    expect(await q.job(first.id)).toMatchObject({ state: 'ACTIVE', token: 'new' });
  });

  it('a completion that un-saturates a group re-rings it, with a wake, before the claims', async () => {
    const build = async (q: Queue) => {
      await q.setLimit('a', 1);
      for (let i = 0; i < 3; i += 1) await q.enqueue('a', i);
      await q.claim({ token: 'a1' }); // a at its limit: the ring is empty
    };
    const [one, two] = await twins(build);
    await engine.redis().del(one.keys.wake, two.keys.wake);
    expect((await rawState(two)).ring).toEqual([]);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [{ id: '1', token: 'a1' }],
      claim: 3,
      leaseMs: 5_000,
      tokens: ['a2', 'a3', 'unused'],
    });
    // the freed permit serves job 2; then a is at its limit again and the ring runs out
    expect(answer.claimed.map((job) => job.id)).toEqual(['2']);
    const s = await rawState(two);
    expect(s.wake).toBe(1);
    expect(s.ring).toEqual([]);
    expect(s.gactive).toEqual({ a: '1' });
    expect(s.stats).toMatchObject({ saturated: '1', completed: '1', claimed: '2' });
  });

  it('re-rings the groups it frees in the order their completions freed them', async () => {
    // a: limit lowered to 2 under 3 active jobs, so only its second completion frees it;
    // b: limit 1, freed by its one completion, which comes between a's two.
    const build = async (q: Queue) => {
      await q.setLimit('a', 3);
      await q.setLimit('b', 1);
      for (const g of ['a', 'a', 'a', 'a', 'b', 'b']) await q.enqueue(g, g);
      for (const token of ['t1', 't5', 't2', 't3']) await q.claim({ token });
      await q.setLimit('a', 2);
    };
    const [one, two] = await twins(build);
    const s = await rawState(two);
    expect(s.gactive).toEqual({ a: '3', b: '1' });
    expect(s.ring).toEqual([]);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [
        { id: '1', token: 't1' }, // a: 3 → 2, still at its limit
        { id: '5', token: 't5' }, // b: 1 → 0, re-ringed
        { id: '2', token: 't2' }, // a: 2 → 1, re-ringed after b
      ],
      claim: 2,
      leaseMs: 5_000,
      tokens: ['n1', 'n2'],
    });
    expect(answer.claimed.map((job) => job.group)).toEqual(['b', 'a']);
  });

  it('claims stop early when the ring runs out', async () => {
    const q = engine.queue();
    await q.enqueue('a', 1);
    await q.enqueue('b', 2);
    const before = await rawState(q);
    const { refused, claimed } = await q.completeAndClaim([], {
      claim: 5,
      tokens: tokens('t', 5),
    });
    expect(refused).toEqual([]);
    expect(claimed.map((job) => [job.group, job.token])).toEqual([
      ['a', 't0'],
      ['b', 't1'],
    ]);
    const after = await rawState(q);
    expect(after.ring).toEqual([]);
    expect(after.stats).toMatchObject({ claimed: '2', pending: '0', active: '2' });
    expect(after.wake).toBe(before.wake);
    // and on an empty ring, nothing at all
    const none = await q.completeAndClaim([], { claim: 3 });
    expect(none.claimed).toEqual([]);
    expect(await rawState(q)).toEqual(after);
  });

  it('one pop serving groups whose lanes empty and groups whose lanes do not: only the latter go back', async () => {
    // The claim asks the served lanes together (includes/claimJobs.lua, settleServed): all,
    // none, or — here — some of them still hold a job, each then asked alone.
    const build = async (q: Queue) => {
      await q.enqueue('a', 1);
      await q.enqueue('a', 2);
      await q.enqueue('b', 3);
      await q.enqueue('c', 4);
      await q.enqueue('c', 5);
      await q.enqueue('d', 6);
    };
    const [one, two] = await twins(build);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [],
      claim: 4,
      leaseMs: 10_000,
      tokens: tokens('t', 4),
    });
    expect(answer.claimed.map((job) => job.group)).toEqual(['a', 'b', 'c', 'd']);
    expect((await rawState(two)).ring).toEqual(['a', 'c']);
  });

  it('enforces the limit across the claims of one call', async () => {
    const build = async (q: Queue) => {
      await q.setLimit('g', 2);
      for (let i = 0; i < 5; i += 1) await q.enqueue('g', i);
    };
    const [one, two] = await twins(build);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [],
      claim: 5,
      leaseMs: 10_000,
      tokens: tokens('t', 5),
    });
    expect(answer.claimed.map((job) => job.id)).toEqual(['1', '2']);
    const s = await rawState(two);
    expect(s.gactive).toEqual({ g: '2' });
    expect(s.ring).toEqual([]);
    expect(s.lanes).toEqual({ g: ['3', '4', '5'] });
    expect(s.stats).toMatchObject({ saturated: '1', claimed: '2', pending: '3', active: '2' });
  });

  it('keeps the rota fair across the claims of one call, limits and all', async () => {
    const build = async (q: Queue) => {
      await q.setLimit('a', 2);
      await q.setLimit('c', 0);
      for (const g of ['a', 'b', 'c', 'a', 'b', 'a', 'b', 'b', 'b']) await q.enqueue(g, g);
      await q.pause('b');
      await q.resume('b');
    };
    const [one, two] = await twins(build);
    const answer = await expectSameAsOneByOne(one, two, {
      completions: [],
      claim: 7,
      leaseMs: 10_000,
      tokens: tokens('t', 7),
    });
    expect(answer.claimed.map((job) => job.group)).toEqual(['a', 'b', 'a', 'b', 'b', 'b', 'b']);
  });

  it('claims and completes foreign jobs (no hash) as claim and complete do', async () => {
    // The seed's layout written by hand: lanes without job hashes, a stale head on the ring
    // (z: empty lane), and a lease whose hash is gone (id 900, group a).
    const build = async (q: Queue) => {
      const base = q.keys.base;
      await q.redis
        .multi()
        .hset(`${base}glimit`, 'a', '2')
        .hset(`${base}gactive`, 'a', '1', 'z', '1')
        .zadd(`${base}g:a:pending`, 1000, '101', 2000, '102')
        .zadd(`${base}g:e:pending`, 1500, '201', 2500, '202')
        .zadd(`${base}active`, 4_000_000_000_000, '900')
        .hset(`${base}leases`, '900', 'a')
        .rpush(`${base}ring`, 'a', 'z', 'e')
        .exec();
    };
    const [one, two] = await twins(build);
    const first = await expectSameAsOneByOne(
      one,
      two,
      {
        completions: [{ id: '900', token: 'anything' }],
        claim: 3,
        leaseMs: 20_000,
        tokens: ['f1', 'f2', 'f3'],
      },
      { audit: false },
    );
    // the hash-less lease: JOB_NOT_FOUND, as complete says, and its permit is kept
    expect(first.refused).toEqual([ErrorCode.JOB_NOT_FOUND]);
    expect(first.claimed).toEqual([
      expect.objectContaining({
        id: '101',
        group: 'a',
        attempts: 1,
        maxAttempts: 3,
        payload: null,
      }),
      expect.objectContaining({
        id: '201',
        group: 'e',
        attempts: 1,
        maxAttempts: 3,
        payload: null,
      }),
      expect.objectContaining({
        id: '202',
        group: 'e',
        attempts: 1,
        maxAttempts: 3,
        payload: null,
      }),
    ]);
    const s = await rawState(two);
    expect(s.gactive).toEqual({ a: '2', e: '2', z: '1' });
    expect(s.ring).toEqual([]); // z dropped as a stale head, a at its limit, e empty
    expect(await two.redis.hgetall(two.keys.job('101'))).toMatchObject({
      score: '1000',
      maxAttempts: '3',
      token: 'f1',
    });

    // completing the claimed foreign jobs frees a, whose next job is then claimed
    const second = await expectSameAsOneByOne(
      one,
      two,
      {
        completions: [
          { id: '101', token: 'f1' },
          { id: '201', token: 'f2' },
        ],
        claim: 2,
        leaseMs: 20_000,
        tokens: ['f4', 'f5'],
      },
      { audit: false },
    );
    expect(second.refused).toEqual([null, null]);
    expect(second.claimed.map((job) => job.id)).toEqual(['102']);
    // Kept by the default retention, as complete keeps them.
    for (const id of ['101', '201']) {
      expect(await two.redis.hget(two.keys.job(id), 'state')).toBe('completed');
    }
    expect(await two.redis.zrange(two.keys.completed, 0, -1)).toEqual(['101', '201']);
  });

  it("completes a job whose hash names no group under its lease's group, as complete does", async () => {
    // Another writer's hash without `group`: the permit and the group index follow the lease.
    const build = async (q: Queue) => {
      await q.enqueue('a', { n: 1 });
      await q.enqueue('a', { n: 2 });
      const job = (await q.claim({ token: 'held' })) as Job;
      await q.redis.hdel(q.keys.job(job.id), 'group');
      return job.id;
    };
    const [one, two, id] = await twins(build);
    const answer = await expectSameAsOneByOne(
      one,
      two,
      { completions: [{ id, token: 'held' }], claim: 0, leaseMs: 20_000, tokens: [] },
      { audit: false },
    );
    expect(answer.refused).toEqual([null]);
    const s = await rawState(two);
    expect(s.gactive).toEqual({});
    expect(s.leases).toEqual({});
    expect(await two.redis.zrange(`${two.keys.base}g:a:completed`, 0, -1)).toEqual([id]);
  });

  it('answers a non-decimal id JOB_NOT_FOUND without sending it', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const { refused, claimed } = await q.completeAndClaim(
      [
        { id: 'x1', token: 't' },
        { id: j.id, token: 'first' },
        { id: '', token: 't' },
        { id: '-1', token: 't' },
        { id: '1e3', token: 't' },
      ],
      { claim: 0 },
    );
    expect(codes(refused)).toEqual([
      ErrorCode.JOB_NOT_FOUND,
      null,
      ErrorCode.JOB_NOT_FOUND,
      ErrorCode.JOB_NOT_FOUND,
      ErrorCode.JOB_NOT_FOUND,
    ]);
    expect(claimed).toEqual([]);
    expect((await rawState(q)).stats).toMatchObject({ completed: '1' });
  });

  it('takes the claim count from `tokens` when `claim` is not given', async () => {
    const q = engine.queue();
    for (let i = 0; i < 4; i += 1) await q.enqueue(`g${i}`, i);
    const { claimed } = await q.completeAndClaim([], { tokens: ['p', 'q', 'r'] });
    expect(claimed.map((job) => job.token)).toEqual(['p', 'q', 'r']);
    const zero = await q.completeAndClaim([], { tokens: [] });
    expect(zero.claimed).toEqual([]);
  });

  it('rejects bad input before touching Redis', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const ok = { id: j.id, token: j.token as string };
    const r: Redis = engine.redis();
    const before = await snapshot(r);
    const bad: [string, () => Promise<unknown>][] = [
      ['an empty token', () => q.completeAndClaim([{ id: j.id, token: '' }])],
      ['a bad token after a good one', () => q.completeAndClaim([ok, { id: '2', token: '' }])],
      [
        'a token over 128 characters',
        () => q.completeAndClaim([ok, { id: '2', token: 'x'.repeat(Limits.tokenLength + 1) }]),
      ],
      ['a bad token on a non-decimal id', () => q.completeAndClaim([ok, { id: 'abc', token: '' }])],
      ['leaseMs 0', () => q.completeAndClaim([ok], { leaseMs: 0 })],
      ['leaseMs over a day', () => q.completeAndClaim([ok], { leaseMs: 86_400_001 })],
      ['leaseMs not an integer', () => q.completeAndClaim([ok], { leaseMs: 1.5 })],
      ['claim -1', () => q.completeAndClaim([ok], { claim: -1 })],
      ['claim 1001', () => q.completeAndClaim([ok], { claim: 1_001 })],
      ['claim 1.5', () => q.completeAndClaim([ok], { claim: 1.5 })],
      ['claim NaN', () => q.completeAndClaim([ok], { claim: Number.NaN })],
      ['1001 completions', () => q.completeAndClaim(Array.from({ length: 1_001 }, () => ok))],
      ['1001 tokens', () => q.completeAndClaim([ok], { tokens: tokens('t', 1_001) })],
      ['an empty claim token', () => q.completeAndClaim([ok], { tokens: ['fine', ''] })],
      [
        'fewer tokens than claims',
        () => q.completeAndClaim([ok], { claim: 3, tokens: ['a', 'b'] }),
      ],
      ['more tokens than claims', () => q.completeAndClaim([ok], { claim: 1, tokens: ['a', 'b'] })],
      ['tokens with claim 0', () => q.completeAndClaim([ok], { claim: 0, tokens: ['a'] })],
      // shapes a JavaScript caller can pass past the types
      ['completions null', () => q.completeAndClaim(null as never)],
      ['completions a string', () => q.completeAndClaim('abc' as never)],
      ['completions array-like', () => q.completeAndClaim({ length: 2 } as never)],
      ['a null completion', () => q.completeAndClaim([ok, null as never])],
      ['a numeric token', () => q.completeAndClaim([{ id: j.id, token: 7 as never }])],
      ['tokens a string', () => q.completeAndClaim([ok], { tokens: 'abc' as never })],
      ['a numeric claim token', () => q.completeAndClaim([ok], { tokens: [7 as never] })],
    ];
    for (const [what, call] of bad) {
      await expect(call(), what).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT });
      expect(await snapshot(r), what).toEqual(before);
    }
    // the limits themselves are accepted
    const edge = await q.completeAndClaim(
      Array.from({ length: Limits.maxBatch }, () => ({ id: '424242', token: 't' })),
      { claim: Limits.maxBatch, leaseMs: 86_400_000 },
    );
    expect(edge.refused).toHaveLength(Limits.maxBatch);
    expect(new Set(codes(edge.refused))).toEqual(new Set([ErrorCode.JOB_NOT_FOUND]));
    expect(edge.claimed.map((job) => job.group)).toEqual(['b']);
  });
});

// ── random batches against the one-by-one twin ─────────────────────────────────────────────

/** What a twin's history is made of; the same list is applied to both twins. */
type SetupStep =
  | { kind: 'enqueue'; group: number; maxAttempts: number }
  | { kind: 'claim' }
  | { kind: 'retry' | 'complete'; pick: number }
  | { kind: 'setLimit'; group: number; limit: number }
  /** Lower a busy group's limit to below its active count (so it is over its limit). */
  | { kind: 'squeeze'; pick: number }
  | { kind: 'clearLimit' | 'pause' | 'resume'; group: number }
  /** Weights: a weighted group keeps the head for its turns, in a batch too. */
  | { kind: 'setWeight'; group: number; weight: number };

/** A completion of the batch: a held lease, a retired token, a bogus token, or no job. */
type Pick = { kind: 'held' | 'retired' | 'bogus' | 'missing' | 'junk'; pick: number };

const GROUPS = ['a', 'b', 'c'] as const;
const group = fc.integer({ min: 0, max: GROUPS.length - 1 });
const setupArb: fc.Arbitrary<SetupStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('enqueue' as const),
      group,
      maxAttempts: fc.integer({ min: 1, max: 2 }),
    }),
  },
  { weight: 7, arbitrary: fc.record({ kind: fc.constant('claim' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('retry' as const, 'complete' as const),
      pick: fc.nat(100),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('setLimit' as const),
      group,
      limit: fc.integer({ min: 0, max: 4 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('squeeze' as const), pick: fc.nat(100) }) },
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
      kind: fc.constant('setWeight' as const),
      group,
      weight: fc.integer({ min: 1, max: 3 }),
    }),
  },
);
const pickArb: fc.Arbitrary<Pick> = fc.record({
  kind: fc.oneof(
    { weight: 8, arbitrary: fc.constant('held' as const) },
    { weight: 1, arbitrary: fc.constantFrom('retired' as const, 'bogus' as const) },
    { weight: 1, arbitrary: fc.constantFrom('missing' as const, 'junk' as const) },
  ),
  pick: fc.nat(100),
});

/** Apply the history to `q`; returns the leases held and the tokens that no longer hold one. */
async function history(q: Queue, steps: SetupStep[]) {
  const held: { id: string; token: string }[] = [];
  const retired: { id: string; token: string }[] = [];
  let n = 0;
  for (const step of steps) {
    switch (step.kind) {
      case 'enqueue':
        await q.enqueue(GROUPS[step.group] as string, n++, { maxAttempts: step.maxAttempts });
        break;
      case 'claim': {
        const job = await q.claim({ token: `h${n++}` });
        if (job) held.push({ id: job.id, token: job.token as string });
        break;
      }
      case 'retry':
      case 'complete': {
        const lease = held.splice(step.pick % Math.max(1, held.length), 1)[0];
        if (!lease) break;
        retired.push(lease);
        if (step.kind === 'retry') await q.retry(lease.id, lease.token);
        else await q.complete(lease.id, lease.token);
        break;
      }
      case 'setLimit':
        await q.setLimit(GROUPS[step.group] as string, step.limit);
        break;
      case 'squeeze': {
        const busy = Object.entries(await q.redis.hgetall(q.keys.gactive)).sort();
        const [g, active] = busy[step.pick % Math.max(1, busy.length)] ?? [];
        if (g !== undefined) await q.setLimit(g, Math.max(0, Number(active) - 1 - (step.pick % 2)));
        break;
      }
      case 'setWeight':
        await q.setWeight(GROUPS[step.group] as string, step.weight);
        break;
      default:
        await q[step.kind](GROUPS[step.group] as string);
    }
  }
  return { held, retired };
}

/**
 * Replay a failure with the seed and path fast-check prints:
 *   CC_SEED=<seed> CC_PATH=<path> npx vitest run test/lanes/completeAndClaim.test.ts -t random
 * CC_RUNS overrides the number of runs (default 200).
 */
const params: fc.Parameters<[SetupStep[], Pick[], number, boolean]> = {
  numRuns: Number(process.env.CC_RUNS ?? 200),
  ...(process.env.CC_SEED === undefined ? {} : { seed: Number(process.env.CC_SEED) }),
  ...(process.env.CC_PATH === undefined ? {} : { path: process.env.CC_PATH }),
};

describe('completeAndClaim, random batches', () => {
  it(
    'equals the same completes then claims one by one, answers and every key',
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(setupArb, { maxLength: 40, size: 'max' }),
          fc.array(pickArb, { maxLength: 8, size: 'max' }),
          fc.nat(6),
          // the completed retention: the default (jobs kept) or count 0 (hashes deleted)
          fc.boolean(),
          async (steps, picks, claim, forget) => {
            runs += 1;
            const one = engine.queue();
            const two = engine.queue();
            if (forget) {
              for (const q of [one, two]) await q.setRetention({ completed: { count: 0 } });
            }
            const lives = await history(one, steps);
            expect(await history(two, steps)).toEqual(lives);
            const completions = picks.map(({ kind, pick }) => {
              const from = kind === 'held' ? lives.held : kind === 'retired' ? lives.retired : [];
              const lease = from[pick % Math.max(1, from.length)];
              if (lease) return lease;
              if (kind === 'junk') return { id: `x${pick}`, token: 't' };
              if (kind === 'missing') return { id: String(900_000 + pick), token: 't' };
              return { id: String(1 + (pick % 8)), token: 'bogus' };
            });
            await expectSameAsOneByOne(one, two, {
              completions,
              claim,
              leaseMs: 60_000,
              tokens: tokens('c', claim),
            });
            const keys = [
              ...(await scanAll(engine.redis(), `${escapeGlob(one.keys.base)}*`)),
              ...(await scanAll(engine.redis(), `${escapeGlob(two.keys.base)}*`)),
            ];
            if (keys.length > 0) await engine.redis().unlink(...keys);
          },
        ),
        params,
      );
      if (params.path === undefined) expect(runs).toBeGreaterThanOrEqual(params.numRuns as number);
    },
    30_000 + (params.numRuns as number) * 100,
  );
});
