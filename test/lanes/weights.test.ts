/**
 * Weights (DESIGN.md §3, "Weights"): a group of weight w gets w turns in a row each time the
 * rota comes round to it; the claim keeps it at the head for its turns, then sends it to the
 * tail. A group that leaves the ring starts a fresh round when it re-joins; setWeight counts
 * the turns taken so far against the new weight; bad input changes nothing; the cost per claim
 * is flat however many weighted groups there are.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue } from '../../src/lanes/index.js';
import { JOB_LAYOUT } from '../../src/lanes/keys.js';
import { commandsDuring } from '../support/commandStats.js';
import { queueSnapshot, rawState, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Enqueue `n` jobs to `group`, pipelined. */
function enqueueMany(q: Queue, group: string, n: number): Promise<Job[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => q.enqueue(group, i)));
}

/** `n` claims one by one: the groups served (null when nothing was). */
async function claims(q: Queue, n: number): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < n; i++) out.push((await q.claim())?.group ?? null);
  return out;
}

const turnsOf = (q: Queue) => q.redis.hgetall(q.keys.turns);

describe('weighted rota', () => {
  it('weights 1, 2 and 3 get 1:2:3 claims per round, in ring order', async () => {
    const q = engine.queue();
    await q.setWeight('b', 2);
    await q.setWeight('c', 3);
    for (const g of ['a', 'b', 'c']) await enqueueMany(q, g, 20);
    expect(await q.ring()).toEqual(['a', 'b', 'c']);
    const round = ['a', 'b', 'b', 'c', 'c', 'c'];
    expect(await claims(q, 18)).toEqual([...round, ...round, ...round]);
    expect(await q.ring()).toEqual(['a', 'b', 'c']);
    expect(await turnsOf(q)).toEqual({});
  });

  it('keeps a group mid-round at the head, its turns counted in gturns', async () => {
    const q = engine.queue();
    await q.setWeight('b', 3);
    for (const g of ['b', 'a']) await enqueueMany(q, g, 10);
    expect(await claims(q, 1)).toEqual(['b']);
    expect(await q.ring()).toEqual(['b', 'a']);
    expect(await turnsOf(q)).toEqual({ b: '1' });
    expect(await claims(q, 1)).toEqual(['b']);
    expect(await turnsOf(q)).toEqual({ b: '2' });
    expect(await claims(q, 1)).toEqual(['b']);
    expect(await q.ring()).toEqual(['a', 'b']);
    expect(await turnsOf(q)).toEqual({});
    expect((await q.audit()).findings).toEqual([]);
  });

  it('serves the same order in one completeAndClaim as claim by claim', async () => {
    const build = async (q: Queue) => {
      await q.setWeight('b', 2);
      await q.setWeight('c', 4);
      await q.setLimit('c', 3);
      for (const g of ['a', 'b', 'c', 'd']) await enqueueMany(q, g, 6);
    };
    const one = engine.queue();
    const two = engine.queue();
    await build(one);
    await build(two);
    const byOne = await claims(one, 9);
    const together = await two.completeAndClaim([], { claim: 9 });
    expect(together.claimed.map((j) => j.group)).toEqual(byOne);
    // c saturates at its third turn: its round ends there, and it leaves the ring
    expect(byOne).toEqual(['a', 'b', 'b', 'c', 'c', 'c', 'd', 'a', 'b']);
    expect(await two.ring()).toEqual(await one.ring());
    expect(await turnsOf(two)).toEqual(await turnsOf(one));
    expect(await turnsOf(one)).toEqual({ b: '1' });
    expect(await one.ring()).toEqual(['b', 'd', 'a']);
  });

  it('a batch whose claims run out mid-round puts the unserved heads back in order', async () => {
    const q = engine.queue();
    await q.setWeight('a', 5);
    for (const g of ['a', 'b', 'c', 'd']) await enqueueMany(q, g, 10);
    const answer = await q.completeAndClaim([], { claim: 3 });
    expect(answer.claimed.map((j) => j.group)).toEqual(['a', 'a', 'a']);
    expect(await q.ring()).toEqual(['a', 'b', 'c', 'd']);
    expect(await turnsOf(q)).toEqual({ a: '3' });
    const next = await q.completeAndClaim([], { claim: 4 });
    expect(next.claimed.map((j) => j.group)).toEqual(['a', 'a', 'b', 'c']);
    expect(await q.ring()).toEqual(['d', 'a', 'b', 'c']);
    expect(await turnsOf(q)).toEqual({});
  });

  it('a weighted group that leaves the ring and re-joins starts a fresh round', async () => {
    const q = engine.queue();
    await q.setWeight('w', 3);
    await enqueueMany(q, 'w', 2);
    await enqueueMany(q, 'x', 10);
    // w empties after two of its three turns: off the ring, its count reset
    expect(await claims(q, 3)).toEqual(['w', 'w', 'x']);
    expect(await q.ring()).toEqual(['x']);
    expect(await turnsOf(q)).toEqual({});
    await enqueueMany(q, 'w', 10);
    expect(await q.ring()).toEqual(['x', 'w']);
    expect(await claims(q, 5)).toEqual(['x', 'w', 'w', 'w', 'x']);

    // paused mid-round (the count is left behind), resumed: a fresh round all the same
    expect(await claims(q, 1)).toEqual(['w']);
    expect(await turnsOf(q)).toEqual({ w: '1' });
    await q.pause('w');
    await q.resume('w');
    expect(await turnsOf(q)).toEqual({});
    expect(await q.ring()).toEqual(['x', 'w']);
    expect(await claims(q, 5)).toEqual(['x', 'w', 'w', 'w', 'x']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a saturated weighted group ends its round; a completion re-rings it for a fresh one', async () => {
    const q = engine.queue();
    await q.setWeight('w', 3);
    await q.setLimit('w', 2);
    await enqueueMany(q, 'w', 10);
    await enqueueMany(q, 'x', 10);
    const served: Job[] = [];
    for (let i = 0; i < 3; i++) served.push((await q.claim()) as Job);
    expect(served.map((j) => j.group)).toEqual(['w', 'w', 'x']);
    expect(await turnsOf(q)).toEqual({});
    await q.complete(served[0]?.id as string, served[0]?.token as string);
    await q.setLimit('w', 10);
    expect(await claims(q, 4)).toEqual(['x', 'w', 'w', 'w']);
  });

  it('a lowered weight already reached ends the round now: the group goes to the tail', async () => {
    const q = engine.queue();
    await q.setWeight('w', 4);
    for (const g of ['w', 'x', 'y']) await enqueueMany(q, g, 10);
    expect(await claims(q, 2)).toEqual(['w', 'w']);
    expect(await q.ring()).toEqual(['w', 'x', 'y']);
    const info = await q.setWeight('w', 2);
    expect(info.weight).toBe(2);
    expect(await q.ring()).toEqual(['x', 'y', 'w']);
    expect(await turnsOf(q)).toEqual({});
    expect(await claims(q, 4)).toEqual(['x', 'y', 'w', 'w']);
  });

  it('a raised weight lets the round in progress go on to it; weight 1 ends it', async () => {
    const q = engine.queue();
    await q.setWeight('w', 2);
    for (const g of ['w', 'x']) await enqueueMany(q, g, 20);
    expect(await claims(q, 1)).toEqual(['w']);
    await q.setWeight('w', 4);
    expect(await turnsOf(q)).toEqual({ w: '1' });
    expect(await claims(q, 4)).toEqual(['w', 'w', 'w', 'x']);
    expect(await claims(q, 1)).toEqual(['w']);
    const info = await q.setWeight('w', 1);
    expect(info.weight).toBe(1);
    expect(await q.redis.hget(q.keys.weight, 'w')).toBeNull();
    expect(await turnsOf(q)).toEqual({});
    expect(await q.ring()).toEqual(['x', 'w']);
    expect(await claims(q, 4)).toEqual(['x', 'w', 'x', 'w']);
  });

  it('a raised weight mid-round below the turns taken is not reached twice', async () => {
    const q = engine.queue();
    await q.setWeight('w', 3);
    for (const g of ['w', 'x']) await enqueueMany(q, g, 20);
    expect(await claims(q, 2)).toEqual(['w', 'w']);
    await q.setWeight('w', 2); // 2 turns taken: the round is over
    expect(await q.ring()).toEqual(['x', 'w']);
    expect(await claims(q, 3)).toEqual(['x', 'w', 'w']);
  });
});

describe('setWeight', () => {
  it('stores the weight, answers the group, registers it and records the history', async () => {
    const q = engine.queue();
    const info = await q.setWeight('g', 7, { actor: 'alice' });
    expect(info).toMatchObject({ id: 'g', weight: 7, pending: 0, onRing: false, state: 'IDLE' });
    expect(await q.redis.hget(q.keys.weight, 'g')).toBe('7');
    expect((await rawState(q)).groups).toEqual(['g']);
    expect(await q.redis.sismember('emq:queues', q.name)).toBe(1);
    expect((await q.group('g')).weight).toBe(7);
    const entries = await q.redis.xrange(q.keys.history, '-', '+');
    expect(entries).toHaveLength(1);
    const fields = entries[0]?.[1] as string[];
    const entry = Object.fromEntries(
      fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])),
    );
    expect(entry).toEqual({
      action: 'setWeight',
      group: 'g',
      actor: 'alice',
      before: JSON.stringify({ weight: 1 }),
      after: JSON.stringify({ weight: 7 }),
    });
    expect((await q.history({ group: 'g' })).entries).toHaveLength(1);
    // the same weight again changes nothing and records nothing
    await q.setWeight('g', 7);
    expect(await q.redis.xlen(q.keys.history)).toBe(1);
    // weight 1 deletes the field
    expect((await q.setWeight('g', 1)).weight).toBe(1);
    expect(await q.redis.hexists(q.keys.weight, 'g')).toBe(0);
  });

  it('refuses bad input with BAD_USER_INPUT and changes nothing', async () => {
    const q = engine.queue();
    await q.setWeight('g', 3);
    await enqueueMany(q, 'g', 3);
    await q.claim();
    const before = await queueSnapshot(q);
    const bad: [string, unknown, string][] = [
      ['g', 0, 'weight'],
      ['g', 1001, 'weight'],
      ['g', -1, 'weight'],
      ['g', 1.5, 'weight'],
      ['g', '2', 'weight'],
      ['g', Number.NaN, 'weight'],
      ['g', null, 'weight'],
      ['', 2, 'group'],
      ['a\u0000b', 2, 'group'],
      ['x'.repeat(257), 2, 'group'],
    ];
    for (const [group, weight, argument] of bad) {
      await expect(
        q.setWeight(group, weight as number),
        `${JSON.stringify(group)} ${String(weight)}`,
      ).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT, argument });
    }
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('accepts 1,000, and a stored weight that is not a positive integer counts as 1', async () => {
    const q = engine.queue();
    expect((await q.setWeight('g', 1000)).weight).toBe(1000);
    await q.redis.hset(q.keys.weight, 'h', 'lots', 'i', '0');
    await q.redis.hset(q.keys.turns, 'g', 'garbage');
    for (const g of ['h', 'i', 'x']) await enqueueMany(q, g, 4);
    expect(await claims(q, 6)).toEqual(['h', 'i', 'x', 'h', 'i', 'x']);
    expect((await q.group('h')).weight).toBe(1);
    // a garbage count is taken as 0 and overwritten
    await enqueueMany(q, 'g', 4);
    expect(await claims(q, 3)).toEqual(['h', 'i', 'x']);
    expect(await claims(q, 1)).toEqual(['g']);
    expect(await turnsOf(q)).toEqual({ g: '1' });
  });
});

describe('flat cost', () => {
  it('a claim runs as many Redis commands with 100,000 weighted groups as with 10', async (context) => {
    if (engine.handle.redis.mode === 'external') context.skip();
    const admin = engine.client();
    const commandsOf = (call: () => Promise<unknown>) => commandsDuring(admin, call);
    // `n` groups of weight 3 with 4 jobs each on the ring, written by the key layout (seed-style
    // lane entries without hashes, as claim serves them).
    const build = async (n: number) => {
      const q = engine.queue();
      const k = q.keys;
      for (let from = 0; from < n; from += 10_000) {
        const groups = Array.from({ length: Math.min(10_000, n - from) }, (_, i) => `g${from + i}`);
        const p = q.redis.pipeline();
        for (const g of groups) p.zadd(k.lane(g), 1, `${g}a`, 2, `${g}b`, 3, `${g}c`, 4, `${g}d`);
        p.rpush(k.ring, ...groups);
        p.hset(k.weight, ...groups.flatMap((g) => [g, '3']));
        p.zadd(k.groups, ...groups.flatMap((g) => ['0', g]));
        await p.exec();
      }
      await q.redis.hincrby(k.stats, 'pending', 4 * n);
      // The job layout's mark, as enqueue writes it with a queue's first job.
      await q.redis.hset(k.settings, 'layout', JOB_LAYOUT);
      return q;
    };
    const small = await build(10);
    const large = await build(100_000);
    expect(await large.redis.llen(large.keys.ring)).toBe(100_000);
    const counts = async (q: Queue) => [
      await commandsOf(() => q.claim()), // first turn: stays at the head
      await commandsOf(() => q.claim()), // second
      await commandsOf(() => q.claim()), // third: to the tail
      await commandsOf(() => q.completeAndClaim([], { claim: 5 })),
    ];
    const withFew = await counts(small);
    const withMany = await counts(large);
    expect(withMany).toEqual(withFew);
    expect(Object.keys(withFew[0] ?? {}).length).toBeGreaterThan(0);
    admin.disconnect();
  }, 120_000);
});
