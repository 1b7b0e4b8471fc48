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
    expect(read.group).toMatchObject({ id: 'c', reserve: 0, blockedBy: null });
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
    expect(ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 })).claim).not.toBeNull();
    const actions = (await r.xrange(e.keys.history, '-', '+')).map(([, f]) => f[1]);
    expect(actions).toEqual(['setQueueLimit', 'setReserve', 'setReserve', 'clearQueueLimit']);
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
});
