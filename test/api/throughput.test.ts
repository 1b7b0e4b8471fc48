/**
 * `Queue.throughput(minutes)` over HTTP (DESIGN.md §3 "Throughput history", §4.2): per-minute
 * `{ at, enqueued, claimed, completed, failed }` from the history the scripts keep, oldest
 * first, ending with the current minute; zeros for quiet minutes; a bad `minutes` is
 * BAD_USER_INPUT with nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { ThroughputDocument } from '../gql/graphql.js';
import { expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { redisNow, uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
const MINUTE = 60_000;
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('Queue.throughput', () => {
  it('answers the events of each kind per minute, oldest first, the last the current minute', async () => {
    const queue = uniqueQueueName('throughput');
    const e = api.server.engine.queue(queue);
    for (let i = 0; i < 4; i++) await e.enqueue('a', { i }, { maxAttempts: 2 });
    const one = await e.claim();
    const two = await e.claim();
    if (!one || !two) throw new Error('expected two jobs');
    await e.complete(one.id, one.token as string);
    await e.retry(two.id, two.token as string, 'boom');

    for (;;) {
      const before = await redisNow(r);
      const data = ok(await api.request(ThroughputDocument, { queue, minutes: 3 }));
      const after = await redisNow(r);
      if (Math.floor(before / MINUTE) !== Math.floor(after / MINUTE)) continue;
      const points = data.queue.throughput;
      const current = Math.floor(before / MINUTE) * MINUTE;
      expect(points.map((p) => p.at)).toEqual(
        [2, 1, 0].map((ago) => new Date(current - ago * MINUTE).toISOString()),
      );
      const sum = { enqueued: 0, claimed: 0, completed: 0, failed: 0 };
      for (const p of points) {
        sum.enqueued += p.enqueued;
        sum.claimed += p.claimed;
        sum.completed += p.completed;
        sum.failed += p.failed;
      }
      expect(sum).toEqual({ enqueued: 4, claimed: 2, completed: 1, failed: 1 });
      break;
    }
  });

  it('defaults to the last hour, zeros where nothing happened', async () => {
    const queue = uniqueQueueName('throughput-quiet');
    const data = ok(await api.request(ThroughputDocument, { queue }));
    expect(data.queue.throughput).toHaveLength(60);
    for (const p of data.queue.throughput) {
      expect(p).toMatchObject({ enqueued: 0, claimed: 0, completed: 0, failed: 0 });
    }
    // An explicit null is the default too.
    const nulled = ok(await api.request(ThroughputDocument, { queue, minutes: null }));
    expect(nulled.queue.throughput).toHaveLength(60);
    const day = ok(await api.request(ThroughputDocument, { queue, minutes: 1_440 }));
    expect(day.queue.throughput).toHaveLength(1_440);
  });

  it.each([0, -5, 1_441])(
    'refuses minutes %s with BAD_USER_INPUT, writing nothing',
    async (minutes) => {
      const queue = uniqueQueueName('throughput-bad');
      await api.server.engine.queue(queue).enqueue('a');
      const response = await expectRedisUnchanged(r, () =>
        api.request(ThroughputDocument, { queue, minutes }),
      );
      expectNoLeak(JSON.stringify(response.body));
      const extensions = response.body.errors?.[0]?.extensions as Record<string, unknown>;
      expect(extensions).toMatchObject({ code: 'BAD_USER_INPUT', argument: 'minutes' });
    },
  );
});
