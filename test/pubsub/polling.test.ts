/**
 * The live feed where CONFIG is refused (a managed Redis; DESIGN.md §6). Where Redis publishes
 * the events all the same, the keyspace canary hears them and the feed runs on notifications;
 * where it does not, the feed says which flags to set, polls the watched queues, and
 * subscriptions still deliver; where the user may not SUBSCRIBE to the keyspace channels
 * either (an ACL), a warning names the channels to grant.
 */
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { NEEDED_FLAGS } from '../../src/pubsub/index.js';
import { findRedisServer } from '../../src/server/redisProcess/index.js';
import { queueName, Reader, useFeeds, useOwnRedisServer, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const external = process.env.REDIS_URL !== undefined && process.env.TEST_REDIS === undefined;

describe.skipIf(external)('CONFIG renamed away (the harness Redis, notifications on)', () => {
  const redis = useTestRedis({ renameConfig: true });
  const feeds = useFeeds(() => redis.client());

  it('hears the canary, so runs on notifications, and delivers changes without polling', async () => {
    // A managed Redis its operator configured: this server may not set the flags, but Redis
    // publishes the events. The canary proves it; polling would only cost Redis work.
    const { feed, engine, lines } = await feeds.start({ pollIntervalMs: 60_000 });
    expect(feed.mode).toBe('notifications');
    const info = lines.find((l) => l.level === 30 && l.needed === NEEDED_FLAGS);
    expect(info?.msg).toMatch(/CONFIG is refused.*canary/);
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);

    const name = queueName();
    const q = engine.queue(name);
    const ring = new Reader(feed.ringChanges(name));
    const group = new Reader(feed.groupChanges(name, 'a'));
    expect(await ring.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    expect(await group.next()).toMatchObject({ pending: 0, state: 'IDLE' });
    // No poll and no safety re-read within a minute: only notifications deliver these.
    await q.enqueue('a');
    expect(await ring.next()).toMatchObject({ ring: ['a'], added: ['a'], reason: 'CHANGE' });
    expect(await group.next()).toMatchObject({ pending: 1, state: 'READY' });
    await q.pause('a');
    expect(await ring.next()).toMatchObject({ ring: [], removed: ['a'], reason: 'CHANGE' });
    expect(await group.next()).toMatchObject({ paused: true, state: 'PAUSED' });
  });
});

describe.skipIf(findRedisServer() === null)('CONFIG refused and no notifications at all', () => {
  // What a managed Redis with notifications off looks like: only polling can see a change.
  const own = useOwnRedisServer({ extraArgs: ['--rename-command', 'CONFIG', ''] });
  const feeds = useFeeds(() => own.client());

  it('says which flags to set, and delivers ring and group changes by polling every pollIntervalMs', async () => {
    const { feed, engine, lines } = await feeds.start({
      pollIntervalMs: 50,
      resyncIntervalMs: 60_000,
      canaryTimeoutMs: 300,
    });
    expect(feed.mode).toBe('polling');
    // The first canary round, at start, found nothing and says what to set.
    const warning = lines.find((l) => l.level === 40 && l.needed === NEEDED_FLAGS);
    expect(warning?.msg).toMatch(/CONFIG is refused.*notify-keyspace-events.*Klhszgt/);
    expect(warning?.pollIntervalMs).toBe(50);
    const name = queueName();
    const q = engine.queue(name);
    const ring = new Reader(feed.ringChanges(name));
    const group = new Reader(feed.groupChanges(name, 'a'));
    expect(await ring.next()).toMatchObject({ reason: 'SNAPSHOT' });
    expect(await group.next()).toMatchObject({ state: 'IDLE' });

    await q.enqueue('a');
    expect(await ring.next()).toMatchObject({ ring: ['a'], added: ['a'], reason: 'CHANGE' });
    expect(await group.next()).toMatchObject({ pending: 1, state: 'READY' });
    // The polls go on while the queue is watched, and stop when it is not.
    const reads = feed.stats().ringReads;
    await waitFor('more polls', () => feed.stats().ringReads >= reads + 3);
    await ring.iterator.return(undefined);
    await group.iterator.return(undefined);
    expect(feed.stats()).toMatchObject({ listeners: 0, watchedQueues: 0, channels: 0 });
  });
});

describe.skipIf(findRedisServer() === null)(
  'CONFIG and the keyspace channels refused (an ACL)',
  () => {
    // Redis 7's default for a new user: no channels; and no CONFIG (-@admin), as on a managed Redis.
    const own = useOwnRedisServer();
    const feeds = useFeeds(() => {
      const url = new URL(own.server().url);
      url.username = 'nochan';
      url.password = 'nochan-password';
      const client = new Redis(url.toString());
      client.on('error', () => {});
      return client;
    });
    beforeAll(async () => {
      await own
        .client()
        .call(
          'ACL',
          'SETUSER',
          'nochan',
          'on',
          '>nochan-password',
          '~*',
          'resetchannels',
          '+@all',
          '-@admin',
          '-config',
        );
    });

    it('warns that SUBSCRIBE is refused, naming the channels to grant, and delivers by polling', async () => {
      const { feed, engine, lines } = await feeds.start({
        pollIntervalMs: 50,
        resyncIntervalMs: 60_000,
        canaryTimeoutMs: 300,
      });
      const name = queueName();
      const ring = new Reader(feed.ringChanges(name));
      expect(await ring.next()).toMatchObject({ reason: 'SNAPSHOT' });
      await waitFor('the SUBSCRIBE warning', () =>
        lines.some((l) => l.level === 40 && /SUBSCRIBE is refused/.test(String(l.msg))),
      );
      const warnings = lines.filter(
        (l) => l.level === 40 && /SUBSCRIBE is refused/.test(String(l.msg)),
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toContain('&__keyspace@*__:* or allchannels');
      expect(feed.mode).toBe('polling');
      await engine.queue(name).enqueue('a');
      expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'CHANGE' });
      await ring.iterator.return(undefined);
    });
  },
);
