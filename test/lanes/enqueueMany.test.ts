/**
 * The producer's side: `Queue.enqueueMany` enqueues many jobs with one script call
 * (`enqueueMany-9.lua`), each exactly as `Queue.enqueue` would, in input order; one bad job
 * refuses the whole call and nothing is written. Checked here through the engine's API:
 * - every option per job (delayMs, runAt, backoff, key, keyTtlMs, maxAttempts), the answers in
 *   input order, each as enqueue answers it;
 * - mixed groups (one paused, one at its limit, one rate-limited, one parked, fresh ones):
 *   the ring as one enqueue after another leaves it, and `Queue.audit` finds nothing;
 * - idempotency keys: a key used before answers its job, a key twice in one call makes one job,
 *   a conflict refuses the call;
 * - refusals (the engine's validation naming the job, the script's runAt, id counter and
 *   active-count checks) leave the keyspace byte for byte as it was; the bound of 1,000;
 * - a property (fast-check): enqueueMany(jobs) leaves a queue in exactly the state the same
 *   enqueues one by one leave another in (ids included; times aside), or, where one of them
 *   would be refused, refuses and writes nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EnqueueOptions,
  ErrorCode,
  type Job,
  type Queue,
  type RingmasterError,
} from '../../src/lanes/index.js';
import {
  escapeGlob,
  redisNow,
  refusal,
  scanAll,
  expirySnapshot as snapshot,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

type JobInput = { group: string; payload?: unknown; options?: EnqueueOptions };

/** A timestamp-sized number (ms since the epoch): the one thing two runs stamp differently. */
const TIME = /\d{12,}/g;
const timeless = (v: string) => v.replace(TIME, 'T');

/**
 * Everything a queue stores, key by key (its name past the queue's base), read by type, with
 * times (enqueuedAt, leaseUntil, runAt, lease deadlines: numbers of 12 digits or more) as 'T'
 * and expiries left out.
 */
async function queueState(q: Queue): Promise<Record<string, unknown>> {
  const r = q.redis;
  const base = q.keys.base;
  const out: Record<string, unknown> = {};
  for (const key of (await scanAll(r, `${escapeGlob(base)}*`)).sort()) {
    if (key === q.keys.reaper || key === q.keys.reapedAt) continue;
    const name = key.slice(base.length);
    const type = await r.type(key);
    if (type === 'hash') {
      const h = await r.hgetall(key);
      // The queue's epoch is random per queue (its identity), not part of what it holds.
      if (name === 'settings' && h.epoch !== undefined) h.epoch = 'E';
      out[name] = Object.fromEntries(
        Object.entries(h)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([f, v]) => [f, timeless(v)]),
      );
    } else if (type === 'zset') {
      const flat = await r.zrange(key, 0, -1, 'WITHSCORES');
      const pairs: string[] = [];
      for (let i = 0; i < flat.length; i += 2)
        pairs.push(`${flat[i]}@${timeless(flat[i + 1] as string)}`);
      // `gseen` is ordered by when each group was registered: one call stamps one instant.
      out[name] = name === 'gseen' ? pairs.sort() : pairs;
    } else if (type === 'list') {
      out[name] = await r.lrange(key, 0, -1);
    } else if (type === 'stream') {
      // The steering history: its entries' fields (their ids are times).
      out[name] = (await r.xrange(key, '-', '+')).map(([, fields]) => fields.map(timeless));
    } else if (type === 'set') {
      out[name] = (await r.smembers(key)).sort();
    } else {
      out[name] = await r.get(key);
    }
  }
  return out;
}

/**
 * The same starting state on a queue: group `paused` paused with a job, `full` at its limit
 * (1, its job claimed under a fixed token), `parked` at limit 0 with a job, `rated` at its rate
 * (1 claim per hour, used), `busy` on the ring, and key `used` taken by a job of `busy`.
 */
async function seed(q: Queue): Promise<void> {
  await q.enqueue('paused', { seed: 1 });
  await q.pause('paused');
  await q.setLimit('full', 1);
  await q.enqueue('full', { seed: 2 });
  await q.claim({ token: 'seed-token', leaseMs: 60_000 });
  await q.setLimit('parked', 0);
  await q.enqueue('parked', { seed: 3 });
  await q.setRateLimit('rated', { max: 1, windowMs: 3_600_000 });
  await q.enqueue('rated', { seed: 4 });
  await q.claim({ token: 'seed-token-2', leaseMs: 60_000 });
  await q.enqueue('busy', { seed: 5 }, { key: 'used' });
}

/** A job as two runs answer it alike: its times left out. */
const comparable = (job: Job) => ({
  ...job,
  queue: 'Q',
  enqueuedAt: job.enqueuedAt === null ? null : 'T',
  runAt: job.runAt === null ? null : 'T',
});

describe('enqueueMany', () => {
  it('answers every job in input order, each as enqueue would, with every option', async () => {
    const q = engine.queue();
    const now = await redisNow(q.redis);
    const jobs: JobInput[] = [
      { group: 'a', payload: { n: 1 } },
      { group: 'b' },
      { group: 'a', payload: [1, 2, 3], options: { maxAttempts: 7 } },
      { group: 'c', payload: 'later', options: { delayMs: 60_000 } },
      { group: 'c', payload: 'at', options: { runAt: now + 120_000 } },
      { group: 'b', payload: 'past', options: { runAt: now - 5_000 } },
      {
        group: 'a',
        options: { backoff: { type: 'EXPONENTIAL', delayMs: 10, maxDelayMs: 80, jitter: 0.5 } },
      },
      { group: 'd', payload: { k: 1 }, options: { key: 'order-1', keyTtlMs: 60_000 } },
      {
        group: 'b',
        payload: null,
        options: { delayMs: 0, backoff: { type: 'FIXED', delayMs: 5 } },
      },
    ];
    const answered = await q.enqueueMany(jobs);
    expect(answered.map((j) => j.id)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(answered.map((j) => [j.group, j.state])).toEqual([
      ['a', 'PENDING'],
      ['b', 'PENDING'],
      ['a', 'PENDING'],
      ['c', 'DELAYED'],
      ['c', 'DELAYED'],
      ['b', 'PENDING'],
      ['a', 'PENDING'],
      ['d', 'PENDING'],
      ['b', 'PENDING'],
    ]);
    expect(answered[2]).toMatchObject({ payload: [1, 2, 3], maxAttempts: 7, attempts: 0 });
    expect(answered[3]?.runAt).toBeGreaterThanOrEqual(now + 60_000);
    expect(answered[4]?.runAt).toBe(now + 120_000);
    expect(answered[6]?.backoff).toEqual({
      type: 'EXPONENTIAL',
      delayMs: 10,
      maxDelayMs: 80,
      jitter: 0.5,
    });
    expect(answered[8]?.backoff).toEqual({
      type: 'FIXED',
      delayMs: 5,
      maxDelayMs: null,
      jitter: 0,
    });
    expect(await q.redis.pttl(q.keys.idem('order-1'))).toBeGreaterThan(50_000);

    // The same jobs one by one, on another queue: the same answers (times aside).
    const one = engine.queue();
    const single: Job[] = [];
    for (const job of jobs) single.push(await one.enqueue(job.group, job.payload, job.options));
    expect(answered.map(comparable)).toEqual(single.map(comparable));
    // Every answer is what a read of the job says.
    for (const job of answered) expect(await q.job(job.id)).toMatchObject({ ...job, errors: [] });
    expect(await q.ring()).toEqual(['a', 'b', 'd']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('mixed groups (paused, at its limit, parked, rate-limited, on the ring, new): the ring and counts as one by one, audit clean', async () => {
    const [q, one] = [engine.queue(), engine.queue()];
    await seed(q);
    await seed(one);
    const jobs: JobInput[] = [
      'new1',
      'paused',
      'full',
      'busy',
      'parked',
      'rated',
      'new2',
      'new1',
    ].map((group, i) => ({ group, payload: { i } }));
    const many = await q.enqueueMany(jobs);
    for (const job of jobs) await one.enqueue(job.group, job.payload, job.options);
    expect(await q.ring()).toEqual(['busy', 'new1', 'new2']);
    expect(await queueState(q)).toEqual(await queueState(one));
    expect(many.map((j) => j.state)).toEqual(Array(8).fill('PENDING'));
    expect((await q.audit()).findings).toEqual([]);
    const wake = await q.redis.llen(q.keys.wake);
    expect(wake).toBe(await one.redis.llen(one.keys.wake));
    // The new groups' jobs are claimed in rota order: busy's, new1's, new2's.
    expect((await q.claim())?.group).toBe('busy');
    expect((await q.claim())?.group).toBe('new1');
    expect((await q.claim())?.group).toBe('new2');
  });

  it('idempotency keys: a key used before answers its job; twice in one call, the second answers the first', async () => {
    const q = engine.queue();
    const before = await q.enqueue('g', { n: 0 }, { key: 'old', maxAttempts: 2 });
    const claimed = await q.claim();
    const jobs: JobInput[] = [
      { group: 'g', payload: { n: 1 }, options: { key: 'new' } },
      { group: 'g', payload: { n: 0 }, options: { key: 'old', maxAttempts: 2 } },
      { group: 'h', payload: { n: 2 } },
      { group: 'g', payload: { n: 1 }, options: { key: 'new' } },
    ];
    const answered = await q.enqueueMany(jobs);
    expect(answered.map((j) => j.id)).toEqual(['2', before.id, '3', '2']);
    expect(answered[1]).toMatchObject({ state: 'ACTIVE', attempts: 1, token: null });
    expect(claimed?.token).not.toBeNull();
    expect(answered[3]).toEqual(answered[0]);
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1)).toEqual(['2']);
    expect(await q.redis.hget(q.keys.stats, 'enqueued')).toBe('3');
    // A second call with the same keys makes nothing.
    const again = await q.enqueueMany(jobs);
    expect(again.map((j) => j.id)).toEqual(['2', before.id, '4', '2']);
  });

  it('a job the engine refuses names its index, and nothing is sent', async () => {
    const q = engine.queue();
    await seed(q);
    const before = await snapshot(q.redis);
    const ok: JobInput = { group: 'g', payload: 1 };
    const cases: [unknown[], string][] = [
      [[ok, ok, ok, { group: '' }], 'jobs[3].group'],
      [[ok, { group: 'g', options: { maxAttempts: 0 } }], 'jobs[1].maxAttempts'],
      [[{ group: 'g', payload: () => 1 }], 'jobs[0].payload'],
      [[ok, { group: 'g', options: { delayMs: 1, runAt: 1 } }], 'jobs[1].runAt'],
      [[ok, ok, { group: 'g', options: { keyTtlMs: 5 } }], 'jobs[2].keyTtlMs'],
      [[{ group: 'g', options: { key: 'a\u0000b' } }], 'jobs[0].key'],
      [[{ group: 'g', options: { backoff: { type: 'LINEAR', delayMs: 1 } } }], 'jobs[0].backoff'],
      [[ok, null], 'jobs[1]'],
      [[ok, { group: 'g', options: 3 }], 'jobs[1].options'],
      [[ok, { group: 'g', payload: 'x'.repeat(524_289) }], 'jobs[1].payload'],
    ];
    for (const [jobs, argument] of cases) {
      const error = await refusal(() => q.enqueueMany(jobs as JobInput[]));
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
      expect(error.argument).toBe(argument);
      expect(error.message.startsWith(`${argument}: `)).toBe(true);
    }
    const notArray = await refusal(() => q.enqueueMany('jobs' as unknown as JobInput[]));
    expect(notArray.argument).toBe('jobs');
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it('a job the script refuses (runAt, a key conflict, the id counter, an active count) refuses the call: nothing written', async () => {
    const q = engine.queue();
    await seed(q);
    const now = await redisNow(q.redis);
    const ok: JobInput = { group: 'busy', payload: 1 };
    const before = await snapshot(q.redis);
    const far = await refusal(() =>
      q.enqueueMany([ok, ok, { group: 'x', options: { runAt: now + 40 * 86_400_000 } }]),
    );
    expect([far.code, far.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs[2].runAt']);
    const used = await refusal(() =>
      q.enqueueMany([ok, { group: 'other', payload: { seed: 5 }, options: { key: 'used' } }]),
    );
    expect([used.code, used.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs[1].key']);
    expect(used.message).toMatch(/was used for job 5 of queue/);
    const twice = await refusal(() =>
      q.enqueueMany([
        ok,
        { group: 'a', payload: 1, options: { key: 'fresh' } },
        ok,
        { group: 'a', payload: 2, options: { key: 'fresh' } },
      ]),
    );
    expect([twice.code, twice.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs[3].key']);
    expect(twice.message).toMatch(/was used for jobs\[1\] of this call/);
    expect(await snapshot(q.redis)).toEqual(before);

    // An active count no script can hold exactly, of a group with a limit: DATA_OUT_OF_RANGE.
    await q.redis.hset(q.keys.gactive, 'full', '1e400');
    const garbage = await snapshot(q.redis);
    const active = await refusal(() => q.enqueueMany([ok, { group: 'full' }, ok]));
    expect(active.code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(await snapshot(q.redis)).toEqual(garbage);
    await q.redis.hset(q.keys.gactive, 'full', '1');

    // The id counter: room for two more ids (10^15−2 and 10^15−1, MAX_JOB_ID), not for three.
    await q.redis.set(q.keys.seq, String(10 ** 15 - 3));
    const full = await snapshot(q.redis);
    const seq = await refusal(() => q.enqueueMany([ok, ok, ok]));
    expect(seq.code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(await snapshot(q.redis)).toEqual(full);
    const last = await q.enqueueMany([ok, ok]);
    expect(last.map((j) => j.id)).toEqual([String(10 ** 15 - 2), String(10 ** 15 - 1)]);
  });

  it('takes up to 1,000 jobs a call, and refuses more (argument `jobs`), sending nothing', async () => {
    const q = engine.queue();
    const none = await q.enqueueMany([]);
    expect(none).toEqual([]);
    expect(await q.known()).toBe(false);
    const before = await snapshot(q.redis);
    const over = await refusal(() =>
      q.enqueueMany(Array.from({ length: 1_001 }, (_, i) => ({ group: `g${i % 7}`, payload: i }))),
    );
    expect([over.code, over.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs']);
    expect(await snapshot(q.redis)).toEqual(before);
    const jobs = Array.from({ length: 1_000 }, (_, i) => ({
      group: `g${i % 37}`,
      payload: { i },
      options: i % 5 === 0 ? { delayMs: 60_000, key: `k${i}` } : {},
    }));
    const answered = await q.enqueueMany(jobs);
    expect(answered.map((j) => j.id)).toEqual(jobs.map((_, i) => String(i + 1)));
    expect((await q.counts()).pending).toBe(800);
    expect((await q.counts()).delayed).toBe(200);
    expect(await q.ring()).toEqual(Array.from({ length: 37 }, (_, i) => `g${i}`));
    expect((await q.audit()).findings).toEqual([]);
  });

  it('takes payloads of up to 16 MiB of JSON text a call, counted in UTF-8 bytes, and refuses more (argument `jobs`), sending nothing', async () => {
    const q = engine.queue();
    await seed(q);
    // 32 payloads of 524,288 bytes each (the per-job limit): "é…é" is 2 + 2 × 262,143 bytes.
    const PER_JOB = 524_288;
    const count = 16_777_216 / PER_JOB;
    const big = 'é'.repeat((PER_JOB - 2) / 2);
    const full = Array.from({ length: count }, (_, i) => ({ group: `g${i % 3}`, payload: big }));
    const before = await snapshot(q.redis);
    // One byte more (the payload `1`): 16,777,217 bytes, though under 9 million characters.
    // Refused at the job that crosses the bound, in input order like every other check: a bad
    // job after it is never read.
    const over = await refusal(() =>
      q.enqueueMany([...full, { group: 'g0', payload: 1 }, { group: '' }]),
    );
    expect([over.code, over.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'jobs']);
    expect(over.message).toBe(
      'jobs: payloads total 16777217 bytes of JSON text by jobs[32], over the 16777216 bytes one call may send: split the jobs into smaller calls',
    );
    expect(await snapshot(q.redis)).toEqual(before);
    // Exactly the bound (jobs without a payload count nothing) is taken.
    const answered = await q.enqueueMany([{ group: 'g1' }, ...full]);
    expect(answered).toHaveLength(count + 1);
    expect((await q.job(answered[count]?.id as string))?.payload).toBe(big);
    expect((await q.audit()).findings).toEqual([]);
  });
});

describe('enqueueMany is the same enqueues one by one (property)', () => {
  const GROUPS = ['busy', 'paused', 'full', 'parked', 'rated', 'n1', 'n2'];
  it('leaves the same state, ids included, or refuses and writes nothing', async () => {
    const now = await redisNow(engine.redis());
    const jobArb = fc.record(
      {
        group: fc.constantFrom(...GROUPS),
        payload: fc.oneof(
          fc.constant(undefined),
          fc.integer(),
          fc.record({ s: fc.string({ maxLength: 4 }) }),
        ),
        maxAttempts: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
        key: fc.option(fc.constantFrom('used', 'k1', 'k2'), { freq: 3, nil: undefined }),
        timing: fc.constantFrom('none', 'zero', 'future', 'past'),
        backoff: fc.boolean(),
      },
      { requiredKeys: ['group', 'timing', 'backoff'] },
    );
    const toInput = (j: typeof jobArb extends fc.Arbitrary<infer T> ? T : never): JobInput => {
      const options: Record<string, unknown> = {};
      if (j.maxAttempts !== undefined) options.maxAttempts = j.maxAttempts;
      if (j.key !== undefined) options.key = j.key;
      if (j.timing === 'zero') options.delayMs = 0;
      if (j.timing === 'future') options.runAt = now + 3_600_000;
      if (j.timing === 'past') options.runAt = now - 1_000;
      if (j.backoff) options.backoff = { type: 'FIXED', delayMs: 7 };
      return { group: j.group, payload: j.payload, options: options as EnqueueOptions };
    };
    await fc.assert(
      fc.asyncProperty(fc.array(jobArb, { minLength: 1, maxLength: 25 }), async (raw) => {
        const jobs = raw.map(toInput);
        const [many, one] = [engine.queue(), engine.queue()];
        await seed(many);
        await seed(one);
        let refusedAt = -1;
        const single: Job[] = [];
        for (const [i, job] of jobs.entries()) {
          try {
            single.push(await one.enqueue(job.group, job.payload, job.options));
          } catch (error) {
            expect((error as RingmasterError).argument).toBe('key');
            refusedAt = i;
            break;
          }
        }
        if (refusedAt >= 0) {
          const before = await queueState(many);
          const error = await refusal(() => many.enqueueMany(jobs));
          expect(error.argument).toBe(`jobs[${refusedAt}].key`);
          expect(await queueState(many)).toEqual(before);
          return;
        }
        const answered = await many.enqueueMany(jobs);
        expect(answered.map(comparable)).toEqual(single.map(comparable));
        expect(await queueState(many)).toEqual(await queueState(one));
        expect((await many.audit()).findings).toEqual([]);
      }),
      { numRuns: 60, seed: 18 },
    );
  });
});
