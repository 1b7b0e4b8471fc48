/**
 * The ring feed kept by the ring log (DESIGN.md §4.4, "The ring log"): a change costs the feed
 * a read of what changed, never of the whole ring; the copy stays exact under every kind of
 * ring write (claims that pop and push back, weighted heads kept, pauses, limits, weights,
 * batches); a marker that lapsed and a log that lost entries are noticed and read whole.
 */
import { describe, expect, it } from 'vitest';
import { type Queue, Worker } from '../../src/lanes/index.js';
import type { RingChange } from '../../src/pubsub/index.js';
import { queueName, Reader, useFeeds, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
const feeds = useFeeds(() => redis.client());

/** Bytes Redis has sent to its clients so far (INFO stats). */
async function bytesSent(): Promise<number> {
  const info = await redis.client().info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(info)?.[1]);
}

/** Follows a subscription in the background: the latest event, and the ring as added/removed say. */
function follow(iterator: AsyncGenerator<RingChange>) {
  const state = {
    latest: undefined as RingChange | undefined,
    members: new Set<string>(),
    events: 0,
  };
  void (async () => {
    for await (const event of iterator) {
      if (event.reason !== 'CHANGE') state.members = new Set(event.ring);
      for (const group of event.removed) state.members.delete(group);
      for (const group of event.added) state.members.add(group);
      state.latest = event;
      state.events++;
    }
  })();
  return state;
}

async function fill(q: Queue, groups: number, prefix = 'g') {
  for (let i = 0; i < groups; i += 1_000) {
    const jobs = [];
    for (let j = i; j < Math.min(groups, i + 1_000); j++) jobs.push({ group: `${prefix}${j}` });
    await q.enqueueMany(jobs);
  }
}

describe('the ring log', () => {
  it('a change costs Redis what changed, not the ring: 20 changes of a 20,000-group ring send less than one ring', async () => {
    const { feed, engine } = await feeds.start();
    const name = queueName();
    const q = engine.queue(name);
    await fill(q, 20_000);
    const ringBytes = (await q.ring()).reduce((n, g) => n + g.length + 3, 0);
    const reader = new Reader(feed.ringChanges(name, undefined, { ring: 10, snapshotAdded: 0 }));
    expect(await reader.next()).toMatchObject({ size: 20_000, reason: 'SNAPSHOT' });
    const before = await bytesSent();
    for (let i = 0; i < 20; i++) {
      await q.enqueue(`new${i}`);
      expect(await reader.next()).toMatchObject({
        size: 20_001 + i,
        added: [`new${i}`],
        removed: [],
        reason: 'CHANGE',
      });
    }
    const sent = (await bytesSent()) - before;
    expect(sent).toBeLessThan(ringBytes);
    expect(feed.stats().ringFullReads).toBe(1);
  });

  it('with levels, the ring feed shows the rota in claim order, each move read whole', async () => {
    const { feed, engine } = await feeds.start({ throttleMs: 0 });
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a', 0);
    await q.enqueue('b', 0);
    const state = follow(feed.ringChanges(name));
    await waitFor('the snapshot', async () => state.latest?.reason === 'SNAPSHOT');
    expect(state.latest?.ring).toEqual(['a', 'b']);
    // A group of level 2 goes ahead of the ring, one of level 8 behind it.
    await q.enqueue('x', 0, { priority: 2 });
    await q.enqueue('z', 0, { priority: 8 });
    await waitFor('the levels in the feed', async () => state.latest?.ring.join() === 'x,a,b,z');
    expect([...state.members].sort()).toEqual(['a', 'b', 'x', 'z']);
    // Claims: x leaves (empty), then the ring rotates with z behind it.
    expect((await q.claim())?.group).toBe('x');
    expect((await q.claim())?.group).toBe('a');
    await waitFor('the claims in the feed', async () => state.latest?.ring.join() === 'b,z');
    expect(await q.ring()).toEqual(['b', 'z']);
    expect([...state.members].sort()).toEqual(['b', 'z']);
    // A change of the ring alone still lands ahead of level 8.
    await q.enqueue('c', 0);
    await waitFor('the push in the feed', async () => state.latest?.ring.join() === 'b,c,z');
  });

  it('a call that pops the ring and then changes `levels` is read whole against the ring last sent', async () => {
    const { feed, engine } = await feeds.start({ throttleMs: 0 });
    const name = queueName();
    const q = engine.queue(name);
    await q.setLimit('a', 2);
    await q.enqueue('a', 0);
    await q.enqueue('a', 0, { priority: 8 }); // behind the first in a's lane: a stays on the ring
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
    // One call: the ring's pop (a 'pop' entry), a to level 8 (a 'levels' entry), its second job
    // claimed there, and a off the rota. The pop alone leaves a copy equal to the ring now, and
    // must not be taken for the ring last sent.
    const claimed = await q.completeAndClaim([], { claim: 2 });
    expect(claimed.claimed.map((job) => job.group)).toEqual(['a', 'a']);
    expect(await q.ring()).toEqual([]);
    expect(await reader.next(3_000)).toMatchObject({ ring: [], removed: ['a'], reason: 'CHANGE' });
  });

  it('a log that pops more than the copy holds sends the ring whole, as a RESYNC', async () => {
    const { feed, engine } = await feeds.start({ throttleMs: 0 });
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueueMany([{ group: 'a' }, { group: 'b' }]);
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a', 'b'], reason: 'SNAPSHOT' });
    // An entry no script wrote: the copy cannot follow it, and no diff against it is true.
    await redis.client().rpush(q.keys.ringLog, JSON.stringify({ seq: '1', o: 'pop', n: 3 }));
    await redis.client().hset(q.keys.settings, 'hint', '1'); // a change the watch hears
    expect(await reader.next(3_000)).toMatchObject({
      ring: ['a', 'b'],
      reason: 'RESYNC',
      resyncReason: 'MISSED_EVENTS',
    });
  });

  it('logs the claims of a quiet queue, which ask whether the ring is watched in their probe of the optional keys', async () => {
    // Nothing delayed, no rate, weight or watched job: the claim's one EXISTS of the optional
    // keys (includes/quietQueue.lua) counts the marker alone, and the claims are logged.
    const { feed, engine } = await feeds.start({ throttleMs: 0 });
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueueMany([{ group: 'a' }, { group: 'a' }, { group: 'b' }, { group: 'c' }]);
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a', 'b', 'c'], reason: 'SNAPSHOT' });
    await q.claim(); // a keeps a job: to the tail
    expect(await reader.next()).toMatchObject({ ring: ['b', 'c', 'a'], reason: 'CHANGE' });
    await q.completeAndClaim([], { claim: 1 }); // b's lane emptied: it leaves
    expect(await reader.next()).toMatchObject({ ring: ['c', 'a'], reason: 'CHANGE' });
    expect(feed.stats().ringFullReads).toBe(1);
  });

  it('keeps the copy exact under claims, weights, pauses, limits and batches (each event’s ring is the ring)', async () => {
    const { feed, engine } = await feeds.start({ throttleMs: 0 });
    const name = queueName();
    const q = engine.queue(name);
    await fill(q, 12);
    // Weighted heads: a claim that serves one puts it back at the head (an LPUSH).
    await q.setWeight('g0', 3);
    await q.setWeight('g1', 2);
    const state = follow(feed.ringChanges(name));
    await waitFor('the snapshot', () => state.latest);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const group = () => `g${random(14)}`;
    const ops: Array<() => Promise<unknown>> = [
      () => q.enqueue(group()),
      () => q.enqueueMany([{ group: group() }, { group: group() }, { group: `new${random(50)}` }]),
      async () => {
        const job = await q.claim();
        if (job?.token && random(2) === 0) await q.complete(job.id, job.token);
      },
      () => q.pause(group()),
      () => q.resume(group()),
      () => q.setLimit(group(), random(2)),
      () => q.clearLimit(group()),
      () => q.setWeight(group(), 1 + random(3)),
    ];
    for (let step = 0; step < 150; step++) {
      await (ops[random(ops.length)] as () => Promise<unknown>)();
      if (step % 25 === 24) {
        // Batches of claims: pops of several heads, weighted heads kept, the rest pushed back.
        for (let i = 0; i < 12; i++) await q.enqueue(group());
        const worker = new Worker(q, async () => {}, { concurrency: 6, reaper: false });
        try {
          await waitFor('the worker to drain', async () => (await q.ring()).length === 0);
        } finally {
          await worker.close();
        }
      }
      const ring = await q.ring();
      await waitFor(`the feed to follow step ${step}`, () => {
        const latest = state.latest;
        return (
          latest !== undefined &&
          latest.size === ring.length &&
          latest.ring.join() === ring.join() &&
          [...state.members].sort().join() === [...new Set(ring)].sort().join()
        );
      });
    }
    expect(feed.stats().ringFullReads).toBe(1);
  });

  it('reads the ring whole when its marker lapsed: changes made meanwhile come as a RESYNC', async () => {
    const { feed, engine } = await feeds.start({ ringWatchTtlMs: 600 });
    const name = queueName();
    const q = engine.queue(name);
    await q.enqueue('a');
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: ['a'], reason: 'SNAPSHOT' });
    // The marker gone (it lapsed: a server that stalled): the scripts stop logging.
    await redis.client().del(engine.queue(name).keys.ringWatched);
    await q.enqueue('b');
    // One RESYNC with both groups; or, when a renewal of the marker came between the DEL and
    // the enqueue (it finds the marker gone), a RESYNC of ['a'] and then 'b' as a CHANGE.
    const events = [await reader.next()];
    while ((events.at(-1) as RingChange).ring.join() !== 'a,b') events.push(await reader.next());
    expect(events[0]).toMatchObject({ reason: 'RESYNC' });
    expect(events.at(-1)).toMatchObject({ ring: ['a', 'b'], size: 2, added: ['b'], removed: [] });
    expect(feed.stats().ringFullReads).toBeGreaterThanOrEqual(2);
  });

  it('reads the ring whole when the log lost entries it had not read (more than it keeps between two reads)', async () => {
    // A throttle long enough for the 1,100 enqueues to land between two reads on a busy machine.
    const { feed, engine } = await feeds.start({ throttleMs: 4_000 });
    const name = queueName();
    const q = engine.queue(name);
    const reader = new Reader(feed.ringChanges(name));
    expect(await reader.next()).toMatchObject({ ring: [], reason: 'SNAPSHOT' });
    // One read now, then none for the throttle window: 1,100 changes, one log entry each.
    await q.enqueue('first');
    expect(await reader.next()).toMatchObject({ ring: ['first'] });
    await Promise.all(Array.from({ length: 1_100 }, (_, i) => q.enqueue(`b${i}`)));
    const ring = await q.ring();
    const event = await reader.next();
    expect(event.size).toBe(1_101);
    expect(event.ring).toEqual(ring);
    expect(event.added).toHaveLength(1_100);
    expect(feed.stats().ringFullReads).toBe(2);
  });
});
