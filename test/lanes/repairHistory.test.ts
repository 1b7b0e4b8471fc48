/**
 * A repair's history (DESIGN.md §4.6, action `repair`): each step records what it
 * changed in the same atomic script (the totals: the same MULTI/EXEC) that changes it, one
 * entry per group it changed, so a group's history shows what a repair did to it and a repair
 * that fails part way leaves entries for exactly the steps that ran.
 */
import { describe, expect, it } from 'vitest';
import { Connection, type HistoryEntry, type Job, type Queue } from '../../src/lanes/internal.js';
import { reconcile } from '../../src/lanes/queue/reconcile.js';
import { Commands, type HistoryArgs } from '../../src/lanes/scripts/commands.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Every entry of the queue's history (or a group's), newest first. */
async function entries(q: Queue, group?: string): Promise<HistoryEntry[]> {
  return (await q.history({ ...(group === undefined ? {} : { group }), first: 500 })).entries;
}

/** Entries as [group, step, before, after], oldest first. */
async function steps(q: Queue): Promise<unknown[][]> {
  return (await entries(q))
    .reverse()
    .map((e) => [e.group, e.detail?.step, e.before, e.after, e.action, e.actor]);
}

async function claimed(q: Queue): Promise<Job> {
  const job = await q.claim({ leaseMs: 600_000 });
  if (!job) throw new Error('expected a job');
  return job;
}

describe('repair records what it changed, per group, in the step that changed it', () => {
  it("a damaged group's repair shows in its history: the fields changed, before and after", async () => {
    const q = engine.queue();
    await q.enqueue('a');
    await q.enqueue('b');
    await q.redis.hset(q.keys.gactive, 'a', '4');
    await q.redis.del(q.keys.ring);
    await q.repair({ actor: 'erin' });
    const [a, ...older] = await entries(q, 'a');
    expect(older).toEqual([]);
    expect(a).toMatchObject({
      action: 'repair',
      group: 'a',
      actor: 'erin',
      before: { active: 4, ringEntries: 0 },
      after: { active: 0, ringEntries: 1 },
      detail: { step: 'groups', changes: 2 },
    });
    expect((await entries(q, 'b')).map((e) => [e.before, e.after])).toEqual([
      [{ ringEntries: 0 }, { ringEntries: 1 }],
    ]);
    // Nothing left to fix: nothing changed, nothing recorded.
    const recorded = await q.redis.xlen(q.keys.history);
    expect((await q.repair()).findings).toEqual([]);
    expect(await q.redis.xlen(q.keys.history)).toBe(recorded);
  });

  it('a lease re-attached is recorded for its group; a leaked payload and drifted totals for the queue', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    await q.enqueue('g');
    const job = await claimed(q);
    await q.redis.hdel(q.keys.leases, job.id);
    await q.redis.hset(q.keys.payloads, '424242', '{}');
    await q.redis.hset(q.keys.stats, 'pending', '99');
    await q.repair({ actor: 'erin' });
    expect(await steps(q)).toEqual([
      [
        'g',
        'leases',
        { [`lease ${job.id}`]: 'no lease' },
        { [`lease ${job.id}`]: 'lease for group g' },
        'repair',
        'erin',
      ],
      [
        '',
        'payloads',
        { 'job 424242': 'a payload in payloads' },
        { 'job 424242': 'no payload (the job has no hash)' },
        'repair',
        'erin',
      ],
      ['', 'totals', { pending: 99 }, { pending: 1 }, 'repair', 'erin'],
    ]);
  });

  it('a repair that fails part way leaves entries for exactly the steps that ran', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    await q.enqueue('g');
    const job = await claimed(q);
    await q.redis.hdel(q.keys.leases, job.id);
    await q.redis.del(q.keys.ring);
    const real = new Commands(Connection.of(q.redis), q.keys);
    // The groups step fails (Redis gone, say): the leases step before it ran and stands.
    const failing = new Proxy(real, {
      get(target, name, receiver) {
        if (name === 'reconcileGroups') return () => Promise.reject(new Error('connection lost'));
        const value = Reflect.get(target, name, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const history: HistoryArgs = ['ivy', 100];
    await expect(reconcile(q.redis, q.keys, failing, 'repair', history)).rejects.toThrow(
      'connection lost',
    );
    expect((await steps(q)).map(([group, step]) => [group, step])).toEqual([['g', 'leases']]);
    expect(await q.redis.hget(q.keys.leases, job.id)).toBe('g');
    expect(await q.ring()).toEqual([]);
    // Run again, whole: the ring's repair is recorded now, the lease's not again.
    await reconcile(q.redis, q.keys, real, 'repair', history);
    expect((await steps(q)).map(([group, step, before]) => [group, step, before])).toEqual([
      ['g', 'leases', { [`lease ${job.id}`]: 'no lease' }],
      ['g', 'groups', { ringEntries: 0 }],
    ]);
  });

  it('an audit records nothing', async () => {
    const q = engine.queue();
    await q.enqueue('g');
    await q.redis.del(q.keys.ring);
    await q.redis.hset(q.keys.stats, 'pending', '7');
    expect((await q.audit()).findings.length).toBeGreaterThan(0);
    expect(await q.redis.exists(q.keys.history)).toBe(0);
  });
});
