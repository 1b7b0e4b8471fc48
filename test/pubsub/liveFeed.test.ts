/**
 * The live feed (src/pubsub) on a real Redis: SNAPSHOT first, CHANGE with per-subscriber
 * added/removed, nothing for an unchanged ring, bounded reads under a burst, conflation for a
 * slow consumer, groupChanged, and release of every listener and channel (DESIGN.md §4, §6).
 */
import { describe, expect, it, vi } from 'vitest';
import { type GroupInfo, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { LiveFeed, NEEDED_FLAGS, type RingChange } from '../../src/pubsub/index.js';
import { missingFlags } from '../../src/pubsub/notifyConfig.js';
import { NO_OPERATIONS, redisNow } from '../support/lanes.js';
import { channelsOf, queueName, Reader, useFeeds, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
const feeds = useFeeds(() => redis.client());

/** Claim the next job and return it (fails the test when nothing is serviceable). */
async function claim(q: Queue) {
  const job = await q.claim();
  if (job === null) throw new Error('nothing to claim');
  return job;
}

/** The next event must be a CHANGE to `ring` with these added/removed. */
async function expectChange(
  reader: Reader<RingChange>,
  ring: string[],
  added: string[],
  removed: string[],
) {
  expect(await reader.next()).toEqual({
    queue: expect.any(String),
    ring,
    size: ring.length,
    added,
    addedCount: added.length,
    removed,
    queueState: 'RUNNING',
    reason: 'CHANGE',
  });
}

describe('notification flags', () => {
  it('knows which flags are missing, reading Redis’ A alias', () => {
    expect(NEEDED_FLAGS).toBe('Klhszgt');
    expect(missingFlags('')).toBe('Klhszgt');
    expect(missingFlags('AKE')).toBe('');
    expect(missingFlags('AE')).toBe('K');
    expect(missingFlags('glshzK')).toBe('t');
    expect(missingFlags('glshztK')).toBe('');
    expect(missingFlags('Elh')).toBe('Kszgt');
  });

  it('adds the flags it needs at start and removes none', async () => {
    const admin = redis.client();
    const [, original] = (await admin.config('GET', 'notify-keyspace-events')) as [string, string];
    await admin.config('SET', 'notify-keyspace-events', 'Ex');
    try {
      await feeds.start();
      const [, flags] = (await admin.config('GET', 'notify-keyspace-events')) as [string, string];
      expect(missingFlags(flags, `${NEEDED_FLAGS}Ex`)).toBe('');
    } finally {
      await admin.config('SET', 'notify-keyspace-events', original);
    }
  });

  it('sends no CONFIG SET when the flags are already there', async () => {
    const { feed, lines } = await feeds.start();
    expect(feed.mode).toBe('notifications');
    const configured = lines.find((l) => l.msg === 'keyspace notifications configured');
    expect(configured?.before).toMatch(/A/); // the harness sets KEA, which Redis prints as AKE
    expect(configured?.after).toBe(configured?.before);
  });
});

describe('ringChanges', () => {
  it('sends a SNAPSHOT of the current ring first', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a');
    await q.enqueue('b');
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toEqual({
      queue: name,
      ring: ['a', 'b'],
      size: 2,
      added: ['a', 'b'],
      addedCount: 2,
      removed: [],
      queueState: 'RUNNING',
      reason: 'SNAPSHOT',
    });
    const empty = new Reader(feed.ringChanges(queueName()));
    expect(await empty.next()).toMatchObject({
      ring: [],
      added: [],
      removed: [],
      queueState: 'RUNNING',
      reason: 'SNAPSHOT',
    });
  });

  it('sends a CHANGE with the right added/removed after enqueue, claim, complete, setLimit, pause and resume', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });

    await q.enqueue('a');
    await expectChange(reader, ['a'], ['a'], []);
    await q.enqueue('b');
    await q.enqueue('b'); // b is on the ring already: no ring write
    await expectChange(reader, ['a', 'b'], ['b'], []);
    const a1 = await claim(q); // a's lane is empty now: de-ringed
    expect(a1.group).toBe('a');
    await expectChange(reader, ['b'], [], ['a']);
    await q.setLimit('b', 0); // parks b
    await expectChange(reader, [], [], ['b']);
    await q.setLimit('b', 5); // re-rings b
    await expectChange(reader, ['b'], ['b'], []);
    await q.pause('b');
    await expectChange(reader, [], [], ['b']);
    await q.resume('b');
    await expectChange(reader, ['b'], ['b'], []);
    await q.enqueue('a');
    await expectChange(reader, ['b', 'a'], ['a'], []);
    await claim(q); // b keeps one pending job: it rotates to the tail
    await expectChange(reader, ['a', 'b'], [], []);
    await q.setLimit('a', 1); // a1 is still active: a is at its limit
    await expectChange(reader, ['b'], [], ['a']);
    await q.complete(a1.id, a1.token as string); // a permit frees: a is back
    await expectChange(reader, ['b', 'a'], ['a'], []);
    expect(await q.ring()).toEqual(['b', 'a']);
  });

  it('sends nothing when the ring did not change, and the next event is the next real change', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a');
    await q.enqueue('a');
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
    reader.pull();

    // No ring write at all: a limit that changes nothing.
    await q.setLimit('zz', 3);
    // Ring writes that leave it as it was: the only group is popped and pushed back.
    const before = feed.stats().ringReads;
    await claim(q);
    await waitFor('the re-read of the rotated ring', () => feed.stats().ringReads > before);
    expect(await q.ring()).toEqual(['a']);

    await q.enqueue('b');
    await expectChange(reader, ['a', 'b'], ['b'], []);
  });

  it('shares one read per change among all subscribers of a queue, on one channel', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const readers = Array.from({ length: 5 }, () => new Reader(feed.ringChanges(name)));
    for (const reader of readers) expect(await reader.next()).toMatchObject({ reason: 'SNAPSHOT' });
    expect(feed.stats()).toMatchObject({
      listeners: 5,
      watchedQueues: 1,
      ringReads: 1,
      channels: 3,
    });
    expect((await channelsOf(redis.client(), name)).sort()).toEqual([
      `__keyspace@0__:pst:{${name}}:levels`,
      `__keyspace@0__:pst:{${name}}:ring`,
      `__keyspace@0__:pst:{${name}}:settings`,
    ]);

    await engine.queue(name).enqueue('a');
    for (const reader of readers) await expectChange(reader, ['a'], ['a'], []);
    expect(feed.stats().ringReads).toBe(2);
  });

  it('reads a bounded number of times under 10,000 rapid ring changes, and ends on the final ring', async () => {
    const throttleMs = 25;
    const { feed, engine } = await feeds.start({ throttleMs });
    const name = queueName();
    const q = engine.queue(name);
    const events: RingChange[] = [];
    const iterator = feed.ringChanges(name);
    const first = await iterator.next();
    expect(first.value?.reason).toBe('SNAPSHOT');
    const readsBefore = feed.stats().ringReads;
    const consumer = (async () => {
      for await (const event of iterator) {
        events.push(event);
        if (event.ring.length === 10_000) return;
      }
    })();

    const started = performance.now();
    for (let batch = 0; batch < 20; batch++) {
      // Each enqueue to a new group pushes it onto the ring: 10,000 ring changes in all.
      await Promise.all(Array.from({ length: 500 }, (_, i) => q.enqueue(`g${batch * 500 + i}`)));
    }
    await consumer;
    const elapsed = performance.now() - started;

    const reads = feed.stats().ringReads - readsBefore;
    expect(reads).toBeLessThan(1_000);
    // At most one read per throttle window (plus the first, leading-edge one).
    expect(reads).toBeLessThanOrEqual(Math.ceil(elapsed / throttleMs) + 2);
    expect(events.length).toBeLessThanOrEqual(reads);
    const final = await q.ring();
    expect(final).toHaveLength(10_000);
    expect(events.at(-1)?.ring).toEqual(final);
    // Every group was reported added exactly once, none removed.
    expect(events.flatMap((e) => e.added).sort()).toEqual([...final].sort());
    expect(events.flatMap((e) => e.removed)).toEqual([]);
  });

  it('conflates for a consumer that does not pull: one event with the latest ring on resume', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const slow = new Reader(feed.ringChanges(name));
    const fast = new Reader(feed.ringChanges(name));
    expect(await slow.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    expect(await fast.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });

    const groups = Array.from({ length: 200 }, (_, i) => `s${i}`);
    for (const group of groups) await q.enqueue(group);
    await claim(q); // s0 leaves the ring
    // The fast consumer sees the final ring, so the feed has read it: the slow one holds it too.
    for (;;) {
      const event = await fast.next();
      if (event.ring.length === 199 && event.ring[0] === 's1') break;
    }
    expect(await slow.next()).toEqual({
      queue: name,
      ring: groups.slice(1),
      size: 199,
      added: groups.slice(1),
      addedCount: 199,
      removed: [],
      queueState: 'RUNNING',
      reason: 'CHANGE',
    });
    // Nothing else is buffered: the next event is the next change.
    await q.pause('s1');
    await expectChange(slow, groups.slice(2), [], ['s1']);
  });

  it("follows the queue's state: a pause or resume alone is a CHANGE with nothing added or removed", async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a');
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a'], queueState: 'RUNNING' });
    // The ring stands; only the queue's state changes.
    await q.pauseQueue();
    expect(await reader.next()).toEqual({
      queue: name,
      ring: ['a'],
      size: 1,
      added: [],
      addedCount: 0,
      removed: [],
      queueState: 'PAUSED',
      reason: 'CHANGE',
    });
    // A retention setting is in the same hash: read again, equal, nothing sent.
    const reads = feed.stats().ringReads;
    await q.setRetention({ completed: { count: 5 } });
    await waitFor('the re-read', () => feed.stats().ringReads > reads);
    await q.resumeQueue();
    await expectChange(reader, ['a'], [], []);
  });

  it('throws at once for an invalid queue name, and before start', async () => {
    const { feed } = await feeds.start();
    expect(() => feed.ringChanges('bad name!')).toThrow(RingmasterError);
    expect(() => feed.groupChanges('ok', '')).toThrow(RingmasterError);
    const { engine } = await feeds.start();
    const unstarted = new LiveFeed({
      engine,
      resyncIntervalMs: 5_000,
      pollIntervalMs: 1_000,
      logger: (await import('pino')).pino({ level: 'silent' }),
    });
    expect(() => unstarted.ringChanges('q')).toThrow(/started/);
  });
});

describe('groupChanges', () => {
  const fields = (g: GroupInfo) => ({ ...g });

  it('sends the current state, then every change of any field', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.groupChanges(name, 'g'));
    expect(await reader.next()).toEqual({
      id: 'g',
      queue: name,
      limit: null,
      active: 0,
      pending: 0,
      paused: false,
      onRing: false,
      state: 'IDLE',
      ...NO_OPERATIONS,
    });

    const step = async (action: () => Promise<unknown>, expected: Partial<GroupInfo>) => {
      await action();
      const event = await reader.next();
      expect(event).toMatchObject(expected);
      expect(fields(event)).toEqual(fields(await q.group('g')));
    };
    await step(() => q.setLimit('g', 1), { limit: 1, state: 'IDLE' });
    await step(() => q.pause('g'), { paused: true, state: 'PAUSED' });
    await step(() => q.resume('g'), { paused: false, state: 'IDLE' });
    await step(() => q.enqueue('g'), { pending: 1, onRing: true, state: 'READY' });
    const job = await q.claim();
    expect(job?.group).toBe('g');
    expect(await reader.next()).toMatchObject({ active: 1, pending: 0, state: 'SATURATED' });
    await step(() => q.complete(job?.id ?? '', job?.token ?? ''), { active: 0, state: 'IDLE' });
  });

  it('sends nothing for a change of another group, and the next event is the next real change', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.groupChanges(name, 'g'));
    expect(await reader.next()).toMatchObject({ state: 'IDLE' });
    reader.pull();

    const before = feed.stats().groupReads;
    await q.setLimit('h', 2); // glimit notifies per key: g is re-read, and has not changed
    await waitFor('the re-read of g', () => feed.stats().groupReads > before);
    await q.enqueue('h');
    await q.pause('g');
    expect(await reader.next()).toMatchObject({ paused: true, state: 'PAUSED', pending: 0 });
  });
});

describe('groupChanges at a rate window reopening (nothing is written to Redis then)', () => {
  /** Group g of a new queue rate-limited for `windowMs` by a claim; its reopening (Redis ms). */
  async function rateLimited(q: Queue, windowMs: number): Promise<number> {
    await q.setRateLimit('g', { max: 1, windowMs });
    await q.enqueue('g');
    await q.enqueue('g');
    const job = await q.claim({ leaseMs: 600_000 });
    return Number(job?.claimedAt) + windowMs;
  }

  it('a server clock ahead of Redis: re-reads again, later each time, until Redis says it reopened', async () => {
    const { feed, engine } = await feeds.start();
    const q = engine.queue(queueName());
    const until = await rateLimited(q, 1_000);
    // This process' clock a second ahead of Redis': the first timed re-read comes too early.
    const realNow = Date.now.bind(Date);
    const skew = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 1_000);
    try {
      const reader = new Reader(feed.groupChanges(q.name, 'g'));
      expect(await reader.next()).toMatchObject({ state: 'RATE_LIMITED', rateLimitedUntil: until });
      const before = feed.stats().groupReads;
      expect(await reader.next(5_000)).toMatchObject({
        state: 'READY',
        rateLimitedUntil: null,
        rateReopenedAt: until,
      });
      expect(await redisNow(q.redis)).toBeGreaterThanOrEqual(until);
      // Margins of 50, 100, 200, 400, 800 ms: a handful of reads, not one per turn of a loop.
      expect(feed.stats().groupReads - before).toBeLessThanOrEqual(6);
    } finally {
      skew.mockRestore();
    }
  });

  it('a subscription that ends takes its timed re-read with it', async () => {
    const { feed, engine } = await feeds.start();
    const q = engine.queue(queueName());
    const until = await rateLimited(q, 300);
    const reader = new Reader(feed.groupChanges(q.name, 'g'));
    expect(await reader.next()).toMatchObject({ state: 'RATE_LIMITED', rateLimitedUntil: until });
    await reader.iterator.return(undefined);
    expect(feed.stats()).toMatchObject({ watches: 0, listeners: 0 });
    const reads = feed.stats().groupReads;
    // Past the reopening and the re-read's margin on Redis' clock: nothing read it.
    await waitFor('Redis past the reopening', async () => (await redisNow(q.redis)) > until + 200);
    expect(feed.stats().groupReads).toBe(reads);
  });
});

describe('release', () => {
  it('leaves no listener and no channel when generators are returned or aborted', async () => {
    const { feed } = await feeds.start();
    const admin = redis.client();
    const name = queueName();
    const controller = new AbortController();
    const returned = new Reader(feed.ringChanges(name));
    const aborted = new Reader(feed.ringChanges(name, controller.signal));
    const group = new Reader(feed.groupChanges(name, 'g'));
    const group2 = new Reader(feed.groupChanges(name, 'h', controller.signal));
    await returned.next();
    await aborted.next();
    await group.next();
    await group2.next();
    // ring, levels, settings (the groups' watches too: the queue's cap); glimit, gactive,
    // paused, gweight, grate, ratelimited, goverride, greserve, gmaxpending
    // (shared by g and h); g's and h's lanes
    expect(feed.stats()).toMatchObject({ listeners: 4, watchedQueues: 1, channels: 14 });
    expect(await channelsOf(admin, name)).toHaveLength(14);

    // Each is waiting for an event that will not come: ending it must not wait for one.
    returned.pull();
    aborted.pull();
    group.pull();
    group2.pull();
    expect(await returned.iterator.return(undefined)).toEqual({ done: true, value: undefined });
    expect(await returned.result()).toEqual({ done: true, value: undefined });
    controller.abort();
    expect(await aborted.result()).toEqual({ done: true, value: undefined });
    expect(await group2.result()).toEqual({ done: true, value: undefined });
    expect(feed.stats()).toMatchObject({ listeners: 1, channels: 11 });
    await expect(group.iterator.throw(new Error('client went away'))).rejects.toThrow(/went away/);
    expect(await group.result()).toEqual({ done: true, value: undefined });

    expect(feed.stats()).toMatchObject({ listeners: 0, watchedQueues: 0, channels: 0 });
    await waitFor(
      'PUBSUB CHANNELS to empty',
      async () => (await channelsOf(admin, name)).length === 0,
    );

    // An already aborted signal holds nothing at all.
    const gone = feed.ringChanges(name, controller.signal);
    expect(await gone.next()).toEqual({ done: true, value: undefined });
    expect(feed.stats()).toMatchObject({ listeners: 0, channels: 0 });
  });

  it('re-subscribes a channel released and watched again', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const first = feed.ringChanges(name);
    await first.next();
    await first.return(undefined);
    const again = new Reader(feed.ringChanges(name));
    expect(await again.next()).toMatchObject({ reason: 'SNAPSHOT' });
    await engine.queue(name).enqueue('a');
    await expectChange(again, ['a'], ['a'], []);
  });

  it('stop() ends every generator, unsubscribes, and quits the subscriber connection', async () => {
    const admin = redis.client();
    const clientsBefore = Number(
      ((await admin.info('clients')).match(/connected_clients:(\d+)/) ?? [])[1],
    );
    const { feed } = await feeds.start();
    const name = queueName();
    const ring = new Reader(feed.ringChanges(name));
    const group = new Reader(feed.groupChanges(name, 'g'));
    await ring.next();
    await group.next();
    ring.pull();
    await feed.stop();
    expect(await ring.result()).toEqual({ done: true, value: undefined });
    expect(await group.result()).toEqual({ done: true, value: undefined });
    expect(feed.stats()).toMatchObject({ listeners: 0, watchedQueues: 0, channels: 0 });
    expect(await channelsOf(admin, name)).toEqual([]);
    // The feed's own engine connection is still open (the test closes it); the subscriber is gone.
    await waitFor('the subscriber connection to close', async () => {
      const info = await admin.info('clients');
      return Number((info.match(/connected_clients:(\d+)/) ?? [])[1]) === clientsBefore + 1;
    });
    expect(() => feed.ringChanges(name)).toThrow(/stopped/);
    await feed.stop(); // idempotent
  });
});
