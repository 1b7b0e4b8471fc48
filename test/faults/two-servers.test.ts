/**
 * Two API server processes on one Redis (what any replicated deployment runs): each serves
 * subscriptions that see the other's changes, and both run the reaper (every 25 ms) over the same
 * expiring leases. Every job has a FIXED backoff, so each lease reaped puts its job in `delayed`
 * for BACKOFF_MS, and the two reapers also race to promote those jobs back to their lanes.
 *
 * What must hold: a mutation through either server reaches the subscribers of both; every
 * expired lease is reaped exactly once however the two reapers interleave (stats.reaped = the
 * leases that expired = the sum of what each server logged), no permit is released twice (a
 * sampler never sees a group's active count at 0 or below, nor above its limit); reaped jobs
 * really waited in `delayed` and the servers' reapers promoted every one (no worker or claim
 * runs meanwhile); both reapers really took part; I1–I5 hold and nothing is lost.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { EnqueueDocument, RingChangedDocument, SetLimitDocument } from '../gql/graphql.js';
import { wsSubscribe } from '../support/live.js';
import {
  assertSound,
  closeWorkers,
  drained,
  Ledger,
  mustPost,
  report,
  type ServerProcess,
  startServerProcess,
  startWorkers,
  until,
  useScenario,
  wsClient,
} from './support.js';

const LIMIT = 4;
const GROUPS = Array.from({ length: 20 }, (_, i) => `acct-${i}`);
const PER_ROUND = GROUPS.length * LIMIT;
const MIN_ROUNDS = 3;
const MAX_ROUNDS = 12;
/** Each job's FIXED backoff: a reaped job with attempts left waits this long in `delayed`. */
const BACKOFF_MS = 30;

/** Jobs each server logged as reaped ("expired leases reaped") for `queue`. */
function reapedBy(server: ServerProcess, queue: string): number {
  return server.child
    .logs()
    .filter((line) => line.msg === 'expired leases reaped' && line.queue === queue)
    .reduce((sum, line) => sum + Number(line.reaped), 0);
}

describe('two API server processes on one Redis', () => {
  const { redis } = useScenario();
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    const env = { REAP_INTERVAL_MS: '25', RESYNC_INTERVAL_MS: '1000' };
    [a, b] = await Promise.all([
      startServerProcess(redis.url, env),
      startServerProcess(redis.url, env),
    ]);
  });

  it("serve subscriptions that see each other's changes", async () => {
    const name = `pair-${Date.now()}`;
    const onA = wsSubscribe(wsClient(a.endpoint), RingChangedDocument, { queue: name });
    const onB = wsSubscribe(wsClient(b.endpoint), RingChangedDocument, { queue: name });
    for (const sub of [onA, onB]) {
      expect((await sub.events.next(10_000)).data?.ringChanged.reason).toBe('SNAPSHOT');
    }
    const lastRing = (sub: typeof onA) => sub.events.items.at(-1)?.data?.ringChanged.ring;

    await mustPost(a.endpoint, EnqueueDocument, { queue: name, group: 'via-a' });
    await onB.events.until('B to see the change made through A', () =>
      (lastRing(onB) ?? []).includes('via-a'),
    );
    await mustPost(b.endpoint, EnqueueDocument, { queue: name, group: 'via-b' });
    await onA.events.until('A to see the change made through B', () =>
      (lastRing(onA) ?? []).includes('via-b'),
    );
    await mustPost(b.endpoint, SetLimitDocument, { queue: name, group: 'via-a', limit: 0 });
    for (const sub of [onA, onB]) {
      await sub.events.until(
        'both to see via-a parked',
        () => JSON.stringify(lastRing(sub)) === JSON.stringify(['via-b']),
      );
    }
    expect(onA.events.items.length).toBeGreaterThanOrEqual(3);
    expect(onB.events.items.length).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('both reap, and no lease is reaped or permit released twice', async () => {
    const conn = redis.client();
    const queue = new Queue(conn, `reap-${Date.now()}`);
    for (const group of GROUPS) await queue.setLimit(group, LIMIT);
    const ledger = new Ledger();

    const violations: string[] = [];
    let sampling = true;
    let samples = 0;
    let mostDelayed = 0;
    const sampler = (async () => {
      while (sampling) {
        const [active, delayed] = await Promise.all([
          conn.hgetall(queue.keys.gactive),
          conn.zcard(queue.keys.delayed),
        ]);
        samples++;
        mostDelayed = Math.max(mostDelayed, delayed);
        for (const [group, n] of Object.entries(active)) {
          if (Number(n) <= 0 || Number(n) > LIMIT) violations.push(`${group}=${n}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();

    // Rounds of leases that expire at staggered times (150..940 ms): every group at its limit,
    // nobody completing anything. At least MIN_ROUNDS, and until both servers have reaped some.
    let expired = 0;
    let rounds = 0;
    try {
      const bothReaped = () => reapedBy(a, queue.name) > 0 && reapedBy(b, queue.name) > 0;
      while (rounds < MIN_ROUNDS || (rounds < MAX_ROUNDS && !bothReaped())) {
        rounds++;
        for (let n = 0; n < PER_ROUND; n++) {
          const job = await queue.enqueue(
            GROUPS[n % GROUPS.length] as string,
            { ms: 1, n },
            { backoff: { type: 'FIXED', delayMs: BACKOFF_MS, maxDelayMs: null, jitter: 0 } },
          );
          ledger.enqueued.add(job.id);
        }
        // Longest lease first, so that the claims themselves (slow on a loaded machine) never
        // outlast a lease already taken: nothing may be reaped before the ring is checked empty.
        for (let n = PER_ROUND - 1; n >= 0; n--) {
          expect(await queue.claim({ leaseMs: 150 + n * 10 })).not.toBeNull();
        }
        expect(await queue.claim()).toBeNull();
        expired += PER_ROUND;
        await until(
          'every lease of the round to be reaped',
          async () => (await conn.zcard(queue.keys.active)) === 0,
          { timeoutMs: 10_000, intervalMs: 10 },
        );
      }
    } finally {
      // Stopped on a failure too, or it would go on reading through a closed connection.
      sampling = false;
      await sampler;
    }

    // Nothing claims now: only the two servers' reapers can promote the last round's jobs.
    await until(
      'the reapers to promote every reaped job',
      async () => (await conn.zcard(queue.keys.delayed)) === 0,
      { timeoutMs: 10_000, intervalMs: 10 },
    );
    const stats = await queue.stats();
    expect(violations).toEqual([]);
    expect(mostDelayed, 'reaped jobs waited in delayed').toBeGreaterThan(0);
    expect((await queue.counts()).delayed).toBe(0);
    expect(stats.reaped).toBe(expired);
    // Each server logs what every reaping run took; the last lines may still be on their way.
    await until(
      'the two servers to have logged every reaped lease',
      () => reapedBy(a, queue.name) + reapedBy(b, queue.name) >= expired,
      { timeoutMs: 5_000 },
    );
    const [byA, byB] = [reapedBy(a, queue.name), reapedBy(b, queue.name)];
    expect(byA + byB).toBe(expired);
    expect(byA, 'server A reaped some leases').toBeGreaterThan(0);
    expect(byB, 'server B reaped some leases').toBeGreaterThan(0);

    const workers = await startWorkers(1, { redisUrl: redis.url, queue: queue.name }, ledger);
    await until('the reaped jobs to be done', () => drained(queue), { timeoutMs: 30_000 });
    await closeWorkers(workers);
    const accounting = await assertSound(queue, ledger, { exactIds: true });
    expect(accounting.reaped).toBe(expired);
    expect(a.child.alive && b.child.alive).toBe(true);

    report('two-servers', {
      rounds,
      leasesExpired: expired,
      reapedByA: byA,
      reapedByB: byB,
      gactiveSamples: samples,
      mostDelayedSeen: mostDelayed,
      ...accounting,
    });
  }, 90_000);
});
