/**
 * The failure path of DESIGN.md §3: a failed attempt — a retry, or a lease the reaper
 * takes back — is recorded in the job's error list (bounded, newest first) and lastError; with
 * attempts left the job waits its backoff (or an explicit delay) in `delayed`, measured here on
 * the Redis clock with short delays; at maxAttempts it is dead, in `dead` and its group's dead
 * index, kept by the queue's dead retention. A Worker records a processor's message and stack.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Defaults, type Job, type JobError, type Queue, Worker } from '../../src/lanes/index.js';
import {
  pollUntil,
  queueSnapshot,
  redisNow,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

async function claimOf(q: Queue, id?: string): Promise<Job> {
  const job = (await q.claim({ leaseMs: 60_000 })) as Job;
  expect(job).not.toBeNull();
  if (id !== undefined) expect(job.id).toBe(id);
  return job;
}

async function errorsOf(q: Queue, id: string): Promise<readonly JobError[]> {
  return (await q.job(id))?.errors ?? [];
}

describe('backoff, on the Redis clock', () => {
  it('FIXED 120 ms: the retried job is DELAYED until runAt = now + 120, not claimable, then claimable once promoted', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 120 } });
    const claimed = await claimOf(q, job.id);
    const t0 = await redisNow(r);
    const retried = await q.retry(claimed.id, claimed.token as string, 'first');
    const t1 = await redisNow(r);
    expect(retried.state).toBe('DELAYED');
    expect(retried.runAt).toBeGreaterThanOrEqual(t0 + 120);
    expect(retried.runAt).toBeLessThanOrEqual(t1 + 120);
    expect(retried.token).toBeNull();
    expect(retried.leaseUntil).toBeNull();
    expect(await r.zscore(q.keys.groupDelayed('g'), job.id)).toBe(String(retried.runAt));
    expect(await statsOf(q)).toMatchObject({ retried: 1, delayed: 1, pending: 0, active: 0 });
    expect(await q.ring()).toEqual([]);
    expect(await q.claim()).toBeNull();
    // A reap before runAt promotes nothing.
    await q.reap();
    expect(await q.claim()).toBeNull();
    await untilRedisTimePasses(r, retried.runAt as number);
    await q.reap();
    const again = await claimOf(q, job.id);
    expect(again.attempts).toBe(2);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('EXPONENTIAL 50 ms capped at 150: waits 50, 100, 150, 150 on attempts 1–4', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, {
      maxAttempts: 10,
      backoff: { type: 'EXPONENTIAL', delayMs: 50, maxDelayMs: 150 },
    });
    for (const wait of [50, 100, 150, 150]) {
      const claimed = await claimOf(q, job.id);
      const t0 = await redisNow(r);
      const retried = await q.retry(claimed.id, claimed.token as string, 'again');
      const t1 = await redisNow(r);
      expect(retried.runAt).toBeGreaterThanOrEqual(t0 + wait);
      expect(retried.runAt).toBeLessThanOrEqual(t1 + wait);
      await untilRedisTimePasses(r, retried.runAt as number);
      await q.promote(job.id);
    }
  });

  it('jitter 0.5 of 200 ms keeps every wait in [100, 200], and they differ', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const waits: number[] = [];
    for (let i = 0; i < 12; i++) {
      await q.enqueue(`g${i}`, null, { backoff: { type: 'FIXED', delayMs: 200, jitter: 0.5 } });
      const claimed = await claimOf(q);
      const t0 = await redisNow(r);
      const retried = await q.retry(claimed.id, claimed.token as string, 'x');
      const t1 = await redisNow(r);
      const runAt = retried.runAt as number;
      expect(runAt - t0).toBeGreaterThanOrEqual(100);
      expect(runAt - t1).toBeLessThanOrEqual(200);
      waits.push(runAt - t0);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
  });

  it('an explicit delayMs overrides the policy: 0 at once to the front of its lane, 80 ms waits 80', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 600_000 } });
    const next = await q.enqueue('g');
    let claimed = await claimOf(q, job.id);
    const now = await q.retry(claimed.id, claimed.token as string, { error: 'x', delayMs: 0 });
    expect(now.state).toBe('PENDING');
    expect(await r.zrange(q.keys.lane('g'), 0, -1)).toEqual([job.id, next.id]);
    claimed = await claimOf(q, job.id);
    const t0 = await redisNow(r);
    const later = await q.retry(claimed.id, claimed.token as string, { delayMs: 80 });
    const t1 = await redisNow(r);
    expect(later.runAt).toBeGreaterThanOrEqual(t0 + 80);
    expect(later.runAt).toBeLessThanOrEqual(t1 + 80);
  });

  it('a job without a policy goes back at once, as before', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const claimed = await claimOf(q);
    const retried = await q.retry(claimed.id, claimed.token as string, 'x');
    expect(retried).toMatchObject({ state: 'PENDING', runAt: null });
    expect(await statsOf(q)).toMatchObject({ retried: 1, pending: 1, delayed: 0 });
  });
});

describe('the error list', () => {
  it('every failed attempt adds { attempt, at, message, stack }, newest first, the last 10 kept; lastError is the newest message', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, { maxAttempts: 20 });
    const t0 = await redisNow(r);
    for (let i = 1; i <= 12; i++) {
      const claimed = await claimOf(q, job.id);
      await q.retry(claimed.id, claimed.token as string, {
        error: `m${i}`,
        stack: i % 2 === 0 ? `Error: m${i}\n    at line ${i}` : null,
      });
    }
    const t1 = await redisNow(r);
    const read = (await q.job(job.id)) as Job;
    expect(read.lastError).toBe('m12');
    const errors = read.errors ?? [];
    expect(errors).toHaveLength(Defaults.errorsKept);
    expect(errors.map((e) => e.attempt)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(errors.map((e) => e.message)).toEqual(errors.map((e) => `m${e.attempt}`));
    for (const e of errors) {
      expect(e.stack).toBe(
        e.attempt % 2 === 0 ? `Error: m${e.attempt}\n    at line ${e.attempt}` : null,
      );
      expect(e.at).toBeGreaterThanOrEqual(t0);
      expect(e.at).toBeLessThanOrEqual(t1);
    }
    const ats = errors.map((e) => e.at);
    expect([...ats].sort((a, b) => b - a)).toEqual(ats);
    expect(await r.llen(q.keys.errors(job.id))).toBe(Defaults.errorsKept);
  });

  it('the message is cut to 1,024 characters and the stack to 8,192, never inside a surrogate pair', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { maxAttempts: 5 });
    let claimed = await claimOf(q, job.id);
    await q.retry(claimed.id, claimed.token as string, {
      error: 'm'.repeat(3_000),
      stack: 's'.repeat(20_000),
    });
    let [e] = await errorsOf(q, job.id);
    expect(e?.message).toHaveLength(Defaults.errorMessageLength);
    expect(e?.stack).toHaveLength(Defaults.errorStackLength);
    expect((await q.job(job.id))?.lastError).toHaveLength(Defaults.errorMessageLength);
    claimed = await claimOf(q, job.id);
    // a 😀 (two UTF-16 units) across the 1,024th unit is dropped whole
    await q.retry(claimed.id, claimed.token as string, `${'a'.repeat(1_023)}😀tail`);
    [e] = await errorsOf(q, job.id);
    expect(e?.message).toBe('a'.repeat(1_023));
  });

  it('the older retry(id, token, error) form still works; no error gives an entry with an empty message and clears lastError (it is the last attempt’s reason)', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { maxAttempts: 5 });
    let claimed = await claimOf(q, job.id);
    await q.retry(claimed.id, claimed.token as string, 'why');
    claimed = await claimOf(q, job.id);
    await q.retry(claimed.id, claimed.token as string);
    const read = (await q.job(job.id)) as Job;
    expect(read.lastError).toBeNull();
    expect(read.errors?.map((e) => [e.attempt, e.message, e.stack])).toEqual([
      [2, '', null],
      [1, 'why', null],
    ]);
  });

  it('a reaped job gets the entry "lease expired" with no stack, and its backoff', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 150 } });
    const claimed = (await q.claim({ leaseMs: 1 })) as Job;
    await untilRedisTimePasses(r, claimed.leaseUntil as number);
    const t0 = await redisNow(r);
    expect(await q.reap()).toBe(1);
    const t1 = await redisNow(r);
    const read = (await q.job(job.id)) as Job;
    expect(read).toMatchObject({ state: 'DELAYED', lastError: 'lease expired', token: null });
    expect(read.runAt).toBeGreaterThanOrEqual(t0 + 150);
    expect(read.runAt).toBeLessThanOrEqual(t1 + 150);
    expect(read.errors).toEqual([
      { attempt: 1, at: expect.any(Number), message: 'lease expired', stack: null },
    ]);
    expect(await statsOf(q)).toMatchObject({ reaped: 1, retried: 0, delayed: 1, active: 0 });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('non-string error or stack is refused (BAD_USER_INPUT), nothing written', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    const claimed = await claimOf(q);
    const before = await queueSnapshot(q);
    const bad = async (options: unknown) => {
      try {
        await q.retry(claimed.id, claimed.token as string, options as never);
      } catch (error) {
        return (error as { argument?: string }).argument;
      }
      return 'accepted';
    };
    expect(await bad({ error: 5 })).toBe('error');
    expect(await bad({ stack: { s: 1 } })).toBe('stack');
    expect(await bad({ delayMs: -1 })).toBe('delayMs');
    expect(await bad({ delayMs: 1.5 })).toBe('delayMs');
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

describe('dead jobs and the dead retention', () => {
  it('a dead job is in dead and its group’s dead index, with finishedAt, its errors kept', async () => {
    const q = engine.queue();
    const r = engine.redis();
    const job = await q.enqueue('g', null, {
      maxAttempts: 1,
      backoff: { type: 'FIXED', delayMs: 5_000 },
    });
    const claimed = await claimOf(q, job.id);
    const dead = await q.retry(claimed.id, claimed.token as string, {
      error: 'fatal',
      stack: 'at x',
    });
    expect(dead.state).toBe('DEAD');
    expect(dead.finishedAt).toBe(Number(await r.zscore(q.keys.dead, job.id)));
    expect(await r.zscore(q.keys.groupDead('g'), job.id)).toBe(String(dead.finishedAt));
    expect(await errorsOf(q, job.id)).toEqual([
      { attempt: 1, at: dead.finishedAt, message: 'fatal', stack: 'at x' },
    ]);
    expect(await statsOf(q)).toMatchObject({ dead: 1, retried: 0, delayed: 0 });
  });

  it('trims dead beyond the retention count, oldest first, forgetting hash and errors', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await r.hset(q.keys.settings, 'deadCount', '2');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = await q.enqueue(`g${i % 2}`, null, { maxAttempts: 1 });
      const claimed = await claimOf(q, job.id);
      await q.retry(claimed.id, claimed.token as string, `d${i}`);
      ids.push(job.id);
    }
    expect(await r.zrange(q.keys.dead, 0, -1)).toEqual(ids.slice(3));
    const indexed = [
      ...(await r.zrange(q.keys.groupDead('g0'), 0, -1)),
      ...(await r.zrange(q.keys.groupDead('g1'), 0, -1)),
    ].sort();
    expect(indexed).toEqual(ids.slice(3).sort());
    for (const id of ids.slice(0, 3)) {
      expect(await r.exists(q.keys.job(id), q.keys.errors(id))).toBe(0);
      expect(await q.job(id)).toBeNull();
    }
    expect(await statsOf(q)).toMatchObject({ dead: 5 });
  });

  it('a dead retention of 0 forgets the job at once; retry still answers it DEAD', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await r.hset(q.keys.settings, 'deadCount', '0');
    const job = await q.enqueue('g', { p: 1 }, { maxAttempts: 1 });
    const claimed = await claimOf(q, job.id);
    const dead = await q.retry(claimed.id, claimed.token as string, 'gone');
    expect(dead).toMatchObject({ id: job.id, state: 'DEAD', lastError: 'gone', payload: { p: 1 } });
    expect(dead.finishedAt).not.toBeNull();
    expect(await r.exists(q.keys.job(job.id), q.keys.errors(job.id))).toBe(0);
    expect(await r.zcard(q.keys.dead)).toBe(0);
    expect(await r.exists(q.keys.groupDead('g'))).toBe(0);
    expect(await statsOf(q)).toMatchObject({ dead: 1 });
  });

  it('reap trims dead and completed by age, without other traffic', async () => {
    const q = engine.queue();
    const r = engine.redis();
    await r.hset(q.keys.settings, 'deadAgeMs', '60000', 'completedAgeMs', '60000');
    const died: string[] = [];
    for (let i = 0; i < 2; i++) {
      const job = await q.enqueue('g', null, { maxAttempts: 1 });
      const claimed = await claimOf(q, job.id);
      await q.retry(claimed.id, claimed.token as string, 'old');
      died.push(job.id);
    }
    // Retained completed jobs, as the completion path keeps them: one an hour old, one new.
    const now = await redisNow(r);
    const completed = ['900001', '900002'];
    for (const [i, id] of completed.entries()) {
      const at = i === 0 ? now - 3_600_000 : now;
      await r
        .multi()
        .hset(q.keys.job(id), 'group', 'g', 'state', 'completed', 'finishedAt', at)
        .rpush(q.keys.errors(id), '{}')
        .zadd(q.keys.completed, at, id)
        .zadd(q.keys.groupCompleted('g'), at, id)
        .exec();
    }
    // The first dead job died 61 s ago.
    const old = now - 61_000;
    await r.zadd(q.keys.dead, 'XX', old, died[0] as string);
    await r.zadd(q.keys.groupDead('g'), 'XX', old, died[0] as string);
    expect(await q.reap()).toBe(0);
    expect(await r.zrange(q.keys.dead, 0, -1)).toEqual([died[1]]);
    expect(await r.zrange(q.keys.groupDead('g'), 0, -1)).toEqual([died[1]]);
    expect(await r.zrange(q.keys.completed, 0, -1)).toEqual([completed[1]]);
    expect(await r.zrange(q.keys.groupCompleted('g'), 0, -1)).toEqual([completed[1]]);
    for (const id of [died[0] as string, completed[0] as string]) {
      expect(await r.exists(q.keys.job(id), q.keys.errors(id))).toBe(0);
    }
    expect(await r.exists(q.keys.job(died[1] as string), q.keys.job(completed[1] as string))).toBe(
      2,
    );
  });
});

describe('the Worker records a processor’s failure', () => {
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 1_000 })));
  });

  it('message and stack (cut to their lengths) go to the job’s errors; its backoff delays it', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', null, { backoff: { type: 'FIXED', delayMs: 60_000 } });
    const long = 'x'.repeat(10_000);
    const w = new Worker(
      q,
      async () => {
        throw new Error(`boom ${long}`);
      },
      { reaper: false },
    );
    workers.push(w);
    const [failed, error] = (await once(w, 'failed')) as [Job, Error];
    expect(failed).toMatchObject({ id: job.id, state: 'DELAYED' });
    expect(error.message.startsWith('boom')).toBe(true);
    const [entry] = await errorsOf(q, job.id);
    expect(entry?.message).toBe(`boom ${long}`.slice(0, Defaults.errorMessageLength));
    expect(entry?.stack?.startsWith('Error: boom')).toBe(true);
    expect(entry?.stack).toHaveLength(Defaults.errorStackLength);
    await pollUntil('the job delayed', async () => (await q.job(job.id))?.state === 'DELAYED');
  });
});
