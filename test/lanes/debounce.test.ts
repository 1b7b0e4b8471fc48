/**
 * Debounce (DESIGN.md §3, "Debounce"): an enqueue with `debounce: { key, windowMs }` makes a job
 * delayed by windowMs; while that job is pending or delayed, an enqueue with the same key
 * replaces its payload and moves its run time to now + windowMs, answering the same id; once it
 * has been claimed, the next enqueue makes a new job. Beside it the idempotency key, which
 * answers the first job unchanged.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/lanes/index.js';
import { queueSnapshot, redisNow, refusal, statsOf, useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('enqueue with a debounce key', () => {
  it('makes a job delayed by its window, with its key on the job', async () => {
    const q = engine.queue();
    const before = await redisNow(q.redis);
    const job = await q.enqueue('g', { n: 1 }, { debounce: { key: 'k', windowMs: 60_000 } });
    expect(job.state).toBe('DELAYED');
    expect(job.debounceKey).toBe('k');
    expect(job.runAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(await q.redis.get(q.keys.debounce('k'))).toBe(job.id);
    // A job without one reads as before: no field at all.
    const plain = await q.enqueue('g', { n: 2 });
    expect('debounceKey' in plain).toBe(false);
  });

  it('replaces the delayed job: newest payload, run time moved on, same id, one job', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { n: 1 }, { debounce: { key: 'k', windowMs: 60_000 } });
    const second = await q.enqueue('g', { n: 2 }, { debounce: { key: 'k', windowMs: 120_000 } });
    expect(second.id).toBe(first.id);
    expect(second.payload).toEqual({ n: 2 });
    expect(second.state).toBe('DELAYED');
    expect(second.runAt).toBeGreaterThanOrEqual((first.runAt ?? 0) + 60_000);
    expect(second.enqueuedAt).toBe(first.enqueuedAt);
    expect((await q.job(first.id))?.payload).toEqual({ n: 2 });
    expect(await q.redis.zscore(q.keys.delayed, first.id)).toBe(String(second.runAt));
    expect(await q.redis.zscore(q.keys.groupDelayed('g'), first.id)).toBe(String(second.runAt));
    const stats = await statsOf(q);
    expect(stats.enqueued).toBe(1);
    expect(stats.delayed).toBe(1);
    // No payload: the job's payload is dropped, not kept.
    const third = await q.enqueue('g', undefined, { debounce: { key: 'k', windowMs: 1_000 } });
    expect(third.id).toBe(first.id);
    expect(third.payload).toBeNull();
    expect(await q.redis.hexists(q.keys.payloads, first.id)).toBe(0);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('replaces a pending job: back to delayed, out of its lane and off the ring', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { n: 1 }, { debounce: { key: 'k', windowMs: 60_000 } });
    await q.promote(first.id);
    expect((await q.job(first.id))?.state).toBe('PENDING');
    expect(await q.redis.lrange(q.keys.ring, 0, -1)).toEqual(['g']);
    const second = await q.enqueue('g', { n: 2 }, { debounce: { key: 'k', windowMs: 60_000 } });
    expect(second.id).toBe(first.id);
    expect(second.state).toBe('DELAYED');
    expect(second.payload).toEqual({ n: 2 });
    expect(await q.redis.zcard(q.keys.lane('g'))).toBe(0);
    expect(await q.redis.lrange(q.keys.ring, 0, -1)).toEqual([]);
    expect(await q.redis.zscore(q.keys.heads, 'g')).toBeNull();
    const stats = await statsOf(q);
    expect(stats.pending).toBe(0);
    expect(stats.delayed).toBe(1);
    expect(await q.claim()).toBeNull();
    expect((await q.audit()).findings).toEqual([]);
  });

  it('once the job is claimed, the next enqueue makes a new job, and the record is cleared', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { n: 1 }, { debounce: { key: 'k', windowMs: 60_000 } });
    await q.promote(first.id);
    const claimed = await q.claim();
    expect(claimed?.id).toBe(first.id);
    expect(claimed?.payload).toEqual({ n: 1 });
    expect(await q.redis.exists(q.keys.debounce('k'))).toBe(0);
    const next = await q.enqueue('g', { n: 2 }, { debounce: { key: 'k', windowMs: 60_000 } });
    expect(next.id).not.toBe(first.id);
    expect(next.state).toBe('DELAYED');
    expect((await q.job(first.id))?.payload).toEqual({ n: 1 });
    // The first job retried goes back to pending: it is no longer the key's live job.
    await q.retry(first.id, claimed?.token ?? '', 'again');
    const third = await q.enqueue('g', { n: 3 }, { debounce: { key: 'k', windowMs: 60_000 } });
    expect(third.id).toBe(next.id);
    expect((await q.job(first.id))?.payload).toEqual({ n: 1 });
  });

  it('a stale record (its job removed) makes a new job', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { n: 1 }, { debounce: { key: 'k', windowMs: 60_000 } });
    await q.removeJobs({ ids: [first.id] });
    expect(await q.redis.get(q.keys.debounce('k'))).toBe(first.id);
    const next = await q.enqueue('g', { n: 2 }, { debounce: { key: 'k', windowMs: 60_000 } });
    expect(next.id).not.toBe(first.id);
    expect(await q.redis.get(q.keys.debounce('k'))).toBe(next.id);
  });

  it('keys are per queue: two keys make two jobs, and a key in use by another group is refused, nothing written', async () => {
    const q = engine.queue();
    const a = await q.enqueue('g', { n: 1 }, { debounce: { key: 'a', windowMs: 60_000 } });
    const b = await q.enqueue('g', { n: 1 }, { debounce: { key: 'b', windowMs: 60_000 } });
    expect(b.id).not.toBe(a.id);
    const before = await queueSnapshot(q);
    const error = await refusal(() =>
      q.enqueue('h', { n: 2 }, { debounce: { key: 'a', windowMs: 60_000 } }),
    );
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe('debounce.key');
    expect(error.message).toContain(`job ${a.id}`);
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('keeps the maxAttempts, backoff and priority of the enqueue that made the job', async () => {
    const q = engine.queue();
    const first = await q.enqueue(
      'g',
      { n: 1 },
      { debounce: { key: 'k', windowMs: 60_000 }, maxAttempts: 2, priority: 3 },
    );
    const second = await q.enqueue(
      'g',
      { n: 2 },
      { debounce: { key: 'k', windowMs: 60_000 }, maxAttempts: 7, priority: 8 },
    );
    expect(second.id).toBe(first.id);
    expect(second.maxAttempts).toBe(2);
    expect(second.priority).toBe(3);
  });

  it.each([
    ['an idempotency key', { key: 'i' }, 'debounce'],
    ['delayMs', { delayMs: 10 }, 'debounce'],
    ['runAt', { runAt: Date.now() + 10_000 }, 'debounce'],
  ])('refuses debounce with %s, nothing written', async (_, extra, argument) => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    const before = await queueSnapshot(q);
    const error = await refusal(() =>
      q.enqueue('g', 1, { debounce: { key: 'k', windowMs: 1_000 }, ...extra }),
    );
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe(argument);
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it.each([
    [{ key: 'k' }, 'debounce.windowMs'],
    [{ windowMs: 10 }, 'debounce.key'],
    [{ key: '', windowMs: 10 }, 'debounce.key'],
    [{ key: 'x'.repeat(257), windowMs: 10 }, 'debounce.key'],
    [{ key: 'a\nb', windowMs: 10 }, 'debounce.key'],
    [{ key: 'k', windowMs: 0 }, 'debounce.windowMs'],
    [{ key: 'k', windowMs: 1.5 }, 'debounce.windowMs'],
    [{ key: 'k', windowMs: 2_592_000_001 }, 'debounce.windowMs'],
    [{ key: 'k', windowMs: 10, extra: 1 }, 'debounce.extra'],
    ['k', 'debounce'],
  ])('refuses debounce %j as %s', async (debounce, argument) => {
    const q = engine.queue();
    const error = await refusal(() =>
      q.enqueue('g', 1, { debounce: debounce as { key: string; windowMs: number } }),
    );
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe(argument);
    expect(await q.redis.exists(q.keys.debounce('k'))).toBe(0);
  });
});

describe('enqueueMany with debounce keys', () => {
  const d = (key: string, windowMs = 60_000) => ({ debounce: { key, windowMs } });

  it('jobs of one call with one key make one job holding the latest payload', async () => {
    const q = engine.queue();
    const jobs = await q.enqueueMany([
      { group: 'g', payload: { n: 1 }, options: d('k') },
      { group: 'g', payload: { n: 0 } },
      { group: 'g', payload: { n: 2 }, options: d('k', 120_000) },
      { group: 'g', payload: { n: 3 }, options: d('other') },
    ]);
    const [a, plain, b, other] = jobs;
    expect(b?.id).toBe(a?.id);
    expect(a?.payload).toEqual({ n: 2 });
    expect(b?.payload).toEqual({ n: 2 });
    expect(a?.state).toBe('DELAYED');
    expect(plain?.state).toBe('PENDING');
    expect(other?.id).not.toBe(a?.id);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(3);
    expect((await q.job(a?.id ?? ''))?.payload).toEqual({ n: 2 });
    expect(await q.redis.get(q.keys.debounce('k'))).toBe(a?.id);
    expect((b?.runAt ?? 0) - (a?.enqueuedAt ?? 0)).toBe(120_000);
    expect((await statsOf(q)).delayed).toBe(2);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('replaces a job waiting before the call, pending or delayed, beside new lane jobs of its group', async () => {
    const q = engine.queue();
    const waiting = await q.enqueue('g', { n: 1 }, d('k'));
    await q.promote(waiting.id);
    const jobs = await q.enqueueMany([
      { group: 'g', payload: { n: 2 }, options: d('k') },
      { group: 'g', payload: { n: 3 } },
      { group: 'g', payload: { n: 4 }, options: d('k') },
    ]);
    expect(jobs[0]?.id).toBe(waiting.id);
    expect(jobs[2]?.id).toBe(waiting.id);
    expect(jobs[2]?.payload).toEqual({ n: 4 });
    expect(jobs[2]?.state).toBe('DELAYED');
    // The group keeps its new lane job, and its place on the ring.
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1)).toEqual([jobs[1]?.id]);
    expect(await q.redis.lrange(q.keys.ring, 0, -1)).toEqual(['g']);
    expect((await q.claim())?.id).toBe(jobs[1]?.id);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a key of another group refuses the call, naming the job, nothing written', async () => {
    const q = engine.queue();
    const waiting = await q.enqueue('g', { n: 1 }, d('k'));
    const before = await queueSnapshot(q);
    const error = await refusal(() =>
      q.enqueueMany([
        { group: 'g', payload: 1 },
        { group: 'h', payload: 2, options: d('k') },
      ]),
    );
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe('jobs[1].debounce.key');
    expect(error.message).toContain(`job ${waiting.id}`);
    const inCall = await refusal(() =>
      q.enqueueMany([
        { group: 'g', payload: 1, options: d('new') },
        { group: 'h', payload: 2, options: d('new') },
      ]),
    );
    expect(inCall.argument).toBe('jobs[1].debounce.key');
    expect(inCall.message).toContain('jobs[0] of this call');
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('refuses a bad debounce as jobs[i].debounce…', async () => {
    const q = engine.queue();
    const error = await refusal(() =>
      q.enqueueMany([
        { group: 'g', payload: 1 },
        { group: 'g', payload: 2, options: { debounce: { key: 'k', windowMs: -1 } } },
      ]),
    );
    expect(error.argument).toBe('jobs[1].debounce.windowMs');
  });
});
