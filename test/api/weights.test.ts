/**
 * Weights over HTTP (DESIGN.md §3 "Weights", §4.3): `setWeight` (admin) answers the group
 * after, `Group.weight` reads it, the claims follow it, and bad input is BAD_USER_INPUT with
 * nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ClaimDocument,
  GroupWeightChangedDocument,
  GroupWeightDocument,
  SetWeightDocument,
} from '../gql/graphql.js';
import { expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { dataOf, wsSubscribe } from '../support/live.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('setWeight', () => {
  it('sets the weight, answers the group, and the claims follow it', async () => {
    const queue = uniqueQueueName('weights');
    const e = api.server.engine.queue(queue);
    for (const g of ['a', 'b']) for (let i = 0; i < 5; i++) await e.enqueue(g, i);
    const data = ok(await api.request(SetWeightDocument, { queue, group: 'a', weight: 3 }));
    expect(data.setWeight).toEqual({ id: 'a', weight: 3, pending: 5, onRing: true });
    const read = ok(await api.request(GroupWeightDocument, { queue, group: 'a' }));
    expect(read.queue.group).toEqual({ id: 'a', weight: 3 });
    expect(ok(await api.request(GroupWeightDocument, { queue, group: 'b' })).queue.group).toEqual({
      id: 'b',
      weight: 1,
    });
    const served: string[] = [];
    for (let i = 0; i < 5; i++) {
      const claim = ok(await api.request(ClaimDocument, { queue, leaseMs: 60_000 }));
      served.push(claim.claim?.group as string);
    }
    expect(served).toEqual(['a', 'a', 'a', 'b', 'a']);
    expect(
      ok(await api.request(SetWeightDocument, { queue, group: 'a', weight: 1 })).setWeight?.weight,
    ).toBe(1);
    expect(await r.hexists(e.keys.weight, 'a')).toBe(0);
    // recorded in the history as the caller (auth off: admin)
    const entries = await r.xrange(e.keys.history, '-', '+');
    expect(entries.map(([, f]) => [f[1], f[5]])).toEqual([
      ['setWeight', 'admin'],
      ['setWeight', 'admin'],
    ]);
  });

  it.each([
    [0, 'weight'],
    [1001, 'weight'],
    [-3, 'weight'],
  ])('refuses weight %s with BAD_USER_INPUT, writing nothing', async (weight, argument) => {
    const queue = uniqueQueueName('weights-bad');
    await api.server.engine.queue(queue).enqueue('a');
    const response = await expectRedisUnchanged(r, () =>
      api.request(SetWeightDocument, { queue, group: 'a', weight }),
    );
    expectNoLeak(JSON.stringify(response.body));
    expect(response.body.data?.setWeight).toBeNull();
    const extensions = response.body.errors?.[0]?.extensions as Record<string, unknown>;
    expect(extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument });
  });

  it('refuses an empty group with BAD_USER_INPUT', async () => {
    const queue = uniqueQueueName('weights-bad');
    const response = await expectRedisUnchanged(r, () =>
      api.request(SetWeightDocument, { queue, group: '', weight: 2 }),
    );
    const extensions = response.body.errors?.[0]?.extensions as Record<string, unknown>;
    expect(extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'group' });
  });
});

describe('groupChanged', () => {
  it('sends the group again when its weight changes', async () => {
    const queue = uniqueQueueName('weights-live');
    await api.server.engine.queue(queue).enqueue('g');
    const sub = wsSubscribe(api.ws(), GroupWeightChangedDocument, { queue, group: 'g' });
    const next = async () => dataOf(await sub.events.next()).groupChanged;
    expect(await next()).toEqual({ id: 'g', weight: 1, pending: 1 });
    ok(await api.request(SetWeightDocument, { queue, group: 'g', weight: 4 }));
    expect(await next()).toEqual({ id: 'g', weight: 4, pending: 1 });
    sub.close();
  });
});
