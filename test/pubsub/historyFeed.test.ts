/**
 * The live feed's history watch (`LiveFeed.historyAdded`, DESIGN.md §4.6) on a real Redis: an
 * event with no entries once live, then the entries each steering call wrote (read from the last
 * id seen on every `xadd` of the stream); a group's subscription filters the queue's stream (no
 * stream per group); one watch and one channel per queue shared by its subscribers and its
 * groups', counted against `maxWatches`; `gap` for a group counts the queue's entries; a slow
 * consumer gets everything written while it did not pull, in one event, and `gap` once more than
 * a window was written; a lost notification healed by the safety re-read.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, RingmasterError } from '../../src/lanes/index.js';
import { type HistoryWindow, historyRender } from '../../src/pubsub/historyWatch.js';
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

  it("a group's subscription hears its group's entries of the queue's stream, not the other actions", async () => {
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

  it("shares one watch and one channel per queue (its groups' subscribers too), counted against maxWatches", async () => {
    const { feed, engine, redis: r } = await feeds.start({ maxWatches: 1 });
    const name = queueName();
    const q = engine.queue(name);
    const a = new Reader(feed.historyAdded(name));
    const b = new Reader(feed.historyAdded(name));
    await a.next();
    await b.next();
    const g = new Reader(feed.historyAdded(name, 'g'));
    await g.next();
    const h = new Reader(feed.historyAdded(name, 'h'));
    await h.next();
    expect(feed.stats()).toMatchObject({ listeners: 4, watches: 1, channels: 1, watchedQueues: 1 });
    expect(await channelsOf(r, name)).toEqual([expect.stringMatching(/\}:history$/)]);
    let refused: unknown;
    try {
      feed.historyAdded(queueName());
    } catch (error) {
      refused = error;
    }
    expect((refused as RingmasterError).code).toBe(ErrorCode.LIMIT_EXCEEDED);
    const reads = feed.stats().historyReads;
    await q.setLimit('h', 2);
    await q.setLimit('g', 1);
    const all: string[] = [];
    while (all.length < 2) all.push(...actions(await a.next()));
    expect(all).toEqual(['setLimit', 'setLimit']);
    expect((await g.next()).entries.map((e) => [e.action, e.group])).toEqual([['setLimit', 'g']]);
    expect((await h.next()).entries.map((e) => [e.action, e.group])).toEqual([['setLimit', 'h']]);
    expect(feed.stats().historyReads - reads).toBeLessThanOrEqual(2);
    await b.next();
    for (const reader of [a, b, g, h]) await reader.iterator.return(undefined);
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

describe("historyRender for a group (the queue's window, filtered)", () => {
  const entry = (n: number, group: string) => ({
    id: `${n}-0`,
    at: n,
    action: 'setLimit',
    group,
    actor: 'a',
    before: null,
    after: null,
    detail: null,
  });
  /** The window a watch holds after reading entries 1..n (the newest HISTORY_WINDOW of them). */
  const windowOf = (all: ReturnType<typeof entry>[]): HistoryWindow => {
    const entries = all.slice(-HISTORY_WINDOW);
    const dropped = all.length - entries.length;
    return {
      entries,
      newestId: all.at(-1)?.id ?? '0-0',
      coversFrom: dropped === 0 ? '0-0' : `${dropped}-0`,
    };
  };

  it("sends only the group's entries; other groups' entries seen at a pull are no gap later", () => {
    const render = historyRender('g');
    const all: ReturnType<typeof entry>[] = [];
    expect(render(windowOf(all), undefined, false)).toEqual({ entries: [], gap: false });
    for (let n = 1; n <= 60; n++) all.push(entry(n, 'h'));
    expect(render(windowOf(all), undefined, false)).toBeUndefined();
    for (let n = 61; n <= 120; n++) all.push(entry(n, n === 120 ? 'g' : 'h'));
    // 120 written in all, but only 60 since the last pull: within the window, no gap.
    expect(render(windowOf(all), undefined, false)).toEqual({ entries: [all[119]], gap: false });
  });

  it('says gap when more than the window arrived for the queue since the last pull', () => {
    const render = historyRender('g');
    const all: ReturnType<typeof entry>[] = [entry(1, 'g')];
    render(windowOf(all), undefined, false);
    for (let n = 2; n <= HISTORY_WINDOW + 10; n++) all.push(entry(n, 'h'));
    expect(render(windowOf(all), undefined, false)).toEqual({ entries: [], gap: true });
    all.push(entry(HISTORY_WINDOW + 11, 'g'));
    expect(render(windowOf(all), undefined, false)).toEqual({ entries: [all.at(-1)], gap: false });
  });
});
