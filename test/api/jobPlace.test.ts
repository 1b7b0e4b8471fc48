/**
 * `Job.position`, `Job.reason` and `Job.estimatedStartAt` (DESIGN.md §4.2, "Where a job
 * stands") through the real server over a real Redis: state is made with the engine, read over
 * HTTP; a pending job's reason ends with its group's own `Group.reason`, read in the same
 * request, and its position is checked against the lane's ZRANK in Redis.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Defaults } from '../../src/lanes/defaults.js';
import type { Queue } from '../../src/lanes/index.js';
import { queueKeys } from '../../src/lanes/internal.js';
import {
  JobPlaceDocument,
  type JobPlaceQuery,
  PendingJobPlacesDocument,
  type PendingJobPlacesQuery,
} from '../gql/graphql.js';
import { queueName } from '../support/pubsub.js';
import { useTestServer } from '../support/server.js';

const server = useTestServer();

let redis: Redis | undefined;

const engineQueue = (): Queue => server.server.engine.queue(queueName('place'));

type Read = NonNullable<JobPlaceQuery['queue']['job']> & { groupReason: string };

async function read(queue: Queue, id: string, group = 'g'): Promise<Read> {
  const { status, body } = await server.request(JobPlaceDocument, { queue: queue.name, id, group });
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  expect(status).toBe(200);
  const q = (body.data as JobPlaceQuery).queue;
  if (!q.job) throw new Error(`no job ${id}`);
  return { ...q.job, groupReason: q.group.reason };
}

/** The lane rank of `id` as Redis holds it. */
async function zrank(queue: Queue, group: string, id: string): Promise<number | null> {
  redis ??= server.redis.client();
  return redis.zrank(queueKeys(Defaults.prefix, queue.name).lane(group), id);
}

describe('Job.position, Job.reason and Job.estimatedStartAt', () => {
  it('the head of the lane of the group next to be served runs next; the one behind it says its place', async () => {
    const q = engineQueue();
    const first = await q.enqueue('g', 1);
    const second = await q.enqueue('g', 2);
    // No worker on the queue: next to be served, and nobody to serve it.
    expect((await read(q, first.id)).reason).toBe(
      'first in its lane; its group is on the ring at position 1 of 1: next to be served; jobs are waiting and no worker is connected',
    );
    await q.workerHeartbeat({ id: 'w', heartbeatMs: 60_000 });
    const a = await read(q, first.id);
    expect(a).toMatchObject({ state: 'PENDING', position: 0, estimatedStartAt: null });
    expect(a.reason).toBe('first in its lane, and its group is next to be served: it runs next');
    const b = await read(q, second.id);
    expect(b.position).toBe(1);
    expect(b.reason).toBe(
      '1 ahead of it in its lane (2 pending); its group is on the ring at position 1 of 1: next to be served',
    );
    expect(b.reason).toBe(`1 ahead of it in its lane (2 pending); its group is ${b.groupReason}`);
  });

  it('position follows priorities, as the lane in Redis holds it, on a page of pending jobs too', async () => {
    const q = engineQueue();
    const jobs = [
      await q.enqueue('g', 1),
      await q.enqueue('g', 2, { priority: 8 }),
      await q.enqueue('g', 3),
      await q.enqueue('g', 4, { priority: 1 }),
    ];
    for (const job of jobs) {
      expect((await read(q, job.id)).position).toBe(await zrank(q, 'g', job.id));
    }
    expect((await read(q, jobs[3]?.id as string)).position).toBe(0);
    expect((await read(q, jobs[1]?.id as string)).position).toBe(3);
    const { body } = await server.request(PendingJobPlacesDocument, { queue: q.name, group: 'g' });
    expect(body.errors).toBeUndefined();
    const page = (body.data as PendingJobPlacesQuery).queue.jobs.edges.map((e) => e.node);
    expect(page.map((j) => j.position)).toEqual([0, 1, 2, 3]);
    expect(page[2]?.reason).toMatch(/^2 ahead of it in its lane \(4 pending\); its group is /);
  });

  it('a page of pending jobs reads their places together, not once per job', async () => {
    const q = engineQueue();
    for (let i = 0; i < 3; i++) {
      await q.enqueue('g', i);
      const job = await q.claim({ leaseMs: 600_000 });
      await q.complete(job?.id as string, job?.token as string);
    }
    for (let i = 0; i < 40; i++) await q.enqueue('g', i);
    redis ??= server.redis.client();
    await redis.config('RESETSTAT');
    const { body } = await server.request(PendingJobPlacesDocument, { queue: q.name, group: 'g' });
    expect(body.errors).toBeUndefined();
    const page = (body.data as PendingJobPlacesQuery).queue.jobs.edges.map((e) => e.node);
    expect(page.map((j) => j.position)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // One batch: the group's completions and the queue's read once (two ZREVRANGE, where a
    // read per job makes 80), in a few MULTIs: the batch's two and its rota's, the reasons' rota
    // and cap (a read per job: two or three each).
    const stats = await redis.info('commandstats');
    const calls = (name: string) =>
      Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    expect(calls('zrevrange')).toBe(2);
    expect(calls('exec')).toBeLessThanOrEqual(5);
  });

  it('a paused group: its place, then the group paused; no estimate', async () => {
    const q = engineQueue();
    const job = await q.enqueue('g', 1);
    await q.pause('g');
    const r = await read(q, job.id);
    expect(r.reason).toBe(
      'first in its lane; its group is paused: it gets no turns until resumed (1 pending, 0 in flight)',
    );
    expect(r.reason).toBe(`first in its lane; its group is ${r.groupReason}`);
    expect(r.estimatedStartAt).toBeNull();
  });

  it('a group at its limit', async () => {
    const q = engineQueue();
    await q.setLimit('g', 1);
    await q.enqueue('g', 1);
    const waiting = await q.enqueue('g', 2);
    await q.claim({ leaseMs: 600_000 });
    expect((await read(q, waiting.id)).reason).toBe(
      'first in its lane; its group is at its limit (1 of 1 in flight): it re-joins the ring when one finishes',
    );
  });

  it("the queue at its cap: its group waits for a permit, in Group.reason's words", async () => {
    const q = engineQueue();
    await q.setQueueLimit(1);
    await q.enqueue('a', 1);
    const waiting = await q.enqueue('g', 2);
    expect((await q.claim({ leaseMs: 600_000 }))?.group).toBe('a');
    const r = await read(q, waiting.id);
    expect(r.reason).toBe(
      'first in its lane; its group is waiting for a permit: the queue is at its cap, 1 of 1; on the ring at position 1 of 1',
    );
    expect(r.reason).toBe(`first in its lane; its group is ${r.groupReason}`);
  });

  it('a group behind a more urgent level', async () => {
    const q = engineQueue();
    await q.enqueue('a', 1, { priority: 2 });
    const waiting = await q.enqueue('g', 2);
    const r = await read(q, waiting.id);
    expect(r.reason).toBe(
      'first in its lane; its group is on the ring at position 2 of 2, at priority level 5: a more urgent level (2) is served first while it has a group ready',
    );
  });

  it('a job that is not pending has no position and no estimate, and says its state', async () => {
    const q = engineQueue();
    const delayed = await q.enqueue('g', 1, { delayMs: 600_000 });
    const failing = await q.enqueue('g', 2, { maxAttempts: 1 });
    const done = await q.enqueue('g', 3);
    const d = await read(q, delayed.id);
    expect(d).toMatchObject({ state: 'DELAYED', position: null, estimatedStartAt: null });
    expect(d.reason).toBe(
      `delayed: it joins its group's lane at ${new Date(delayed.runAt as number).toISOString()}`,
    );
    const active = await q.claim({ leaseMs: 600_000 });
    expect(active?.id).toBe(failing.id);
    const a = await read(q, failing.id);
    expect(a).toMatchObject({ state: 'ACTIVE', position: null, estimatedStartAt: null });
    expect(a.reason).toBe(
      `running: claimed at ${new Date(active?.claimedAt as number).toISOString()}, its lease runs until ${new Date(active?.leaseUntil as number).toISOString()}`,
    );
    const dead = await q.retry(failing.id, active?.token as string, 'boom');
    expect((await read(q, failing.id)).reason).toBe(
      `dead: it ran out of attempts (1 of 1) at ${new Date(dead.finishedAt as number).toISOString()}`,
    );
    const claimed = await q.claim({ leaseMs: 600_000 });
    expect(claimed?.id).toBe(done.id);
    const completed = await q.complete(done.id, claimed?.token as string);
    const c = await read(q, done.id);
    expect(c).toMatchObject({ state: 'COMPLETED', position: null, estimatedStartAt: null });
    expect(c.reason).toBe(
      `completed: it finished at ${new Date(completed.finishedAt as number).toISOString()}`,
    );
  });

  it('an estimate once its group has history: after now, on the Redis clock', async () => {
    const q = engineQueue();
    for (let i = 0; i < 3; i++) {
      await q.enqueue('g', i);
      const job = await q.claim({ leaseMs: 600_000 });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await q.complete(job?.id as string, job?.token as string);
    }
    await q.setLimit('g', 1);
    await q.enqueue('g', 'busy');
    await q.claim({ leaseMs: 600_000 });
    const waiting = await q.enqueue('g', 'waiting');
    const before = await q.clock();
    const r = await read(q, waiting.id);
    expect(r.estimatedStartAt).not.toBeNull();
    expect(Date.parse(r.estimatedStartAt as string)).toBeGreaterThanOrEqual(before);
  });
});
