/**
 * Numbers that pass through Lua. Lua numbers are doubles, so an integer past
 * ±(2^53−1) that a script reads from Redis loses precision, and written back it overwrites what
 * was stored. Each stored number a script converts is either kept exact or refused with
 * DATA_OUT_OF_RANGE before the script's first write (nothing changed, byte for byte); a batch
 * that cannot refuse (claim, reap, completeAndClaim's completions) leaves that item alone.
 * Every value below is written the way a hand edit or another writer would.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue, RingmasterError, Worker } from '../../src/lanes/index.js';
import { codes, expectNoLeak, post } from '../support/api.js';
import { snapshot, untilRedisTimePasses, useEngine } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';

const engine = useEngine();

/** 2^53 + 1: the first integer a double cannot hold (it reads as 2^53). */
const PAST_2_53 = '9007199254740993';

async function claimed(q: Queue, leaseMs?: number): Promise<Job> {
  const job = await q.claim(leaseMs === undefined ? {} : { leaseMs });
  if (!job) throw new Error('expected a job, the rota had none');
  return job;
}

/** `call` rejects with DATA_OUT_OF_RANGE matching `message`, and Redis is unchanged. */
async function expectRefused(q: Queue, call: () => Promise<unknown>, message: RegExp) {
  const before = await snapshot(q.redis);
  const error = await call().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RingmasterError);
  expect((error as RingmasterError).code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
  expect((error as RingmasterError).message).toMatch(message);
  expect((error as RingmasterError).message).not.toMatch(/user_script/);
  expect(await snapshot(q.redis)).toEqual(before);
}

describe('the job id counter (seq)', () => {
  it('mints ids up to 10^15−1 (MAX_JOB_ID) exactly, lane scores of every priority included, then refuses with nothing written', async () => {
    const q = engine.queue();
    await q.redis.set(q.keys.seq, '999999999999997');
    const urgent = await q.enqueue('g', null, { priority: 1 });
    const last = await q.enqueue('g', null, { priority: 9 });
    expect([urgent.id, last.id]).toEqual(['999999999999998', '999999999999999']);
    // id ∓ 4 × 10^15 (includes/priority.lua), exact as lane scores and in the hash.
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1, 'WITHSCORES')).toEqual([
      urgent.id,
      '-3000000000000002',
      last.id,
      '4999999999999999',
    ]);
    expect(await q.redis.hget(q.keys.job(last.id), 'score')).toBe('4999999999999999');

    await expectRefused(
      q,
      () => q.enqueue('g'),
      new RegExp(`${q.keys.seq} holds '999999999999999'.*10\\^15`),
    );
  });

  it('a default job at 10^15−1 is scored by its id, its hash without a score', async () => {
    const q = engine.queue();
    await q.redis.set(q.keys.seq, '999999999999998');
    const last = await q.enqueue('g');
    expect(await q.redis.zscore(q.keys.lane('g'), last.id)).toBe('999999999999999');
    // The job's FIFO score is its id: its hash holds none (DESIGN.md §2, "Job layout").
    expect(await q.redis.hget(q.keys.job(last.id), 'score')).toBeNull();
  });

  it('a claim writes no score for a job at its id, even at 10^15−1, but keeps a lane score that is not its id', async () => {
    const q = engine.queue();
    await q.redis.set(q.keys.seq, '999999999999998');
    const last = await q.enqueue('g');
    // Another writer's lane entry, scored ahead of its id, with a hash of its own.
    await q.redis.hset(q.keys.job('7'), 'group', 'g', 'state', 'pending', 'maxAttempts', '1');
    await q.redis.zadd(q.keys.lane('g'), '2.5', '7');
    expect((await q.claim())?.id).toBe('7');
    expect((await q.claim())?.id).toBe(last.id);
    expect(await q.redis.hget(q.keys.job(last.id), 'score')).toBeNull();
    expect(await q.redis.hget(q.keys.job('7'), 'score')).toBe('2.5');
  });

  it.each([[PAST_2_53], ['-5'], ['not a number']])(
    'refuses to mint an id from a counter holding %s',
    async (value) => {
      const q = engine.queue();
      await q.enqueue('g'); // the queue exists, its group is on the ring
      await q.redis.set(q.keys.seq, value);
      await expectRefused(q, () => q.enqueue('g', { n: 1 }), /job id counter/);
    },
  );
});

describe('a group active count (gactive) that is not a safe integer', () => {
  /** Group g with a limit and one job claimed, then its count overwritten with `raw`. */
  async function damaged(raw: string, limit: number | null = 5) {
    const q = engine.queue();
    if (limit !== null) await q.setLimit('g', limit);
    await q.enqueue('g');
    await q.enqueue('g');
    const job = await claimed(q);
    await q.redis.hset(q.keys.gactive, 'g', raw);
    return { q, job };
  }

  it.each([
    ['enqueue', (q: Queue) => q.enqueue('g')],
    ['setLimit', (q: Queue) => q.setLimit('g', 3)],
    ['clearLimit', (q: Queue) => q.clearLimit('g')],
    ['resume', (q: Queue) => q.resume('g')],
    ['setRateLimit', (q: Queue) => q.setRateLimit('g', { max: 1, windowMs: 1_000 })],
    ['clearRateLimit', (q: Queue) => q.clearRateLimit('g')],
  ] as const)(
    '%s is refused before it writes, naming the key, the field and the value',
    async (_name, call) => {
      const { q } = await damaged(PAST_2_53);
      await expectRefused(
        q,
        () => call(q),
        new RegExp(`${q.keys.gactive} field g holds '${PAST_2_53}'.*repair`, 's'),
      );
    },
  );

  it.each([
    [PAST_2_53, 5],
    ['garbage', null],
  ] as const)(
    'complete and retry are refused with nothing written (count %s, limit %s)',
    async (raw, limit) => {
      const { q, job } = await damaged(raw, limit);
      const token = job.token as string;
      await expectRefused(q, () => q.complete(job.id, token), /gactive field g/);
      await expectRefused(q, () => q.retry(job.id, token, 'boom'), /gactive field g/);
      await q.repair();
      expect((await q.complete(job.id, token)).state).toBe('COMPLETED');
    },
  );

  it('pause still works: it does not count', async () => {
    const { q } = await damaged(PAST_2_53);
    expect((await q.pause('g')).paused).toBe(true);
    expect(await q.redis.hget(q.keys.gactive, 'g')).toBe(PAST_2_53);
  });

  it('claim serves the other groups and writes nothing of that one; repair restores it', async () => {
    const q = engine.queue();
    await q.enqueue('a', { n: 'a' });
    await q.enqueue('b', { n: 'b' });
    await q.redis.hset(q.keys.gactive, 'a', PAST_2_53);
    const job = await claimed(q);
    expect(job.group).toBe('b');
    expect(await q.redis.hget(q.keys.gactive, 'a')).toBe(PAST_2_53);
    expect(await q.redis.zrange(q.keys.lane('a'), 0, -1)).toEqual(['1']);
    expect(await q.claim()).toBeNull();

    const findings = (await q.audit()).findings.filter((f) => f.subject === 'a');
    expect(findings.map((f) => f.kind).sort()).toEqual(['I1', 'I3']);
    await q.repair();
    expect(await q.redis.hget(q.keys.gactive, 'a')).toBeNull();
    expect((await claimed(q)).group).toBe('a');
  });

  it('completeAndClaim refuses that completion alone, with nothing of it written', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    const a = await claimed(q);
    const b = await claimed(q);
    await q.redis.hset(q.keys.gactive, 'a', PAST_2_53);
    const result = await q.completeAndClaim(
      [
        { id: a.id, token: a.token as string },
        { id: b.id, token: b.token as string },
      ],
      { claim: 0 },
    );
    expect(result.refused[0]?.code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(result.refused[1]).toBeNull();
    expect(await q.redis.zscore(q.keys.active, a.id)).not.toBeNull();
    expect(await q.redis.hget(q.keys.job(a.id), 'state')).toBe('active');
    expect(await q.redis.hget(q.keys.gactive, 'a')).toBe(PAST_2_53);
    expect(await q.redis.hget(q.keys.stats, 'completed')).toBe('1');
  });

  it("a Worker reports such a refused completion as an 'error', not as a lost lease", async () => {
    const q = engine.queue();
    await q.enqueue('a');
    const events: string[] = [];
    let refusal: unknown;
    const worker = new Worker(
      q,
      async () => {
        await q.redis.hset(q.keys.gactive, 'a', PAST_2_53);
      },
      { parkTimeoutMs: 100 },
    );
    try {
      await new Promise<void>((resolve) => {
        worker.on('leaseLost', () => {
          events.push('leaseLost');
          resolve();
        });
        worker.on('completed', () => {
          events.push('completed');
          resolve();
        });
        worker.on('error', (error) => {
          events.push('error');
          refusal = error;
          resolve();
        });
      });
    } finally {
      await worker.close({ timeoutMs: 1_000 });
    }
    expect(events).toEqual(['error']);
    expect((refusal as RingmasterError).code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(await q.redis.hget(q.keys.job('1'), 'state')).toBe('active');
  });

  it('reap takes back the other expired leases and leaves that one as it is', async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    const a = await claimed(q, 1);
    const b = await claimed(q, 1);
    await q.redis.hset(q.keys.gactive, 'a', PAST_2_53);
    await untilRedisTimePasses(q.redis, Math.max(a.leaseUntil ?? 0, b.leaseUntil ?? 0));
    expect(await q.reap()).toBe(1);
    expect(await q.redis.zscore(q.keys.active, a.id)).not.toBeNull();
    expect(await q.redis.zscore(q.keys.active, b.id)).toBeNull();
    expect(await q.redis.hget(q.keys.gactive, 'a')).toBe(PAST_2_53);
  });
});

describe("a job's attempts and maxAttempts", () => {
  it('claim counts attempts up exactly past 2^53', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g');
    await q.redis.hset(q.keys.job(job.id), 'attempts', PAST_2_53);
    await claimed(q);
    expect(await q.redis.hget(q.keys.job(job.id), 'attempts')).toBe('9007199254740994');
  });

  it('retry compares attempts with maxAttempts exactly: one below is not dead', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const job = await claimed(q);
    // Both round to the same double (2^53 + 4); as integers 996 < 997.
    await q.redis.hset(q.keys.job(job.id), {
      attempts: '9007199254740996',
      maxAttempts: '9007199254740997',
    });
    expect((await q.retry(job.id, job.token as string)).state).toBe('PENDING');
    const again = await claimed(q);
    expect(await q.redis.hget(q.keys.job(again.id), 'attempts')).toBe('9007199254740997');
    expect((await q.retry(again.id, again.token as string)).state).toBe('DEAD');
  });
});

describe('a limit past 2^53−1', () => {
  it('reads as no limit, as the scripts judge it, and the audit reports it', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    await q.redis.hset(q.keys.glimit, 'g', PAST_2_53);
    expect((await q.group('g')).limit).toBeNull();
    const finding = (await q.audit()).findings.find((f) => f.subject === 'g');
    expect(finding?.kind).toBe('LIMIT');
    expect((await claimed(q)).group).toBe('g');
  });
});

describe('over GraphQL', () => {
  const api = useTestServer({}, { redis: engine.handle });

  it('a refused call answers DATA_OUT_OF_RANGE with its message, not a masked internal error', async () => {
    const q = engine.queue();
    await q.redis.set(q.keys.seq, PAST_2_53);
    const res = await post(api.endpoint, {
      query: `mutation { enqueue(queue: "${q.name}", group: "g") { id } }`,
    });
    expect(codes(res.json)).toEqual(['DATA_OUT_OF_RANGE']);
    expect(res.json?.errors?.[0]?.message).toMatch(/job id counter/);
    expectNoLeak(res.text.replace(q.name, 'Q'));
  });
});
