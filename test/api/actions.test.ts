/**
 * The operator actions and the queue's steering over HTTP (DESIGN.md §4.3):
 * requeueDeadJobs, removeJobs, purgeGroup (a JobActionResult each), pauseQueue, resumeQueue and
 * setRetention (the Queue after), each checked against what the engine and plain Redis commands
 * read afterwards — lanes, indexes, ring, stats — and against the queue's claims.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import {
  ClaimDocument,
  JobByIdDocument,
  PauseQueueDocument,
  PurgeGroupDocument,
  QueueTotalsDocument,
  RemoveJobsDocument,
  type RemoveJobsMutationVariables,
  RequeueDeadJobsDocument,
  type RequeueDeadJobsMutationVariables,
  ResumeQueueDocument,
  SetRetentionDocument,
} from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { deadJobs, rawState, uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

describe('requeueDeadJobs', () => {
  it('by ids: dead jobs back to the front of their lanes, attempts reset, errors kept; others skipped', async () => {
    const q = uniqueQueueName('requeue');
    const [first, second] = await deadJobs(engineQueue(q), 'g', 2);
    const pending = (await engineQueue(q).enqueue('g')).id;
    const result = ok(
      await api.request(RequeueDeadJobsDocument, {
        queue: q,
        ids: [second as string, pending, '987654321'],
      }),
    ).requeueDeadJobs;
    expect(result).toEqual({ count: 1, remaining: 0, skipped: 2 });
    const raw = await rawState(engineQueue(q));
    // Its original FIFO score: ahead of the job enqueued after it.
    expect(raw.lanes.g).toEqual([second, pending]);
    expect(raw.dead).toEqual([first]);
    expect(raw.ring).toEqual(['g']);
    const job = ok(await api.request(JobByIdDocument, { queue: q, id: second as string })).queue
      .job;
    expect(job).toMatchObject({
      state: 'PENDING',
      attempts: 0,
      lastError: 'died 1',
      finishedAt: null,
    });
    expect(job?.errors.map((e) => e.message)).toEqual(['died 1']);
    expect(raw.stats).toMatchObject({ requeued: '1', pending: '2' });
  });

  it('by group or all, at most limit per call, remaining counting down; resetAttempts false keeps them', async () => {
    const q = uniqueQueueName('requeue');
    const a = await deadJobs(engineQueue(q), 'a', 3);
    const b = await deadJobs(engineQueue(q), 'b', 2);
    const byGroup = ok(
      await api.request(RequeueDeadJobsDocument, { queue: q, group: 'a', limit: 2 }),
    ).requeueDeadJobs;
    expect(byGroup).toEqual({ count: 2, remaining: 1, skipped: 0 });
    expect((await rawState(engineQueue(q))).lanes.a).toEqual(a.slice(0, 2));
    const all = ok(
      await api.request(RequeueDeadJobsDocument, { queue: q, all: true, resetAttempts: false }),
    ).requeueDeadJobs;
    expect(all).toEqual({ count: 3, remaining: 0, skipped: 0 });
    const raw = await rawState(engineQueue(q));
    expect(raw.dead).toEqual([]);
    expect(raw.lanes).toEqual({ a, b });
    const kept = ok(await api.request(JobByIdDocument, { queue: q, id: b[0] as string })).queue.job;
    expect(kept?.attempts).toBe(1);
  });

  it('none or several of ids, group and all, or a bad limit: BAD_USER_INPUT, writing nothing', async () => {
    const q = uniqueQueueName('requeue');
    const [id] = await deadJobs(engineQueue(q), 'g', 1);
    await expectRedisUnchanged(r, async () => {
      const cases: [Omit<RequeueDeadJobsMutationVariables, 'queue'>, string][] = [
        [{}, 'group'],
        [{ ids: [id as string], group: 'g' }, 'ids'],
        [{ group: 'g', all: true }, 'group'],
        [{ all: false }, 'all'],
        [{ ids: [] }, 'ids'],
        [{ all: true, limit: 0 }, 'limit'],
        [{ all: true, limit: 1_001 }, 'limit'],
      ];
      for (const [variables, argument] of cases) {
        const response = await api.request(RequeueDeadJobsDocument, { queue: q, ...variables });
        expect(refusal(response), JSON.stringify(variables)).toEqual({
          code: 'BAD_USER_INPUT',
          argument,
        });
        expect(response.body.data).toEqual({ requeueDeadJobs: null });
      }
    });
  });
});

describe('removeJobs and purgeGroup', () => {
  it('removeJobs by ids: deletes what is not running, skips ACTIVE and missing ids', async () => {
    const q = uniqueQueueName('remove');
    const e = engineQueue(q);
    const [dead] = await deadJobs(engineQueue(q), 'd', 1);
    const active = (await e.enqueue('g')).id;
    await e.claim({ leaseMs: 60_000 });
    const pending = (await e.enqueue('g')).id;
    const delayed = (await e.enqueue('g', null, { delayMs: 60_000 })).id;
    const result = ok(
      await api.request(RemoveJobsDocument, {
        queue: q,
        ids: [dead as string, active, pending, delayed, '987654321'],
      }),
    ).removeJobs;
    expect(result).toEqual({ count: 3, remaining: 0, skipped: 2 });
    for (const id of [dead, pending, delayed]) {
      expect(await r.exists(e.keys.job(id as string), e.keys.errors(id as string))).toBe(0);
    }
    const raw = await rawState(e);
    expect(raw.active).toEqual([active]);
    expect(raw.dead).toEqual([]);
    expect(raw.lanes.g ?? []).toEqual([]);
    expect(await r.zcard(e.keys.delayed)).toBe(0);
    expect(raw.stats).toMatchObject({ removed: '3', pending: '0', delayed: '0', active: '1' });
  });

  it('removeJobs by group and state: its DELAYED, DEAD or COMPLETED jobs; ids with a state only those in it', async () => {
    const q = uniqueQueueName('remove');
    const e = engineQueue(q);
    await deadJobs(engineQueue(q), 'g', 2);
    const done = (await e.enqueue('g')).id;
    const job = await e.claim();
    await e.complete(done, job?.token as string);
    const delayed = (await e.enqueue('g', null, { delayMs: 60_000 })).id;
    const pending = (await e.enqueue('g')).id;
    // With a state, ids in another state are skipped.
    expect(
      ok(
        await api.request(RemoveJobsDocument, {
          queue: q,
          ids: [pending, delayed],
          state: 'DELAYED',
        }),
      ).removeJobs,
    ).toEqual({ count: 1, remaining: 0, skipped: 1 });
    expect(
      ok(await api.request(RemoveJobsDocument, { queue: q, group: 'g', state: 'DEAD', limit: 1 }))
        .removeJobs,
    ).toEqual({ count: 1, remaining: 1, skipped: 0 });
    expect(
      ok(await api.request(RemoveJobsDocument, { queue: q, group: 'g', state: 'COMPLETED' }))
        .removeJobs,
    ).toEqual({ count: 1, remaining: 0, skipped: 0 });
    const totals = ok(await api.request(QueueTotalsDocument, { queue: q })).queue;
    expect(totals.counts).toMatchObject({ dead: 1, completed: 0, delayed: 0, pending: 1 });
    expect(totals.stats.removed).toBe(3);
  });

  it('removeJobs all: the queue’s jobs in one state, every group’s, limit per call', async () => {
    const q = uniqueQueueName('remove');
    const e = engineQueue(q);
    await deadJobs(engineQueue(q), 'a', 2);
    await deadJobs(engineQueue(q), 'b', 1);
    const delayed = (await e.enqueue('c', null, { delayMs: 60_000 })).id;
    const remove = async (limit: number) =>
      ok(await api.request(RemoveJobsDocument, { queue: q, all: true, state: 'DEAD', limit }))
        .removeJobs;
    expect(await remove(2)).toEqual({ count: 2, remaining: 1, skipped: 0 });
    expect(await remove(2)).toEqual({ count: 1, remaining: 0, skipped: 0 });
    const totals = ok(await api.request(QueueTotalsDocument, { queue: q })).queue;
    expect(totals.counts).toMatchObject({ dead: 0, delayed: 1 });
    expect(await r.exists(e.keys.job(delayed))).toBe(1);
    // PENDING has no queue-wide index: a group is needed.
    expect(
      refusal(await api.request(RemoveJobsDocument, { queue: q, all: true, state: 'PENDING' })),
    ).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('removeJobs refuses ACTIVE, a group without a state and no selection, writing nothing', async () => {
    const q = uniqueQueueName('remove');
    await engineQueue(q).enqueue('g');
    await expectRedisUnchanged(r, async () => {
      const cases: [Omit<RemoveJobsMutationVariables, 'queue'>, string][] = [
        [{ group: 'g', state: 'ACTIVE' }, 'state'],
        [{ group: 'g' }, 'state'],
        [{ state: 'DEAD' }, 'group'],
        [{ ids: ['1'], group: 'g', state: 'DEAD' }, 'ids'],
      ];
      for (const [variables, argument] of cases) {
        const response = await api.request(RemoveJobsDocument, { queue: q, ...variables });
        expect(refusal(response), JSON.stringify(variables)).toEqual({
          code: 'BAD_USER_INPUT',
          argument,
        });
      }
    });
  });

  it('purgeGroup: the backlog goes in run order, limit per call; active jobs run on; the group leaves the ring', async () => {
    const q = uniqueQueueName('purge');
    const e = engineQueue(q);
    const running = (await e.enqueue('g')).id;
    const claimed = await e.claim({ leaseMs: 60_000 });
    expect(claimed?.id).toBe(running);
    const backlog: string[] = [];
    for (let i = 0; i < 5; i++) backlog.push((await e.enqueue('g', { i })).id);
    const delayed = (await e.enqueue('g', null, { delayMs: 60_000 })).id;
    expect((await rawState(e)).ring).toEqual(['g']);
    const first = ok(
      await api.request(PurgeGroupDocument, { queue: q, group: 'g', limit: 3 }),
    ).purgeGroup;
    expect(first).toEqual({ count: 3, remaining: 2, skipped: 0 });
    expect((await rawState(e)).lanes.g).toEqual(backlog.slice(3));
    const rest = ok(await api.request(PurgeGroupDocument, { queue: q, group: 'g' })).purgeGroup;
    expect(rest).toEqual({ count: 2, remaining: 0, skipped: 0 });
    const raw = await rawState(e);
    expect(raw.ring).toEqual([]);
    expect(raw.active).toEqual([running]);
    expect(await r.zrange(e.keys.delayed, 0, -1)).toEqual([delayed]);
    // The running job still completes under its lease.
    await e.complete(running, claimed?.token as string);
  });
});

describe('pauseQueue, resumeQueue', () => {
  it('while paused nothing is claimed, the ring stands; resumed, claims run again', async () => {
    const q = uniqueQueueName('pause');
    const e = engineQueue(q);
    const { id } = await e.enqueue('g');
    const paused = ok(await api.request(PauseQueueDocument, { queue: q })).pauseQueue;
    expect(paused).toEqual({ name: q, state: 'PAUSED' });
    expect(await r.hget(e.keys.settings, 'paused')).toBe('1');
    expect(ok(await api.request(ClaimDocument, { queue: q })).claim).toBeNull();
    const totals = ok(await api.request(QueueTotalsDocument, { queue: q })).queue;
    expect(totals.state).toBe('PAUSED');
    expect(totals.snapshot.queueState).toBe('PAUSED');
    expect((await rawState(e)).ring).toEqual(['g']);
    // Idempotent.
    expect(ok(await api.request(PauseQueueDocument, { queue: q })).pauseQueue?.state).toBe(
      'PAUSED',
    );

    const resumed = ok(await api.request(ResumeQueueDocument, { queue: q })).resumeQueue;
    expect(resumed).toEqual({ name: q, state: 'RUNNING' });
    expect(await r.hexists(e.keys.settings, 'paused')).toBe(0);
    expect(ok(await api.request(ClaimDocument, { queue: q })).claim?.id).toBe(id);
  });
});

describe('setRetention', () => {
  it('sets either policy, keeps what is left out; null ageMs is no age bound; the Queue after reads it', async () => {
    const q = uniqueQueueName('retention');
    const set = ok(
      await api.request(SetRetentionDocument, {
        queue: q,
        completed: { count: 5, ageMs: 31_536_000_000 },
      }),
    ).setRetention;
    expect(set).toEqual({
      name: q,
      retention: {
        completed: { count: 5, ageMs: 31_536_000_000 },
        dead: { count: 10_000, ageMs: 604_800_000 },
      },
    });
    const again = ok(
      await api.request(SetRetentionDocument, {
        queue: q,
        completed: { ageMs: null },
        dead: { count: 0 },
      }),
    ).setRetention;
    expect(again?.retention).toEqual({
      completed: { count: 5, ageMs: null },
      dead: { count: 0, ageMs: 604_800_000 },
    });
    expect(await r.hgetall(engineQueue(q).keys.settings)).toMatchObject({
      completedCount: '5',
      completedAgeMs: 'none',
      deadCount: '0',
    });
  });

  it('completed count 0: a completed job is gone at once (Queue.job null)', async () => {
    const q = uniqueQueueName('retention');
    const e = engineQueue(q);
    ok(await api.request(SetRetentionDocument, { queue: q, completed: { count: 0 } }));
    const { id } = await e.enqueue('g');
    const job = await e.claim();
    await e.complete(id, job?.token as string);
    expect(ok(await api.request(JobByIdDocument, { queue: q, id })).queue.job).toBeNull();
    expect(await r.zcard(e.keys.completed)).toBe(0);
  });

  it('a count or age out of range, or a null count: BAD_USER_INPUT naming the policy, writing nothing', async () => {
    const q = uniqueQueueName('retention');
    await engineQueue(q).enqueue('g');
    await expectRedisUnchanged(r, async () => {
      for (const [variables, argument] of [
        [{ completed: { count: 1_000_001 } }, 'completed'],
        [{ dead: { count: -1 } }, 'dead'],
        [{ dead: { ageMs: 0 } }, 'dead'],
        [{ completed: { ageMs: 31_536_000_001 } }, 'completed'],
        [{ completed: { count: null } }, 'completed'],
      ] as const) {
        const response = await api.request(SetRetentionDocument, { queue: q, ...variables });
        expect(refusal(response), JSON.stringify(variables)).toEqual({
          code: 'BAD_USER_INPUT',
          argument,
        });
      }
    });
  });
});
