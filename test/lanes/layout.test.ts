/**
 * The job layout (DESIGN.md §2, "Job layout"): a job's payload lives in the queue's
 * `payloads` hash, not in its own hash (which stays a listpack), the hash holds no `score`, and
 * the queue is marked `layout` 2 in `settings`. A queue written by the layout before (payloads
 * in the job hashes, no mark) is refused for enqueue and claim while it holds jobs, with a
 * message saying what to do; an empty one is taken and marked.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Queue, type RingmasterError } from '../../src/lanes/index.js';
import { JOB_LAYOUT } from '../../src/lanes/keys.js';
import { queueSnapshot, refusal as refused, uniqueQueueName, useEngine } from '../support/lanes.js';
import { writeOldLayout } from '../support/oldLayout.js';

const engine = useEngine();

/** A payload past hash-max-listpack-value (64 bytes), as the memory benchmark's. */
const BIG = { data: 'x'.repeat(89) };

/** A queue of the layout before, of its own (test/support/oldLayout.ts). */
const oldLayoutQueue = (): Promise<Queue> =>
  writeOldLayout(new Queue(engine.client(), uniqueQueueName('old')));

async function refusal(call: () => Promise<unknown>): Promise<RingmasterError> {
  const error = await refused(call);
  expect(error.code).toBe(ErrorCode.LAYOUT_MISMATCH);
  return error;
}

describe('the job layout', () => {
  it('keeps a payload beside the job hash, which stays a listpack and holds no score', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', BIG);
    const k = q.keys;
    expect(await q.redis.hget(k.settings, 'layout')).toBe(JOB_LAYOUT);
    expect(await q.redis.hget(k.payloads, job.id)).toBe(JSON.stringify(BIG));
    expect(await q.redis.hmget(k.job(job.id), 'payload', 'score')).toEqual([null, null]);
    expect(await q.redis.object('ENCODING', k.job(job.id))).toBe('listpack');
    // Every reader answers it: the enqueue's reply, a claim, Queue.job, a page of jobs.
    expect(job.payload).toEqual(BIG);
    expect((await q.job(job.id))?.payload).toEqual(BIG);
    expect((await q.jobs({ state: 'PENDING', group: 'g' })).jobs[0]?.payload).toEqual(BIG);
    const claimed = await q.claim();
    expect(claimed?.payload).toEqual(BIG);
    expect((await q.extendLease(job.id, claimed?.token as string, 60_000)).payload).toEqual(BIG);
    const completed = await q.complete(job.id, claimed?.token as string);
    expect(completed.payload).toEqual(BIG);
  });

  it('deletes a payload with its job (completion without retention, removal)', async () => {
    const q = engine.queue();
    await q.setRetention({ completed: { count: 0 } });
    const a = await q.enqueue('g', BIG);
    const b = await q.enqueue('g', BIG);
    const claimed = await q.claim();
    await q.complete(a.id, claimed?.token as string);
    await q.removeJobs({ ids: [b.id] });
    expect(await q.redis.exists(q.keys.payloads)).toBe(0);
  });

  it('marks an empty queue of no layout (one the layout before left empty) as its own', async () => {
    const q = engine.queue();
    await q.redis.set(q.keys.seq, '41');
    await q.redis.hset(q.keys.stats, { enqueued: '41', completed: '41', pending: '0' });
    const job = await q.enqueue('g', { n: 1 });
    expect(job.id).toBe('42');
    expect(await q.redis.hget(q.keys.settings, 'layout')).toBe(JOB_LAYOUT);
  });

  it('refuses enqueue and claim on a queue with jobs of the layout before, writing nothing', async () => {
    const q = await oldLayoutQueue();
    const before = await queueSnapshot(q);
    const error = await refusal(() => q.enqueue('g', { n: 1 }));
    expect(error.message).toBe(
      `queue ${q.name} holds jobs of an older job layout (payloads in the job hashes: ` +
        '1 pending, 0 delayed, 0 active, 0 completed, 1 dead), which this version would run ' +
        'without their payloads, so it refuses to enqueue or claim there: upgrade it in place ' +
        `once the previous version has stopped claiming there: \`ringmaster upgrade-layout -q ${q.name}\`, the ` +
        'upgradeQueueLayout mutation or Queue.upgradeLayout',
    );
    await refusal(() => q.claim());
    await refusal(() => q.completeAndClaim([], { claim: 4 }));
    await refusal(() => q.checkLayout());
    // Asked again by every call while it holds jobs (a refusal is not remembered).
    await refusal(() => q.enqueue('g', { n: 2 }));
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('still reads, and removes, the jobs of the layout before; takes the queue once empty', async () => {
    const q = await oldLayoutQueue();
    expect((await q.job('1'))?.payload).toEqual({ old: 1 });
    expect((await q.jobs({ state: 'DEAD' })).jobs.map((j) => j.payload)).toEqual([{ old: 2 }]);
    await refusal(() => q.claim());
    await q.removeJobs({ ids: ['1', '2'] });
    const job = await q.enqueue('g', BIG);
    expect(job.id).toBe('3');
    expect(await q.redis.hget(q.keys.settings, 'layout')).toBe(JOB_LAYOUT);
    expect((await q.claim())?.payload).toEqual(BIG);
  });

  it('refuses an unmarked queue whose totals were lost or drifted but whose jobs are evident', async () => {
    // Totals gone (no stats hash), the dead job removed: the ring gives the pending job away.
    const lost = await oldLayoutQueue();
    await lost.redis.del(lost.keys.stats, lost.keys.dead, lost.keys.groupDead('g'));
    const before = await queueSnapshot(lost);
    const error = await refusal(() => lost.claim());
    expect(error.message).toMatch(
      /no job layout mark and its totals count no job, yet it holds jobs \(1 groups on the ring, 0 active, 0 delayed, 0 groups with active jobs\)/,
    );
    await refusal(() => lost.enqueue('g', { n: 1 }));
    expect(await queueSnapshot(lost)).toEqual(before);
    // Totals present but saying none (drifted): an active job and its permit are still seen.
    const drifted = engine.queue();
    await drifted.redis
      .multi()
      .set(drifted.keys.seq, '7')
      .hset(drifted.keys.stats, { enqueued: '7', pending: '0', active: '0' })
      .zadd(drifted.keys.active, Date.now() + 60_000, '7')
      .hset(drifted.keys.gactive, 'g', '1')
      .exec();
    expect((await refusal(() => drifted.enqueue('g'))).message).toMatch(
      /\(0 groups on the ring, 1 active, 0 delayed, 1 groups with active jobs\)/,
    );
    expect(await drifted.redis.hget(drifted.keys.settings, 'layout')).toBeNull();
  });

  it('sees the jobs of an unmarked queue whose only evident groups stand at a level off the default', async () => {
    // Totals lost; group g waits at priority 2: on `levels` (DESIGN.md §3, "Levels"), not on the ring.
    const q = engine.queue();
    const k = q.keys;
    await q.redis
      .multi()
      .set(k.seq, '1')
      .hset(k.job('1'), {
        group: 'g',
        state: 'pending',
        attempts: '0',
        maxAttempts: '3',
        priority: '2',
        enqueuedAt: '1000',
        payload: '{"old":1}',
      })
      .zadd(k.lane('g'), 1, '1')
      .zadd(k.levels, 2e13, 'g')
      .set(k.prioritized, '1')
      .zadd(k.groups, 0, 'g')
      .exec();
    const before = await queueSnapshot(q);
    expect((await refusal(() => q.claim())).message).toMatch(
      /\(1 groups on the ring, 0 active, 0 delayed, 0 groups with active jobs\)/,
    );
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('asks again on an unmarked queue: jobs another program writes there before its first enqueue are seen', async () => {
    const q = engine.queue();
    expect(await q.claim()).toBeNull();
    expect(await q.redis.hget(q.keys.settings, 'layout')).toBeNull();
    // An earlier version writes a job now; this connection's next claim must not take it.
    await q.redis
      .multi()
      .set(q.keys.seq, '1')
      .hset(q.keys.job('1'), { group: 'g', state: 'pending', payload: '{"old":1}' })
      .zadd(q.keys.lane('g'), 1, '1')
      .rpush(q.keys.ring, 'g')
      .hset(q.keys.stats, { enqueued: '1', pending: '1' })
      .exec();
    await refusal(() => q.claim());
    expect(await q.redis.zcard(q.keys.lane('g'))).toBe(1);
  });

  it('refuses a queue marked with another layout', async () => {
    const q = engine.queue();
    await q.redis.hset(q.keys.settings, 'layout', '3');
    const error = await refusal(() => q.enqueue('g'));
    expect(error.message).toMatch(/marked with job layout 3 .* not this version's 2/);
    await refusal(() => q.claim());
  });

  it('a queue emptied by hand is marked again by its next first job', async () => {
    const q = engine.queue();
    await q.enqueue('g', BIG);
    // The first enqueue found the queue new (unmarked: not remembered); this one finds the mark.
    await q.enqueue('g', BIG);
    await q.redis.del(q.keys.settings, q.keys.seq);
    // This connection knows the mark; its next enqueue mints id 1 and marks the queue again.
    await q.enqueue('g', BIG);
    expect(await q.redis.hget(q.keys.settings, 'layout')).toBe(JOB_LAYOUT);
  });
});

describe('upgrading in place', () => {
  it('converts a queue of the layout before in bounded steps that resume where they stopped', async () => {
    const q = await oldLayoutQueue();
    const first = await q.upgradeLayout({ batch: 1, maxSteps: 1 });
    expect(first).toEqual({
      done: false,
      layout: 'upgrading',
      moved: 1,
      visitedTo: 1,
      lastId: 2,
      steps: 1,
      repair: null,
    });
    // Half converted: refused, with what to do; still read whole (a moved payload, an unmoved one).
    const error = await refusal(() => q.claim());
    expect(error.message).toBe(
      `queue ${q.name} is part way through an in-place upgrade to job layout 2 ` +
        `(${q.keys.settings} layout is upgrading), so this version neither enqueues nor claims ` +
        `there yet: finish it with \`ringmaster upgrade-layout -q ${q.name}\`, the upgradeQueueLayout mutation ` +
        'or Queue.upgradeLayout (it resumes where it stopped)',
    );
    await refusal(() => q.enqueue('g', { n: 1 }));
    expect((await q.job('1'))?.payload).toEqual({ old: 1 });
    expect((await q.job('2'))?.payload).toEqual({ old: 2 });
    const rest = await q.upgradeLayout();
    expect(rest).toMatchObject({
      done: true,
      layout: '2',
      moved: 1,
      visitedTo: 2,
      lastId: 2,
      steps: 1,
    });
    expect(rest.repair?.findings.map((f) => f.kind)).toContain('REGISTRY');
    expect(await q.redis.hgetall(q.keys.payloads)).toEqual({ 1: '{"old":1}', 2: '{"old":2}' });
    expect(await q.redis.hexists(q.keys.job('1'), 'payload')).toBe(0);
    expect(await q.redis.hexists(q.keys.settings, 'layoutNext')).toBe(0);
    // Of this layout now: its pending job runs with its payload, new jobs go in after it.
    const claimed = await q.claim();
    expect(claimed).toMatchObject({ id: '1', payload: { old: 1 } });
    expect((await q.enqueue('g', BIG)).id).toBe('3');
    // Done is done: another call visits nothing.
    expect(await q.upgradeLayout()).toMatchObject({
      done: true,
      layout: '2',
      moved: 0,
      visitedTo: 0,
      lastId: 0,
      steps: 1,
      repair: { findings: [] },
    });
  });

  it('meets the jobs a writer of the layout before adds while it runs', async () => {
    const old = await oldLayoutQueue();
    await old.upgradeLayout({ batch: 1, maxSteps: 1 });
    // The previous version mints id 3 meanwhile, its payload in its hash.
    await old.redis
      .multi()
      .set(old.keys.seq, '3')
      .hset(old.keys.job('3'), {
        group: 'g',
        state: 'pending',
        attempts: '0',
        payload: '{"old":3}',
      })
      .zadd(old.keys.lane('g'), 3, '3')
      .exec();
    const done = await old.upgradeLayout({ batch: 2 });
    expect(done).toMatchObject({ done: true, moved: 2, visitedTo: 3, lastId: 3, steps: 1 });
    expect(await old.redis.hget(old.keys.payloads, '3')).toBe('{"old":3}');
  });

  it('answers done at once on a queue that never minted an id, and leaves it unmarked', async () => {
    const q = engine.queue();
    expect(await q.upgradeLayout()).toEqual({
      done: true,
      layout: null,
      moved: 0,
      visitedTo: 0,
      lastId: 0,
      steps: 1,
      repair: null,
    });
    expect(await q.redis.exists(q.keys.settings)).toBe(0);
  });

  it('refuses another mark, an unreadable id counter and bad options, writing nothing', async () => {
    const marked = engine.queue();
    await marked.redis.hset(marked.keys.settings, 'layout', '3');
    const before = await queueSnapshot(marked);
    expect((await refusal(() => marked.upgradeLayout())).message).toMatch(
      /is marked with job layout 3 \(.*settings layout\), not this version's 2 nor the one before it/,
    );
    expect(await queueSnapshot(marked)).toEqual(before);

    const q = await oldLayoutQueue();
    const snapshot = await queueSnapshot(q);
    for (const options of [
      { batch: 0 },
      { batch: 10_001 },
      { maxSteps: 0 },
      { batch: 1.5 },
      { actor: '' },
      { bogus: 1 } as object,
    ]) {
      const error = await refused(() => q.upgradeLayout(options));
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    }
    await q.redis.set(q.keys.seq, 'two');
    const error = await refused(() => q.upgradeLayout());
    expect(error.code).toBe(ErrorCode.DATA_OUT_OF_RANGE);
    expect(error.message).toMatch(
      /job id counter \(.*seq\) holds "two", not a non-negative integer/,
    );
    await q.redis.set(q.keys.seq, '2');
    expect(await queueSnapshot(q)).toEqual(snapshot);
  });
});
