/**
 * `Queue.topGroups(by, first)` over HTTP (DESIGN.md §3 "Group rankings", §4.2): each ranking
 * in its order after enqueues, claims, completions, retries and removals, ties in group order,
 * `first` 10 by default and 1..100, bad input BAD_USER_INPUT with nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { TopGroupsDefaultDocument, TopGroupsDocument } from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

type By = 'PENDING' | 'OLDEST_PENDING' | 'ACTIVE';

async function top(queue: string, by: By, first?: number) {
  const data = ok(
    await api.request(TopGroupsDocument, { queue, by, ...(first === undefined ? {} : { first }) }),
  );
  return data.queue.topGroups;
}
const ids = async (queue: string, by: By, first?: number) =>
  (await top(queue, by, first)).map((g) => g.id);

describe('Queue.topGroups', () => {
  it('ranks by pending, oldest pending and active, and follows claims, completions, retries and removals', async () => {
    const queue = uniqueQueueName('top');
    const e = api.server.engine.queue(queue);
    // Enqueue order: c first (oldest), then b, then a; a gets the most, b and d tie.
    await e.enqueue('c', 0);
    for (let i = 0; i < 2; i++) await e.enqueue('b', i);
    for (let i = 0; i < 4; i++) await e.enqueue('a', i);
    for (let i = 0; i < 2; i++) await e.enqueue('d', i);

    expect(await ids(queue, 'PENDING')).toEqual(['a', 'b', 'd', 'c']);
    expect(await ids(queue, 'OLDEST_PENDING')).toEqual(['c', 'b', 'a', 'd']);
    expect(await ids(queue, 'ACTIVE')).toEqual([]);
    const [first] = await top(queue, 'OLDEST_PENDING', 1);
    expect(first).toMatchObject({ id: 'c', pending: 1, active: 0, state: 'READY' });
    const enqueuedAt = Number(await r.hget(e.keys.job('1'), 'enqueuedAt'));
    expect(first?.oldestPendingAt).toBe(new Date(enqueuedAt).toISOString());

    // The ring's order: c, b, a, d — one claim each, then one more of c's lane (empty now).
    const claimed = [];
    for (let i = 0; i < 4; i++) claimed.push(await e.claim({ leaseMs: 60_000 }));
    expect(claimed.map((j) => j?.group)).toEqual(['c', 'b', 'a', 'd']);
    expect(await ids(queue, 'PENDING')).toEqual(['a', 'b', 'd']);
    expect(await ids(queue, 'OLDEST_PENDING')).toEqual(['b', 'a', 'd']);
    // Ties (one active each) in group order.
    expect(await ids(queue, 'ACTIVE')).toEqual(['a', 'b', 'c', 'd']);

    const claimedA = claimed[2];
    const claimedC = claimed[0];
    await e.complete(claimedC?.id as string, claimedC?.token as string);
    await e.retry(claimedA?.id as string, claimedA?.token as string, { error: 'x', delayMs: 0 });
    // a: back to 4 pending (its retried job first again), none active; c gone from both.
    expect(await top(queue, 'PENDING')).toEqual([
      expect.objectContaining({ id: 'a', pending: 4, active: 0 }),
      expect.objectContaining({ id: 'b', pending: 1, active: 1 }),
      expect.objectContaining({ id: 'd', pending: 1, active: 1 }),
    ]);
    expect(await ids(queue, 'OLDEST_PENDING')).toEqual(['b', 'a', 'd']);
    expect(await ids(queue, 'ACTIVE')).toEqual(['b', 'd']);

    await e.purgeGroup('a');
    expect(await ids(queue, 'PENDING')).toEqual(['b', 'd']);
    expect(await ids(queue, 'OLDEST_PENDING')).toEqual(['b', 'd']);
    expect(await ids(queue, 'PENDING', 1)).toEqual(['b']);
  });

  it('answers 10 groups by default, up to 100, whatever the number of groups', async () => {
    const queue = uniqueQueueName('top');
    const e = api.server.engine.queue(queue);
    const groups = Array.from({ length: 120 }, (_, i) => `g${String(i).padStart(3, '0')}`);
    await e.enqueueMany(groups.map((group, i) => ({ group, payload: i })));
    // g119 gets the most, then g118, …: the rest tie at 1, in group order.
    for (let i = 0; i < 3; i++) await e.enqueue('g119', i);
    await e.enqueue('g118', 0);
    const byDefault = ok(await api.request(TopGroupsDefaultDocument, { queue, by: 'PENDING' }));
    expect(byDefault.queue.topGroups.map((g) => g.id)).toEqual([
      'g119',
      'g118',
      ...groups.slice(0, 8),
    ]);
    expect(await ids(queue, 'PENDING', 100)).toHaveLength(100);
    expect(await ids(queue, 'OLDEST_PENDING', 100)).toEqual(groups.slice(0, 100));
  });

  it('refuses a `first` out of 1..100 and a ranking it does not know, writing nothing', async () => {
    const queue = uniqueQueueName('top');
    await api.server.engine.queue(queue).enqueue('a', 0);
    for (const first of [0, 101, -1]) {
      const response = await expectRedisUnchanged(r, () =>
        api.request(TopGroupsDocument, { queue, by: 'PENDING', first }),
      );
      expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'first' });
    }
    const response = await api.request(TopGroupsDocument, {
      queue,
      by: 'BIGGEST' as By,
    });
    expect(refusal(response).code).toBe('BAD_USER_INPUT');
  });
});
