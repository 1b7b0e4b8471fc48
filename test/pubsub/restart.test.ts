/**
 * The live feed across a Redis restart (DESIGN.md §4, §6): the redis-server process is killed
 * under live subscriptions and started again on the same port. The subscriber reconnects,
 * re-applies the notification config, re-subscribes, and every subscriber gets a RESYNC with
 * the correct ring (group subscribers the current state), changed or not.
 */
import { describe, expect, it } from 'vitest';
import { missingFlags, NEEDED_FLAGS } from '../../src/pubsub/notifyConfig.js';
import { findRedisServer } from '../../src/server/redisProcess/index.js';
import { queueName, Reader, useFeeds, useOwnRedisServer, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

describe('a Redis restarted under live subscriptions', () => {
  // Append-only with fsync always: the ring survives the SIGKILL, so the RESYNC is of an
  // unchanged ring and must still be sent.
  const redis = useTestRedis({ appendOnly: true });
  const feeds = useFeeds(() => redis.client());

  it('sends a RESYNC with the correct ring, then changes again', async (ctx) => {
    if (!redis.redis.canControlProcess) ctx.skip();
    const { feed, engine, lines } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a');
    await q.enqueue('b');
    const live = new Reader(feed.ringChanges(name));
    const slow = new Reader(feed.ringChanges(name));
    const group = new Reader(feed.groupChanges(name, 'a'));
    expect(await live.next()).toMatchObject({ ring: ['a', 'b'], reason: 'SNAPSHOT' });
    expect(await slow.next()).toMatchObject({ ring: ['a', 'b'], reason: 'SNAPSHOT' });
    expect(await group.next()).toMatchObject({ pending: 1, state: 'READY' });
    live.pull();
    group.pull();

    await redis.redis.kill('SIGKILL');
    await redis.redis.restart();

    expect(await live.next()).toEqual({
      queue: name,
      ring: ['a', 'b'],
      size: 2,
      added: [],
      addedCount: 0,
      removed: [],
      queueState: 'RUNNING',
      reason: 'RESYNC',
      resyncReason: 'MISSED_EVENTS',
    });
    expect(await group.next()).toMatchObject({ id: 'a', pending: 1, state: 'READY' });
    expect(lines.some((l) => l.msg === 'keyspace subscriber reconnected; resyncing')).toBe(true);
    const [, flags] = (await redis.client().config('GET', 'notify-keyspace-events')) as string[];
    expect(missingFlags(flags ?? '')).toBe('');
    // ring, levels, settings; the group's 9 shared keys (gmaxpending the last) and its lane
    expect(feed.stats()).toMatchObject({ listeners: 3, channels: 13 });

    // Re-subscribed: a change after the restart arrives as a CHANGE.
    await q.enqueue('c');
    expect(await live.next()).toEqual({
      queue: name,
      ring: ['a', 'b', 'c'],
      size: 3,
      added: ['c'],
      addedCount: 1,
      removed: [],
      queueState: 'RUNNING',
      reason: 'CHANGE',
    });
    // The consumer that did not pull meanwhile gets one event: the latest ring, as a RESYNC.
    expect(await slow.next()).toEqual({
      queue: name,
      ring: ['a', 'b', 'c'],
      size: 3,
      added: ['c'],
      addedCount: 1,
      removed: [],
      queueState: 'RUNNING',
      reason: 'RESYNC',
      resyncReason: 'MISSED_EVENTS',
    });
  });
});

describe.skipIf(findRedisServer() === null)('a restarted Redis that forgot the config', () => {
  // No --notify-keyspace-events: Redis starts with none, after every restart too.
  const own = useOwnRedisServer();
  const feeds = useFeeds(() => own.client());

  it('re-applies notify-keyspace-events after every reconnect and hears notifications again', async () => {
    const admin = own.client();
    const flags = async () =>
      ((await admin.config('GET', 'notify-keyspace-events')) as string[])[1];
    expect(await flags()).toBe('');
    const { feed, engine } = await feeds.start();
    expect(missingFlags((await flags()) ?? '')).toBe('');

    const name = queueName();
    const live = new Reader(feed.ringChanges(name));
    expect(await live.next()).toMatchObject({ reason: 'SNAPSHOT' });
    live.pull();
    await own.server().kill('SIGKILL');
    await own.server().restart();
    expect(await live.next()).toMatchObject({ ring: [], reason: 'RESYNC' });
    await waitFor(
      'the flags to be set again',
      async () => missingFlags((await flags()) ?? '') === '',
    );
    expect(await flags()).not.toBe('');
    expect(feed.mode).toBe('notifications');

    // The safety re-read is a minute away and nothing polls: only a notification can tell.
    await engine.queue(name).enqueue('x');
    expect(await live.next()).toMatchObject({ ring: ['x'], added: ['x'], reason: 'CHANGE' });
    expect(NEEDED_FLAGS).toBe('Klhszgt');
  });
});
