/**
 * Levels on the rota (DESIGN.md §3, "Levels"): a claim serves the most urgent level that has a
 * serviceable group, strictly, and within a level the fair rota (weights included); a group
 * stands at the level of its lane's head and moves when a write changes that head. A queue
 * with no priorities keeps its ring alone and never writes `levels`.
 */
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

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
});
