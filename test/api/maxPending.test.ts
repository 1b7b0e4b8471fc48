/**
 * Backlog bounds over HTTP (DESIGN.md §3 "Backlog bounds", §4.3, §5): `setMaxPending` answers
 * the group, `setDefaultMaxPending` the queue; `Group.maxPending` and `Queue.defaultMaxPending`
 * read them; an enqueue past a bound is GROUP_FULL with HTTP 429 and nothing written, an
 * `enqueueJobs` batch all or nothing; a bad bound is BAD_USER_INPUT with nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  EnqueueDocument,
  EnqueueJobsDocument,
  GroupReasonDocument,
  MaxPendingDocument,
  SetDefaultMaxPendingDocument,
  SetMaxPendingDocument,
} from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('setMaxPending, setDefaultMaxPending', () => {
  it('set, read back and clear a group’s bound and the queue’s default', async () => {
    const queue = uniqueQueueName('mp');
    const set = ok(await api.request(SetMaxPendingDocument, { queue, group: 'a', maxPending: 2 }));
    expect(set.setMaxPending).toEqual({ id: 'a', maxPending: 2, pending: 0 });
    const d = ok(await api.request(SetDefaultMaxPendingDocument, { queue, maxPending: 5 }));
    expect(d.setDefaultMaxPending).toEqual({ name: queue, defaultMaxPending: 5 });
    const read = ok(await api.request(MaxPendingDocument, { queue, group: 'b' })).queue;
    expect(read).toEqual({
      defaultMaxPending: 5,
      group: { id: 'b', maxPending: null, pending: 0 },
    });
    const cleared = ok(
      await api.request(SetMaxPendingDocument, { queue, group: 'a', maxPending: null }),
    );
    expect(cleared.setMaxPending?.maxPending).toBeNull();
    const none = ok(await api.request(SetDefaultMaxPendingDocument, { queue }));
    expect(none.setDefaultMaxPending?.defaultMaxPending).toBeNull();
  });

  it('an enqueue past the bound is GROUP_FULL with HTTP 429 and writes nothing', async () => {
    const queue = uniqueQueueName('mp');
    await api.ok(SetMaxPendingDocument, { queue, group: 'a', maxPending: 1 });
    await api.ok(EnqueueDocument, { queue, group: 'a', payload: 1 });
    const response = await expectRedisUnchanged(r, () =>
      api.request(EnqueueDocument, { queue, group: 'a', payload: 2 }),
    );
    expect(response.status).toBe(429);
    expect(refusal(response)).toEqual({ code: 'GROUP_FULL', argument: 'group' });
    expect(response.body.errors?.[0]?.message).toMatch(/"a" is full: it holds 1 .* bound is 1/);
    // The queue's default applies to a group without its own.
    await api.ok(SetDefaultMaxPendingDocument, { queue, maxPending: 0 });
    const other = await api.request(EnqueueDocument, { queue, group: 'b', payload: 1 });
    expect([other.status, refusal(other).code]).toEqual([429, 'GROUP_FULL']);
  });

  it('an empty group under a bound of 0, its own or the queue’s, says no enqueue can give it a turn', async () => {
    const queue = uniqueQueueName('mp');
    const reason = async () =>
      ok(await api.request(GroupReasonDocument, { queue, group: 'a' })).queue.group?.reason;
    await api.ok(SetMaxPendingDocument, { queue, group: 'a', maxPending: 0 });
    expect(await reason()).toBe(
      'empty: nothing is waiting or in flight; its backlog bound is 0, so every enqueue is refused until the bound is raised',
    );
    await api.ok(SetMaxPendingDocument, { queue, group: 'a', maxPending: null });
    await api.ok(SetDefaultMaxPendingDocument, { queue, maxPending: 0 });
    expect(await reason()).toMatch(/its backlog bound is 0, so every enqueue is refused/);
    await api.ok(SetDefaultMaxPendingDocument, { queue });
    expect(await reason()).toBe(
      'empty: nothing is waiting or in flight; it gets a turn when a job is enqueued',
    );
  });

  it('an enqueueJobs batch that would pass a bound writes no job of it', async () => {
    const queue = uniqueQueueName('mp');
    await api.ok(SetMaxPendingDocument, { queue, group: 'a', maxPending: 2 });
    const jobs = [
      { group: 'b', payload: 1 },
      { group: 'a', payload: 1 },
      { group: 'a', payload: 2, delayMs: 60_000 },
      { group: 'a', payload: 3 },
    ];
    const response = await expectRedisUnchanged(r, () =>
      api.request(EnqueueJobsDocument, { queue, jobs }),
    );
    expect([response.status, refusal(response).code]).toEqual([429, 'GROUP_FULL']);
    const fits = ok(await api.request(EnqueueJobsDocument, { queue, jobs: jobs.slice(0, 3) }));
    expect(fits.enqueueJobs).toHaveLength(3);
    const read = ok(await api.request(MaxPendingDocument, { queue, group: 'a' })).queue.group;
    expect(read).toEqual({ id: 'a', maxPending: 2, pending: 1 });
  });

  it('a bad bound is BAD_USER_INPUT `maxPending`, nothing written', async () => {
    const queue = uniqueQueueName('mp');
    for (const maxPending of [-1, 1_000_000_001]) {
      const g = await expectRedisUnchanged(r, () =>
        api.request(SetMaxPendingDocument, { queue, group: 'a', maxPending }),
      );
      expect(refusal(g)).toEqual({ code: 'BAD_USER_INPUT', argument: 'maxPending' });
      const d = await expectRedisUnchanged(r, () =>
        api.request(SetDefaultMaxPendingDocument, { queue, maxPending }),
      );
      expect(refusal(d)).toEqual({ code: 'BAD_USER_INPUT', argument: 'maxPending' });
    }
  });
});
