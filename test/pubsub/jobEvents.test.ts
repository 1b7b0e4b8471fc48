/**
 * The live feed's side of exact `jobChanged` (DESIGN.md §4.4, "Job events"): a job watch
 * registers its job in `P:{Q}:watched` before its first read, renews it while it lives and
 * leaves it to lapse once closed; a consumer that does not pull still gets every change (up to
 * the list's 100) when it resumes, in order; a job whose events list is missing (it moved while
 * nobody watched) is sent as read.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, queuesKey } from '../../src/lanes/internal.js';
import { queueName, Reader, useFeeds, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
const feeds = useFeeds(() => redis.client());

async function claim(q: Queue): Promise<Job> {
  const job = await q.claim({ leaseMs: 60_000 });
  if (job === null) throw new Error('nothing to claim');
  return job;
}

async function redisNow(q: Queue): Promise<number> {
  const [sec, usec] = await q.redis.time();
  return Number(sec) * 1000 + Math.floor(Number(usec) / 1000);
}

describe('job watch registrations', () => {
  it('registered before the first event, renewed while watched, left to lapse once closed', async () => {
    const { feed, engine } = await feeds.start({ jobWatchTtlMs: 600 });
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g');
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    const first = Number(await q.redis.zscore(q.keys.watched, id));
    expect(first).toBeGreaterThan(await redisNow(q));
    // Renewed every ttl / 3: later than the first registration, still in the future.
    await waitFor(
      'a renewal',
      async () => Number(await q.redis.zscore(q.keys.watched, id)) > first,
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(Number(await q.redis.zscore(q.keys.watched, id))).toBeGreaterThan(await redisNow(q));
    await reader.iterator.return(undefined);
    // Closed: never removed by the feed (another server may watch it), never renewed again;
    // the key's TTL covers its latest registration, so it goes by itself once that has passed.
    const last = Number(await q.redis.zscore(q.keys.watched, id));
    const ttl = await q.redis.pttl(q.keys.watched);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(last).toBeLessThan(await redisNow(q));
    expect(await q.redis.exists(q.keys.watched)).toBe(0);
  });

  it('of an id in a queue that holds nothing leave no key behind once the watch has ended', async () => {
    const { feed, engine } = await feeds.start({ jobWatchTtlMs: 300 });
    const q = engine.queue(queueName());
    const reader = new Reader(feed.jobChanges(q.name, '5'));
    expect(await reader.next()).toBeNull();
    await reader.iterator.return(undefined);
    const ttl = await q.redis.pttl(q.keys.watched);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await waitFor('the key to expire', async () => (await q.redis.exists(q.keys.watched)) === 0);
    expect(await q.redis.smembers(queuesKey(engine.prefix))).not.toContain(q.name);
  });
});

describe('job events through the feed', () => {
  it('a consumer that does not pull gets every change in order when it resumes', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g', null, { maxAttempts: 10 });
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING', attempts: 0 });
    for (let i = 0; i < 5; i++) {
      const job = await claim(q);
      await q.retry(id, job.token as string, `failure ${i + 1}`);
    }
    const last = await claim(q);
    await q.complete(id, last.token as string);
    // Let every hint arrive and be read before the first pull.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const events: (Job | null)[] = [];
    for (;;) {
      const result = await reader.result(2_000);
      if (result.done) break;
      events.push(result.value);
    }
    const expected: [string, number, string | null][] = [];
    for (let i = 1; i <= 5; i++) {
      expected.push(['ACTIVE', i, i === 1 ? null : `failure ${i - 1}`]);
      expected.push(['PENDING', i, `failure ${i}`]);
    }
    expected.push(['ACTIVE', 6, 'failure 5'], ['COMPLETED', 6, 'failure 5']);
    expect(events.map((e) => [e?.state, e?.attempts, e?.lastError])).toEqual(expected);
    // Each event's errors are those recorded by its moment.
    expect(events.map((e) => e?.errors?.length)).toEqual([0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5]);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0 });
  });

  it('without events (its list gone) the job is sent as read, as before', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g');
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    // Its registration gone (as after a lapse): the scripts write no event; the hint still comes.
    await q.redis.del(q.keys.watched);
    const job = await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE', attempts: 1 });
    expect(await q.redis.exists(q.keys.jobEvents(id))).toBe(0);
    await q.complete(id, job.token as string);
    expect(await reader.next()).toMatchObject({ state: 'COMPLETED' });
    expect((await reader.result(2_000)).done).toBe(true);
  });
});
