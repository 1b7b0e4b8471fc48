/**
 * The queue's cap and the groups' reserves over HTTP (DESIGN.md §3 "The queue's cap and
 * reserves", §4.2, §4.3): `setQueueLimit` / `clearQueueLimit` answer the queue, `setReserve` the
 * group; `Queue.limit`, `active`, `reserved` and `Group.reserve` read them; the claims follow the
 * cap; `Group.reason` says when the cap holds a group back; bad input is BAD_USER_INPUT with
 * nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimDocument,
  ClearQueueLimitDocument,
  GroupCapBlockChangedDocument,
  GroupReserveChangedDocument,
  QueueCapDocument,
  QueueCapOverrideDocument,
  SetQueueLimitDocument,
  SetReserveDocument,
} from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('setQueueLimit, clearQueueLimit, setReserve', () => {
  it('caps the claims, reads back, and explains a group held back', async () => {
    const queue = uniqueQueueName('cap');
    const e = api.server.engine.queue(queue);
    for (const g of ['b', 'c', 'a']) for (let i = 0; i < 3; i++) await e.enqueue(g, i);
    const set = ok(await api.request(SetQueueLimitDocument, { queue, limit: 2 }));
    expect(set.setQueueLimit).toEqual({ name: queue, limit: 2, active: 0, reserved: 0 });
    expect(
      ok(await api.request(SetReserveDocument, { queue, group: 'a', reserve: 1 })).setReserve,
    ).toEqual({ id: 'a', reserve: 1, limit: null });
    const claimed: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      claimed.push(ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 })).claim?.group);
    }
    expect(claimed).toEqual(['b', 'a', undefined]);
    const read = ok(await api.request(QueueCapDocument, { queue, group: 'c' })).queue;
    expect(read).toMatchObject({ limit: 2, active: 2, reserved: 1 });
    expect(read.group).toMatchObject({
      id: 'c',
      state: 'READY',
      reserve: 0,
      blockedBy: 'QUEUE_LIMIT',
    });
    expect(read.group.reason).toMatch(
      /^waiting for a permit: the queue is at its cap, 2 of 2; on the ring at position \d of 3$/,
    );
    const a = ok(await api.request(QueueCapDocument, { queue, group: 'a' })).queue.group;
    expect(a.reason).toMatch(/its reserve of 1 is in flight, so it waits its turn on the ring/);
    await api.server.engine.queue(queue).setReserve('c', 1);
    const c = ok(await api.request(QueueCapDocument, { queue, group: 'c' })).queue.group;
    expect(c.reason).toBe(
      'waiting for a permit: the queue is at its cap, 2 of 2; it holds a reserve of 1, so it gets the next one',
    );
    const cleared = ok(await api.request(ClearQueueLimitDocument, { queue })).clearQueueLimit;
    expect(cleared).toEqual({ name: queue, limit: null, active: 2 });
    const free = ok(await api.request(QueueCapDocument, { queue, group: 'c' })).queue.group;
    expect(free.reason).toMatch(/^on the ring at position/);
    expect(free.blockedBy).toBeNull();
    expect(ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 })).claim).not.toBeNull();
    const actions = (await r.xrange(e.keys.history, '-', '+')).map(([, f]) => f[1]);
    expect(actions).toEqual(['setQueueLimit', 'setReserve', 'setReserve', 'clearQueueLimit']);
  });

  it("says QUEUE_LIMIT after the group's own blockers and before LEVEL", async () => {
    const queue = uniqueQueueName('cap-blocked');
    const e = api.server.engine.queue(queue);
    for (let i = 0; i < 2; i++) await e.enqueue('urgent', i, { priority: 1 });
    await e.enqueue('late', 0, { priority: 8 });
    expect((await e.claim({ leaseMs: 60_000 }))?.group).toBe('urgent');
    const blocked = async (group: string) =>
      ok(await api.request(QueueCapDocument, { queue, group })).queue.group;
    expect(await blocked('late')).toMatchObject({ state: 'READY', blockedBy: 'LEVEL' });
    // At the cap no level is served: both wait for a permit, the level behind it.
    await e.setQueueLimit(1);
    for (const group of ['urgent', 'late']) {
      expect(await blocked(group)).toMatchObject({ state: 'READY', blockedBy: 'QUEUE_LIMIT' });
    }
    expect((await blocked('late')).reason).toMatch(/^waiting for a permit: .*priority level 8/);
    // Over it (lowered below the work in flight) too; the group's own limit goes first.
    await e.setQueueLimit(0);
    await e.setLimit('urgent', 1);
    expect(await blocked('urgent')).toMatchObject({ state: 'SATURATED', blockedBy: 'LIMIT' });
    expect(await blocked('late')).toMatchObject({ blockedBy: 'QUEUE_LIMIT' });
    await e.clearLimit('urgent');
    await e.setQueueLimit(2);
    expect(await blocked('urgent')).toMatchObject({ blockedBy: null });
    expect(await blocked('late')).toMatchObject({ blockedBy: 'LEVEL' });
  });

  it('reads a timed cap as Queue.limitOverride, and null once a plain call drops it', async () => {
    const queue = uniqueQueueName('cap-timed');
    ok(await api.request(SetQueueLimitDocument, { queue, limit: 5 }));
    ok(await api.request(SetQueueLimitDocument, { queue, limit: 1, forMs: 600_000 }));
    const timed = ok(await api.request(QueueCapOverrideDocument, { queue })).queue;
    expect(timed.limit).toBe(1);
    expect(timed.limitOverride).toMatchObject({
      kind: 'LIMIT',
      revertToLimit: 5,
      revertToPaused: null,
    });
    expect(timed.limitOverride?.remainingMs).toBeGreaterThan(590_000);
    expect(timed.limitOverride?.remainingMs).toBeLessThanOrEqual(600_000);
    ok(await api.request(SetQueueLimitDocument, { queue, limit: 3 }));
    const plain = ok(await api.request(QueueCapOverrideDocument, { queue })).queue;
    expect(plain).toEqual({ limit: 3, limitOverride: null });
  });

  it.each([
    [{ limit: -1 }, 'limit'],
    [{ limit: 1, forMs: 0 }, 'forMs'],
  ])('refuses setQueueLimit %j with BAD_USER_INPUT, writing nothing', async (args, argument) => {
    const queue = uniqueQueueName('cap-bad');
    await api.server.engine.queue(queue).enqueue('a');
    const response = await expectRedisUnchanged(r, () =>
      api.request(SetQueueLimitDocument, { queue, ...args }),
    );
    expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument });
  });

  it('refuses a reserve past the cap or the group limit, and a cap below the reserves', async () => {
    const queue = uniqueQueueName('cap-bad');
    const e = api.server.engine.queue(queue);
    await e.setQueueLimit(2);
    await e.setLimit('a', 1);
    await e.setReserve('b', 2);
    for (const [group, reserve] of [
      ['a', 2],
      ['c', 1],
      ['c', -1],
    ] as const) {
      const response = await expectRedisUnchanged(r, () =>
        api.request(SetReserveDocument, { queue, group, reserve }),
      );
      expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'reserve' });
    }
    const response = await expectRedisUnchanged(r, () =>
      api.request(SetQueueLimitDocument, { queue, limit: 1 }),
    );
    expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'limit' });
  });
});

describe('groupChanged', () => {
  it('sends the group again when its reserve changes', async () => {
    const queue = uniqueQueueName('cap-live');
    const e = api.server.engine.queue(queue);
    await e.enqueue('g');
    const sub = wsSubscribe(api.ws(), GroupReserveChangedDocument, { queue, group: 'g' });
    const next = async () => dataOf(await sub.events.next()).groupChanged;
    expect(await next()).toEqual({ id: 'g', reserve: 0 });
    await e.setReserve('g', 2);
    expect(await next()).toEqual({ id: 'g', reserve: 2 });
    sub.close();
  });

  it('sends the group again when the queue reaches its cap, and when the cap lifts', async () => {
    const queue = uniqueQueueName('cap-live');
    const e = api.server.engine.queue(queue);
    for (const g of ['h', 'g']) await e.enqueue(g);
    const sub = wsSubscribe(api.ws(), GroupCapBlockChangedDocument, { queue, group: 'g' });
    // Below the safety re-read's 5 s: only a notification of the cap's change can bring it.
    const next = async () => dataOf(await sub.events.next(2_000)).groupChanged;
    expect(await next()).toMatchObject({ id: 'g', state: 'READY', blockedBy: null });
    await e.setQueueLimit(0);
    expect(await next()).toMatchObject({
      blockedBy: 'QUEUE_LIMIT',
      reason: expect.stringMatching(/^waiting for a permit: the queue is at its cap, 0 of 0/),
    });
    await e.setQueueLimit(1);
    expect(await next()).toMatchObject({ state: 'READY', blockedBy: null });
    // Another group's claim takes the last permit: `g` itself is unchanged.
    expect((await e.claim({ leaseMs: 60_000 }))?.group).toBe('h');
    expect(await next()).toMatchObject({ state: 'READY', blockedBy: 'QUEUE_LIMIT' });
    await e.clearQueueLimit();
    expect(await next()).toMatchObject({ blockedBy: null });
    sub.close();
  });
});
