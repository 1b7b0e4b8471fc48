/**
 * The rota (DESIGN.md §3 claim): round-robin across groups, FIFO inside a group, and a
 * fairness bound: a deep backlog delays a one-job group by at most one turn of the ring.
 */
import { describe, expect, it } from 'vitest';
import type { Job, Queue } from '../../src/lanes/index.js';
import { rawState, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Enqueue `n` jobs to `group`, pipelined (ioredis sends them in one batch). */
function enqueueMany(q: Queue, group: string, n: number): Promise<Job[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => q.enqueue(group, { group, i })));
}

/** Claim until nothing is serviceable; completes nothing. */
async function drain(q: Queue): Promise<Job[]> {
  const out: Job[] = [];
  for (let job = await q.claim(); job; job = await q.claim()) out.push(job);
  return out;
}

describe('rota', () => {
  it('serves three groups with backlogs round-robin: x, y, z, x, y, z, …', async () => {
    const q = engine.queue();
    // Interleaved enqueues, so no group's jobs are contiguous in id order.
    for (let i = 0; i < 4; i++) {
      await q.enqueue('x', i);
      await q.enqueue('y', i);
      await q.enqueue('z', i);
    }
    await q.enqueue('x', 4);
    expect(await q.ring()).toEqual(['x', 'y', 'z']);

    const served = await drain(q);
    expect(served.map((j) => j.group)).toEqual([
      ...['x', 'y', 'z', 'x', 'y', 'z', 'x', 'y', 'z', 'x', 'y', 'z'],
      'x',
    ]);
    expect(served.map((j) => j.payload)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4]);
    expect(await q.ring()).toEqual([]);
  });

  it('the rota order is the order groups became serviceable, and a re-ringed group joins the tail', async () => {
    const q = engine.queue();
    await q.setLimit('x', 1);
    await enqueueMany(q, 'z', 3);
    await enqueueMany(q, 'x', 3);
    await enqueueMany(q, 'y', 3);
    expect(await q.ring()).toEqual(['z', 'x', 'y']);

    expect((await q.claim())?.group).toBe('z');
    const x = await q.claim(); // x reaches its limit: off the ring
    expect(x?.group).toBe('x');
    expect(await q.ring()).toEqual(['y', 'z']);
    await q.complete(x?.id as string, x?.token as string); // re-ringed at the tail
    expect(await q.ring()).toEqual(['y', 'z', 'x']);

    const rest = await drain(q);
    expect(rest.map((j) => j.group)).toEqual(['y', 'z', 'x', 'y', 'z', 'y']);
    expect(await q.ring()).toEqual([]);
    expect((await rawState(q)).lanes).toEqual({ x: [expect.any(String)] });
  });

  it('is FIFO inside a group', async () => {
    const q = engine.queue();
    const jobs = await enqueueMany(q, 'g', 50);
    await enqueueMany(q, 'other', 5);
    const served = (await drain(q)).filter((j) => j.group === 'g');
    expect(served.map((j) => j.id)).toEqual(jobs.map((j) => j.id));
    expect(served.map((j) => (j.payload as { i: number }).i)).toEqual(
      Array.from({ length: 50 }, (_, i) => i),
    );
  });

  it('a group with 1,000 jobs delays a group with one job by at most one turn of the ring', async () => {
    const q = engine.queue();
    await enqueueMany(q, 'big', 1000);
    // A one-job group arriving first in line behind the big one is served next.
    await q.enqueue('small-0');
    expect(await q.ring()).toEqual(['big', 'small-0']);
    let served: (Job | null)[] = await Promise.all([q.claim(), q.claim()]);
    expect(served.map((j) => j?.group)).toEqual(['big', 'small-0']);

    // Mid-backlog, with three deep groups on the ring: a newcomer waits at most one turn,
    // that is, at most one claim per group ahead of it.
    await enqueueMany(q, 'big-2', 1000);
    await enqueueMany(q, 'big-3', 1000);
    for (let i = 0; i < 500; i++) await q.claim();
    const ahead = await q.ring();
    expect([...ahead].sort()).toEqual(['big', 'big-2', 'big-3']);
    await q.enqueue('small-1');
    served = [];
    for (let i = 0; i <= ahead.length; i++) served.push(await q.claim());
    expect(served.map((j) => j?.group)).toEqual([...ahead, 'small-1']);
    expect(await q.ring()).toEqual(ahead); // small-1 emptied and left; the rota goes on

    // And again after the deep groups have had many more turns.
    for (let i = 0; i < 1200; i++) await q.claim();
    const ahead2 = await q.ring();
    expect(ahead2).toHaveLength(3);
    await q.enqueue('small-2');
    served = [];
    for (let i = 0; i <= ahead2.length; i++) served.push(await q.claim());
    expect(served.at(-1)?.group).toBe('small-2');
    expect(served.slice(0, -1).map((j) => j?.group)).toEqual(ahead2);
  });
});
