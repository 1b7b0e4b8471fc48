/**
 * `Queue.completeAndClaim` is exactly `complete` followed by `claim`, in one script: the same
 * rota, the same permits, the same wake, and the claim still happens when the completion is
 * refused.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, type Queue, RingmasterError } from '../src/lanes/index.js';
import { rawState, useEngine } from './support/lanes.js';

const engine = useEngine();

/** Raw state without what differs run to run (tokens, times). */
async function shape(q: Queue) {
  const { active, ...rest } = await rawState(q);
  return { ...rest, active: [...active].sort() };
}

async function seed(q: Queue): Promise<Job> {
  await q.setLimit('a', 1);
  await q.enqueue('a', { n: 1 });
  await q.enqueue('a', { n: 2 });
  await q.enqueue('b', { n: 3 });
  return (await q.claim()) as Job;
}

describe('completeAndClaim', () => {
  it('leaves Redis as complete then claim would, and returns both jobs', async () => {
    const one = engine.queue();
    const two = engine.queue();
    const j1 = await seed(one);
    const j2 = await seed(two);

    const done = await one.complete(j1.id, j1.token as string);
    const next = await one.claim();
    const both = await two.completeAndClaim(j2.id, j2.token as string);

    expect(both.completed).toMatchObject({ id: done.id, state: 'COMPLETED', group: 'a' });
    expect(both.next).toMatchObject({ id: next?.id, group: next?.group, state: 'ACTIVE' });
    expect(await shape(two)).toEqual(await shape(one));
  });

  it('re-rings a group the completion frees, in rota order, with its wake', async () => {
    const q = engine.queue();
    const j = await seed(q); // a at its limit: ring [b]
    await engine.redis().del(q.keys.wake);
    const { completed, next } = await q.completeAndClaim(j.id, j.token as string);
    expect(completed).toMatchObject({ state: 'COMPLETED' });
    // b was the head; a re-joined behind it on completion.
    expect(next?.group).toBe('b');
    const state = await rawState(q);
    expect(state.ring).toEqual(['a']);
    expect(state.wake).toBe(1);
    expect(state.gactive).toEqual({ b: '1' });
  });

  it('still claims when the completion is refused, and reports why', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const stale = await q.completeAndClaim(j.id, 'not-the-token');
    expect(stale.completed).toBeInstanceOf(RingmasterError);
    expect((stale.completed as RingmasterError).code).toBe(ErrorCode.LEASE_LOST);
    expect(stale.next?.group).toBe('b');
    // a still holds its permit: the refused completion changed nothing.
    expect((await rawState(q)).gactive).toEqual({ a: '1', b: '1' });

    const missing = await q.completeAndClaim('424242', 'tok');
    expect((missing.completed as RingmasterError).code).toBe(ErrorCode.JOB_NOT_FOUND);
    expect(missing.next).toBeNull();
  });

  it('rejects bad input before touching Redis', async () => {
    const q = engine.queue();
    const j = await seed(q);
    const before = await rawState(q);
    await expect(q.completeAndClaim(j.id, '')).rejects.toMatchObject({
      code: ErrorCode.BAD_USER_INPUT,
    });
    await expect(q.completeAndClaim(j.id, j.token as string, { leaseMs: 0 })).rejects.toMatchObject(
      { code: ErrorCode.BAD_USER_INPUT },
    );
    expect(await rawState(q)).toEqual(before);
  });
});
