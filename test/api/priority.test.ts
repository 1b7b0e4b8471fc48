/**
 * Priorities over HTTP (DESIGN.md §3 "Priorities", §4.2, §4.3): `enqueue(priority)` and
 * `EnqueueJobInput.priority`, `Job.priority` on every job (a claimed one read again by id), and
 * `changeJobPriority` (admin): a pending job moved at once, other states answered unchanged,
 * JOB_NOT_FOUND and BAD_USER_INPUT `priority` with nothing written; across groups (§3
 * "Levels"), claims served by level, strictly, and a group behind a more urgent level told so.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ChangeJobPriorityDocument,
  ClaimPriorityDocument,
  EnqueueJobsWithPriorityDocument,
  EnqueueWithPriorityDocument,
  GroupLevelsDocument,
  PendingPrioritiesDocument,
} from '../gql/graphql.js';
import { codes, expectRedisUnchanged } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('enqueue and enqueueJobs with a priority', () => {
  it('runs the lane by priority, FIFO within one; Job.priority on every answer', async () => {
    const queue = uniqueQueueName('prio');
    const a = ok(await api.request(EnqueueWithPriorityDocument, { queue, group: 'g' })).enqueue;
    const b = ok(
      await api.request(EnqueueWithPriorityDocument, { queue, group: 'g', priority: 9 }),
    ).enqueue;
    const [c, d] =
      ok(
        await api.request(EnqueueJobsWithPriorityDocument, {
          queue,
          jobs: [
            { group: 'g', priority: 1 },
            { group: 'g', priority: null },
          ],
        }),
      ).enqueueJobs ?? [];
    expect([a, b, c, d].map((j) => j?.priority)).toEqual([5, 9, 1, 5]);

    const read = ok(await api.request(PendingPrioritiesDocument, { queue, group: 'g' })).queue;
    expect(read.group.jobs.edges.map((e) => [e.node.id, e.node.priority])).toEqual([
      [c?.id, 1],
      [a?.id, 5],
      [d?.id, 5],
      [b?.id, 9],
    ]);
    expect(read.job?.priority).toBe(5);

    const claimed: (number | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      claimed.push(ok(await api.request(ClaimPriorityDocument, { queue })).claim?.priority);
    }
    expect(claimed).toEqual([1, 5, 5, 9]);
  });

  it('refuses a priority out of range with BAD_USER_INPUT naming it, nothing written', async () => {
    const queue = uniqueQueueName('prio');
    await expectRedisUnchanged(r, async () => {
      const one = await api.request(EnqueueWithPriorityDocument, {
        queue,
        group: 'g',
        priority: 0,
      });
      expect(codes(one.body as never)).toEqual(['BAD_USER_INPUT']);
      expect(one.body.errors?.[0]?.extensions?.argument).toBe('priority');
      const many = await api.request(EnqueueJobsWithPriorityDocument, {
        queue,
        jobs: [{ group: 'g' }, { group: 'g', priority: 10 }],
      });
      expect(codes(many.body as never)).toEqual(['BAD_USER_INPUT']);
      expect(many.body.errors?.[0]?.extensions?.argument).toBe('jobs[1].priority');
    });
  });
});

describe('changeJobPriority', () => {
  it('moves a pending job at once, keeps a delayed one for later, answers others unchanged', async () => {
    const queue = uniqueQueueName('prio');
    const q = api.server.engine.queue(queue);
    const a = await q.enqueue('g');
    const b = await q.enqueue('g');
    const later = await q.enqueue('g', null, { delayMs: 3_600_000 });
    const moved = ok(
      await api.request(ChangeJobPriorityDocument, { queue, id: b.id, priority: 2 }),
    ).changeJobPriority;
    expect(moved).toEqual({ id: b.id, group: 'g', state: 'PENDING', priority: 2 });
    expect(await r.zrange(q.keys.lane('g'), 0, -1)).toEqual([b.id, a.id]);
    const delayed = ok(
      await api.request(ChangeJobPriorityDocument, { queue, id: later.id, priority: 8 }),
    ).changeJobPriority;
    expect(delayed).toMatchObject({ state: 'DELAYED', priority: 8 });

    const active = await q.claim();
    expect(active?.id).toBe(b.id);
    await expectRedisUnchanged(r, async () => {
      const same = ok(
        await api.request(ChangeJobPriorityDocument, { queue, id: b.id, priority: 9 }),
      ).changeJobPriority;
      expect(same).toEqual({ id: b.id, group: 'g', state: 'ACTIVE', priority: 2 });
      const missing = await api.request(ChangeJobPriorityDocument, {
        queue,
        id: '987654321',
        priority: 1,
      });
      expect(codes(missing.body as never)).toEqual(['JOB_NOT_FOUND']);
      const bad = await api.request(ChangeJobPriorityDocument, { queue, id: a.id, priority: 10 });
      expect(codes(bad.body as never)).toEqual(['BAD_USER_INPUT']);
      expect(bad.body.errors?.[0]?.extensions?.argument).toBe('priority');
    });
  });
});

describe('priority across groups', () => {
  it('serves the most urgent level first, each level in its rota, and says who waits behind', async () => {
    const queue = uniqueQueueName('levels');
    ok(
      await api.request(EnqueueJobsWithPriorityDocument, {
        queue,
        jobs: [
          { group: 'low', priority: 9 },
          { group: 'a' },
          { group: 'b' },
          { group: 'urgent', priority: 1 },
          { group: 'urgent', priority: 1 },
          { group: 'a' },
        ],
      }),
    );
    const before = ok(await api.request(GroupLevelsDocument, { queue })).queue;
    expect(before.ring).toEqual(['urgent', 'a', 'b', 'low']);
    const groups = new Map(before.groups.edges.map((e) => [e.node.id, e.node]));
    expect(groups.get('urgent')?.blockedBy).toBeNull();
    expect(groups.get('a')?.blockedBy).toBe('LEVEL');
    expect(groups.get('low')?.blockedBy).toBe('LEVEL');
    expect(groups.get('a')?.reason).toMatch(/level 5.*more urgent level \(1\)/);

    const served: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) {
      served.push(ok(await api.request(ClaimPriorityDocument, { queue })).claim?.group);
    }
    expect(served).toEqual(['urgent', 'urgent', 'a', 'b', 'a', 'low', undefined]);
  });

  it('under the queue cap, a group behind a more urgent level is told both, the cap first', async () => {
    const queue = uniqueQueueName('levels-cap');
    const e = api.server.engine.queue(queue);
    await e.setQueueLimit(1);
    await e.enqueue('x', 0);
    expect((await e.claim())?.group).toBe('x');
    await e.enqueue('c', 0, { priority: 3 });
    await e.enqueue('d', 0, { priority: 8 });
    const read = ok(await api.request(GroupLevelsDocument, { queue })).queue;
    const d = read.groups.edges.find((edge) => edge.node.id === 'd')?.node;
    // At the cap no level is served: the cap is the blocker named (DESIGN.md §4.2).
    expect(d?.blockedBy).toBe('QUEUE_LIMIT');
    expect(d?.reason).toBe(
      'waiting for a permit: the queue is at its cap, 1 of 1; on the ring at position 2 of 2, at priority level 8: a more urgent level (3) is served first while it has a group ready',
    );
  });
});
