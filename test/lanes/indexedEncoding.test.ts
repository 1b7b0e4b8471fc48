/**
 * A big batch of claims keeps the Worker's hot keys in Redis' indexed encodings
 * (src/lua/includes/indexedEncoding.lua): `active` a skiplist, `leases`, `gactive` and `glimit`
 * hash tables, with their content exactly what it would be without (the long member the
 * conversion adds is gone when the script ends). A small batch leaves them listpacks, and a
 * key emptied and written again starts as a listpack. The ranking `gpending` is indexed by the
 * enqueue that makes it rank 16 groups, one job at a time.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

/** The encodings of the four keys, in the order active, leases, gactive, glimit. */
async function encodings(q: Queue): Promise<(string | null)[]> {
  const redis = q.redis as Redis;
  const keys = [q.keys.active, q.keys.leases, q.keys.gactive, q.keys.glimit];
  return Promise.all(
    keys.map(async (key) => (await redis.call('OBJECT', 'ENCODING', key)) as string | null),
  );
}

/** `groups` groups with a limit of 3, one job each. */
async function fill(q: Queue, groups: number): Promise<void> {
  for (let g = 0; g < groups; g++) {
    await q.setLimit(`g${g}`, 3);
    await q.enqueue(`g${g}`, { g });
  }
}

/** Every member of the four keys: none is the conversion's long member. */
async function members(q: Queue): Promise<string[][]> {
  const redis = q.redis as Redis;
  return [
    await redis.zrange(q.keys.active, 0, -1),
    await redis.hkeys(q.keys.leases),
    await redis.hkeys(q.keys.gactive),
    await redis.hkeys(q.keys.glimit),
  ];
}

describe('indexed encodings of the hot keys', () => {
  it('a batch of 16 claims over 16 groups: skiplist and hash tables, content unchanged', async () => {
    const q = engine.queue();
    await fill(q, 16);
    expect(await encodings(q)).toEqual([null, null, null, 'listpack']);
    const { claimed } = await q.completeAndClaim([], { claim: 16 });
    expect(claimed).toHaveLength(16);
    expect(await encodings(q)).toEqual(['skiplist', 'hashtable', 'hashtable', 'hashtable']);
    const ids = claimed.map((job) => job.id).sort();
    const groups = Array.from({ length: 16 }, (_, g) => `g${g}`).sort();
    const [active, leases, gactive, glimit] = await members(q);
    expect([...(active as string[])].sort()).toEqual(ids);
    expect([...(leases as string[])].sort()).toEqual(ids);
    expect([...(gactive as string[])].sort()).toEqual(groups);
    expect([...(glimit as string[])].sort()).toEqual(groups);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a batch of 15 leaves them listpacks', async () => {
    const q = engine.queue();
    await fill(q, 15);
    const { claimed } = await q.completeAndClaim([], { claim: 15 });
    expect(claimed).toHaveLength(15);
    expect(await encodings(q)).toEqual(['listpack', 'listpack', 'listpack', 'listpack']);
  });

  it('once every lease ends, the next small batch starts from listpacks again', async () => {
    const q = engine.queue();
    await fill(q, 20);
    const first = await q.completeAndClaim([], { claim: 16 });
    expect((await encodings(q)).slice(0, 2)).toEqual(['skiplist', 'hashtable']);
    const done = first.claimed.map((job) => ({ id: job.id, token: job.token as string }));
    const second = await q.completeAndClaim(done, { claim: 2 });
    expect(second.refused).toEqual(done.map(() => null));
    expect(second.claimed).toHaveLength(2);
    // `active` and `leases` were emptied (deleted) by the completions, then written anew.
    expect((await encodings(q)).slice(0, 2)).toEqual(['listpack', 'listpack']);
  });

  it('gpending is indexed when single enqueues make it rank 16 groups, not before', async () => {
    const q = engine.queue();
    const redis = q.redis as Redis;
    const encoding = async () =>
      (await redis.call('OBJECT', 'ENCODING', q.keys.pendingRank)) as string;
    for (let g = 0; g < 15; g++) await q.enqueue(`g${g}`, { g });
    // A job for a group it ranks already adds no group: no conversion.
    await q.enqueue('g0', { again: true });
    expect(await encoding()).toBe('listpack');
    await q.enqueue('g15', { g: 15 });
    expect(await encoding()).toBe('skiplist');
    const ranked = await redis.zrange(q.keys.pendingRank, 0, -1, 'WITHSCORES');
    expect(ranked.slice(0, 4)).toEqual(['g0', '-2', 'g1', '-1']);
    expect(ranked).toHaveLength(32);
    expect((await q.audit()).findings).toEqual([]);
  });
});
