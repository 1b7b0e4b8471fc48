/**
 * Timed overrides (DESIGN.md §4.8): `setLimit(…, { forMs })` and `pause(…, { forMs })`
 * set their value now and revert on their own at Redis now + forMs — to the value before the
 * first pending override of their kind — when `applyOverrides` (every Reaper pass) finds them
 * due; a later plain call of the same kind drops the pending revert; `cancelOverride` keeps the
 * current value; the revert is applied as the plain call would be (ring, wake, saturated count:
 * I1) and recorded in the history as 'revert' by 'timer'; a bad forMs changes nothing.
 *
 * Deadlines are on the Redis clock: a test that needs one passed waits for Redis' TIME to pass
 * it (bounded poll), never a wall-clock assertion.
 */
import { describe, expect, it } from 'vitest';
import { type Queue, Reaper, Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import {
  pollUntil,
  queueSnapshot,
  rawState,
  redisNow,
  statsOf,
  untilRedisTimePasses,
  useEngine,
} from '../support/lanes.js';

const engine = useEngine();

const HOUR = 3_600_000;

/** History entries of a stream, oldest first, with their JSON fields decoded. */
async function historyOf(q: Queue, key = q.keys.history): Promise<Record<string, unknown>[]> {
  const entries = await q.redis.xrange(key, '-', '+');
  return entries.map(([id, flat]) => {
    const entry: Record<string, unknown> = { id };
    for (let i = 0; i < flat.length; i += 2) {
      const field = flat[i] as string;
      const value = flat[i + 1] as string;
      entry[field] = ['before', 'after', 'detail'].includes(field) ? JSON.parse(value) : value;
    }
    return entry;
  });
}

/** Wait until every pending override of `q` is due on the Redis clock. */
async function untilAllDue(q: Queue): Promise<void> {
  const last = await q.redis.zrange(q.keys.overrides, -1, -1, 'WITHSCORES');
  if (last[1] !== undefined) await untilRedisTimePasses(q.redis, Number(last[1]));
}

describe('timed setLimit', () => {
  it('sets the limit now, shows the pending revert, and reverts to no limit at the deadline', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    const t0 = await redisNow(q.redis);
    const g = await q.setLimit('g', 0, { forMs: 40, actor: 'ops' });
    expect(g).toMatchObject({ limit: 0, onRing: false, state: 'SATURATED' });
    expect(g.limitOverride).toMatchObject({ revertTo: null, actor: 'ops' });
    const until = g.limitOverride?.until as number;
    expect(until - (g.limitOverride?.setAt as number)).toBe(40);
    expect(g.limitOverride?.setAt).toBeGreaterThanOrEqual(t0);
    expect(g.pauseOverride).toBeNull();
    expect(await q.group('g')).toEqual(g);
    expect(await q.redis.zscore(q.keys.overrides, 'limit:g')).toBe(String(until));

    // Not due yet (if this machine is fast enough to ask before 40 ms pass): nothing applied.
    const early = await q.applyOverrides();
    if (early.applied === 0) expect(early.nextAt).toBe(until);

    await untilRedisTimePasses(q.redis, until);
    expect(await q.applyOverrides()).toEqual({
      applied: early.applied === 0 ? 1 : 0,
      nextAt: null,
    });
    const after = await q.group('g');
    expect(after).toMatchObject({ limit: null, onRing: true, state: 'READY', limitOverride: null });
    expect((await rawState(q)).ring).toEqual(['g']);
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
    expect(await q.redis.hlen(q.keys.overrideData)).toBe(0);
    expect((await q.audit()).findings).toEqual([]);

    const history = await historyOf(q);
    expect(history.map((e) => [e.action, e.actor])).toEqual([
      ['setLimit', 'ops'],
      ['revert', 'timer'],
    ]);
    expect(history[0]).toMatchObject({
      group: 'g',
      before: { limit: null, paused: false, pending: 1 },
      after: { limit: 0, paused: false, pending: 1 },
      detail: { forMs: 40, until },
    });
    expect(history[1]).toMatchObject({
      group: 'g',
      before: { limit: 0 },
      after: { limit: null },
      detail: { kind: 'limit', until, revertTo: null, setBy: 'ops' },
    });
    // The group's history (the queue's entries of it, newest first) has the same two.
    expect((await q.history({ group: 'g' })).entries.map((e) => e.action)).toEqual([
      'revert',
      'setLimit',
    ]);
  });

  it('reverts to the limit before; a second timed call replaces value and deadline but keeps the original revertTo', async () => {
    const q = engine.queue();
    await q.setLimit('g', 10);
    const first = await q.setLimit('g', 2, { forMs: HOUR });
    expect(first.limitOverride?.revertTo).toBe(10);
    const second = await q.setLimit('g', 5, { forMs: 30 });
    expect(second.limit).toBe(5);
    expect(second.limitOverride?.revertTo).toBe(10);
    expect(second.limitOverride?.until).toBeLessThan(first.limitOverride?.until as number);
    expect(await q.redis.zcard(q.keys.overrides)).toBe(1);

    await untilAllDue(q);
    expect((await q.applyOverrides()).applied).toBe(1);
    expect(await q.group('g')).toMatchObject({ limit: 10, limitOverride: null });
  });

  it('a later plain setLimit or clearLimit drops the pending revert: the latest plain call stands', async () => {
    const q = engine.queue();
    await q.setLimit('a', 1, { forMs: 20 });
    const plain = await q.setLimit('a', 7);
    expect(plain).toMatchObject({ limit: 7, limitOverride: null });
    await q.setLimit('b', 3);
    await q.setLimit('b', 1, { forMs: 20 });
    expect(await q.clearLimit('b')).toMatchObject({ limit: null, limitOverride: null });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
    expect(await q.applyOverrides()).toEqual({ applied: 0, nextAt: null });
    expect((await q.group('a')).limit).toBe(7);
    expect((await q.group('b')).limit).toBeNull();
    const history = await historyOf(q);
    // The plain calls say what they cancelled.
    expect(
      history.find(
        (e) =>
          e.action === 'setLimit' && e.group === 'a' && !('forMs' in ((e.detail as object) ?? {})),
      ),
    ).toMatchObject({ detail: { cancelled: { revertTo: null } } });
    expect(history.find((e) => e.action === 'clearLimit')).toMatchObject({
      detail: { cancelled: { revertTo: 3 } },
    });
  });

  it('a timed pause does not touch a pending limit revert, nor the other way round', async () => {
    const q = engine.queue();
    await q.setLimit('g', 1, { forMs: HOUR });
    await q.pause('g', { forMs: HOUR });
    await q.resume('g');
    expect((await q.group('g')).limitOverride).not.toBeNull();
    await q.pause('g', { forMs: HOUR });
    await q.setLimit('g', 4);
    const g = await q.group('g');
    expect(g.limitOverride).toBeNull();
    expect(g.pauseOverride).toMatchObject({ revertTo: false });
  });
});

describe('timed pause', () => {
  it('pauses now and resumes at the deadline, re-ringed with a wake (I1)', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.enqueue('h', 1);
    const g = await q.pause('g', { forMs: 30 });
    expect(g).toMatchObject({ paused: true, onRing: false, state: 'PAUSED' });
    expect(g.pauseOverride).toMatchObject({ revertTo: false, actor: 'engine' });
    expect((await rawState(q)).ring).toEqual(['h']);
    await q.redis.del(q.keys.wake);

    await untilAllDue(q);
    expect((await q.applyOverrides()).applied).toBe(1);
    expect(await q.group('g')).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    const raw = await rawState(q);
    expect(raw.ring).toEqual(['h', 'g']);
    expect(raw.paused).toEqual([]);
    expect(raw.wake).toBe(1);
    expect((await q.audit()).findings).toEqual([]);
    const revert = (await historyOf(q)).at(-1);
    expect(revert).toMatchObject({
      action: 'revert',
      actor: 'timer',
      before: { paused: true },
      after: { paused: false },
      detail: { kind: 'pause', revertTo: false, setBy: 'engine' },
    });
  });

  it('of a group already paused is the plain pause: nothing pending, nothing recorded', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pause('g');
    const entries = (await historyOf(q)).length;
    const g = await q.pause('g', { forMs: 10 });
    expect(g).toMatchObject({ paused: true, onRing: false, pauseOverride: null });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
    expect(await historyOf(q)).toHaveLength(entries);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a later plain pause or resume drops the pending revert', async () => {
    const q = engine.queue();
    await q.enqueue('a', 1);
    await q.enqueue('b', 1);
    await q.pause('a', { forMs: 10 });
    expect(await q.pause('a')).toMatchObject({ paused: true, pauseOverride: null });
    await q.pause('b', { forMs: 10 });
    expect(await q.resume('b')).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(await q.applyOverrides()).toEqual({ applied: 0, nextAt: null });
    expect((await q.group('a')).paused).toBe(true);
    expect((await q.group('b')).paused).toBe(false);
  });
});

describe('timed resume', () => {
  it('resumes a paused group now (re-ringed) and pauses it again at the deadline, recorded', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pause('g');
    const g = await q.resume('g', { forMs: 30, actor: 'ops' });
    expect(g).toMatchObject({ paused: false, onRing: true, state: 'READY' });
    expect(g.pauseOverride).toMatchObject({ revertTo: true, actor: 'ops' });
    expect(await q.group('g')).toEqual(g);
    expect((await rawState(q)).ring).toEqual(['g']);
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'resume',
      actor: 'ops',
      before: { paused: true },
      after: { paused: false },
      detail: { forMs: 30 },
    });

    await untilAllDue(q);
    expect((await q.applyOverrides()).applied).toBe(1);
    expect(await q.group('g')).toMatchObject({ paused: true, onRing: false, pauseOverride: null });
    expect((await rawState(q)).ring).toEqual([]);
    expect((await q.audit()).findings).toEqual([]);
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'revert',
      actor: 'timer',
      before: { paused: false },
      after: { paused: true },
      detail: { kind: 'pause', revertTo: true, setBy: 'ops' },
    });
  });

  it('a plain pause or resume after it wins; cancelOverride pause keeps it resumed', async () => {
    const q = engine.queue();
    for (const id of ['a', 'b', 'c']) {
      await q.enqueue(id, 1);
      await q.pause(id);
      await q.resume(id, { forMs: 10 });
    }
    expect(await q.pause('a')).toMatchObject({ paused: true, pauseOverride: null });
    expect(await q.resume('b')).toMatchObject({ paused: false, pauseOverride: null });
    expect(await q.cancelOverride('c', 'pause')).toMatchObject({
      paused: false,
      pauseOverride: null,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await q.applyOverrides()).toEqual({ applied: 0, nextAt: null });
    expect((await q.group('a')).paused).toBe(true);
    expect((await q.group('b')).paused).toBe(false);
    expect((await q.group('c')).paused).toBe(false);
  });

  it('after a timed pause is the plain resume (its revertTo, running, is the value it sets)', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pause('g', { forMs: HOUR });
    const g = await q.resume('g', { forMs: 10 });
    expect(g).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'resume',
      detail: { cancelled: { revertTo: false } },
    });
  });

  it('a bad forMs is BAD_USER_INPUT and changes nothing', async () => {
    const q = engine.queue();
    await q.pause('g');
    const before = await queueSnapshot(q);
    await expect(q.resume('g', { forMs: 0 })).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'forMs',
    });
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

/**
 * `q`'s keys and values with the queue's own name taken out of each key, so two queues compare;
 * the history and job hashes (which hold times) by their entry and field counts.
 */
async function layoutOf(q: Queue): Promise<Map<string, string | number>> {
  const snap = await queueSnapshot(q);
  const out = new Map<string, string | number>();
  for (const [key, value] of snap) {
    const name = key.replace(q.keys.base, '<base>');
    if (key === q.keys.history) out.set(name, await q.redis.xlen(key));
    // When each group was registered: its members compare, its times cannot.
    else if (key === q.keys.seen) out.set(name, (await q.redis.zrange(key, 0, -1)).join(','));
    else if (name.startsWith('<base>job:')) out.set(name, await q.redis.hlen(key));
    else out.set(name, value);
  }
  return out;
}

describe('a timed call that would revert to the value it sets is the plain call (§4.8)', () => {
  it('timed resume of an unknown group: exactly the plain resume — nothing pending or recorded', async () => {
    const timed = engine.queue();
    const plain = engine.queue();
    const g = await timed.resume('g9', { forMs: 5_000 });
    await plain.resume('g9');
    expect(g).toMatchObject({ paused: false, pauseOverride: null, limitOverride: null });
    expect(await timed.redis.zcard(timed.keys.overrides)).toBe(0);
    expect(await historyOf(timed)).toEqual([]);
    expect(await layoutOf(timed)).toEqual(await layoutOf(plain));
  });

  it('timed resume of a running group with a pending timed pause: the plain resume, recorded', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pause('g', { forMs: HOUR, actor: 'ops' });
    const g = await q.resume('g', { forMs: 5_000, actor: 'bob' });
    expect(g).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'resume',
      actor: 'bob',
      before: { paused: true },
      after: { paused: false },
      detail: { cancelled: { revertTo: false, actor: 'ops' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await q.applyOverrides()).toEqual({ applied: 0, nextAt: null });
  });

  it('timed pause of a paused group: exactly the plain pause', async () => {
    const timed = engine.queue();
    const plain = engine.queue();
    for (const q of [timed, plain]) {
      await q.enqueue('g', 1);
      await q.pause('g');
    }
    await timed.pause('g', { forMs: 5_000 });
    await plain.pause('g');
    expect(await layoutOf(timed)).toEqual(await layoutOf(plain));
    expect(await timed.redis.zcard(timed.keys.overrides)).toBe(0);
  });

  it('timed pause with a pending timed resume of a paused group: the plain pause, recorded', async () => {
    const q = engine.queue();
    await q.enqueue('g', 1);
    await q.pause('g');
    await q.resume('g', { forMs: HOUR });
    const g = await q.pause('g', { forMs: 5_000 });
    expect(g).toMatchObject({ paused: true, onRing: false, pauseOverride: null });
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'pause',
      before: { paused: false },
      after: { paused: true },
      detail: { cancelled: { revertTo: true } },
    });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });

  it('timed setLimit to the limit it has: exactly the plain setLimit (nothing recorded)', async () => {
    const timed = engine.queue();
    const plain = engine.queue();
    for (const q of [timed, plain]) await q.setLimit('g', 5);
    const g = await timed.setLimit('g', 5, { forMs: 5_000 });
    await plain.setLimit('g', 5);
    expect(g).toMatchObject({ limit: 5, limitOverride: null });
    expect(await historyOf(timed)).toHaveLength(1);
    expect(await layoutOf(timed)).toEqual(await layoutOf(plain));
  });

  it('timed setLimit back to the revertTo of a pending one: the plain setLimit, recorded', async () => {
    const q = engine.queue();
    await q.setLimit('g', 5);
    await q.setLimit('g', 2, { forMs: HOUR });
    const g = await q.setLimit('g', 5, { forMs: 5_000 });
    expect(g).toMatchObject({ limit: 5, limitOverride: null });
    expect((await historyOf(q)).at(-1)).toMatchObject({
      action: 'setLimit',
      before: { limit: 2 },
      after: { limit: 5 },
      detail: { cancelled: { revertTo: 5 } },
    });
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });

  it('a timed call of the other kind still counts: a timed limit of a paused group is timed', async () => {
    const q = engine.queue();
    await q.pause('g');
    const g = await q.setLimit('g', 1, { forMs: HOUR });
    expect(g.limitOverride).toMatchObject({ revertTo: null });
    expect(g.pauseOverride).toBeNull();
  });
});

describe('cancelOverride', () => {
  it('drops the pending revert and keeps the current value, recorded in the history', async () => {
    const q = engine.queue();
    await q.setLimit('g', 9);
    await q.setLimit('g', 1, { forMs: 10 });
    await q.pause('g', { forMs: 10 });
    const g = await q.cancelOverride('g', 'limit', { actor: 'alice' });
    expect(g).toMatchObject({ limit: 1, paused: true, limitOverride: null });
    expect(g.pauseOverride).not.toBeNull();
    const entry = (await historyOf(q)).at(-1);
    expect(entry).toMatchObject({
      action: 'cancelOverride',
      actor: 'alice',
      group: 'g',
      detail: { kind: 'limit', cancelled: { revertTo: 9 } },
    });
    await untilAllDue(q);
    expect((await q.applyOverrides()).applied).toBe(1); // the pause's only
    expect(await q.group('g')).toMatchObject({ limit: 1, paused: false });
  });

  it('with nothing pending writes nothing', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    const before = await queueSnapshot(q);
    expect(await q.cancelOverride('g', 'pause')).toMatchObject({ limit: 2, pauseOverride: null });
    expect(await queueSnapshot(q)).toEqual(before);
  });
});

describe('a deadline written without its data (by hand, another writer)', () => {
  it('is dropped by the plain call of its kind, reported bare, and the other kind keeps its own', async () => {
    const q = engine.queue();
    await q.setLimit('g', 4);
    await q.pause('g', { forMs: 60_000 });
    const pause = await q.redis.hget(q.keys.overrideData, 'pause:g');
    // Only the deadline: no goverride field, so the group reads no pending limit revert.
    await q.redis.zadd(q.keys.overrides, Date.now() + 60_000, 'limit:g');
    expect((await q.group('g')).limitOverride).toBeNull();
    for (const plain of [() => q.setLimit('g', 5), () => q.clearLimit('g')]) {
      await q.redis.zadd(q.keys.overrides, Date.now() + 60_000, 'limit:g');
      await plain();
      expect(await q.redis.zscore(q.keys.overrides, 'limit:g')).toBeNull();
      expect((await historyOf(q)).at(-1)?.detail).toEqual({ cancelled: {} });
    }
    expect(await q.redis.hget(q.keys.overrideData, 'pause:g')).toBe(pause);
    expect(await q.redis.zscore(q.keys.overrides, 'pause:g')).not.toBeNull();
  });
});

describe('history of the group steering calls', () => {
  it('records a plain call that changes the limit or the pause, with who asked, before and after', async () => {
    const q = engine.queue();
    await q.enqueue('g', 0);
    await q.setLimit('g', 2, { actor: 'ann' });
    await q.pause('g', { actor: 'bo' });
    await q.resume('g');
    await q.clearLimit('g');
    expect(
      (await historyOf(q)).map((e) => [e.action, e.actor, e.before, e.after, e.detail]),
    ).toEqual([
      [
        'setLimit',
        'ann',
        { limit: null, paused: false, active: 0, pending: 1 },
        { limit: 2, paused: false, active: 0, pending: 1 },
        undefined,
      ],
      [
        'pause',
        'bo',
        { limit: 2, paused: false, active: 0, pending: 1 },
        { limit: 2, paused: true, active: 0, pending: 1 },
        undefined,
      ],
      [
        'resume',
        'engine',
        { limit: 2, paused: true, active: 0, pending: 1 },
        { limit: 2, paused: false, active: 0, pending: 1 },
        undefined,
      ],
      [
        'clearLimit',
        'engine',
        { limit: 2, paused: false, active: 0, pending: 1 },
        { limit: null, paused: false, active: 0, pending: 1 },
        undefined,
      ],
    ]);
    expect((await q.history({ group: 'g' })).entries).toHaveLength(4);
  });

  it('records nothing for a call that changes nothing, and nothing for a refused one', async () => {
    const q = engine.queue();
    await q.setLimit('g', 2);
    await q.pause('g');
    const length = await q.redis.xlen(q.keys.history);
    await q.setLimit('g', 2);
    await q.pause('g');
    await q.resume('other');
    await q.clearLimit('other');
    await q.redis.hset(q.keys.gactive, 'g', 'lots');
    await expect(q.setLimit('g', 3, { forMs: HOUR })).rejects.toMatchObject({
      code: 'DATA_OUT_OF_RANGE',
    });
    expect(await q.redis.xlen(q.keys.history)).toBe(length);
    expect(await q.redis.zcard(q.keys.overrides)).toBe(0);
  });
});

describe('reverts keep the ring and its counts exact (I1)', () => {
  it('a revert that saturates a group de-rings it and counts it saturated; one that frees it re-rings it', async () => {
    const q = engine.queue();
    for (let i = 0; i < 3; i++) await q.enqueue('g', i);
    await q.enqueue('other', 0);
    await q.setLimit('g', 1);
    await q.claim(); // g: 1 active, saturated
    expect((await statsOf(q)).saturated).toBe(1);
    // Raise it for a while: g is serviceable again; at the deadline it goes back to 1, saturated.
    await q.setLimit('g', 5, { forMs: 20 });
    expect((await q.group('g')).onRing).toBe(true);
    expect((await statsOf(q)).saturated).toBe(0);
    await untilAllDue(q);
    await q.applyOverrides();
    expect(await q.group('g')).toMatchObject({ limit: 1, onRing: false, state: 'SATURATED' });
    expect((await rawState(q)).ring).not.toContain('g');
    expect((await statsOf(q)).saturated).toBe(1);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('applies more due overrides than one batch, in several script calls', async () => {
    const q = engine.queue();
    for (const g of ['a', 'b', 'c', 'd', 'e']) {
      await q.enqueue(g, 0);
      await q.pause(g, { forMs: 5 });
    }
    await untilAllDue(q);
    expect(await q.applyOverrides({ batch: 2 })).toEqual({ applied: 5, nextAt: null });
    expect((await rawState(q)).ring.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect((await q.audit()).findings).toEqual([]);
  });

  it('a group whose active count cannot be read exactly still gets its value back, unsettled, and holds back no other revert', async () => {
    const q = engine.queue();
    await q.enqueue('bad', 0);
    await q.enqueue('ok', 0);
    await q.pause('bad', { forMs: 5 });
    await q.setLimit('ok', 0, { forMs: 5 });
    await q.redis.hset(q.keys.gactive, 'bad', 'garbage');
    await untilAllDue(q);
    expect((await q.applyOverrides()).applied).toBe(2);
    expect(await q.redis.sismember(q.keys.paused, 'bad')).toBe(0);
    expect(await q.group('ok')).toMatchObject({ limit: null, onRing: true });
  });
});

describe('the Reaper applies due overrides', () => {
  it('after a time with nothing running: the next reaper pass applies and records them', async () => {
    const q = engine.queue();
    await q.enqueue('g', 0);
    const { until } = (await q.pause('g', { forMs: 200 })).pauseOverride ?? { until: 0 };
    // Nothing runs while the deadline passes.
    await untilRedisTimePasses(q.redis, until);
    expect((await q.group('g')).paused).toBe(true);
    // A process starts and reaps: the revert is applied on its first pass.
    const rm = new Ringmaster(engine.client());
    const reaper = new Reaper(rm, { queues: [q.name], intervalMs: 60_000 });
    await reaper.reapOnce();
    await reaper.close();
    expect(await q.group('g')).toMatchObject({ paused: false, onRing: true, pauseOverride: null });
    expect((await historyOf(q)).at(-1)).toMatchObject({ action: 'revert', actor: 'timer' });
  });
});

describe('a running Worker applies due overrides with its reaper', () => {
  it('a timed pause ends within a reap interval of its deadline, with no server', async () => {
    const q = engine.queue();
    const seen: string[] = [];
    const worker = new Worker(
      q,
      async (job) => {
        seen.push(job.group);
      },
      { reaper: { intervalMs: 20 } },
    );
    try {
      await q.pause('g', { forMs: 30 });
      await q.enqueue('g', 0);
      await pollUntil('the pause reverted and the job run', async () => seen.includes('g'));
      expect(await q.group('g')).toMatchObject({ paused: false, pauseOverride: null });
      expect((await historyOf(q)).map((e) => e.action)).toContain('revert');
    } finally {
      await worker.close();
    }
  });
});

describe('bad input', () => {
  it.each([0, -1, 1.5, 2_592_000_001, Number.NaN, '100', true])(
    'forMs %s is BAD_USER_INPUT and changes nothing',
    async (forMs) => {
      const q = engine.queue();
      await q.enqueue('g', 0);
      await q.setLimit('g', 3, { forMs: HOUR });
      const before = await queueSnapshot(q);
      for (const call of [
        () => q.setLimit('g', 1, { forMs: forMs as number }),
        () => q.pause('g', { forMs: forMs as number }),
      ]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(RingmasterError);
        expect(error).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'forMs' });
      }
      expect(await queueSnapshot(q)).toEqual(before);
    },
  );

  it('30 days is the longest forMs; an unknown kind is refused by cancelOverride', async () => {
    const q = engine.queue();
    const g = await q.pause('g', { forMs: 2_592_000_000 });
    expect((g.pauseOverride?.until as number) - (g.pauseOverride?.setAt as number)).toBe(
      2_592_000_000,
    );
    const before = await queueSnapshot(q);
    await expect(q.cancelOverride('g', 'weight' as 'limit')).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      argument: 'kind',
    });
    expect(await queueSnapshot(q)).toEqual(before);
  });
});
