/**
 * `Group.known` over HTTP (DESIGN.md §4.2): whether the queue has seen the group. A read of a
 * group never named says false and registers nothing; a steering mutation's answer says whether
 * the group was known before the call (the call itself registers it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GroupKnownDocument,
  PauseGroupKnownDocument,
  SetWeightKnownDocument,
} from '../gql/graphql.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { type GraphQLResponse, startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
});
afterAll(async () => {
  await api?.stop();
});

function ok<T>(response: GraphQLResponse<T>): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  return response.body.data as T;
}

const known = async (queue: string, group: string) =>
  ok(await api.request(GroupKnownDocument, { queue, group })).queue.group.known;

describe('Group.known', () => {
  it('is true for a group with jobs, false for one never named (and reading it registers nothing)', async () => {
    const queue = uniqueQueueName('known');
    await api.server.engine.queue(queue).enqueue('orders', {});
    expect(await known(queue, 'orders')).toBe(true);
    expect(await known(queue, 'ordrs')).toBe(false);
    expect(await known(queue, 'ordrs')).toBe(false);
  });

  it("a steering mutation's answer says whether the group was known before the call", async () => {
    const queue = uniqueQueueName('known');
    await api.server.engine.queue(queue).enqueue('orders', {});
    const first = ok(await api.request(PauseGroupKnownDocument, { queue, group: 'nobody-typo' }));
    expect(first.pauseGroup).toEqual({ id: 'nobody-typo', paused: true, known: false });
    // The call registered it: known from then on, to reads and to the next call's answer.
    expect(await known(queue, 'nobody-typo')).toBe(true);
    const again = ok(await api.request(PauseGroupKnownDocument, { queue, group: 'nobody-typo' }));
    expect(again.pauseGroup?.known).toBe(true);
    const seen = ok(
      await api.request(SetWeightKnownDocument, { queue, group: 'orders', weight: 2 }),
    );
    expect(seen.setWeight).toEqual({ id: 'orders', weight: 2, known: true });
    const fresh = ok(
      await api.request(SetWeightKnownDocument, { queue, group: 'fresh', weight: 2 }),
    );
    expect(fresh.setWeight?.known).toBe(false);
  });
});
