/**
 * The final check of every fault scenario (`assertSound` in ./support.ts) must be able to fail:
 * damage of each kind it is meant to catch, made with plain Redis commands or a false ledger
 * entry, makes it throw; a clean queue passes.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { useTestRedis } from '../support/redis.js';
import { assertSound, Ledger } from './support.js';

/** A job out of place: found by Queue.audit's I4 check or by assertSound's walk of every id. */
const I4_BROKEN = /neither completed nor dead|audit: other findings/;

describe('assertSound', () => {
  const redis = useTestRedis();

  /** A queue whose 3 jobs were all completed, and the ledger that saw it. */
  async function finished(name: string) {
    const queue = new Queue(redis.client(), `${name}-${Date.now()}`);
    await queue.setLimit('g', 2);
    const ledger = new Ledger();
    for (let n = 0; n < 3; n++) ledger.enqueued.add((await queue.enqueue('g', { n })).id);
    for (let job = await queue.claim(); job?.token; job = await queue.claim()) {
      await queue.complete(job.id, job.token);
      ledger.record({ type: 'completed', id: job.id, attempts: job.attempts });
    }
    return { queue, ledger };
  }

  it('passes a clean, finished queue', async () => {
    const { queue, ledger } = await finished('clean');
    expect(await assertSound(queue, ledger, { exactIds: true })).toMatchObject({
      jobs: 3,
      completed: 3,
      dead: 0,
    });
  });

  it('fails on a leaked permit', async () => {
    const { queue, ledger } = await finished('leak');
    await queue.redis.hincrby(queue.keys.gactive, 'g', 1);
    await expect(assertSound(queue, ledger)).rejects.toThrow();
  });

  it('fails on a job that is neither completed nor dead', async () => {
    const { queue, ledger } = await finished('lost');
    await queue.redis.hset(queue.keys.job('2'), 'state', 'active');
    await expect(assertSound(queue, ledger)).rejects.toThrow(/neither completed nor dead/);
  });

  it('passes a finished queue whose completed jobs were not kept (retention count 0)', async () => {
    const queue = new Queue(redis.client(), `forget-${Date.now()}`);
    await queue.setRetention({ completed: { count: 0 } });
    for (let n = 0; n < 3; n++) await queue.enqueue('g', { n });
    for (let job = await queue.claim(); job?.token; job = await queue.claim()) {
      await queue.complete(job.id, job.token);
    }
    expect(await queue.redis.exists(queue.keys.completed)).toBe(0);
    expect(await assertSound(queue)).toMatchObject({ jobs: 3, completed: 3, dead: 0 });
  });

  it('fails on a kept completed job missing from completed, or from its group index', async () => {
    const { queue, ledger } = await finished('unindexed');
    await queue.redis.zrem(queue.keys.completed, '2');
    // Queue.audit's I4 check (its paired indexes) sees it first, or the walk of every id does.
    await expect(assertSound(queue, ledger)).rejects.toThrow(I4_BROKEN);
    const again = await finished('unindexed-group');
    await again.queue.redis.zrem(again.queue.keys.groupCompleted('g'), '2');
    await expect(assertSound(again.queue, again.ledger)).rejects.toThrow(
      /group indexes|audit: other findings/,
    );
  });

  it('fails on a gone job still listed in completed', async () => {
    const { queue, ledger } = await finished('ghost');
    await queue.redis.del(queue.keys.job('2'));
    await expect(assertSound(queue, ledger)).rejects.toThrow(I4_BROKEN);
  });

  it('fails on an id issued but never accounted for', async () => {
    const { queue, ledger } = await finished('unaccounted');
    await queue.redis.incr(queue.keys.seq);
    await queue.redis.hincrby(queue.keys.stats, 'enqueued', 1);
    await expect(assertSound(queue, ledger)).rejects.toThrow(/completed \+ dead/);
  });

  it('fails on a job completed twice by the workers', async () => {
    const { queue, ledger } = await finished('twice');
    ledger.record({ type: 'completed', id: '1', attempts: 2 });
    await expect(assertSound(queue, ledger)).rejects.toThrow(/more than one completion/);
  });

  it('fails on a job both completed and dead', async () => {
    const { queue, ledger } = await finished('both');
    await queue.redis.zadd(queue.keys.dead, 1, '2');
    await queue.redis.hincrby(queue.keys.stats, 'dead', 1);
    await expect(assertSound(queue, ledger)).rejects.toThrow();
  });

  it('fails on a claim that never ended', async () => {
    const { queue, ledger } = await finished('claims');
    await queue.redis.hincrby(queue.keys.stats, 'claimed', 1);
    await expect(assertSound(queue, ledger)).rejects.toThrow(/each claim ended once|claimed/);
  });

  it('fails when an acknowledged id is missing with exactIds', async () => {
    const { queue, ledger } = await finished('exact');
    ledger.enqueued.delete('3');
    await expect(assertSound(queue, ledger, { exactIds: true })).rejects.toThrow(/acknowledged/);
  });
});
