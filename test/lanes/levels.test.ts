/**
 * Levels on the rota (DESIGN.md §3, "Levels"): a claim serves the most urgent level that has a
 * serviceable group, strictly, and within a level the fair rota (weights included); a group
 * stands at the level of its lane's head and moves when a write changes that head. A queue
 * with no priorities keeps its ring alone and never writes `levels`.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { pollUntil, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** `n` claims one by one: the groups served (null when nothing was). */
async function claims(q: Queue, n: number): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < n; i++) out.push((await q.claim())?.group ?? null);
  return out;
}

/** Each group's level on the rota, read from the keys (5: on the ring). */
async function levelsOf(q: Queue): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const g of await q.redis.lrange(q.keys.ring, 0, -1)) out[g] = 5;
  const scored = await q.redis.zrange(q.keys.levels, 0, -1, 'WITHSCORES');
  for (let i = 0; i < scored.length; i += 2) {
    out[scored[i] as string] = Math.floor(Number(scored[i + 1]) / 1e13);
  }
  return out;
}

describe('levels', () => {
  it('serves the most urgent level first, strictly, and each level in its rota', async () => {
    const q = engine.queue();
    for (const g of ['a', 'b']) for (let i = 0; i < 2; i++) await q.enqueue(g, i);
    for (const g of ['x', 'y']) for (let i = 0; i < 2; i++) await q.enqueue(g, i, { priority: 2 });
    for (let i = 0; i < 2; i++) await q.enqueue('z', i, { priority: 8 });
    expect(await q.ring()).toEqual(['x', 'y', 'a', 'b', 'z']);
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5, x: 2, y: 2, z: 8 });
    expect(await claims(q, 7)).toEqual(['x', 'y', 'x', 'y', 'a', 'b', 'a']);
    expect(await q.ring()).toEqual(['b', 'z']);
    expect(await claims(q, 4)).toEqual(['b', 'z', 'z', null]);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('serves the same order in one completeAndClaim as claim by claim', async () => {
    const build = async (q: Queue) => {
      await q.setWeight('w', 2);
      for (const [g, p] of [
        ['a', 5],
        ['b', 3],
        ['w', 3],
        ['c', 7],
        ['d', 3],
      ] as const) {
        for (let i = 0; i < 3; i++) await q.enqueue(g, i, { priority: p });
      }
      await q.enqueue('b', 'late', { priority: 7 });
    };
    const one = engine.queue();
    const two = engine.queue();
    await build(one);
    await build(two);
    const byOne = await claims(one, 12);
    const together = await two.completeAndClaim([], { claim: 12 });
    expect(together.claimed.map((j) => j.group)).toEqual(byOne);
    expect(byOne).toEqual(['b', 'w', 'w', 'd', 'b', 'w', 'd', 'b', 'd', 'a', 'a', 'a']);
    expect(await two.ring()).toEqual(await one.ring());
    expect(await one.ring()).toEqual(['c', 'b']);
  });

  it('moves a group when an enqueue brings a more urgent head', async () => {
    const q = engine.queue();
    for (const g of ['a', 'b', 'c']) await q.enqueue(g, 0);
    await q.enqueue('c', 1, { priority: 1 });
    expect(await q.ring()).toEqual(['c', 'a', 'b']);
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5, c: 1 });
    // A less urgent job behind the head moves nothing.
    await q.enqueue('a', 1, { priority: 9 });
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5, c: 1 });
    // A level-9 group gets a default job: back to the ring's tail.
    await q.enqueue('n', 0, { priority: 9 });
    expect(await levelsOf(q)).toMatchObject({ n: 9 });
    await q.enqueue('n', 1);
    expect(await q.ring()).toEqual(['c', 'a', 'b', 'n']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('moves a served group to the level of its new head', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 2 });
    await q.enqueue('a', 1);
    await q.enqueue('a', 2, { priority: 9 });
    await q.enqueue('b', 0);
    expect(await q.ring()).toEqual(['a', 'b']);
    expect(await claims(q, 1)).toEqual(['a']);
    // Its head is now of the default level: the ring's tail.
    expect(await q.ring()).toEqual(['b', 'a']);
    expect(await claims(q, 2)).toEqual(['b', 'a']);
    expect(await levelsOf(q)).toEqual({ a: 9 });
    expect(await claims(q, 2)).toEqual(['a', null]);
    expect(await q.redis.exists(q.keys.levels)).toBe(0);
  });

  it('a queue without priorities writes no levels key and no marker', async () => {
    const q = engine.queue();
    for (const g of ['a', 'b']) await q.enqueue(g, 0);
    await claims(q, 1);
    expect(await q.redis.exists(q.keys.levels, q.keys.prioritized)).toBe(0);
  });

  it('keeps a prioritized job priority and score in its hash, a default job hash as before', async () => {
    const q = engine.queue();
    const plain = await q.enqueue('a', 0);
    const urgent = await q.enqueue('a', 1, { priority: 1 });
    expect(await q.redis.hmget(q.keys.job(plain.id), 'priority', 'score')).toEqual([null, null]);
    expect(await q.redis.hmget(q.keys.job(urgent.id), 'priority', 'score')).toEqual([
      '1',
      String(Number(urgent.id) - 4e15),
    ]);
    expect(await q.redis.zscore(q.keys.lane('a'), urgent.id)).toBe(
      String(Number(urgent.id) - 4e15),
    );
    expect((await q.claim())?.id).toBe(urgent.id);
  });

  it('enqueueMany rings each emptied lane at its head level and moves a group its jobs make more urgent', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 7 });
    await q.enqueue('b', 0);
    expect(await q.ring()).toEqual(['b', 'a']);
    await q.enqueueMany([
      { group: 'c', payload: 0, options: { priority: 2 } },
      { group: 'd', payload: 0 },
      { group: 'e', payload: 0, options: { priority: 8 } },
      { group: 'b', payload: 1, options: { priority: 9 } },
    ]);
    expect(await levelsOf(q)).toEqual({ a: 7, b: 5, c: 2, d: 5, e: 8 });
    expect(await q.ring()).toEqual(['c', 'b', 'd', 'a', 'e']);
    // A default job moves a level-7 group to the ring; an urgent one moves a ring group up.
    await q.enqueueMany([
      { group: 'a', payload: 1 },
      { group: 'd', payload: 1, options: { priority: 1 } },
    ]);
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5, c: 2, d: 1, e: 8 });
    expect(await q.ring()).toEqual(['d', 'c', 'b', 'a', 'e']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('changeJobPriority moves a serviceable group with its lane head, and leaves one off the rota off it', async () => {
    const q = engine.queue();
    const a = await q.enqueue('a', 0);
    await q.enqueue('b', 0);
    expect(await q.ring()).toEqual(['a', 'b']);
    await q.changeJobPriority(a.id, 2);
    expect(await levelsOf(q)).toEqual({ a: 2, b: 5 });
    expect(await q.ring()).toEqual(['a', 'b']);
    await q.changeJobPriority(a.id, 9);
    expect(await levelsOf(q)).toEqual({ a: 9, b: 5 });
    expect(await q.ring()).toEqual(['b', 'a']);
    // A paused group is on no rota: a new head's level puts it on none.
    const c = await q.enqueue('c', 0);
    await q.pause('c');
    await q.changeJobPriority(c.id, 1);
    expect(await levelsOf(q)).toEqual({ a: 9, b: 5 });
    await q.resume('c');
    expect(await levelsOf(q)).toEqual({ a: 9, b: 5, c: 1 });
    expect(await claims(q, 3)).toEqual(['c', 'b', 'a']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a retry puts its job back at its priority, and the group back at that level', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 2 });
    await q.enqueue('a', 1);
    await q.enqueue('b', 0);
    const job = await q.claim();
    expect(job?.group).toBe('a');
    expect(await q.ring()).toEqual(['b', 'a']);
    await q.retry(job?.id as string, job?.token as string, 'again');
    expect(await levelsOf(q)).toEqual({ a: 2, b: 5 });
    expect(await q.ring()).toEqual(['a', 'b']);
    expect((await q.claim())?.id).toBe(job?.id);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a reaped job goes back at its priority, and its group to that level', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 3 });
    await q.enqueue('a', 1, { priority: 6 });
    const job = await q.claim({ leaseMs: 1 });
    expect(await levelsOf(q)).toEqual({ a: 6 });
    await pollUntil('the lease is reaped', async () => (await q.reap()) === 1);
    expect(await levelsOf(q)).toEqual({ a: 3 });
    expect((await q.claim())?.id).toBe(job?.id);
  });

  it('promotion, requeueDead, removal and purge re-level the group', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0);
    await q.enqueue('b', 0);
    const later = await q.enqueue('a', 1, { priority: 1, delayMs: 3_600_000 });
    await q.promote(later.id);
    expect(await levelsOf(q)).toEqual({ a: 1, b: 5 });
    // removal of the urgent head: back to the ring's tail
    await q.removeJobs({ ids: [later.id] });
    expect(await q.ring()).toEqual(['b', 'a']);
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5 });
    // a dead job requeued at its priority moves its group again
    const doomed = await q.enqueue('d', 0, { priority: 4, maxAttempts: 1 });
    const claimed = await q.claim();
    expect(claimed?.id).toBe(doomed.id);
    await q.retry(doomed.id, claimed?.token as string, 'no');
    await q.enqueue('d', 1, { priority: 8 });
    expect(await levelsOf(q)).toMatchObject({ d: 8 });
    await q.requeueDead({ ids: [doomed.id] });
    expect(await levelsOf(q)).toMatchObject({ d: 4 });
    expect(await q.ring()).toEqual(['d', 'b', 'a']);
    // a purge takes it off its level's rota
    await q.purgeGroup('d');
    expect(await levelsOf(q)).toEqual({ a: 5, b: 5 });
    expect(await q.redis.exists(q.keys.levels)).toBe(0);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('pause, a parking limit and their undoing take a group off its level and back', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 3 });
    await q.enqueue('b', 0, { priority: 3 });
    await q.pause('a');
    expect(await levelsOf(q)).toEqual({ b: 3 });
    await q.resume('a');
    expect(await q.ring()).toEqual(['b', 'a']);
    await q.setLimit('b', 0);
    expect(await levelsOf(q)).toEqual({ a: 3 });
    await q.clearLimit('b');
    expect(await q.ring()).toEqual(['a', 'b']);
    expect(await levelsOf(q)).toEqual({ a: 3, b: 3 });
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a weighted group keeps the head for its turns within its level, and leaves when its head changes level', async () => {
    const q = engine.queue();
    await q.setWeight('w', 3);
    for (let i = 0; i < 2; i++) await q.enqueue('w', i, { priority: 2 });
    for (let i = 0; i < 4; i++) await q.enqueue('w', `d${i}`);
    for (let i = 0; i < 3; i++) await q.enqueue('b', i, { priority: 2 });
    await q.enqueue('c', 0);
    // w's round at level 2 ends after 2 turns: its head is then of level 5, the ring's tail.
    expect(await claims(q, 2)).toEqual(['w', 'w']);
    expect(await q.ring()).toEqual(['b', 'c', 'w']);
    expect(await q.redis.hget(q.keys.turns, 'w')).toBeNull();
    expect(await claims(q, 3)).toEqual(['b', 'b', 'b']);
    // level 5 now: c, then w for its full round of 3.
    expect(await claims(q, 5)).toEqual(['c', 'w', 'w', 'w', 'w']);
  });

  it('audit finds a group on the wrong rota or on both, and repair puts it at its level', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0);
    await q.enqueue('x', 0, { priority: 2 });
    // By hand: x on the ring instead of level 2, a on level 3 as well as on the ring.
    await q.redis.zrem(q.keys.levels, 'x');
    await q.redis.rpush(q.keys.ring, 'x');
    await q.redis.zadd(q.keys.levels, 3e13 + 1, 'a');
    expect((await q.audit()).findings).toEqual([
      { subject: 'a', kind: 'I1', expected: 'on the ring', found: 'on the ring and on level 3' },
      { subject: 'x', kind: 'I1', expected: 'on level 2', found: 'on the ring' },
    ]);
    await q.repair();
    expect(await q.rota()).toEqual([
      { group: 'x', level: 2 },
      { group: 'a', level: 5 },
    ]);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('repair marks a queue whose lane another writer gave a head off the default level', async () => {
    const q = engine.queue();
    await q.enqueue('b', 0);
    await q.enqueue('c', 0);
    // Another writer's job of priority 2 at the head of b's lane, with no marker written.
    await q.redis.zadd(q.keys.lane('b'), -3e15 + 900, '900');
    expect(await q.redis.exists(q.keys.prioritized)).toBe(0);
    // (and the pending total, which that writer did not count)
    expect((await q.audit()).findings).toContainEqual({
      subject: 'b',
      kind: 'I1',
      expected: 'on level 2',
      found: 'on the ring',
    });
    await q.repair();
    expect(await q.redis.exists(q.keys.prioritized)).toBe(1);
    expect(await q.rota()).toEqual([
      { group: 'b', level: 2 },
      { group: 'c', level: 5 },
    ]);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a batch whose claims run out mid-level puts the unserved heads back ahead of the served', async () => {
    const q = engine.queue();
    await q.setWeight('a', 3);
    for (let i = 0; i < 4; i++) await q.enqueue('a', i, { priority: 2 });
    await q.enqueue('b', 0, { priority: 2 });
    const batch = await q.completeAndClaim([], { claim: 3 });
    expect(batch.claimed.map((j) => j.group)).toEqual(['a', 'a', 'a']);
    // b was popped with a and not reached: it keeps its place, a goes behind it.
    expect(await q.rota()).toEqual([
      { group: 'b', level: 2 },
      { group: 'a', level: 2 },
    ]);
  });

  it('setWeight ending the round of a level head sends it to its level tail', async () => {
    const q = engine.queue();
    await q.setWeight('w', 3);
    for (let i = 0; i < 3; i++) await q.enqueue('w', i, { priority: 2 });
    await q.enqueue('b', 0, { priority: 2 });
    expect(await claims(q, 1)).toEqual(['w']);
    expect(await q.ring()).toEqual(['w', 'b']);
    await q.setWeight('w', 1);
    expect(await q.ring()).toEqual(['b', 'w']);
    expect(await claims(q, 2)).toEqual(['b', 'w']);
  });

  it('counts every level as on the ring: counts, metrics and the snapshot agree with ring()', async () => {
    const q = engine.queue();
    await q.enqueue('a', 0, { priority: 5 });
    await q.enqueue('b', 0, { priority: 2 });
    await q.enqueue('c', 0, { priority: 9 });
    expect(await q.ring()).toEqual(['b', 'a', 'c']);
    const snapshot = await q.snapshot();
    expect(snapshot.counts.onRing).toBe(3);
    expect(snapshot.ringSize).toBe(3);
    expect((await q.counts()).onRing).toBe(3);
    expect((await q.metrics()).ring).toBe(3);
    // Only groups off the default level: the ring's own list is empty, the rota is not.
    const off = engine.queue();
    await off.enqueue('x', 0, { priority: 3 });
    await off.enqueue('y', 0, { priority: 8 });
    expect(await off.redis.llen(off.keys.ring)).toBe(0);
    expect(await off.ring()).toEqual(['x', 'y']);
    expect((await off.counts()).onRing).toBe(2);
    expect((await off.metrics()).ring).toBe(2);
    expect((await off.snapshot()).counts.onRing).toBe(2);
  });
});
