/**
 * Delayed jobs (DESIGN.md §3, enqueue and promotion): an enqueue with `delayMs` or
 * `runAt` in the future keeps the job in `delayed` and its group's delayed index, not pending,
 * its group off the ring (I1), until a promotion — the reaper's pass, or `Queue.promote` — puts
 * it in its lane at its FIFO place with a re-ring and a wake. Times are read on the Redis clock.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, Limits, RingmasterError } from '../../src/lanes/index.js';
import { Connection } from '../../src/lanes/redis/connection.js';
import { Commands } from '../../src/lanes/scripts/commands.js';
import { scriptCallsIn } from '../support/commandStats.js';
import {
  queueSnapshot,
  rawState,
  redisNow,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof RingmasterError)
      return `${error.code}${error.argument ? ` ${error.argument}` : ''}`;
    throw error;
  }
  throw new Error('the call was accepted');
}

async function auditClean(q: ReturnType<typeof engine.queue>): Promise<void> {
  expect((await q.audit()).findings).toEqual([]);
}

describe('delayed enqueue', () => {
  it('keeps the job DELAYED with its runAt (Redis clock), in delayed and its group index, not pending, the group off the ring', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const t0 = await redisNow(r);
    const job = await q.enqueue('g', { n: 1 }, { delayMs: 150 });
    const t1 = await redisNow(r);
    expect(job.state).toBe('DELAYED');
    expect(job.runAt).toBeGreaterThanOrEqual(t0 + 150);
    expect(job.runAt).toBeLessThanOrEqual(t1 + 150);
    expect(await r.zscore(q.keys.delayed, job.id)).toBe(String(job.runAt));
    expect(await r.zscore(q.keys.groupDelayed('g'), job.id)).toBe(String(job.runAt));
    expect(await r.hget(q.keys.job(job.id), 'runAt')).toBe(String(job.runAt));
    const raw = await rawState(q);
    expect(raw.lanes).toEqual({});
    expect(raw.ring).toEqual([]);
    expect(raw.wake).toBe(0);
    // registered all the same, so the group is listed and the reaper finds the queue
    expect(raw.groups).toEqual(['g']);
    expect(await q.known()).toBe(true);
    const stats = await statsOf(q);
    expect(stats).toMatchObject({ enqueued: 1, pending: 0, delayed: 1 });
    expect(await q.claim()).toBeNull();
    await auditClean(q);
    expect((await q.group('g')).state).toBe('IDLE');
  });

  it('a due job is claimable after promotion, at its FIFO place (its id), ahead of later jobs', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const delayed = await q.enqueue('g', 'first', { delayMs: 60 });
    const later = await q.enqueue('g', 'second');
    // Not due yet: a reap pass leaves it where it is.
    await q.reap();
    expect(await r.zscore(q.keys.delayed, delayed.id)).not.toBeNull();
    await untilRedisTimePasses(r, delayed.runAt as number);
    await q.reap();
    expect(await r.zcard(q.keys.delayed)).toBe(0);
    expect(await r.zcard(q.keys.groupDelayed('g'))).toBe(0);
    const promoted = await q.job(delayed.id);
    expect(promoted).toMatchObject({ state: 'PENDING', runAt: null });
    expect(await r.zrange(q.keys.lane('g'), 0, -1)).toEqual([delayed.id, later.id]);
    expect((await q.claim())?.id).toBe(delayed.id);
    expect((await q.claim())?.id).toBe(later.id);
    expect(await statsOf(q)).toMatchObject({ delayed: 0, pending: 0, active: 2 });
    await auditClean(q);
  });

  it('promotion re-rings a group whose only work was delayed, with a wake', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('only', null, { delayMs: 40 });
    expect(await q.ring()).toEqual([]);
    await auditClean(q);
    await untilRedisTimePasses(r, job.runAt as number);
    expect(await r.llen(q.keys.wake)).toBe(0);
    await q.reap();
    expect(await q.ring()).toEqual(['only']);
    expect(await r.llen(q.keys.wake)).toBe(1);
    await auditClean(q);
  });

  it('promotes into a paused or saturated group without putting it on the ring (I1)', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await q.pause('p');
    await q.setLimit('s', 1);
    await q.enqueue('s');
    await q.claim();
    const a = await q.enqueue('p', null, { delayMs: 30 });
    const b = await q.enqueue('s', null, { delayMs: 30 });
    await untilRedisTimePasses(r, Math.max(a.runAt as number, b.runAt as number));
    await q.reap();
    expect(await q.ring()).toEqual([]);
    expect((await q.group('p')).pending).toBe(1);
    expect((await q.group('s')).pending).toBe(1);
    await auditClean(q);
    await q.resume('p');
    expect(await q.ring()).toEqual(['p']);
  });

  it('runAt: in the future delays, now or past runs at once; more than 30 days from now either way is refused, nothing written', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const now = await redisNow(r);
    const future = await q.enqueue('g', null, { runAt: now + 5_000 });
    expect(future).toMatchObject({ state: 'DELAYED', runAt: now + 5_000 });
    const past = await q.enqueue('g', null, { runAt: now - 60_000 });
    expect(past).toMatchObject({ state: 'PENDING', runAt: null });
    expect(await q.ring()).toEqual(['g']);
    const before = await queueSnapshot(q);
    expect(await codeOf(q.enqueue('g', null, { runAt: now + Limits.maxDelayMs + 60_000 }))).toBe(
      'BAD_USER_INPUT runAt',
    );
    expect(await codeOf(q.enqueue('g', null, { runAt: now - Limits.maxDelayMs - 60_000 }))).toBe(
      'BAD_USER_INPUT runAt',
    );
    // seconds instead of ms: decades ago
    expect(await codeOf(q.enqueue('g', null, { runAt: Math.floor(now / 1000) }))).toBe(
      'BAD_USER_INPUT runAt',
    );
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('delayMs 0 enqueues as without one; the longest delay (30 days) is accepted', async () => {
    const q = engine.queue();
    expect((await q.enqueue('g', null, { delayMs: 0 })).state).toBe('PENDING');
    const far = await q.enqueue('g', null, { delayMs: Limits.maxDelayMs });
    expect(far.state).toBe('DELAYED');
    expect(await statsOf(q)).toMatchObject({ pending: 1, delayed: 1 });
  });

  it('stores a backoff policy on the job (Queue.job reads it back)', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, {
      backoff: { type: 'EXPONENTIAL', delayMs: 100, maxDelayMs: 1_000, jitter: 0.25 },
    });
    const policy = { type: 'EXPONENTIAL', delayMs: 100, maxDelayMs: 1_000, jitter: 0.25 };
    expect(job.backoff).toEqual(policy);
    expect((await q.job(job.id))?.backoff).toEqual(policy);
    const fixed = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 50 } });
    expect(fixed.backoff).toEqual({ type: 'FIXED', delayMs: 50, maxDelayMs: null, jitter: 0 });
    expect(await engine.redis().hgetall(q.keys.job(fixed.id))).toMatchObject({
      backoff: 'FIXED',
      backoffDelayMs: '50',
    });
    expect(await engine.redis().hexists(q.keys.job(fixed.id), 'backoffJitter')).toBe(0);
    expect((await q.enqueue('g')).backoff).toBeNull();
  });
});

describe('promotion of a job another writer spoiled', () => {
  it('a score that is not a finite number falls back to the id, rather than failing after a write', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, { delayMs: 60_000 });
    await r.hset(q.keys.job(job.id), 'score', 'nan');
    const moved = await q.promote(job.id);
    expect(moved).toMatchObject({ state: 'PENDING', promoted: true });
    expect(await r.zscore(q.keys.lane('g'), job.id)).toBe(job.id);
    expect(await r.zcard(q.keys.delayed)).toBe(0);
    await auditClean(q);
  });
});

describe('idempotency keys cover the delay and the backoff', () => {
  it('the same key with the same delay answers the job; another delay or backoff is refused', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { a: 1 }, { key: 'k', delayMs: 5_000 });
    const again = await q.enqueue('g', { a: 1 }, { key: 'k', delayMs: 5_000 });
    expect(again.id).toBe(first.id);
    expect(again.state).toBe('DELAYED');
    const before = await queueSnapshot(q);
    expect(await codeOf(q.enqueue('g', { a: 1 }, { key: 'k', delayMs: 6_000 }))).toBe(
      'BAD_USER_INPUT key',
    );
    expect(await codeOf(q.enqueue('g', { a: 1 }, { key: 'k' }))).toBe('BAD_USER_INPUT key');
    expect(
      await codeOf(
        q.enqueue(
          'g',
          { a: 1 },
          { key: 'k', delayMs: 5_000, backoff: { type: 'FIXED', delayMs: 1 } },
        ),
      ),
    ).toBe('BAD_USER_INPUT key');
    expect(await queueSnapshot(q)).toEqual(before);
    const b = await q.enqueue('g', null, { key: 'b', backoff: { type: 'FIXED', delayMs: 10 } });
    expect(
      await codeOf(q.enqueue('g', null, { key: 'b', backoff: { type: 'FIXED', delayMs: 20 } })),
    ).toBe('BAD_USER_INPUT key');
    expect(
      (await q.enqueue('g', null, { key: 'b', backoff: { type: 'FIXED', delayMs: 10 } })).id,
    ).toBe(b.id);
  });

  it('a key recorded before delays existed (fingerprint of group, maxAttempts, payload) still matches a request without them', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const { createHash } = await import('node:crypto');
    const old = createHash('sha256').update('g\n3\n{"a":1}').digest('hex');
    const job = await q.enqueue('g', { a: 1 }, { key: 'old' });
    expect(await r.hget(q.keys.idem('old'), 'fingerprint')).toBe(old);
    expect((await q.enqueue('g', { a: 1 }, { key: 'old' })).id).toBe(job.id);
  });
});

describe('Queue.promote (promoteJob-8.lua)', () => {
  it('moves a delayed job to its lane now, at its FIFO place, re-ringing with a wake', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const delayed = await q.enqueue('g', 'early', { delayMs: 3_600_000 });
    await q.setLimit('g', 0);
    const pending = await q.enqueue('g', 'late');
    await q.clearLimit('g');
    const wakes = await r.llen(q.keys.wake);
    expect(await q.ring()).toEqual(['g']);
    const moved = await q.promote(delayed.id);
    expect(moved).toMatchObject({ id: delayed.id, state: 'PENDING', runAt: null, promoted: true });
    expect(await r.zrange(q.keys.lane('g'), 0, -1)).toEqual([delayed.id, pending.id]);
    expect(await r.zcard(q.keys.delayed)).toBe(0);
    expect(await r.exists(q.keys.groupDelayed('g'))).toBe(0);
    // g was on the ring already: no second entry, no wake
    expect(await q.ring()).toEqual(['g']);
    expect(await r.llen(q.keys.wake)).toBe(wakes);
    expect(await statsOf(q)).toMatchObject({ pending: 2, delayed: 0 });

    const lone = await q.enqueue('h', null, { delayMs: 3_600_000 });
    expect(await q.ring()).toEqual(['g']);
    await q.promote(lone.id);
    expect(await q.ring()).toEqual(['g', 'h']);
    expect(await r.llen(q.keys.wake)).toBe(wakes + 1);
    await auditClean(q);
  });

  it('answers a job that is not delayed unchanged (promoted false), writing nothing', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', { x: 1 });
    const active = (await q.claim()) as Job;
    const before = await queueSnapshot(q);
    const same = await q.promote(job.id);
    expect(same).toMatchObject({
      id: job.id,
      state: 'ACTIVE',
      promoted: false,
      token: active.token,
    });
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('JOB_NOT_FOUND for no such job, or an id that cannot name one, writing nothing', async () => {
    const q = engine.queue();
    await q.enqueue('g', null, { delayMs: 60_000 });
    const before = await queueSnapshot(q);
    expect(await codeOf(q.promote('424242'))).toBe(ErrorCode.JOB_NOT_FOUND);
    expect(await codeOf(q.promote('nope'))).toBe(ErrorCode.JOB_NOT_FOUND);
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('refuses (DATA_OUT_OF_RANGE) a job whose group active count cannot be counted, writing nothing', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await q.setLimit('g', 5);
    const job = await q.enqueue('g', null, { delayMs: 60_000 });
    await r.hset(q.keys.gactive, 'g', '99999999999999999999');
    const before = await queueSnapshot(q);
    expect(await codeOf(q.promote(job.id))).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

describe('the queue\'s next due at (DESIGN.md §3, "Next due at")', () => {
  const SOON = 150;
  const HOUR = 3_600_000;
  type Q = ReturnType<typeof engine.queue>;

  /**
   * Each writer that adds to `delayed` or `ratelimited`, on a queue whose bounds a claim already
   * wrote an hour ahead (a job delayed an hour; group `slow` rate-limited for an hour): it adds
   * something due in SOON ms and answers the job that must be claimed once that time has come.
   */
  const writers: [string, (q: Q) => Promise<string>][] = [
    ['enqueue with a delay', async (q) => (await q.enqueue('g', 1, { delayMs: SOON })).id],
    [
      'enqueueMany with a delay',
      async (q) =>
        ((await q.enqueueMany([{ group: 'g', payload: 1, options: { delayMs: SOON } }]))[0] as Job)
          .id,
    ],
    [
      'retry with a delay',
      async (q) => {
        await q.enqueue('g', 1);
        const job = (await q.claim()) as Job;
        await q.retry(job.id, job.token as string, { error: 'again', delayMs: SOON });
        return job.id;
      },
    ],
    [
      "the reaper's requeue with a backoff",
      async (q) => {
        await q.enqueue('g', 1, { backoff: { type: 'FIXED', delayMs: SOON } });
        const job = (await q.claim({ leaseMs: 1 })) as Job;
        await untilRedisTimePasses(q.redis, (job.leaseUntil as number) + 1);
        expect(await q.reap()).toBe(1);
        return job.id;
      },
    ],
    [
      'a debounce that moves its job earlier',
      async (q) => {
        const job = await q.enqueue('g', 1, { debounce: { key: 'k', windowMs: HOUR } });
        await q.enqueue('g', 2, { debounce: { key: 'k', windowMs: SOON } });
        return job.id;
      },
    ],
    [
      'setRateLimit',
      async (q) => {
        await q.setRateLimit('r', { max: 1, windowMs: HOUR });
        await q.enqueue('r', 1);
        const second = await q.enqueue('r', 2);
        expect((await q.claim())?.group).toBe('r');
        // Its bucket, empty since that claim, refills in SOON ms under the new rate.
        await q.setRateLimit('r', { max: 1, windowMs: SOON });
        return second.id;
      },
    ],
    [
      'a claim that rate-limits a group',
      async (q) => {
        await q.setRateLimit('r', { max: 1, windowMs: SOON });
        await q.enqueue('r', 1);
        const second = await q.enqueue('r', 2);
        expect((await q.claim())?.group).toBe('r');
        return second.id;
      },
    ],
  ];

  it.each(writers)('%s: what it adds is claimed once due', async (_, write) => {
    const q = engine.queue();
    await q.enqueue('far', 0, { delayMs: HOUR });
    await q.setRateLimit('slow', { max: 1, windowMs: HOUR });
    await q.enqueue('slow', 1);
    await q.enqueue('slow', 2);
    expect((await q.claim())?.group).toBe('slow');
    const id = await write(q);
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + SOON);
    expect((await q.claim())?.id).toBe(id);
    await auditClean(q);
  });

  it('a bound later than the earliest (written by hand) is reported and rewritten by Queue.repair, and rewritten by the reaper', async () => {
    for (const mend of ['repair', 'reap'] as const) {
      const q = engine.queue();
      const job = await q.enqueue('g', 1, { delayMs: SOON });
      expect(await q.claim()).toBeNull();
      const late = String((job.runAt as number) + HOUR);
      await q.redis.hset(q.keys.settings, 'delayedAt', late);
      if (mend === 'repair') {
        const finding = {
          kind: 'DUE',
          subject: 'delayedAt',
          expected: `at most ${job.runAt}`,
          found: late,
        };
        expect((await q.audit()).findings).toEqual([finding]);
        expect((await q.repair()).findings).toEqual([finding]);
      } else {
        // Before the job is due: the pass promotes nothing, it rewrites the bound.
        await q.reap();
      }
      await auditClean(q);
      await untilRedisTimePasses(q.redis, job.runAt as number);
      expect((await q.claim())?.id).toBe(job.id);
    }
  });
});

describe('flat cost: 100,000 delayed jobs', () => {
  it('a reap call promotes at most its batch, the earliest first, and reads no more', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const now = await redisNow(r);
    const total = 100_000;
    // 100,000 due delayed jobs in 10 script calls, in the layout enqueue-12.lua writes.
    const seed = `
      local base, group, from, to, runAt = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
      for i = from, to do
        local id = tostring(i)
        redis.call('HSET', base .. 'job:' .. id, 'group', group, 'state', 'delayed', 'attempts', 0,
          'maxAttempts', 3, 'score', id, 'enqueuedAt', runAt, 'runAt', runAt - i)
        redis.call('ZADD', KEYS[1], runAt - i, id)
        redis.call('ZADD', KEYS[2], runAt - i, id)
      end
      redis.call('HINCRBY', KEYS[3], 'delayed', to - from + 1)
      redis.call('ZADD', KEYS[4], 0, group)
      return to - from + 1`;
    const started = Date.now();
    for (let from = 1; from <= total; from += 10_000) {
      await r.eval(
        seed,
        4,
        q.keys.delayed,
        q.keys.groupDelayed('g'),
        q.keys.stats,
        q.keys.groups,
        q.keys.base,
        'g',
        from,
        from + 9_999,
        now - 1,
      );
    }
    await r.set(q.keys.seq, total);
    const seeded = Date.now() - started;
    expect(await r.zcard(q.keys.delayed)).toBe(total);

    const commands = new Commands(Connection.of(r), q.keys);
    const [reaped, promoted] = await commands.reap({ batch: 100, r: 0.5 });
    expect(reaped).toBe(0);
    expect(promoted).toBe(100);
    expect(await r.zcard(q.keys.delayed)).toBe(total - 100);
    // the earliest runAt first: the highest ids were seeded earliest
    const lane = await r.zrange(q.keys.lane('g'), 0, -1);
    expect(lane).toHaveLength(100);
    expect(lane[0]).toBe(String(total - 99));
    expect(await statsOf(q)).toMatchObject({ delayed: total - 100, pending: 100 });
    expect(await q.ring()).toEqual(['g']);
    // Queue.reap keeps calling while a batch came back full, and stops once none does.
    const scriptCalls = async () => scriptCallsIn(await r.info('commandstats'));
    const callsBefore = await scriptCalls();
    expect(await q.reap({ batch: Limits.maxReapBatch })).toBe(0);
    const calls = (await scriptCalls()) - callsBefore;
    expect(await r.zcard(q.keys.delayed)).toBe(0);
    expect(await statsOf(q)).toMatchObject({ delayed: 0, pending: total });
    // 99,900 promoted, 10,000 a call: 9 full calls and one that comes back short; and the
    // connection's first state check of the queue (DESIGN.md §3, "A Redis that lost a queue's
    // state"), one however many calls; and one forgetGroups-5.lua call after the reap loop
    // (DESIGN.md §3 "Forgetting groups": it forgets nothing here, nothing is in gseen, so the
    // loop stops after one); and one pruneWorkers-2.lua (DESIGN.md §4.9: no lapsed worker).
    expect(calls).toBe(13);
    console.info(`seeded ${total} delayed jobs in ${seeded} ms`);
  }, 60_000);
});
