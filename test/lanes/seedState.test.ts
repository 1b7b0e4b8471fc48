/**
 * A Redis written by another implementation of the original design (DESIGN.md §2: "the first six
 * rows are the original layout, unchanged"): state written by hand with plain Redis commands —
 * glimit, gactive, ring, paused, the g:<group>:pending lanes, no job hashes, none of
 * Ringmaster's own keys — is read correctly, and setLimit / pause / resume act on it exactly as
 * the original design's limit and pause say. Key names are spelled out here, not taken from the key
 * producer, so the layout itself is under test.
 */
import { describe, expect, it } from 'vitest';
import { type Queue, Ringmaster } from '../../src/lanes/index.js';
import { NO_OPERATIONS, rawState, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/**
 * The seed's state, as its scripts leave it:
 * - a: limit 2, 1 active, 2 pending            → on the ring
 * - e: no limit, 3 pending                      → on the ring
 * - z: no limit, 1 active, lane empty           → left on the ring (the original design's claim
 * only                                                 de-rings at the ceiling, not on an empty
 * lane)
 * - b: limit 1, 1 active, 1 pending             → de-ringed at its ceiling
 * - c: limit 0, 1 pending                       → parked
 * - p: paused, 1 pending                        → off the ring
 * Job ids are decimal (DESIGN.md §5); lane scores are the original design's, not the ids.
 */
async function writeSeedState(): Promise<{ q: Queue; base: string }> {
  const name = uniqueQueueName('seed');
  const base = `emq:{${name}}:`;
  const r = engine.redis();
  await r
    .multi()
    .hset(`${base}glimit`, 'a', '2', 'b', '1', 'c', '0')
    .hset(`${base}gactive`, 'a', '1', 'b', '1', 'z', '1')
    .zadd(`${base}g:a:pending`, 1000, '101', 2000, '102')
    .zadd(`${base}g:e:pending`, 1500, '201', 2500, '202', 3500, '203')
    .zadd(`${base}g:b:pending`, 1200, '301')
    .zadd(`${base}g:c:pending`, 1300, '401')
    .zadd(`${base}g:p:pending`, 1400, '501')
    .sadd(`${base}paused`, 'p')
    .rpush(`${base}ring`, 'a', 'e', 'z')
    .exec();
  return { q: new Ringmaster(r).queue(name), base };
}

describe('reading a seed-written Redis', () => {
  it('group() reads each group as the seed left it, deriving onRing and state by I1', async () => {
    const { q } = await writeSeedState();
    const base = { queue: q.name };
    expect(await q.group('a')).toEqual({
      ...base,
      id: 'a',
      limit: 2,
      active: 1,
      pending: 2,
      paused: false,
      onRing: true,
      state: 'READY',
      ...NO_OPERATIONS,
    });
    expect(await q.group('e')).toMatchObject({
      limit: null,
      active: 0,
      pending: 3,
      state: 'READY',
    });
    expect(await q.group('b')).toMatchObject({
      limit: 1,
      active: 1,
      pending: 1,
      onRing: false,
      state: 'SATURATED',
    });
    expect(await q.group('c')).toMatchObject({ limit: 0, active: 0, state: 'SATURATED' });
    expect(await q.group('p')).toMatchObject({ paused: true, pending: 1, state: 'PAUSED' });
    expect(await q.group('z')).toMatchObject({
      active: 1,
      pending: 0,
      state: 'IDLE',
      onRing: false,
    });
  });

  it('ring(), paused() and activeGroups() read the seed keys directly', async () => {
    const { q } = await writeSeedState();
    expect(await q.ring()).toEqual(['a', 'e', 'z']);
    expect(await q.paused()).toEqual(['p']);
    expect((await q.activeGroups()).map((g) => [g.id, g.active])).toEqual([
      ['a', 1],
      ['b', 1],
      ['z', 1],
    ]);
  });

  it('groups() and the counters of counts() are Ringmaster additions the seed does not keep', async () => {
    // The registry (`groups`) and `stats` are not in the original layout, so a seed-written
    // queue pages no groups until a steering call registers them, and its totals read 0;
    // what counts() takes from the original layout's own keys (ring length, paused) is exact.
    const { q } = await writeSeedState();
    expect(await q.groups()).toEqual({
      groups: [],
      cursors: [],
      hasNextPage: false,
      endCursor: null,
      totalCount: 0,
    });
    expect(await q.counts()).toEqual({
      groups: 0,
      onRing: 3,
      paused: 1,
      saturated: 0,
      pending: 0,
      delayed: 0,
      active: 0,
      dead: 0,
      completed: 0,
    });

    await q.setLimit('e', 10);
    await q.pause('p');
    const page = await q.groups();
    expect(page.groups.map((g) => [g.id, g.state, g.pending])).toEqual([
      ['e', 'READY', 3],
      ['p', 'PAUSED', 1],
    ]);
    expect(page.totalCount).toBe(2);
  });

  it('reads nothing into existence: the keyspace is unchanged by every read', async () => {
    const { q } = await writeSeedState();
    const before = await rawState(q);
    const keys = (await q.redis.keys('*')).sort();
    await q.group('a');
    await q.group('nobody');
    await q.groups();
    await q.ring();
    await q.paused();
    await q.activeGroups();
    await q.counts();
    await q.job('101');
    expect(await rawState(q)).toEqual(before);
    expect((await q.redis.keys('*')).sort()).toEqual(keys);
  });
});

describe('steering a seed-written Redis as the seed says', () => {
  it('setLimit at or below the live count de-rings (the seed @glimit LREM)', async () => {
    const { q } = await writeSeedState();
    const info = await q.setLimit('a', 1);
    expect(info).toMatchObject({ limit: 1, active: 1, pending: 2, state: 'SATURATED' });
    const s = await rawState(q);
    expect(s.ring).toEqual(['e', 'z']);
    expect(s.wake).toBe(0);
    expect(s.glimit).toEqual({ a: '1', b: '1', c: '0' });
  });

  it('setLimit that parks a group the seed left on the ring with an empty lane de-rings it too', async () => {
    // The seed's @glimit LREMs whenever active >= limit, whatever the lane holds.
    const { q } = await writeSeedState();
    await q.setLimit('z', 1);
    let s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e']);
    expect(s.wake).toBe(0);
    // So a later re-ring (work arrives, the ceiling rises) adds it once, not twice (I2).
    await q.enqueue('z');
    await q.setLimit('z', 2);
    s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e', 'z']);
    expect(s.wake).toBe(1);
  });

  it('setLimit above the live count re-rings a de-ringed group with a wake', async () => {
    const { q } = await writeSeedState();
    await q.setLimit('b', 3);
    await q.setLimit('c', 5);
    const s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e', 'z', 'b', 'c']);
    expect(s.wake).toBe(2);
  });

  it('setLimit on a group already on the ring neither duplicates it nor wakes', async () => {
    const { q } = await writeSeedState();
    await q.setLimit('a', 5);
    await q.setLimit('e', 5);
    const s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e', 'z']);
    expect(s.wake).toBe(0);
  });

  it('pause (the seed @gpause) flags the group and drops it from the ring; backlog and active untouched', async () => {
    const { q } = await writeSeedState();
    const info = await q.pause('a');
    expect(info).toMatchObject({ paused: true, active: 1, pending: 2, state: 'PAUSED' });
    const s = await rawState(q);
    expect(s.ring).toEqual(['e', 'z']);
    expect(s.paused).toEqual(['a', 'p']);
    expect(s.gactive).toEqual({ a: '1', b: '1', z: '1' });
    expect(s.lanes.a).toEqual(['101', '102']);
  });

  it('resume returns a serviceable group with a wake, and leaves a saturated or empty one off', async () => {
    const { q } = await writeSeedState();
    await q.resume('p');
    let s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e', 'z', 'p']);
    expect(s.paused).toEqual([]);
    expect(s.wake).toBe(1);

    await q.pause('b');
    await q.resume('b'); // at its ceiling: stays off
    await q.pause('idle');
    await q.resume('idle'); // nothing pending: stays off
    s = await rawState(q);
    expect(s.ring).toEqual(['a', 'e', 'z', 'p']);
    expect(s.wake).toBe(1);
  });

  it('a limit that is not a non-negative integer reads as none, is obeyed as none, and setLimit overwrites it', async () => {
    const { q, base } = await writeSeedState();
    await q.redis.hset(`${base}glimit`, 'e', 'lots');
    expect(await q.group('e')).toMatchObject({ limit: null, state: 'READY', onRing: true });
    await q.redis.hset(`${base}glimit`, 'e', '-1');
    expect(await q.group('e')).toMatchObject({ limit: null, state: 'READY' });
    await q.setLimit('e', 1);
    expect(await q.redis.hget(`${base}glimit`, 'e')).toBe('1');
    expect(await q.group('e')).toMatchObject({ limit: 1, active: 0, state: 'READY' });
  });
});

describe('a ring entry the seed left stale', () => {
  it('work arriving for a group left on the ring with an empty lane is served once; the stale entry is dropped at the claim point', async () => {
    // Re-ring is decided by I1, never by an LPOS scan (DESIGN.md §3, "Cost"), so enqueue
    // re-rings z although the seed left a stale z on the ring; claim drops whichever z entry
    // is stale when it reaches the head, so z is served once and the ring heals.
    const { q } = await writeSeedState();
    const zJob = await q.enqueue('z', 'z-work');
    const served: string[] = [];
    for (let job = await q.claim(); job; job = await q.claim())
      served.push(`${job.group}:${job.id}`);
    expect(served).toEqual(['a:101', 'e:201', `z:${zJob.id}`, 'e:202', 'e:203']);
    const s = await rawState(q);
    expect(s.ring).toEqual([]);
    expect(s.gactive).toEqual({ a: '2', b: '1', e: '3', z: '2' });
  });
});

describe('claiming seed jobs (no job hash)', () => {
  it('claims, completes and retries a job that has no hash', async () => {
    const { q, base } = await writeSeedState();
    const a = await q.claim({ leaseMs: 60_000 });
    expect(a).toMatchObject({
      id: '101',
      group: 'a',
      state: 'ACTIVE',
      attempts: 1,
      maxAttempts: 3,
      payload: null,
    });
    let s = await rawState(q);
    expect(s.gactive).toEqual({ a: '2', b: '1', z: '1' }); // on top of the count written by hand
    expect(s.ring).toEqual(['e', 'z']); // a reached its ceiling of 2: de-ringed
    expect(s.leases).toEqual({ '101': 'a' });

    // Retried, it goes back with the original score, ahead of 102.
    await q.retry('101', a?.token as string, 'again');
    s = await rawState(q);
    expect(s.gactive).toEqual({ a: '1', b: '1', z: '1' });
    expect(await q.redis.zrange(`${base}g:a:pending`, 0, -1, 'WITHSCORES')).toEqual([
      '101',
      '1000',
      '102',
      '2000',
    ]);
    expect(s.ring).toEqual(['e', 'z', 'a']);

    // The rota: e, then the stale z (empty lane) is dropped, then a.
    const e = await q.claim();
    expect(e).toMatchObject({ id: '201', group: 'e' });
    const again = await q.claim();
    expect(again).toMatchObject({ id: '101', group: 'a', attempts: 2 });
    s = await rawState(q);
    expect(s.ring).toEqual(['e']);
    await q.complete('101', again?.token as string);
    s = await rawState(q);
    expect(s.gactive).toEqual({ a: '1', b: '1', e: '1', z: '1' });
    // Kept by the default completed retention, in its group's index too.
    expect(await q.redis.hget(`${base}job:101`, 'state')).toBe('completed');
    expect(await q.redis.zrange(`${base}g:a:completed`, 0, -1)).toEqual(['101']);
    expect(s.ring).toEqual(['e', 'a']);
  });
});
