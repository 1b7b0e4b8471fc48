/**
 * Safety re-reads and polls as watches grow ("Unbounded watches"): they are spread
 * over the period, each watch at its own turn, and capped at `maxRereadsPerSecond` in all, so
 * Redis' cost is bounded however many rings and groups are watched. Counts only (commands
 * Redis ran, re-reads started); no assertion about how fast anything is.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RereadScheduler } from '../../src/pubsub/rereads.js';
import { scriptCallsIn } from '../support/commandStats.js';
import { queueName, Reader, useFeeds, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

describe('through a feed on Redis', () => {
  const redis = useTestRedis();
  const feeds = useFeeds(() => redis.client());

  it('200 group watches re-read every 100 ms cost at most maxRereadsPerSecond scripts a second', async () => {
    const admin = redis.client();
    /** Scripts Redis ran: a group read is one call, and nothing else here makes one. */
    const scripts = async () => scriptCallsIn(await admin.info('commandstats'));
    const { feed } = await feeds.start({ resyncIntervalMs: 100, maxRereadsPerSecond: 50 });
    const name = queueName();
    const readers = Array.from(
      { length: 200 },
      (_, i) => new Reader(feed.groupChanges(name, `g${i}`)),
    );
    for (const reader of readers) await reader.next();
    expect(feed.stats()).toMatchObject({ watches: 200 });

    const before = { scripts: await scripts(), rereads: feed.stats().rereads, at: Date.now() };
    // Uncapped, 200 watches every 100 ms would be 2,000 reads a second: ~3,000 in this window.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = { scripts: await scripts(), rereads: feed.stats().rereads, at: Date.now() };
    const seconds = (after.at - before.at) / 1_000;
    const allowed = 50 * seconds + 5; // + a tick's rounding and reads in flight at the edges
    expect(after.scripts - before.scripts).toBeLessThanOrEqual(allowed);
    expect(after.rereads - before.rereads).toBeLessThanOrEqual(allowed);
    // …and they do happen.
    await waitFor('re-reads to go on', () => feed.stats().rereads > after.rereads);
  });
});

describe('RereadScheduler (fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** `count` watches on one scheduler; each records the (fake) times it was re-read, from 0. */
  function schedule(count: number, options: { periodMs: number; maxPerSecond: number }) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const scheduler = new RereadScheduler(options);
    const start = performance.now();
    const times: number[][] = Array.from({ length: count }, () => []);
    const removals = times.map((own) => scheduler.add(() => own.push(performance.now() - start)));
    return { scheduler, times, removals };
  }

  /** Re-reads per `width` ms window over [0, until). */
  function perWindow(times: number[][], width: number, until: number): number[] {
    const windows = new Array<number>(Math.ceil(until / width)).fill(0);
    for (const at of times.flat()) {
      const i = Math.floor(at / width);
      if (at < until) windows[i] = (windows[i] ?? 0) + 1;
    }
    return windows;
  }

  it('spreads 1,000 watches over the period instead of re-reading them together', () => {
    const { times, scheduler } = schedule(1_000, { periodMs: 1_000, maxPerSecond: Infinity });
    vi.advanceTimersByTime(10_000);
    // Each watch about once a period (one interval per watch would be exactly 10 each, all at
    // the same instants: 1,000 in one window, none in the other nine).
    for (const own of times) expect(own.length).toBeGreaterThanOrEqual(9);
    for (const own of times) expect(own.length).toBeLessThanOrEqual(11);
    for (const n of perWindow(times, 100, 10_000)) expect(n).toBeLessThanOrEqual(110);
    expect(scheduler.effectivePeriodMs).toBe(1_000);
    scheduler.stop();
  });

  it('caps re-reads a second, stretching the period, and every watch still gets its turn', () => {
    const { times, scheduler, removals } = schedule(1_000, { periodMs: 1_000, maxPerSecond: 100 });
    expect(scheduler.effectivePeriodMs).toBe(10_000);
    vi.advanceTimersByTime(20_000);
    for (const n of perWindow(times, 1_000, 20_000)) expect(n).toBeLessThanOrEqual(101);
    for (const own of times) expect(own.length).toBeGreaterThanOrEqual(1);
    // Fewer watches: back to the configured period for those left.
    for (const remove of removals.slice(100)) remove();
    expect(scheduler.size).toBe(100);
    expect(scheduler.effectivePeriodMs).toBe(1_000);
    const before = scheduler.count;
    vi.advanceTimersByTime(5_000);
    expect(scheduler.count - before).toBeGreaterThanOrEqual(450);
    expect(scheduler.count - before).toBeLessThanOrEqual(510);
    scheduler.stop();
  });
});
