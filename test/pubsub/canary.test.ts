/**
 * Keyspace notifications switched off under a live server: another client
 * runs `CONFIG SET notify-keyspace-events …` and Redis just stops publishing. The feed's canary
 * notices within a round: it re-applies the flags where CONFIG is allowed, or polls where it is
 * refused; every subscriber gets a RESYNC; the feed goes back to notifications once the canary
 * is heard again; and `/ready` says which mode is true.
 */
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { NEEDED_FLAGS, type RingChange } from '../../src/pubsub/index.js';
import { missingFlags } from '../../src/pubsub/notifyConfig.js';
import { findRedisServer } from '../../src/server/redisProcess/index.js';
import { RingChangedDocument, type RingChangedSubscription } from '../gql/graphql.js';
import { dataOf, type LiveSubscription, wsSubscribe } from '../support/live.js';
import { queueName, Reader, useFeeds, useOwnRedisServer, waitFor } from '../support/pubsub.js';
import { useTestRedis, usingExternalRedis } from '../support/redis.js';
import { READY, startTestServer, type TestServer } from '../support/server.js';

/** Canary rounds close together, safety re-reads and polls far away unless a test wants them. */
const FAST_CANARY = { canaryIntervalMs: 100, canaryTimeoutMs: 500, resyncIntervalMs: 60_000 };

/**
 * Events until the ring is `ring`. Any before it must be RESYNCs (of the incident); the one
 * with `ring` may be a CHANGE or, conflated with a RESYNC still unread, a RESYNC.
 */
async function untilRing(reader: Reader<RingChange>, ring: string[]): Promise<RingChange> {
  for (;;) {
    const event = await reader.next();
    if (event.ring.join() === ring.join()) return event;
    expect(event.reason).toBe('RESYNC');
  }
}

describe.skipIf(usingExternalRedis())('CONFIG allowed: one needed class removed at a time', () => {
  const redis = useTestRedis();
  const feeds = useFeeds(() => redis.client());

  it.each([...NEEDED_FLAGS])(
    'without "%s": noticed, re-applied, every subscriber resynced, notifications again',
    async (flag) => {
      const admin = redis.client();
      const flags = async () =>
        ((await admin.config('GET', 'notify-keyspace-events')) as string[])[1] ?? '';
      const original = await flags();
      const { feed, engine, lines } = await feeds.start(FAST_CANARY);
      expect(feed.mode).toBe('notifications');
      const name = queueName();
      const q = engine.queue(name);
      await q.enqueue('a');
      const ring = new Reader(feed.ringChanges(name));
      const group = new Reader(feed.groupChanges(name, 'a'));
      expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
      expect(await group.next()).toMatchObject({ id: 'a', pending: 1 });
      ring.pull();
      group.pull();

      try {
        // Everything the feed needs but this one class (K removed: no keyspace channel at all).
        await admin.config('SET', 'notify-keyspace-events', NEEDED_FLAGS.replace(flag, ''));
        const warning = await waitFor('the canary to notice', () =>
          lines.find((l) => l.level === 40 && /changed under this server/.test(String(l.msg))),
        );
        expect(warning.msg).toContain(`(missing "${flag}")`);
        expect(missingFlags(await flags())).toBe('');
        await waitFor('notifications again', () => feed.mode === 'notifications');

        // Every subscriber was resynced (sent the state even though nothing changed).
        expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'RESYNC' });
        expect(await group.next()).toMatchObject({ id: 'a', pending: 1 });
        // The safety re-read is a minute away and nothing polls: a notification delivers this.
        await q.enqueue('b');
        expect(await untilRing(ring, ['a', 'b'])).toMatchObject({ added: ['b'] });
      } finally {
        await admin.config('SET', 'notify-keyspace-events', original);
      }
    },
  );

  it('leaves no key behind: each round creates its keys and deletes them in one MULTI', async () => {
    const admin = redis.client();
    const multis = async () =>
      Number(/cmdstat_multi:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const { feed, engine } = await feeds.start(FAST_CANARY);
    const q = engine.queue(queueName());
    await q.enqueue('a');
    const before = await multis();
    // Several rounds (only the canary sends MULTI), each heard: the mode would be polling else.
    await waitFor('three canary rounds', async () => (await multis()) >= before + 3);
    expect(feed.mode).toBe('notifications');
    expect(await admin.keys('pst:canary:*')).toEqual([]);
    const foreign = (await admin.keys('pst:*')).filter(
      (key) => !key.startsWith('pst:{') && key !== 'pst:queues',
    );
    expect(foreign).toEqual([]);
    // The canary's channels are its own business, not the watchers'.
    expect(feed.stats()).toMatchObject({ channels: 0, watches: 0 });
  });
});

describe.skipIf(findRedisServer() === null)(
  'CONFIG refused: notifications set by the operator',
  () => {
    // A managed Redis: the server may not run CONFIG; its operator (this test) may, by another name.
    const CONFIG = 'ops-config';
    const own = useOwnRedisServer({
      notifyKeyspaceEvents: 'KEA',
      extraArgs: ['--rename-command', 'CONFIG', CONFIG],
    });
    const feeds = useFeeds(() => own.client());
    let admin: Redis;
    const setFlags = (flags: string) => admin.call(CONFIG, 'SET', 'notify-keyspace-events', flags);
    afterEach(async () => {
      await setFlags('KEA');
    });

    it('polls while the canary is unheard, says what to set, resyncs, and goes back', async () => {
      admin = own.client();
      const { feed, engine, lines } = await feeds.start({ ...FAST_CANARY, pollIntervalMs: 100 });
      expect(feed.mode).toBe('notifications');
      const name = queueName();
      const q = engine.queue(name);
      const ring = new Reader(feed.ringChanges(name));
      expect(await ring.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
      ring.pull();

      await setFlags('');
      await waitFor('the feed to poll', () => feed.mode === 'polling');
      const warning = lines.find((l) => l.level === 40 && l.needed === NEEDED_FLAGS);
      expect(warning?.msg).toMatch(/do not arrive.*CONFIG is refused.*Klhszgt/);
      expect(await ring.next()).toMatchObject({ ring: [], reason: 'RESYNC' });
      // No notification is published now: a poll delivers this.
      await q.enqueue('a');
      expect(await ring.next()).toMatchObject({ ring: ['a'], added: ['a'], reason: 'CHANGE' });

      await setFlags('KEA');
      await waitFor('notifications again', () => feed.mode === 'notifications');
      expect(lines.some((l) => /arrive again/.test(String(l.msg)))).toBe(true);
      // Changes between the last poll and the flags' return were published to nobody.
      expect(await ring.next()).toMatchObject({ ring: ['a'], reason: 'RESYNC' });
      // Polls have stopped (a minute apart now): a notification delivers this.
      const polls = feed.stats().rereads;
      await q.enqueue('b');
      expect(await untilRing(ring, ['a', 'b'])).toMatchObject({ added: ['b'] });
      expect(feed.stats().rereads).toBe(polls);
    });

    describe('through the server', () => {
      let server: TestServer | undefined;
      afterEach(async () => {
        await server?.stop();
        server = undefined;
      });

      /** `/ready`'s status and body. */
      async function ready(): Promise<{ status: number; body: Record<string, unknown> }> {
        const response = await fetch(`${server?.server.url}/ready`);
        return {
          status: response.status,
          body: (await response.json()) as Record<string, unknown>,
        };
      }

      it('/ready says "polling" (and 200) while the canary is unheard, "notifications" once heard', async () => {
        admin = own.client();
        server = await startTestServer(own.server().url, {
          RESYNC_INTERVAL_MS: '1000',
          POLL_INTERVAL_MS: '100',
        });
        expect(await ready()).toEqual({
          status: 200,
          body: READY,
        });
        const q = queueName('ready');
        const sub: LiveSubscription<RingChangedSubscription> = wsSubscribe(
          server.ws(),
          RingChangedDocument,
          { queue: q },
        );
        expect(dataOf(await sub.events.next()).ringChanged).toMatchObject({ reason: 'SNAPSHOT' });

        await setFlags('');
        // Noticed within one RESYNC_INTERVAL_MS (the canary's round is bounded by it).
        await waitFor('/ready to say polling', async () => {
          return (await ready()).body.notifications === 'polling';
        });
        // Polling is a working mode: ready, and the subscription was resynced.
        expect(await ready()).toEqual({
          status: 200,
          body: { ...READY, notifications: 'polling' },
        });
        expect(dataOf(await sub.events.next()).ringChanged).toMatchObject({ reason: 'RESYNC' });

        await setFlags('KEA');
        await waitFor('/ready to say notifications', async () => {
          return (await ready()).body.notifications === 'notifications';
        });
        sub.close();
      });
    });
  },
);
