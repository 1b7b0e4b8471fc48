/**
 * The live feed's job watch (`LiveFeed.jobChanges`, DESIGN.md §4.4) on a real Redis: the job as
 * it is first, then each change of its state, attempts, lease, run-at time or last error, read
 * again on every keyspace event of its hash; the stream ends after COMPLETED, DEAD or null (the
 * hash deleted); nothing for a write that changes none of those; one watch and one channel
 * shared by every subscriber of a job, counted against `maxWatches`; and a lost notification
 * healed by the safety re-read.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { channelsOf, queueName, Reader, useFeeds, waitFor } from '../support/pubsub.js';
import { useTestRedis, usingExternalRedis } from '../support/redis.js';

const redis = useTestRedis();
const feeds = useFeeds(() => redis.client());

async function claim(q: Queue): Promise<Job> {
  const job = await q.claim({ leaseMs: 60_000 });
  if (job === null) throw new Error('nothing to claim');
  return job;
}

/** The generator has ended: its next result is done. */
async function expectEnded(reader: Reader<Job | null>): Promise<void> {
  expect(await reader.result(2_000)).toEqual({ done: true, value: undefined });
}

describe('jobChanges', () => {
  it('sends the job as it is, then each change; a job that dies is DEAD and the stream ends', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g', { n: 1 }, { maxAttempts: 2 });
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ id, state: 'PENDING', attempts: 0 });

    const first = await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE', attempts: 1, token: null });
    const extended = await q.extendLease(id, first.token as string, 120_000);
    expect(await reader.next()).toMatchObject({
      state: 'ACTIVE',
      leaseUntil: extended.leaseUntil,
    });
    await q.retry(id, first.token as string, 'first failure');
    expect(await reader.next()).toMatchObject({
      state: 'PENDING',
      attempts: 1,
      token: null,
      lastError: 'first failure',
    });
    const second = await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE', attempts: 2 });
    await q.retry(id, second.token as string, 'second failure');
    expect(await reader.next()).toMatchObject({ state: 'DEAD', lastError: 'second failure' });
    await expectEnded(reader);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });

  it('a job completed without retention (its hash deleted) ends with COMPLETED, not null', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    // Retention of completed jobs: none, so the hash goes at once.
    await q.setRetention({ completed: { count: 0 } });
    const { id } = await q.enqueue('g');
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    const job = await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE' });
    await q.complete(id, job.token as string);
    // The truth: it completed (null would say removed or never was). Its constant fields are
    // the ones the watch read before; the hash is gone.
    expect(await reader.next()).toMatchObject({
      id,
      group: 'g',
      state: 'COMPLETED',
      attempts: 1,
      token: null,
      leaseUntil: null,
      finishedAt: expect.any(Number),
    });
    await expectEnded(reader);
    expect(await q.job(id)).toBeNull();
    // A subscription made after it is gone has nothing to say it completed: null, as ever.
    const late = new Reader(feed.jobChanges(name, id));
    expect(await late.next()).toBeNull();
    await expectEnded(late);
  });

  it('a job completed and kept by the retention ends the stream at COMPLETED', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g');
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    const job = await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE' });
    await q.complete(id, job.token as string);
    expect(await reader.next()).toMatchObject({
      state: 'COMPLETED',
      token: null,
      finishedAt: expect.any(Number),
    });
    await expectEnded(reader);
    // A subscription to a job already final sends it and ends at once.
    const late = new Reader(feed.jobChanges(name, id));
    expect(await late.next()).toMatchObject({ state: 'COMPLETED' });
    await expectEnded(late);
  });

  it('a job kept but past its retention age (no trim yet) is null to a new subscription, which ends', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.setRetention({ completed: { count: 100, ageMs: 1_000 } });
    const { id } = await q.enqueue('g');
    const job = await claim(q);
    await q.complete(id, job.token as string);
    const inside = new Reader(feed.jobChanges(name, id));
    expect(await inside.next()).toMatchObject({ state: 'COMPLETED' });
    await expectEnded(inside);
    const finishedAt = Number(await q.redis.zscore(q.keys.completed, id));
    await waitFor('the retention age to pass (Redis clock)', async () => {
      const [sec, usec] = await q.redis.time();
      return Number(sec) * 1000 + Math.floor(Number(usec) / 1000) > finishedAt + 1_000;
    });
    expect(await q.redis.exists(q.keys.job(id))).toBe(1);
    const outside = new Reader(feed.jobChanges(name, id));
    expect(await outside.next()).toBeNull();
    await expectEnded(outside);
  });

  it('a job removed (its hash deleted) sends null and ends; so does a job that never was', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g', null, { delayMs: 60_000 });
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'DELAYED' });
    await q.removeJobs({ ids: [id] });
    expect(await reader.next()).toBeNull();
    await expectEnded(reader);

    const never = new Reader(feed.jobChanges(name, '987654321'));
    expect(await never.next()).toBeNull();
    await expectEnded(never);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });

  it('sends nothing for a write that changes none of its watched fields; the next event is the next change', async () => {
    const { feed, engine, redis: r } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g', { n: 1 });
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    const reads = feed.stats().jobReads;
    // A hash event (read again) that changes nothing a watcher sees.
    await r.hset(q.keys.job(id), 'group', 'g');
    await waitFor('the re-read', () => feed.stats().jobReads > reads);
    await claim(q);
    expect(await reader.next()).toMatchObject({ state: 'ACTIVE' });
  });

  it('shares one watch and one channel among the subscribers of a job, and counts it against maxWatches', async () => {
    const { feed, engine, redis: r } = await feeds.start({ maxWatches: 2 });
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g');
    const a = new Reader(feed.jobChanges(name, id));
    const b = new Reader(feed.jobChanges(name, id));
    expect(await a.next()).toMatchObject({ state: 'PENDING' });
    expect(await b.next()).toMatchObject({ state: 'PENDING' });
    expect(feed.stats()).toMatchObject({ listeners: 2, watches: 1, channels: 1 });
    expect(await channelsOf(r, name)).toEqual([expect.stringMatching(`:job:${id}$`)]);

    const ring = new Reader(feed.ringChanges(name));
    await ring.next();
    // Two distinct watches open, the limit: a third job is refused before anything is held.
    const other = await q.enqueue('g');
    let refused: unknown;
    try {
      feed.jobChanges(name, other.id);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(RingmasterError);
    expect((refused as RingmasterError).code).toBe(ErrorCode.LIMIT_EXCEEDED);
    expect(feed.stats()).toMatchObject({ listeners: 3, watches: 2 });

    const reads = feed.stats().jobReads;
    await claim(q);
    expect(await a.next()).toMatchObject({ state: 'ACTIVE' });
    expect(await b.next()).toMatchObject({ state: 'ACTIVE' });
    expect(feed.stats().jobReads - reads).toBe(1);
    await a.iterator.return(undefined);
    await b.iterator.return(undefined);
    await ring.iterator.return(undefined);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });

  it('refuses at once an id that is not a decimal string (JOB_NOT_FOUND) and a bad queue name', async () => {
    const { feed } = await feeds.start();
    for (const id of ['abc', '', '1 ', '-1', `1}:x:{q`]) {
      let refused: unknown;
      try {
        feed.jobChanges('q', id);
      } catch (error) {
        refused = error;
      }
      expect((refused as RingmasterError).code, id).toBe(ErrorCode.JOB_NOT_FOUND);
    }
    expect(() => feed.jobChanges('bad name!', '1')).toThrow(RingmasterError);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });
});

describe.skipIf(usingExternalRedis())('a lost notification', () => {
  it('is healed by the safety re-read', async () => {
    // The canary's next round is a minute away, so it does not notice the flags going.
    const {
      feed,
      engine,
      redis: r,
    } = await feeds.start({
      resyncIntervalMs: 300,
      canaryIntervalMs: 60_000,
    });
    const name = queueName();
    const q = engine.queue(name);
    const { id } = await q.enqueue('g');
    const reader = new Reader(feed.jobChanges(name, id));
    expect(await reader.next()).toMatchObject({ state: 'PENDING' });
    const flags = ((await r.config('GET', 'notify-keyspace-events')) as string[])[1] ?? '';
    try {
      // Redis publishes nothing for this claim: the notification is lost.
      await r.config('SET', 'notify-keyspace-events', '');
      await claim(q);
    } finally {
      await r.config('SET', 'notify-keyspace-events', flags);
    }
    expect(await reader.next(3_000)).toMatchObject({ state: 'ACTIVE' });
  });
});
