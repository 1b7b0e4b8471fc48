/**
 * The live feed's history watch (`LiveFeed.historyAdded`, DESIGN.md §4.6) on a real Redis: an
 * event with no entries once live, then the entries each steering call wrote (read from the last
 * id seen on every `xadd` of the stream); a group's stream apart from the queue's; one watch and
 * one channel per stream shared by its subscribers and counted against `maxWatches`; a slow
 * consumer gets everything written while it did not pull, in one event, and `gap` once more than
 * a window was written; a lost notification healed by the safety re-read.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, RingmasterError } from '../../src/lanes/index.js';
import { HISTORY_WINDOW } from '../../src/pubsub/index.js';
import { channelsOf, queueName, Reader, useFeeds } from '../support/pubsub.js';
import { useTestRedis, usingExternalRedis } from '../support/redis.js';

const redis = useTestRedis();
const feeds = useFeeds(() => redis.client());

const actions = (batch: { entries: { action: string }[] }) => batch.entries.map((e) => e.action);

describe('historyAdded', () => {
  it('is live first (no entries), then sends each entry written, oldest first', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.pauseQueue({ actor: 'before' });
    const reader = new Reader(feed.historyAdded(name));
    expect(await reader.next()).toEqual({ entries: [], gap: false });
    await q.resumeQueue({ actor: 'ann' });
    const batch = await reader.next();
    expect(batch.gap).toBe(false);
    expect(batch.entries).toMatchObject([{ action: 'resumeQueue', actor: 'ann', group: '' }]);
    await q.pauseQueue();
    expect(actions(await reader.next())).toEqual(['pauseQueue']);
    await reader.iterator.return(undefined);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });

  it("a group's subscription hears its group's stream, not the queue's other actions", async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('g');
    await q.enqueue('h');
    const reader = new Reader(feed.historyAdded(name, 'g'));
    expect(await reader.next()).toEqual({ entries: [], gap: false });
    await q.pauseQueue();
    await q.purgeGroup('h');
    await q.purgeGroup('g');
    const batch = await reader.next();
    expect(batch.entries).toMatchObject([{ action: 'purgeGroup', group: 'g' }]);
  });

  it('a consumer that does not pull misses nothing written meanwhile (conflated into fewer events)', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.historyAdded(name));
    await reader.next();
    for (let i = 0; i < 5; i++) {
      await q.pauseQueue();
      await q.resumeQueue();
    }
    const all: string[] = [];
    while (all.length < 10) all.push(...actions(await reader.next()));
    expect(all).toEqual(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? 'resumeQueue' : 'pauseQueue')),
    );
  });

  it(`more than a window (${HISTORY_WINDOW}) written between two pulls: the newest window and gap`, async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.historyAdded(name));
    await reader.next();
    // Written by one script so the watch reads them all at once: XADDs of a stream of our own.
    await q.redis.eval(
      `for i = 1, tonumber(ARGV[1]) do
         redis.call('XADD', KEYS[1], '*', 'action', 'x' .. i, 'group', '', 'actor', 'a')
       end`,
      1,
      q.keys.history,
      HISTORY_WINDOW + 20,
    );
    const batch = await reader.next();
    expect(batch.gap).toBe(true);
    expect(batch.entries).toHaveLength(HISTORY_WINDOW);
    expect(batch.entries[0]?.action).toBe('x21');
    expect(batch.entries.at(-1)?.action).toBe(`x${HISTORY_WINDOW + 20}`);
    await q.pauseQueue();
    expect(await reader.next()).toMatchObject({ entries: [{ action: 'pauseQueue' }], gap: false });
  });

  it('shares one watch and one channel per stream, counted against maxWatches', async () => {
    const { feed, engine, redis: r } = await feeds.start({ maxWatches: 2 });
    const name = queueName();
    const q = engine.queue(name);
    const a = new Reader(feed.historyAdded(name));
    const b = new Reader(feed.historyAdded(name));
    await a.next();
    await b.next();
    const g = new Reader(feed.historyAdded(name, 'g'));
    await g.next();
    expect(feed.stats()).toMatchObject({ listeners: 3, watches: 2, channels: 2, watchedQueues: 1 });
    expect((await channelsOf(r, name)).sort()).toEqual([
      expect.stringMatching(/:g:g:history$/),
      expect.stringMatching(/\}:history$/),
    ]);
    let refused: unknown;
    try {
      feed.historyAdded(name, 'other');
    } catch (error) {
      refused = error;
    }
    expect((refused as RingmasterError).code).toBe(ErrorCode.LIMIT_EXCEEDED);
    const reads = feed.stats().historyReads;
    await q.pauseQueue();
    expect(actions(await a.next())).toEqual(['pauseQueue']);
    expect(actions(await b.next())).toEqual(['pauseQueue']);
    expect(feed.stats().historyReads - reads).toBe(1);
    for (const reader of [a, b, g]) await reader.iterator.return(undefined);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });

  it('refuses a bad queue name or group id at once, holding nothing', async () => {
    const { feed } = await feeds.start();
    expect(() => feed.historyAdded('bad name!')).toThrow(RingmasterError);
    expect(() => feed.historyAdded('q', '')).toThrow(RingmasterError);
    expect(feed.stats()).toMatchObject({ listeners: 0, watches: 0, channels: 0 });
  });
});

describe.skipIf(usingExternalRedis())('a lost notification', () => {
  it('is healed by the safety re-read, from the last id seen', async () => {
    const {
      feed,
      engine,
      redis: r,
    } = await feeds.start({ resyncIntervalMs: 300, canaryIntervalMs: 60_000 });
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.historyAdded(name));
    await reader.next();
    const flags = ((await r.config('GET', 'notify-keyspace-events')) as string[])[1] ?? '';
    try {
      await r.config('SET', 'notify-keyspace-events', '');
      await q.pauseQueue();
      await q.resumeQueue();
    } finally {
      await r.config('SET', 'notify-keyspace-events', flags);
    }
    const all: string[] = [];
    while (all.length < 2) all.push(...actions(await reader.next(3_000)));
    expect(all).toEqual(['pauseQueue', 'resumeQueue']);
  });
});
