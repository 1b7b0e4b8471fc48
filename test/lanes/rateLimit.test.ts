/**
 * Per-group rate limits (DESIGN.md §3 "Rate limits"): a token bucket per group, `max` tokens
 * per `windowMs`, `burst` (default `max`) held at most, on top of its concurrency limit. The
 * claim that leaves the bucket short of the next head's cost takes the group off the ring into
 * `ratelimited` until enough tokens refill; then a claim (or the reaper) puts it back with a
 * wake, and a parked Worker wakes then by the claim's `nextRunAt`. setRateLimit /
 * clearRateLimit settle the ring at once.
 *
 * Windows are long (an hour) wherever the test does not wait for one to end; where it must, the
 * test waits on the Redis clock for the reopening (no timed assertions).
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, RingmasterError, Worker } from '../../src/lanes/index.js';
import { commandCountDuring } from '../support/commandStats.js';
import {
  queueSnapshot,
  rawState,
  redisNow,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();
const HOUR = 3_600_000;

async function ringOf(q: Queue): Promise<string[]> {
  return q.redis.lrange(q.keys.ring, 0, -1);
}

async function clean(q: Queue): Promise<void> {
  expect((await q.audit()).findings).toEqual([]);
}

describe('a claim counts into its group window', () => {
  it('the claim that reaches max takes the group off the ring; its jobs are not claimed', async () => {
    const q = engine.queue();
    const info = await q.setRateLimit('g', { max: 2, windowMs: HOUR });
    expect(info).toMatchObject({
      rateLimit: { max: 2, windowMs: HOUR, burst: 2 },
      rateLimitedUntil: null,
    });
    for (let i = 0; i < 4; i++) await q.enqueue('g', i);
    await q.enqueue('h', 'other');
    const first = (await q.claim()) as Job;
    const start = Number(first.claimedAt);
    // The bucket: one of its two tokens left, at the claim.
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toBe(`1:${start}`);
    expect(await ringOf(q)).toEqual(['h', 'g']);
    expect((await q.claim())?.group).toBe('h');
    const second = (await q.claim()) as Job;
    expect(second.group).toBe('g');
    const at = Number(second.claimedAt);
    // Refilled by no whole token within the hour: none left, counted from the first claim.
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toBe(`0:${start}`);
    // Empty: off the ring, in `ratelimited` until the next token (2 per hour: half an hour).
    expect(at - start).toBeLessThan(HOUR / 2);
    expect(await ringOf(q)).toEqual([]);
    expect(await q.redis.zscore(q.keys.rateLimited, 'g')).toBe(String(start + HOUR / 2));
    expect(await q.claim()).toBeNull();
    const g = await q.group('g');
    expect(g).toMatchObject({
      state: 'RATE_LIMITED',
      onRing: false,
      pending: 2,
      active: 2,
      rateLimitedUntil: start + HOUR / 2,
    });
    // Completions free permits, not the rate: the group stays off the ring.
    await q.complete(first.id, first.token as string);
    await q.complete(second.id, second.token as string);
    expect(await ringOf(q)).toEqual([]);
    // An enqueue does not re-ring it either (I1's rate clause).
    await q.enqueue('g', 'more');
    expect(await ringOf(q)).toEqual([]);
    await clean(q);
  });

  it('completeAndClaim serves a group no more than its max in one call, and answers nextRunAt', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 3, windowMs: HOUR });
    for (let i = 0; i < 10; i++) await q.enqueue('g', i);
    const result = await q.completeAndClaim([], { claim: 10 });
    expect(result.claimed).toHaveLength(3);
    const start = Number(result.claimed[0]?.claimedAt);
    // The bucket's three tokens spent: the next of 3 per hour comes in 20 minutes.
    expect(result.nextRunAt).toBe(start + HOUR / 3);
    expect(await q.redis.zscore(q.keys.rateLimited, 'g')).toBe(String(start + HOUR / 3));
    await clean(q);
  });

  it('a group without a rate is claimed as before, and no window is written', async () => {
    const q = engine.queue();
    for (let i = 0; i < 3; i++) await q.enqueue('g', i);
    expect((await q.completeAndClaim([], { claim: 5 })).claimed).toHaveLength(3);
    expect(await q.redis.exists(q.keys.rateWindow, q.keys.rateLimited)).toBe(0);
  });
});

describe('the window reopens', () => {
  it('a claim after the next token puts the group back with a wake and claims it; the bucket runs on', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: 300 });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const first = (await q.claim()) as Job;
    expect(await q.claim()).toBeNull();
    const until = Number(await q.redis.zscore(q.keys.rateLimited, 'g'));
    expect(until).toBe(Number(first.claimedAt) + 300);
    const wakes = (await rawState(q)).wake;
    await untilRedisTimePasses(q.redis, until);
    const second = (await q.claim()) as Job;
    expect(second.group).toBe('g');
    expect((await rawState(q)).wake).toBe(wakes + 1);
    // Served again, empty again: the refill is counted from the first claim on, so the next
    // token comes one window after the one just spent (not one window after this claim).
    const bucket = (await q.redis.hget(q.keys.rateWindow, 'g')) as string;
    const [tokens, atMs] = bucket.split(':').map(Number) as [number, number];
    expect(tokens + Math.floor(((Number(second.claimedAt) - atMs) * 1) / 300)).toBe(0);
    expect(Number(await q.redis.zscore(q.keys.rateLimited, 'g'))).toBe(atMs + (1 - tokens) * 300);
    expect(atMs + (1 - tokens) * 300).toBeLessThanOrEqual(Number(second.claimedAt) + 300);
    await clean(q);
  });

  it('the reaper promotes a reopened group without any claim (re-ring and wake)', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: 200 });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    const until = Number(await q.redis.zscore(q.keys.rateLimited, 'g'));
    await untilRedisTimePasses(q.redis, until);
    const wakes = (await rawState(q)).wake;
    await q.reap();
    expect(await ringOf(q)).toEqual(['g']);
    expect((await rawState(q)).wake).toBe(wakes + 1);
    expect(await q.redis.exists(q.keys.rateLimited)).toBe(0);
    // The bucket is kept: the promotion adds no token, the refill since its time does.
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toMatch(/^0:\d+$/);
    expect((await q.group('g')).state).toBe('READY');
    await clean(q);
  });

  it('a parked Worker claims when the window reopens, by nextRunAt, not by polling', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: 400 });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const runs: { id: string; at: number }[] = [];
    // A park timeout far longer than the window, and no reaper: only nextRunAt can end the park.
    const worker = new Worker(
      q,
      async (job) => {
        runs.push({ id: job.id, at: await redisNow(q.redis) });
      },
      { parkTimeoutMs: 60_000, reaper: false },
    );
    try {
      const started = Date.now();
      while (runs.length < 2 && Date.now() - started < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(runs).toHaveLength(2);
      const [a, b] = runs as unknown as [{ at: number }, { at: number }];
      // The second ran only once the next token had come (1 per 400 ms).
      expect(b.at).toBeGreaterThanOrEqual(a.at + 400 - 50);
      const bucket = await q.redis.hget(q.keys.rateWindow, 'g');
      expect(Number(bucket?.split(':')[1])).toBeGreaterThanOrEqual(a.at - 50);
    } finally {
      await worker.close();
    }
  }, 30_000);
});

describe('steering settles the ring at once', () => {
  it('clearRateLimit frees a rate-limited group now, with a wake', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    expect(await ringOf(q)).toEqual([]);
    const wakes = (await rawState(q)).wake;
    const info = await q.clearRateLimit('g');
    expect(info).toMatchObject({ state: 'READY', rateLimit: null, rateLimitedUntil: null });
    expect(await ringOf(q)).toEqual(['g']);
    expect((await rawState(q)).wake).toBe(wakes + 1);
    expect(await q.redis.exists(q.keys.rate, q.keys.rateWindow, q.keys.rateLimited)).toBe(0);
    expect((await q.claim())?.group).toBe('g');
    await clean(q);
  });

  it('the tokens held carry over to a new rate (at most its burst): an empty bucket stays empty, a full one frees', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    for (let i = 0; i < 4; i++) await q.enqueue('g', i);
    const first = (await q.claim()) as Job;
    expect((await q.group('g')).state).toBe('RATE_LIMITED');
    // A higher max with the bucket empty: still empty, the next token sooner (3 per hour).
    const raised = await q.setRateLimit('g', { max: 3, windowMs: HOUR });
    expect(raised).toMatchObject({
      state: 'RATE_LIMITED',
      rateLimitedUntil: Number(first.claimedAt) + HOUR / 3,
    });
    expect(await q.redis.hget(q.keys.rateWindow, 'g')).toBe(`0:${first.claimedAt}`);
    expect(await ringOf(q)).toEqual([]);
    // A bigger burst does not fill the bucket either; clearing and setting again does (a
    // group without a rate starts full).
    await q.clearRateLimit('g');
    const fresh = await q.setRateLimit('g', { max: 1, windowMs: HOUR, burst: 2 });
    expect(fresh).toMatchObject({ state: 'READY', rateLimitedUntil: null });
    expect(await q.redis.hexists(q.keys.rateWindow, 'g')).toBe(0);
    expect((await q.completeAndClaim([], { claim: 4 })).claimed).toHaveLength(2);
    expect(await ringOf(q)).toEqual([]);
    // Lowered to a burst below what it holds: clamped (here: empty stays empty).
    const lowered = await q.setRateLimit('g', { max: 1, windowMs: HOUR, burst: 1 });
    expect(lowered.state).toBe('RATE_LIMITED');
    await clean(q);
  });

  it('a shorter window refills the bucket it left: the group is freed at once', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const first = (await q.claim()) as Job;
    await untilRedisTimePasses(q.redis, Number(first.claimedAt) + 5);
    // Judged under the rate before (still empty), then refilled under the new one.
    await q.setRateLimit('g', { max: 1, windowMs: 1 });
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + 2);
    expect((await q.completeAndClaim([], { claim: 1 })).claimed).toHaveLength(1);
    await clean(q);
  });

  it('records setRateLimit and clearRateLimit in the history streams when they change the rate', async () => {
    const q = engine.queue();
    await q.clearRateLimit('g', { actor: 'ops' }); // no rate: nothing recorded
    await q.setRateLimit('g', { max: 5, windowMs: 1_000 }, { actor: 'ops' });
    await q.setRateLimit('g', { max: 5, windowMs: 1_000 }, { actor: 'ops' }); // unchanged
    await q.clearRateLimit('g', { actor: 'ops' });
    const entries = await q.redis.xrange(q.keys.history, '-', '+');
    // JSON read back: Lua's cjson writes an object's keys in no set order.
    const fields = entries.map(([, f]) => {
      const o = Object.fromEntries(chunk(f));
      return { ...o, before: JSON.parse(o.before as string), after: JSON.parse(o.after as string) };
    });
    const rate = { rateLimit: { max: 5, windowMs: 1000, burst: 5 } };
    expect(fields).toEqual([
      {
        action: 'setRateLimit',
        group: 'g',
        actor: 'ops',
        before: { rateLimit: null },
        after: rate,
      },
      {
        action: 'clearRateLimit',
        group: 'g',
        actor: 'ops',
        before: rate,
        after: { rateLimit: null },
      },
    ]);
    expect((await q.history({ group: 'g' })).entries).toHaveLength(2);
  });
});

function chunk(flat: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i] as string, flat[i + 1] as string]);
  return out;
}

describe('interplay with the concurrency limit and pause', () => {
  it('a saturated group reads SATURATED first; freed by a completion, it still waits for its window', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const job = (await q.claim()) as Job;
    // Both: at its limit and at its rate. The limit comes first in the precedence.
    expect((await q.group('g')).state).toBe('SATURATED');
    await q.complete(job.id, job.token as string);
    expect((await q.group('g')).state).toBe('RATE_LIMITED');
    expect(await ringOf(q)).toEqual([]);
    // Clearing the rate frees it: below its limit again, it re-joins.
    await q.clearRateLimit('g');
    expect(await ringOf(q)).toEqual(['g']);
    await clean(q);
  });

  it('a paused group stays off the ring when its rate limit is cleared, and reads PAUSED', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    await q.pause('g');
    expect((await q.group('g')).state).toBe('PAUSED');
    await q.clearRateLimit('g');
    expect(await ringOf(q)).toEqual([]);
    // Resumed while rate-limited: still off the ring.
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.resume('g');
    expect(await ringOf(q)).toEqual(['g']); // cleared window: a new one starts at the next claim
    await q.claim();
    await q.pause('g');
    await q.resume('g');
    expect(await ringOf(q)).toEqual([]);
    expect((await q.group('g')).state).toBe('RATE_LIMITED');
    await clean(q);
  });

  it('the reopening of a saturated group does not re-ring it; the completion that frees it does', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1);
    await q.setRateLimit('g', { max: 1, windowMs: 200 });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const job = (await q.claim()) as Job;
    await untilRedisTimePasses(q.redis, Number(job.claimedAt) + 200);
    await q.reap();
    expect(await q.redis.exists(q.keys.rateLimited)).toBe(0);
    expect(await ringOf(q)).toEqual([]);
    await q.complete(job.id, job.token as string);
    expect(await ringOf(q)).toEqual(['g']);
    await clean(q);
  });
});

describe('bad input is refused before anything is written', () => {
  const cases: [string, unknown, string][] = [
    ['max 0', { max: 0, windowMs: 1_000 }, 'max'],
    ['max over 1,000,000', { max: 1_000_001, windowMs: 1_000 }, 'max'],
    ['max a fraction', { max: 1.5, windowMs: 1_000 }, 'max'],
    ['windowMs 0', { max: 1, windowMs: 0 }, 'windowMs'],
    ['windowMs over 30 days', { max: 1, windowMs: 2_592_000_001 }, 'windowMs'],
    ['windowMs a string', { max: 1, windowMs: '1000' }, 'windowMs'],
    ['burst 0', { max: 1, windowMs: 1_000, burst: 0 }, 'burst'],
    ['burst over 1,000,000', { max: 1, windowMs: 1_000, burst: 1_000_001 }, 'burst'],
    ['burst a fraction', { max: 1, windowMs: 1_000, burst: 2.5 }, 'burst'],
    ['an unknown field', { max: 1, windowMs: 1_000, bursts: 2 }, 'rateLimit.bursts'],
    ['not an object', 5, 'rateLimit'],
    ['null', null, 'rateLimit'],
  ];
  for (const [name, limit, argument] of cases) {
    it(`${name}: BAD_USER_INPUT (${argument})`, async () => {
      const q = engine.queue();
      await q.enqueue('g', 1);
      const before = await queueSnapshot(q);
      const error = await q.setRateLimit('g', limit as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RingmasterError);
      expect(error).toMatchObject({ code: 'BAD_USER_INPUT', argument });
      expect(await queueSnapshot(q)).toEqual(before);
    });
  }

  it('a bad group id: BAD_USER_INPUT for both calls, nothing written', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    const before = await queueSnapshot(q);
    await expect(q.setRateLimit('', { max: 1, windowMs: 1 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'group',
    });
    await expect(q.clearRateLimit('')).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('the bounds themselves are accepted', async () => {
    const q = engine.queue();
    expect((await q.setRateLimit('g', { max: 1, windowMs: 1 })).rateLimit).toEqual({
      max: 1,
      windowMs: 1,
      burst: 1,
    });
    expect(
      (await q.setRateLimit('g', { max: 1_000_000, windowMs: 2_592_000_000, burst: 1_000_000 }))
        .rateLimit,
    ).toEqual({ max: 1_000_000, windowMs: 2_592_000_000, burst: 1_000_000 });
    expect((await q.setRateLimit('g', { max: 5, windowMs: 10, burst: 1 })).rateLimit).toEqual({
      max: 5,
      windowMs: 10,
      burst: 1,
    });
  });
});

describe('flat cost', () => {
  // Redis-side command counts (INFO commandstats), as claimPromotion.test.ts measures them.
  it('with 100,000 rate-limited groups, a claim runs as many Redis commands as with none', async (context) => {
    if (engine.handle.redis.mode === 'external') context.skip();
    const admin = engine.client();
    const commandsOf = (call: () => Promise<unknown>) => commandCountDuring(admin, call);
    const build = async (limited: number) => {
      const q = engine.queue();
      await q.setRateLimit('g', { max: 1_000, windowMs: HOUR });
      for (let i = 0; i < 6; i++) await q.enqueue('g', i);
      const now = await redisNow(q.redis);
      // Rate-limited groups whose windows reopen in an hour, written as claims leave them.
      for (let n = 0; n < limited; n += 10_000) {
        const zadd: (string | number)[] = [];
        const rates: string[] = [];
        for (let i = n; i < n + 10_000; i++) {
          zadd.push(now + HOUR, `r${i}`);
          rates.push(`r${i}`, `1:${HOUR}`);
        }
        await q.redis.zadd(q.keys.rateLimited, ...zadd);
        await q.redis.hset(q.keys.rate, ...rates);
      }
      return q;
    };
    const empty = await build(0);
    const full = await build(100_000);
    expect(await full.redis.zcard(full.keys.rateLimited)).toBe(100_000);
    for (const q of [empty, full]) await q.claim(); // scripts loaded, registration done
    const counts = async (q: Queue) => [
      await commandsOf(() => q.claim()),
      await commandsOf(() => q.completeAndClaim([], { claim: 2 })),
      await commandsOf(() => q.setRateLimit('g', { max: 1_000, windowMs: HOUR })),
      // two left, three asked: nextRunAt read too
      await commandsOf(() => q.completeAndClaim([], { claim: 3 })),
    ];
    const withNone = await counts(empty);
    const withMany = await counts(full);
    expect(withMany).toEqual(withNone);
    expect(withNone[0]).toBeGreaterThan(0);
    admin.disconnect();
  }, 60_000);
});

describe('audit and repair know the rate clause (I1)', () => {
  it('a rate-limited group put on the ring by another writer is an I1 finding; repair takes it off', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    await q.redis.rpush(q.keys.ring, 'g'); // a writer that knows nothing of rate limits
    const audit = await q.audit();
    expect(audit.findings).toMatchObject([
      { subject: 'g', kind: 'I1', expected: 'off the ring', found: 'on the ring' },
    ]);
    await q.repair();
    expect(await ringOf(q)).toEqual([]);
    await clean(q);
    // The claim path judges such a stale head alike: dropped, not served.
    await q.redis.rpush(q.keys.ring, 'g');
    expect(await q.claim()).toBeNull();
    expect(await ringOf(q)).toEqual([]);
  });

  it('a reopening long past is no finding (the group stays off the ring); the next claim promotes it', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    // Its token came a day ago (its bucket full again), and no claim or reap has run since
    // (the queue's "next due at" then as old).
    const now = await redisNow(q.redis);
    await q.redis.zadd(q.keys.rateLimited, now - 86_400_000, 'g');
    await q.redis.hset(q.keys.settings, 'reopenAt', now - 86_400_000);
    await q.redis.hdel(q.keys.rateWindow, 'g');
    await clean(q);
    expect((await q.claim())?.group).toBe('g');
    await clean(q);
  });
});

describe('a read judges the rate on the Redis clock (a reopening in the past)', () => {
  /** A group with two jobs whose window reopened a day ago, before any claim promoted it. */
  async function reopened(q: Queue, group: string): Promise<number> {
    await q.setRateLimit(group, { max: 1, windowMs: HOUR });
    await q.enqueue(group, 1);
    await q.enqueue(group, 2);
    await q.claim();
    const past = (await redisNow(q.redis)) - 86_400_000;
    await q.redis.zadd(q.keys.rateLimited, past, group);
    // The queue's "next due at" as old (DESIGN.md §3, "Next due at").
    await q.redis.hset(q.keys.settings, 'reopenAt', past);
    await q.redis.hdel(q.keys.rateWindow, group);
    return past;
  }

  it('reads READY off the ring, rateLimitedUntil null, rateReopenedAt the reopening; the next claim re-rings and serves it', async () => {
    const q = engine.queue();
    const past = await reopened(q, 'g');
    const expected = {
      state: 'READY',
      onRing: false,
      rateLimitedUntil: null,
      rateReopenedAt: past,
      pending: 1,
      active: 1,
    };
    expect(await q.group('g')).toMatchObject(expected);
    expect((await q.groups()).groups[0]).toMatchObject(expected);
    const snap = await q.snapshot({ ids: ['g'] });
    expect(snap.picked[0]).toMatchObject(expected);
    expect(snap.page.groups[0]).toMatchObject(expected);
    expect(snap.ring).toEqual([]);
    // A steering call's reply judges it alike (here one that changes nothing of the rate).
    expect(await q.setWeight('g', 2)).toMatchObject(expected);
    // The metrics count rate-limited groups as the reads do.
    expect((await q.metrics()).rateLimited).toBe(0);
    await clean(q);
    // The claim promotes it (back on the ring, at its tail) and serves it: a new window.
    expect((await q.claim())?.group).toBe('g');
    const after = await q.group('g');
    expect(after).toMatchObject({ state: 'RATE_LIMITED', rateReopenedAt: null, onRing: false });
    expect(after.rateLimitedUntil).toBeGreaterThan(past + HOUR);
    expect((await q.metrics()).rateLimited).toBe(1);
    await clean(q);
  });

  it('a reopening still ahead reads RATE_LIMITED with its time, and counts in the metrics', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    const job = (await q.claim()) as Job;
    expect(await q.group('g')).toMatchObject({
      state: 'RATE_LIMITED',
      rateLimitedUntil: Number(job.claimedAt) + HOUR,
      rateReopenedAt: null,
    });
    expect((await q.metrics()).rateLimited).toBe(1);
  });

  it('with nothing pending it reads IDLE; paused it reads PAUSED, not rate-limited', async () => {
    const q = engine.queue();
    await reopened(q, 'g');
    await q.removeJobs({ group: 'g', state: 'PENDING' });
    expect(await q.group('g')).toMatchObject({ state: 'IDLE', rateLimitedUntil: null });
    await reopened(q, 'p');
    expect(await q.pause('p')).toMatchObject({ state: 'PAUSED', rateLimitedUntil: null });
    await clean(q);
  });
});

describe('with weights', () => {
  it('a weighted group keeps the head only while its window allows: at its rate it leaves the ring', async () => {
    const q = engine.queue();
    await q.setWeight('w', 5);
    await q.setRateLimit('w', { max: 2, windowMs: HOUR });
    for (let i = 0; i < 6; i++) await q.enqueue('w', i);
    for (let i = 0; i < 3; i++) await q.enqueue('o', i);
    const { claimed } = await q.completeAndClaim([], { claim: 6 });
    // w's two claims (its weight would give five), then o's three: w is off the ring.
    expect(claimed.map((j) => j.group)).toEqual(['w', 'w', 'o', 'o', 'o']);
    expect(await ringOf(q)).toEqual([]);
    expect((await q.group('w')).state).toBe('RATE_LIMITED');
    // Freed, it re-joins (a fresh round of turns) and is served again.
    await q.clearRateLimit('w');
    expect(await ringOf(q)).toEqual(['w']);
    expect((await q.completeAndClaim([], { claim: 5 })).claimed).toHaveLength(4);
    await clean(q);
  });
});

describe('with timed overrides', () => {
  it('a timed pause that reverts on a rate-limited group leaves it off the ring (RATE_LIMITED)', async () => {
    const q = engine.queue();
    await q.setRateLimit('g', { max: 1, windowMs: HOUR });
    await q.enqueue('g', 1);
    await q.enqueue('g', 2);
    await q.claim();
    const { pauseOverride } = await q.pause('g', { forMs: 1 });
    await untilRedisTimePasses(q.redis, pauseOverride?.until ?? 0);
    await q.applyOverrides();
    expect(await q.group('g')).toMatchObject({
      paused: false,
      pauseOverride: null,
      state: 'RATE_LIMITED',
    });
    expect(await ringOf(q)).toEqual([]);
    await clean(q);
  });
});
