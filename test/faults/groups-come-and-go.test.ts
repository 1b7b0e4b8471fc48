/**
 * Tenants that come and go (docs/RELIABILITY.md, "Tenants that come and go"): 20,000 distinct
 * one-job groups run through one queue in rounds, completed without retention, behind one
 * paused group whose backlog is the oldest pending work. Redis memory stays flat once the
 * reaper has forgotten the groups (DESIGN.md §3, "Forgetting groups"), the groups page counts
 * only the paused group, and the metrics answer the paused group's oldest job at every scrape:
 * the lanes emptied by claims leave no `heads` entry for a scrape to step over.
 */
import { describe, expect, it } from 'vitest';
import { type Job, Queue, Reaper } from '../../src/lanes/index.js';
import { useTestRedis } from '../support/redis.js';
import { report } from './support.js';

const redis = useTestRedis();

const ROUNDS = 10;
const PER_ROUND = 2_000;

async function usedMemory(queue: Queue): Promise<number> {
  const info = await queue.redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

/** Claim and complete every job the ring serves, 500 per call. */
async function drain(queue: Queue): Promise<void> {
  let done: { id: string; token: string }[] = [];
  for (;;) {
    const { claimed } = await queue.completeAndClaim(done, { claim: 500 });
    if (claimed.length === 0) return;
    done = claimed.map((j) => ({ id: j.id, token: j.token as string }));
  }
}

describe('tenants that come and go', () => {
  it('20,000 one-job groups: memory flat, the groups page and the oldest pending job exact', async () => {
    const queue = new Queue(redis.client(), 'come-and-go');
    await queue.setRetention({ completed: { count: 0 } });
    const reaper = new Reaper(queue, { intervalMs: 1, groupGraceMs: 0 });

    let group = 0;
    let oldest: Job | undefined;
    const round = async (): Promise<void> => {
      for (let from = 0; from < PER_ROUND; from += 1_000) {
        await queue.enqueueMany(
          Array.from({ length: 1_000 }, () => ({ group: `tenant-${group++}` })),
        );
      }
      if (oldest === undefined) {
        // Enqueued after the first 2,000 tenants' jobs: their drained lanes' scores are lower,
        // so an entry left for each would sit before the paused group's in `heads`.
        await queue.pause('starved');
        oldest = await queue.enqueue('starved');
        await queue.enqueue('starved');
      }
      await drain(queue);
      // Every scrape, before any group is forgotten: the paused group's job, found at once.
      const metrics = await queue.metrics();
      expect(metrics.settled).toBe(true);
      expect(metrics.oldestPending?.id).toBe(oldest?.id);
      await reaper.reapOnce();
    };

    await round(); // the queue's own keys and encodings settle
    const baseline = await usedMemory(queue);
    const afterRounds: number[] = [];
    for (let r = 1; r < ROUNDS; r++) {
      await round();
      afterRounds.push((await usedMemory(queue)) - baseline);
    }
    const page = await queue.groups();
    const started = performance.now();
    const audit = await queue.audit();
    const auditMs = Math.round(performance.now() - started);
    report('groups-come-and-go', {
      groups: group,
      baselineBytes: baseline,
      growthBytesPerRound: afterRounds,
      totalCount: page.totalCount,
      auditMs,
    });
    expect(page.totalCount).toBe(1);
    expect(page.groups.map((g) => g.id)).toEqual(['starved']);
    expect(audit.findings).toEqual([]);
    expect(await queue.redis.zrange(queue.keys.heads, 0, -1)).toEqual(['starved']);
    // 18,000 groups after the baseline. Left registered, each costs ~255 bytes (4.6 MB in all);
    // forgotten, what is left is the allocator's and the hash tables' slack, which does not
    // grow with the groups: under 32 bytes per group gone.
    expect(afterRounds.at(-1)).toBeLessThan(18_000 * 32);
  }, 120_000);
});
