/**
 * `Queue.jobs` and `Group.jobs` over HTTP (DESIGN.md §4.2): a Relay connection of the
 * jobs in one state — PENDING in run order (a group required), DELAYED by run-at time, ACTIVE by
 * lease deadline, DEAD and COMPLETED newest first — paged with opaque cursors, `totalCount`,
 * `hasNextPage` and `endCursor`, checked against the engine's indexes read with plain Redis
 * commands; a cursor whose job has left the state still pages on; and `Queue.counts`,
 * `Queue.stats`, `Queue.state` and `Queue.retention`'s new fields.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  GroupJobsDocument,
  type JobPageFieldsFragment,
  type JobState,
  QueueJobsDocument,
  QueueTotalsDocument,
} from '../gql/graphql.js';
import { codes, expectNoLeak, post } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { type GraphQLResponse, ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

async function page(
  queue: string,
  state: JobState,
  options: { group?: string; first?: number; after?: string | null } = {},
): Promise<JobPageFieldsFragment> {
  return ok(await api.request(QueueJobsDocument, { queue, state, ...options })).queue.jobs;
}

/** Every job id in `state`, walking the pages `first` at a time. */
async function walk(queue: string, state: JobState, group?: string, first = 2): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const p: JobPageFieldsFragment = await page(queue, state, {
      ...(group === undefined ? {} : { group }),
      first,
      after,
    });
    ids.push(...p.edges.map((e) => e.node.id));
    expect(p.pageInfo.endCursor).toBe(p.edges.at(-1)?.cursor ?? null);
    if (!p.pageInfo.hasNextPage) return ids;
    after = p.pageInfo.endCursor;
  }
}

/** A queue with jobs in every state: pending in a and b, delayed, active, dead, completed. */
async function seeded(): Promise<{ q: string; ids: Record<string, string[]> }> {
  const q = uniqueQueueName('lists');
  const e = engineQueue(q);
  const ids: Record<string, string[]> = {
    a: [],
    b: [],
    delayed: [],
    active: [],
    dead: [],
    done: [],
  };
  // Two to complete, two to die, two to hold active (claimed first: the ring serves a first).
  for (let i = 0; i < 6; i++) ids.a?.push((await e.enqueue('a', { i }, { maxAttempts: 1 })).id);
  for (let i = 0; i < 6; i++) {
    const job = await e.claim({ leaseMs: 60_000 + i * 1_000 });
    if (!job?.token) throw new Error('nothing claimed');
    if (i < 2) {
      await e.complete(job.id, job.token);
      ids.done?.push(job.id);
    } else if (i < 4) {
      await e.retry(job.id, job.token, `failed ${i}`);
      ids.dead?.push(job.id);
    } else {
      ids.active?.push(job.id);
    }
  }
  ids.a = [];
  for (let i = 0; i < 5; i++) ids.a.push((await e.enqueue('a', { i })).id);
  for (let i = 0; i < 3; i++) ids.b?.push((await e.enqueue('b', { i })).id);
  // Delayed: run-at times out of id order, so the order shown is by runAt.
  for (const delayMs of [300_000, 100_000, 200_000]) {
    ids.delayed?.push((await e.enqueue('b', null, { delayMs })).id);
  }
  return { q, ids };
}

describe('Queue.jobs', () => {
  it('PENDING: a group’s lane in run order, paged; totalCount is its length', async () => {
    const { q, ids } = await seeded();
    expect(await walk(q, 'PENDING', 'a')).toEqual(ids.a);
    expect(await r.zrange(engineQueue(q).keys.lane('a'), 0, -1)).toEqual(ids.a);
    const first = await page(q, 'PENDING', { group: 'a', first: 2 });
    expect(first.totalCount).toBe(5);
    expect(first.pageInfo.hasNextPage).toBe(true);
    expect(first.edges.map((e) => e.node)).toEqual([
      expect.objectContaining({ id: ids.a?.[0], group: 'a', state: 'PENDING' }),
      expect.objectContaining({ id: ids.a?.[1], group: 'a', state: 'PENDING' }),
    ]);
    expect(await walk(q, 'PENDING', 'b', 500)).toEqual(ids.b);
  });

  it('DELAYED: by run-at time, soonest first, queue-wide or a group’s', async () => {
    const { q, ids } = await seeded();
    const [late, soon, middle] = ids.delayed as string[];
    expect(await walk(q, 'DELAYED')).toEqual([soon, middle, late]);
    expect(await walk(q, 'DELAYED', 'b')).toEqual([soon, middle, late]);
    expect(await walk(q, 'DELAYED', 'a')).toEqual([]);
    const all = await page(q, 'DELAYED', { first: 500 });
    expect(all.totalCount).toBe(3);
    const runAts = all.edges.map((e) => Date.parse(e.node.runAt as string));
    expect(runAts).toEqual([...runAts].sort((x, y) => x - y));
    expect(runAts[0]).toBe(Number(await r.zscore(engineQueue(q).keys.delayed, soon as string)));
  });

  it('ACTIVE: by lease deadline; with a group, that group’s (totalCount its active count)', async () => {
    const { q, ids } = await seeded();
    expect(await walk(q, 'ACTIVE')).toEqual(ids.active);
    expect(await walk(q, 'ACTIVE', 'a')).toEqual(ids.active);
    expect(await walk(q, 'ACTIVE', 'b')).toEqual([]);
    expect((await page(q, 'ACTIVE', { group: 'a' })).totalCount).toBe(2);
    expect((await page(q, 'ACTIVE', { group: 'b' })).totalCount).toBe(0);
  });

  it('DEAD and COMPLETED: newest first, with their lastError and finishedAt', async () => {
    const { q, ids } = await seeded();
    expect(await walk(q, 'DEAD')).toEqual([...(ids.dead as string[])].reverse());
    expect(await walk(q, 'COMPLETED')).toEqual([...(ids.done as string[])].reverse());
    expect(await walk(q, 'DEAD', 'a')).toEqual([...(ids.dead as string[])].reverse());
    const dead = await page(q, 'DEAD');
    expect(dead.totalCount).toBe(2);
    expect(dead.edges.map((e) => e.node.lastError)).toEqual(['failed 3', 'failed 2']);
    const done = await page(q, 'COMPLETED');
    for (const { node } of done.edges) {
      expect(node.state).toBe('COMPLETED');
      expect(Date.parse(node.finishedAt as string)).toBe(
        Number(await r.zscore(engineQueue(q).keys.completed, node.id)),
      );
    }
  });

  it('a cursor whose job has left the state still pages on from where it was', async () => {
    const { q, ids } = await seeded();
    const first = await page(q, 'PENDING', { group: 'b', first: 1 });
    expect(first.edges[0]?.node.id).toBe(ids.b?.[0]);
    // The job at the cursor leaves the lane (removed by hand, as another writer would).
    await r.zrem(engineQueue(q).keys.lane('b'), ids.b?.[0] as string);
    const next = await page(q, 'PENDING', { group: 'b', after: first.pageInfo.endCursor });
    expect(next.edges.map((e) => e.node.id)).toEqual(ids.b?.slice(1));
  });

  it('Group.jobs is Queue.jobs of that group; errors and backoff of listed jobs are read by id', async () => {
    const { q } = await seeded();
    for (const state of ['PENDING', 'DELAYED', 'ACTIVE', 'DEAD', 'COMPLETED'] as const) {
      for (const group of ['a', 'b']) {
        const viaGroup = ok(await api.request(GroupJobsDocument, { queue: q, group, state })).queue
          .group.jobs;
        expect(viaGroup, `${state} ${group}`).toEqual(await page(q, state, { group }));
      }
    }
    const response = await post(api.endpoint, {
      query: `{ queue(name: "${q}") { jobs(state: DEAD) { edges { node { id errors { attempt message } } } } } }`,
    });
    const data = response.json?.data as { queue: { jobs: { edges: unknown[] } } } | undefined;
    const edges = data?.queue.jobs.edges;
    expect(edges).toEqual([
      { node: { id: expect.any(String), errors: [{ attempt: 1, message: 'failed 3' }] } },
      { node: { id: expect.any(String), errors: [{ attempt: 1, message: 'failed 2' }] } },
    ]);
  });

  it('a cursor of another listing (state, group, queue) is BAD_USER_INPUT `after`, saying to start without it', async () => {
    const { q } = await seeded();
    const deadOfA = (await page(q, 'DEAD', { group: 'a', first: 1 })).pageInfo.endCursor;
    const laneOfB = (await page(q, 'PENDING', { group: 'b', first: 1 })).pageInfo.endCursor;
    const other = uniqueQueueName('lists');
    await engineQueue(other).enqueue('b', 1);
    const refusals: [string, () => Promise<GraphQLResponse<unknown>>][] = [
      [
        'Group.jobs, another state',
        () =>
          api.request(GroupJobsDocument, {
            queue: q,
            group: 'a',
            state: 'COMPLETED',
            after: deadOfA,
          }),
      ],
      [
        'Group.jobs, another group',
        () =>
          api.request(GroupJobsDocument, {
            queue: q,
            group: 'a',
            state: 'PENDING',
            after: laneOfB,
          }),
      ],
      [
        'Queue.jobs, the queue’s listing',
        () => api.request(QueueJobsDocument, { queue: q, state: 'DEAD', after: deadOfA }),
      ],
      [
        'Queue.jobs, another queue',
        () =>
          api.request(QueueJobsDocument, {
            queue: other,
            state: 'PENDING',
            group: 'b',
            after: laneOfB,
          }),
      ],
    ];
    for (const [label, run] of refusals) {
      const [error] = (await run()).body.errors ?? [];
      expect(error, label).toMatchObject({
        message:
          'after: is a cursor of another listing (another queue, or jobs of another state or group): read this listing from its start, without `after`',
        extensions: { code: 'BAD_USER_INPUT', argument: 'after' },
      });
    }
    // Group.jobs and Queue.jobs of one group are one listing: their cursors go both ways.
    const viaGroup = ok(
      await api.request(GroupJobsDocument, { queue: q, group: 'b', state: 'PENDING', first: 1 }),
    ).queue.group.jobs;
    expect(
      (await page(q, 'PENDING', { group: 'b', after: viaGroup.pageInfo.endCursor })).edges,
    ).toEqual((await page(q, 'PENDING', { group: 'b', after: laneOfB })).edges);
  });

  it('PENDING without a group, a bad page size or cursor: BAD_USER_INPUT naming the argument', async () => {
    const q = uniqueQueueName('lists');
    for (const [variables, argument] of [
      [{ state: 'PENDING' }, 'group'],
      [{ state: 'DEAD', first: 0 }, 'first'],
      [{ state: 'DEAD', first: 501 }, 'first'],
      [{ state: 'DEAD', after: 'not a cursor' }, 'after'],
      [{ state: 'DEAD', group: '' }, 'group'],
    ] as const) {
      const response = await post(api.endpoint, {
        query:
          'query($queue: String!, $state: JobState!, $group: String, $first: Int, $after: String) { queue(name: $queue) { jobs(state: $state, group: $group, first: $first, after: $after) { totalCount } } }',
        variables: { queue: q, ...variables },
      });
      expectNoLeak(response.text);
      expect(codes(response.json), JSON.stringify(variables)).toEqual(['BAD_USER_INPUT']);
      expect(response.json?.errors?.[0]?.extensions?.argument).toBe(argument);
    }
  });
});

describe('Queue totals, state and retention', () => {
  it('counts.delayed and completed, stats.removed and requeued, state and retention as stored', async () => {
    const { q } = await seeded();
    const e = engineQueue(q);
    const dead = (await e.jobs({ state: 'DEAD' })).jobs.map((j) => j.id);
    await e.requeueDead({ ids: dead.slice(0, 1) });
    await e.removeJobs({ group: 'b', state: 'PENDING' });
    const totals = ok(await api.request(QueueTotalsDocument, { queue: q })).queue;
    expect(totals.counts).toMatchObject({
      delayed: 3,
      completed: 2,
      dead: 1,
      active: 2,
      pending: 6,
    });
    expect(totals.stats).toMatchObject({ removed: 3, requeued: 1, completed: 2, dead: 2 });
    expect(totals.counts.completed).toBe(await r.zcard(e.keys.completed));
    expect(totals.counts.delayed).toBe(Number(await r.hget(e.keys.stats, 'delayed')));
    expect(totals.state).toBe('RUNNING');
    expect(totals.snapshot.queueState).toBe('RUNNING');
    expect(totals.retention).toEqual({
      completed: { count: 1_000, ageMs: 3_600_000 },
      dead: { count: 10_000, ageMs: 604_800_000 },
    });
  });
});
