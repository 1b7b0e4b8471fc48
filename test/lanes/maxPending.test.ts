/**
 * Backlog bounds (DESIGN.md §3, "Backlog bounds"): an enqueue that would leave a group holding
 * more pending + delayed jobs than its bound (its own, else the queue's default) is refused with
 * GROUP_FULL and writes nothing; enqueueMany all or nothing; an idempotent repeat adds nothing
 * and is answered; retries, promotion and requeueDead are not refused.
 */
import { describe, expect, it } from 'vitest';
import { type Job, type Queue, RingmasterError } from '../../src/lanes/index.js';
import { useEngine } from '../support/lanes.js';

const engine = useEngine();

async function refusal(p: Promise<unknown>): Promise<RingmasterError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RingmasterError);
  return error as RingmasterError;
}

/** Every key of the queue with its type and size: a refused call must change none of it. */
async function footprint(q: Queue): Promise<string[]> {
  const keys = await q.redis.keys(`${q.keys.base.replace(/[{}]/g, '\\$&')}*`);
  const out: string[] = [];
  for (const key of keys.sort()) {
    const type = await q.redis.type(key);
    out.push(
      `${key} ${type} ${type === 'string' ? await q.redis.get(key) : await q.redis.dump(key)}`,
    );
  }
  return out;
}

describe('backlog bounds', () => {
  it('a group at its bound refuses the next enqueue with GROUP_FULL, writing nothing; delayed jobs count', async () => {
    const q = engine.queue();
    const g = await q.setMaxPending('a', 3);
    expect(g).toMatchObject({ id: 'a', maxPending: 3 });
    await q.enqueue('a', 1);
    await q.enqueue('a', 2, { delayMs: 60_000 });
    await q.enqueue('a', 3);
    const before = await footprint(q);
    const e = await refusal(q.enqueue('a', 4));
    expect(e.code).toBe('GROUP_FULL');
    expect(e.message).toMatch(/holds 3 pending and delayed jobs and its backlog bound is 3/);
    // A delayed job is refused as well: it would count.
    expect((await refusal(q.enqueue('a', 5, { delayMs: 1_000 }))).code).toBe('GROUP_FULL');
    expect(await footprint(q)).toEqual(before);
    // Another group is not bounded.
    await q.enqueue('b', 1);
    await q.enqueue('b', 2);
    await q.enqueue('b', 3);
    await q.enqueue('b', 4);
    expect((await q.group('a')).maxPending).toBe(3);
    expect((await q.group('b')).maxPending).toBeNull();
  });

  it('a claim frees room; cleared, the bound is gone; 0 refuses every enqueue', async () => {
    const q = engine.queue();
    await q.setMaxPending('a', 1);
    await q.enqueue('a', 1);
    expect((await refusal(q.enqueue('a', 2))).code).toBe('GROUP_FULL');
    // Active jobs do not count: the backlog is what waits.
    expect(await q.claim()).not.toBeNull();
    await q.enqueue('a', 2);
    expect((await q.setMaxPending('a', null)).maxPending).toBeNull();
    await q.enqueue('a', 3);
    await q.setMaxPending('a', 0);
    expect((await refusal(q.enqueue('a', 4))).code).toBe('GROUP_FULL');
    expect((await q.counts()).pending).toBe(2);
  });

  it("the queue's default bounds every group without its own; a group's own bound wins", async () => {
    const q = engine.queue();
    expect(await q.defaultMaxPending()).toBeNull();
    expect(await q.setDefaultMaxPending(2)).toBe(2);
    expect(await q.defaultMaxPending()).toBe(2);
    await q.setMaxPending('big', 4);
    for (const group of ['x', 'y']) {
      await q.enqueue(group, 1);
      await q.enqueue(group, 2);
      expect((await refusal(q.enqueue(group, 3))).code).toBe('GROUP_FULL');
    }
    for (let i = 0; i < 4; i++) await q.enqueue('big', i);
    expect((await refusal(q.enqueue('big', 5))).code).toBe('GROUP_FULL');
    // Its own bound of 0 is a bound, not "none".
    await q.setMaxPending('zero', 0);
    expect((await refusal(q.enqueue('zero', 1))).code).toBe('GROUP_FULL');
    expect(await q.setDefaultMaxPending(null)).toBeNull();
    await q.enqueue('x', 3);
    // No group gets the default's field as its own bound.
    expect((await q.group('x')).maxPending).toBeNull();
  });

  it('enqueueMany is all or nothing: a batch that would pass one group’s bound writes no job of any group', async () => {
    const q = engine.queue();
    await q.setMaxPending('a', 3);
    await q.enqueue('a', 0);
    const before = await footprint(q);
    const e = await refusal(
      q.enqueueMany([
        { group: 'b', payload: 1 },
        { group: 'a', payload: 1 },
        { group: 'a', payload: 2, options: { delayMs: 60_000 } },
        { group: 'a', payload: 3 },
      ]),
    );
    expect(e.code).toBe('GROUP_FULL');
    expect(e.message).toMatch(/"a".*holds 1 .* bound is 3, so 3 more would pass it/);
    expect(await footprint(q)).toEqual(before);
    const jobs = await q.enqueueMany([
      { group: 'a', payload: 1 },
      { group: 'a', payload: 2, options: { delayMs: 60_000 } },
      { group: 'b', payload: 1 },
    ]);
    expect(jobs).toHaveLength(3);
    expect((await refusal(q.enqueueMany([{ group: 'a', payload: 9 }]))).code).toBe('GROUP_FULL');
  });

  it('an idempotent repeat answers its job at the bound; retries, promotion and requeueDead are not refused', async () => {
    const q = engine.queue();
    await q.setMaxPending('a', 2);
    const first = await q.enqueue('a', 1, { key: 'k1' });
    const later = await q.enqueue('a', 2, { delayMs: 60_000 });
    expect((await q.enqueue('a', 1, { key: 'k1' })).id).toBe(first.id);
    expect((await q.enqueueMany([{ group: 'a', payload: 1, options: { key: 'k1' } }]))[0]?.id).toBe(
      first.id,
    );
    // A claimed job's retry goes back to its lane though the group is at its bound again.
    const claimed = (await q.claim()) as Job;
    await q.enqueue('a', 3);
    await q.retry(claimed.id, claimed.token as string, { error: 'again' });
    expect((await q.counts()).pending).toBe(2);
    // Promotion of the delayed job is not refused either.
    await q.promote(later.id);
    expect((await q.counts()).pending).toBe(3);
  });

  it('requeueDead of dead jobs, an operator’s action, is not refused', async () => {
    const q = engine.queue();
    await q.enqueue('c', 1, { maxAttempts: 1 });
    await q.enqueue('c', 2, { maxAttempts: 1 });
    for (let i = 0; i < 2; i++) {
      const c = (await q.claim()) as Job;
      await q.retry(c.id, c.token as string, { error: 'x' });
    }
    expect((await q.counts()).dead).toBe(2);
    await q.setMaxPending('c', 1);
    expect((await q.requeueDead({ group: 'c' })).count).toBe(2);
    expect((await q.group('c')).pending).toBe(2);
    expect((await refusal(q.enqueue('c', 3))).code).toBe('GROUP_FULL');
  });

  it('records setMaxPending and setDefaultMaxPending in the steering history, once per change', async () => {
    const q = engine.queue();
    await q.setMaxPending('a', 5, { actor: 'ops' });
    await q.setMaxPending('a', 5, { actor: 'ops' });
    await q.setMaxPending('a', null);
    await q.setDefaultMaxPending(7);
    const page = await q.history();
    expect(page.entries.map((e) => [e.action, e.group, e.before, e.after]).reverse()).toEqual([
      ['setMaxPending', 'a', { maxPending: null }, { maxPending: 5 }],
      ['setMaxPending', 'a', { maxPending: 5 }, { maxPending: null }],
      ['setDefaultMaxPending', '', { maxPending: null }, { maxPending: 7 }],
    ]);
  });

  it('a group with a bound of its own is set: the reaper does not forget it', async () => {
    const q = engine.queue();
    await q.setMaxPending('bounded', 4);
    await q.setMaxPending('cleared', 4);
    await q.setMaxPending('cleared', null);
    await q.reap({ groupGraceMs: 0 });
    expect(await q.redis.zrange(q.keys.groups, 0, -1)).toEqual(['bounded']);
    expect((await q.group('bounded')).maxPending).toBe(4);
  });

  it('refuses a bad bound with BAD_USER_INPUT, writing nothing', async () => {
    const q = engine.queue();
    for (const bad of [-1, 1.5, 1_000_000_001, '3', Number.NaN]) {
      const e = await refusal(q.setMaxPending('a', bad as number));
      expect([e.code, e.argument]).toEqual(['BAD_USER_INPUT', 'maxPending']);
      const d = await refusal(q.setDefaultMaxPending(bad as number));
      expect([d.code, d.argument]).toEqual(['BAD_USER_INPUT', 'maxPending']);
    }
    expect(await q.redis.exists(q.keys.maxPending)).toBe(0);
  });
});
