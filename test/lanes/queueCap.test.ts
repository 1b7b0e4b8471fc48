/**
 * The queue's cap and the groups' reserves (DESIGN.md §3, "The queue's cap and reserves"; I7–I9):
 * a claim never takes the queue over its cap; a cap lowered below the work in flight takes
 * nothing back and holds claims until it drains; a lease ending under the cap wakes a worker the
 * cap held back; a timed cap reverts (§4.8); reserves are served first while permits are scarce,
 * lent while their group has nothing pending, and bounded by the cap and the group's limit.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, Worker } from '../../src/lanes/index.js';
import { pollUntil, reapAtLeast, untilRedisTimePasses, useEngine } from '../support/lanes.js';

const engine = useEngine();

async function fill(q: Queue, groups: Record<string, number>): Promise<void> {
  for (const [group, n] of Object.entries(groups)) {
    for (let i = 0; i < n; i++) await q.enqueue(group, i);
  }
}

const inFlight = async (q: Queue): Promise<number> => (await q.cap()).active;

describe('the queue cap', () => {
  it('a claim never takes the queue over its cap; completeAndClaim takes at most what is free', async () => {
    const q = engine.queue();
    await fill(q, { a: 3, b: 3, c: 3 });
    expect(await q.setQueueLimit(2)).toEqual({ limit: 2, active: 0, reserved: 0, override: null });
    const first = (await q.claim()) as Job;
    expect(await q.claim()).not.toBeNull();
    expect(await q.claim()).toBeNull();
    expect(await inFlight(q)).toBe(2);
    // The groups stay on the ring: the cap is a gate in front of it (I1 unchanged).
    expect((await q.ring()).length).toBe(3);
    const batch = await q.completeAndClaim([{ id: first.id, token: first.token as string }], {
      claim: 5,
    });
    expect(batch.claimed).toHaveLength(1);
    expect(await inFlight(q)).toBe(2);
    expect((await q.audit()).findings).toEqual([]);
    // Cleared: the next claims take what the ring holds.
    expect((await q.clearQueueLimit()).limit).toBeNull();
    expect((await q.completeAndClaim([], { claim: 10 })).claimed).toHaveLength(6);
  });

  it('a cap lowered below the work in flight takes nothing back and holds claims until it drains', async () => {
    const q = engine.queue();
    await fill(q, { a: 5, b: 5 });
    const held = (await q.completeAndClaim([], { claim: 4 })).claimed;
    expect(held).toHaveLength(4);
    await q.setQueueLimit(2);
    expect(await inFlight(q)).toBe(4);
    expect(await q.claim()).toBeNull();
    for (const job of held.slice(0, 2)) await q.complete(job.id, job.token as string);
    expect(await q.claim()).toBeNull();
    await q.complete(held[2]?.id as string, held[2]?.token as string);
    expect(await q.claim()).not.toBeNull();
    expect(await q.claim()).toBeNull();
    expect(await inFlight(q)).toBe(2);
  });

  it('a claim held back marks the queue, and the next lease to end (complete, retry, reap) wakes a worker', async () => {
    const q = engine.queue();
    await fill(q, { a: 5 });
    await q.setQueueLimit(1);
    const one = (await q.claim({ leaseMs: 60_000 })) as Job;
    await q.redis.del(q.keys.wake);
    expect(await q.claim()).toBeNull();
    expect(await q.redis.hget(q.keys.settings, 'capped')).toBe('1');
    await q.complete(one.id, one.token as string);
    expect(await q.redis.hget(q.keys.settings, 'capped')).toBeNull();
    expect(await q.redis.llen(q.keys.wake)).toBe(1);

    const two = (await q.claim()) as Job;
    expect(await q.claim()).toBeNull();
    await q.retry(two.id, two.token as string, 'again');
    expect(await q.redis.llen(q.keys.wake)).toBe(2);

    const three = (await q.claim({ leaseMs: 1 })) as Job;
    expect(await q.claim()).toBeNull();
    await untilRedisTimePasses(q.redis, Date.now() + 5);
    await reapAtLeast(q, 1);
    expect(three.group).toBe('a');
    expect(await q.redis.llen(q.keys.wake)).toBe(3);
    // Nothing held back: a lease ending pushes nothing.
    const four = (await q.claim()) as Job;
    await q.complete(four.id, four.token as string);
    expect(await q.redis.llen(q.keys.wake)).toBe(3);
  });

  it('a claim held back while only groups off the default priority wait marks the queue too', async () => {
    const q = engine.queue();
    for (let i = 0; i < 3; i++) await q.enqueue('a', i, { priority: 2 });
    await q.setQueueLimit(1);
    const one = (await q.claim({ leaseMs: 60_000 })) as Job;
    // The work waiting is on `levels` alone (DESIGN.md §3, "Levels"), none on the ring's list.
    expect(await q.ring()).toEqual(['a']);
    expect(await q.redis.llen(q.keys.ring)).toBe(0);
    await q.redis.del(q.keys.wake);
    expect(await q.claim()).toBeNull();
    expect(await q.redis.hget(q.keys.settings, 'capped')).toBe('1');
    await q.complete(one.id, one.token as string);
    expect(await q.redis.llen(q.keys.wake)).toBe(1);
  });

  it('a worker parked by the cap runs as soon as another lease ends', async () => {
    const q = engine.queue();
    await fill(q, { a: 2 });
    await q.setQueueLimit(1);
    const mine = (await q.claim({ leaseMs: 60_000 })) as Job;
    // The enqueue's wake token gone, so only a wake pushed from here on can end its park.
    await q.redis.del(q.keys.wake);
    const ran: string[] = [];
    const worker = new Worker(q, async (job) => void ran.push(job.id), {
      parkTimeoutMs: 60_000,
      reaper: false,
    });
    try {
      await pollUntil('the worker held back by the cap, parked', async () => {
        const clients = String(await q.redis.client('LIST'));
        return (
          (await q.redis.hget(q.keys.settings, 'capped')) === '1' && clients.includes('cmd=blpop')
        );
      });
      expect(ran).toEqual([]);
      await q.complete(mine.id, mine.token as string);
      await pollUntil('the parked worker woken', async () => ran.length === 1, 10_000);
    } finally {
      await worker.close();
    }
  });

  it('a timed cap reverts to the cap before it, recorded in the history', async () => {
    const q = engine.queue();
    await q.setQueueLimit(5);
    const timed = await q.setQueueLimit(1, { forMs: 1 });
    expect(timed).toMatchObject({ limit: 1, override: { revertTo: 5 } });
    expect((await q.cap()).override?.revertTo).toBe(5);
    await untilRedisTimePasses(q.redis, timed.override?.until as number);
    expect((await q.applyOverrides()).applied).toBe(1);
    expect(await q.cap()).toMatchObject({ limit: 5, override: null });
    const actions = (await q.history()).entries.map((e) => [e.action, e.group, e.after]);
    expect(actions).toEqual([
      ['revert', '', { limit: 5 }],
      ['setQueueLimit', '', { limit: 1 }],
      ['setQueueLimit', '', { limit: 5 }],
    ]);
    expect((await q.audit()).findings).toEqual([]);
    // A plain clear drops a pending one.
    await q.setQueueLimit(2, { forMs: 60_000 });
    expect(await q.clearQueueLimit()).toMatchObject({ limit: null, override: null });
  });

  it('refuses a bad cap with nothing written', async () => {
    const q = engine.queue();
    await expect(q.setQueueLimit(-1)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'limit',
    });
    await expect(q.setQueueLimit(1, { forMs: 0 })).rejects.toMatchObject({ argument: 'forMs' });
    expect(await q.redis.exists(q.keys.settings)).toBe(0);
  });
});

describe('reserves', () => {
  it('a reserve comes before the levels: the owed group is served off whichever rota holds it', async () => {
    const q = engine.queue();
    await q.setQueueLimit(1);
    await q.setReserve('b', 1);
    const x = await q.enqueue('x', 0);
    const held = await q.claim();
    expect(held?.id).toBe(x.id);
    // b owed at level 5, c more urgent at 3, d at 8; then b itself at level 3 with a level-5 job.
    await q.enqueue('c', 0, { priority: 3 });
    await q.enqueue('b', 0);
    await q.enqueue('d', 0, { priority: 8 });
    await q.complete(held?.id as string, held?.token as string);
    expect((await q.claim())?.group).toBe('b');
    expect((await q.audit()).findings).toEqual([]);

    const r = engine.queue();
    await r.setQueueLimit(1);
    await r.setReserve('b', 1);
    await r.enqueue('b', 0, { priority: 3 });
    await r.enqueue('b', 1);
    await r.enqueue('e', 0, { priority: 1 });
    const first = await r.claim();
    expect(first?.group).toBe('b');
    expect(await r.ring()).toEqual(['e', 'b']);
    expect((await r.audit()).findings).toEqual([]);
    await r.complete(first?.id as string, first?.token as string);
    // b's next job is of level 5, and b is still owed its reserve: served before e's level 1.
    expect((await r.claim())?.group).toBe('b');
    expect(await r.ring()).toEqual(['e']);
    expect((await r.audit()).findings).toEqual([]);
  });

  it('a group owed its reserve gets the next scarce permit before the ring order', async () => {
    const q = engine.queue();
    await fill(q, { b: 3, c: 3, d: 3, a: 3 });
    await q.setQueueLimit(2);
    expect((await q.setReserve('a', 1)).reserve).toBe(1);
    expect((await q.claim())?.group).toBe('b');
    // Scarce: the last permit is owed to a, though c is next on the ring.
    expect((await q.claim())?.group).toBe('a');
    expect(await q.claim()).toBeNull();
    const [b] = await q.jobs({ state: 'ACTIVE', group: 'b' }).then((p) => p.jobs);
    await q.complete(b?.id as string, b?.token as string);
    // a holds its reserve: the ring goes on.
    expect((await q.claim())?.group).toBe('c');
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a reserve of a group with nothing pending is lent, and comes back with the next completion', async () => {
    const q = engine.queue();
    await fill(q, { b: 5 });
    await q.setQueueLimit(3);
    await q.setReserve('a', 2);
    const taken = (await q.completeAndClaim([], { claim: 5 })).claimed;
    expect(taken.map((j) => j.group)).toEqual(['b', 'b', 'b']);
    await fill(q, { a: 2 });
    const [x, y] = taken as [Job, Job];
    const next = await q.completeAndClaim([{ id: x.id, token: x.token as string }], { claim: 1 });
    expect(next.claimed.map((j) => j.group)).toEqual(['a']);
    const after = await q.completeAndClaim([{ id: y.id, token: y.token as string }], { claim: 1 });
    expect(after.claimed.map((j) => j.group)).toEqual(['a']);
  });

  it('a batch serves every owed group first, one each per round, then the ring', async () => {
    const q = engine.queue();
    await fill(q, { b: 9, a: 3, z: 3 });
    await q.setQueueLimit(6);
    await q.setReserve('a', 2);
    await q.setReserve('z', 2);
    const groups = (await q.completeAndClaim([], { claim: 10 })).claimed.map((j) => j.group);
    expect(groups).toHaveLength(6);
    expect(groups.slice(0, 4).sort()).toEqual(['a', 'a', 'z', 'z']);
    expect(await inFlight(q)).toBe(6);
  });

  it('a group limit lowered below its reserve is taken, and the reserve is held at it', async () => {
    const q = engine.queue();
    await fill(q, { b: 5, a: 5 });
    await q.setQueueLimit(3);
    await q.setReserve('a', 2);
    await q.setLimit('a', 1);
    const groups = (await q.completeAndClaim([], { claim: 3 })).claimed.map((j) => j.group);
    expect(groups.filter((g) => g === 'a')).toHaveLength(1);
    expect(groups).toHaveLength(3);
  });

  it('refuses a reserve above the group limit, or a sum past the cap (or its revert), and a cap below the sum', async () => {
    const q = engine.queue();
    await q.setLimit('a', 2);
    await expect(q.setReserve('a', 3)).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'reserve',
    });
    await q.setQueueLimit(3);
    await q.setReserve('a', 2);
    await expect(q.setReserve('b', 2)).rejects.toMatchObject({ argument: 'reserve' });
    await expect(q.setQueueLimit(1)).rejects.toMatchObject({ argument: 'limit' });
    await q.setQueueLimit(10, { forMs: 60_000 });
    await expect(q.setReserve('b', 2)).rejects.toMatchObject({ argument: 'reserve' });
    expect(await q.cap()).toMatchObject({ limit: 10, reserved: 2 });
    expect((await q.group('b')).reserve).toBe(0);
    // Cleared: no bound until the next cap, which must cover them.
    await q.clearQueueLimit();
    expect((await q.setReserve('b', 5)).reserve).toBe(5);
    await expect(q.setQueueLimit(6)).rejects.toMatchObject({ argument: 'limit' });
    expect((await q.setReserve('a', 0)).reserve).toBe(0);
    expect(await q.setQueueLimit(6)).toMatchObject({ limit: 6, reserved: 5 });
    await expect(q.setReserve('a', -1)).rejects.toMatchObject({ argument: 'reserve' });
    const last = (await q.history()).entries.find((e) => e.action === 'setReserve');
    expect(last).toMatchObject({ group: 'a', before: { reserve: 2 }, after: { reserve: 0 } });
  });
});

describe('audit and repair of the reserves (I8)', () => {
  it('finds a stored sum that drifted, and a repair rewrites it', async () => {
    const q = engine.queue();
    await q.setQueueLimit(4);
    await q.setReserve('a', 2);
    await q.setReserve('b', 1);
    expect((await q.audit()).findings).toEqual([]);
    await q.redis.hset(q.keys.settings, 'reserved', '7');
    const drift = { kind: 'RESERVE', subject: 'reserved', expected: '3', found: '7' };
    expect((await q.audit()).findings).toEqual([drift]);
    expect((await q.repair()).findings).toEqual([drift]);
    expect((await q.cap()).reserved).toBe(3);
    expect((await q.audit()).findings).toEqual([]);
    // A sum past the cap, by another writer: reported, not repaired.
    await q.redis.hset(q.keys.reserve, 'c', '5');
    expect((await q.repair()).findings).toEqual([
      { kind: 'RESERVE', subject: 'reserved', expected: '8', found: '3' },
      { kind: 'RESERVE', subject: 'cap', expected: 'at most 4', found: '8' },
    ]);
    expect((await q.audit()).findings).toEqual([
      { kind: 'RESERVE', subject: 'cap', expected: 'at most 4', found: '8' },
    ]);
  });
});

describe('completeAndClaim under a cap', () => {
  it('wakes a held-back claim only when its own claims leave a permit free', async () => {
    const q = engine.queue();
    await fill(q, { a: 5 });
    await q.setQueueLimit(1);
    const one = (await q.claim({ leaseMs: 60_000 })) as Job;
    await q.redis.del(q.keys.wake);
    expect(await q.claim()).toBeNull();
    // Its own claim takes the permit its completion freed: no one is woken, the flag stays.
    const batch = await q.completeAndClaim([{ id: one.id, token: one.token as string }], {
      claim: 1,
    });
    const [two] = batch.claimed as [Job];
    expect(await q.redis.llen(q.keys.wake)).toBe(0);
    expect(await q.redis.hget(q.keys.settings, 'capped')).toBe('1');
    // A completion that leaves the permit free wakes the held-back claim.
    await q.completeAndClaim([{ id: two.id, token: two.token as string }], { claim: 0 });
    expect(await q.redis.llen(q.keys.wake)).toBe(1);
    expect(await q.redis.hget(q.keys.settings, 'capped')).toBeNull();
  });
});

describe('which owed group first', () => {
  it('the group furthest below its reserve gets the next scarce permit', async () => {
    const q = engine.queue();
    await fill(q, { a: 4, z: 4 });
    await q.setQueueLimit(4);
    await q.setReserve('z', 2);
    await q.setReserve('a', 2);
    const groups: string[] = [];
    for (let i = 0; i < 4; i++) groups.push(((await q.claim()) as Job).group);
    // a and z take turns: each claim goes to the one with fewer of its reserve in flight.
    expect(groups).toEqual(['a', 'z', 'a', 'z']);
  });

  it('judges a reserve held at a limit lowered below it by that limit', async () => {
    const q = engine.queue();
    await fill(q, { a: 3, z: 3 });
    await q.setQueueLimit(6);
    await q.setReserve('a', 2);
    await q.setReserve('z', 4);
    await q.setLimit('z', 2);
    const groups: string[] = [];
    for (let i = 0; i < 4; i++) groups.push(((await q.claim()) as Job).group);
    // Third claim: z has 1 of 2 in flight (its reserve held at its limit), as a has 1 of 2: a by
    // id. Judged by its stored reserve of 4, z would have gone first.
    expect(groups).toEqual(['a', 'z', 'a', 'z']);
  });
});

describe('an owed group served where it stands', () => {
  it('keeps its place and its turns with no ring write while it stays serviceable, and leaves with one logged removal', async () => {
    const q = engine.queue();
    await fill(q, { b: 2, a: 2, c: 2 });
    await q.setQueueLimit(1);
    await q.setReserve('a', 1);
    await q.setWeight('a', 2);
    // Watched: every change of the ring is logged (DESIGN.md §4.4, "The ring log").
    await q.redis.set(q.keys.ringWatched, '1', 'PX', 60_000);
    const first = (await q.claim()) as Job;
    expect(first.group).toBe('a');
    // Not moved to the head nor the tail: the ring is as it was, and nothing was logged.
    expect(await q.ring()).toEqual(['b', 'a', 'c']);
    expect(await q.redis.llen(q.keys.ringLog)).toBe(0);
    // A reserve's permit is no turn of the rota: its weight's round is not counted.
    expect(await q.redis.hget(q.keys.turns, 'a')).toBeNull();
    await q.complete(first.id, first.token as string);
    // Its last job: its lane is empty, so it leaves the ring from where it stands.
    expect(((await q.claim()) as Job).group).toBe('a');
    expect(await q.ring()).toEqual(['b', 'c']);
    const log = (await q.redis.lrange(q.keys.ringLog, 0, -1)).map((e) => JSON.parse(e));
    expect(log).toMatchObject([{ o: 'rem', g: 'a' }]);
    expect((await q.audit()).findings).toEqual([]);
  });
});

describe('an owed group leaving from where it stands', () => {
  it('at its rate, at its limit, or with levels: off its rota, the rest of the rota as it was', async () => {
    const q = engine.queue();
    await fill(q, { b: 1, a: 3, c: 1 });
    await q.setRateLimit('a', { max: 1, windowMs: 3_600_000 });
    await q.setQueueLimit(1);
    await q.setReserve('a', 1);
    expect(((await q.claim()) as Job).group).toBe('a');
    // Its bucket is empty: rate-limited, it left the ring from the middle.
    expect(await q.ring()).toEqual(['b', 'c']);
    expect((await q.audit()).findings).toEqual([]);

    const r = engine.queue();
    await fill(r, { b: 1, a: 3, c: 1 });
    await r.setLimit('a', 1);
    await r.setQueueLimit(1);
    await r.setReserve('a', 1);
    expect(((await r.claim()) as Job).group).toBe('a');
    expect(await r.ring()).toEqual(['b', 'c']);
    expect((await r.audit()).findings).toEqual([]);

    // With levels: its next job is of level 7, so it moves from the ring to that level's rota.
    const l = engine.queue();
    await l.enqueue('b', 0);
    await l.enqueue('a', 0);
    await l.enqueue('a', 1, { priority: 7 });
    await l.enqueue('c', 0);
    await l.setQueueLimit(1);
    await l.setReserve('a', 1);
    expect(((await l.claim()) as Job).group).toBe('a');
    expect(await l.ring()).toEqual(['b', 'c', 'a']);
    expect((await l.audit()).findings).toEqual([]);
  });
});

describe('forgetting groups', () => {
  it('keeps a group that holds a reserve, and forgets it once cleared', async () => {
    const q = engine.queue();
    await q.setReserve('held', 1);
    await q.reap({ groupGraceMs: 0 });
    expect((await q.groups()).groups.map((g) => g.id)).toEqual(['held']);
    await q.setReserve('held', 0);
    await q.reap({ groupGraceMs: 0 });
    expect((await q.groups()).totalCount).toBe(0);
  });
});
