/**
 * `GROUP_GRACE_MS` reaches the server's reaper (DESIGN.md §3 "Forgetting groups", §6): with 0,
 * a group that holds nothing leaves the groups page at the next pass; a group with a limit on
 * it stays.
 */
import { describe, expect, it } from 'vitest';
import { pollUntil, uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { useTestServer } from '../support/server.js';

const redis = useTestRedis();

describe('GROUP_GRACE_MS', () => {
  const api = useTestServer({ REAP_INTERVAL_MS: '20', GROUP_GRACE_MS: '0' }, { redis });

  it('0: the server reaper forgets an idle, unset group at its next pass', async () => {
    const q = api.server.engine.queue(uniqueQueueName('grace'));
    await q.setRetention({ completed: { count: 0 } });
    await q.setLimit('kept', 2);
    await q.enqueue('gone');
    const job = await q.claim();
    expect(job?.group).toBe('gone');
    await q.complete(job?.id as string, job?.token as string);
    await pollUntil('the idle group forgotten', async () => (await q.groups()).totalCount === 1);
    expect((await q.groups()).groups.map((g) => g.id)).toEqual(['kept']);
  });
});
