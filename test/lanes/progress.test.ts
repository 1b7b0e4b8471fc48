/**
 * A job's progress and log (DESIGN.md §3 "Progress and logs", §5): `updateJobProgress` and
 * `addJobLog` under the lease, read back as `Job.progress` and `Queue.jobLogs` (oldest first,
 * cursor-paged, the newest `Defaults.logsKept` kept); kept across retries and with the job, and
 * deleted wherever the job is; bad input refused with nothing changed; and a Worker's processor
 * reporting through `job.updateProgress` and `job.log`.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  type ActiveJob,
  Defaults,
  ErrorCode,
  type Job,
  Limits,
  Queue,
  Worker,
} from '../../src/lanes/index.js';
import { queueSnapshot, refusal, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

function queue(): Queue {
  return new Queue(engine.redis(), uniqueQueueName('progress'));
}

async function claimed(q: Queue, group = 'g'): Promise<Job & { token: string }> {
  await q.enqueue(group, { n: 1 });
  const job = await q.claim();
  if (job === null) throw new Error('nothing claimed');
  return job as Job & { token: string };
}

describe('progress', () => {
  it('a number or an object, answered by the call and read back by job(id)', async () => {
    const q = queue();
    const job = await claimed(q);
    expect(job.progress).toBeNull();
    expect((await q.updateJobProgress(job.id, job.token, 40)).progress).toBe(40);
    expect((await q.job(job.id))?.progress).toBe(40);
    const object = { done: 3, total: 7, stage: 'resize' };
    expect((await q.updateJobProgress(job.id, job.token, object)).progress).toEqual(object);
    expect((await q.job(job.id))?.progress).toEqual(object);
  });

  it('stays across a retry (the next claim answers it) and with the completed job', async () => {
    const q = queue();
    const job = await claimed(q);
    await q.updateJobProgress(job.id, job.token, 50);
    await q.retry(job.id, job.token, 'flaky');
    const again = await claimed(q, 'h');
    const first = again.id === job.id ? again : await q.claim();
    expect(first?.id).toBe(job.id);
    expect(first?.progress).toBe(50);
    const done = await q.complete(job.id, first?.token as string);
    expect(done.progress).toBe(50);
    expect((await q.jobs({ state: 'COMPLETED' })).jobs.find((j) => j.id === job.id)?.progress).toBe(
      50,
    );
  });

  it.each([
    ['above 100', 101],
    ['below 0', -1],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '50%'],
    ['an array', [1, 2]],
    ['null', null],
    ['undefined', undefined],
    ['a Date (its JSON is a string)', new Date(0)],
    ['an object holding a Map', { stage: new Map() }],
    ['an object too long', { text: 'x'.repeat(Limits.progressBytes) }],
  ])('%s is refused as BAD_USER_INPUT progress, nothing changed', async (_name, value) => {
    const q = queue();
    const job = await claimed(q);
    await q.updateJobProgress(job.id, job.token, 10);
    const before = await queueSnapshot(q);
    const error = await refusal(() => q.updateJobProgress(job.id, job.token, value as never));
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe('progress');
    expect(await queueSnapshot(q)).toEqual(before);
  });

  it('needs the lease: a wrong token is LEASE_LOST, a finished job too, no job JOB_NOT_FOUND', async () => {
    const q = queue();
    const job = await claimed(q);
    const before = await queueSnapshot(q);
    expect((await refusal(() => q.updateJobProgress(job.id, 'other', 5))).code).toBe(
      ErrorCode.LEASE_LOST,
    );
    expect(await queueSnapshot(q)).toEqual(before);
    await q.complete(job.id, job.token);
    expect((await refusal(() => q.updateJobProgress(job.id, job.token, 5))).code).toBe(
      ErrorCode.LEASE_LOST,
    );
    expect((await refusal(() => q.updateJobProgress('999', job.token, 5))).code).toBe(
      ErrorCode.JOB_NOT_FOUND,
    );
  });
});

describe('the log', () => {
  it('keeps lines oldest first with their time on the Redis clock', async () => {
    const q = queue();
    const job = await claimed(q);
    const [clock] = (await q.redis.time()) as unknown as [string, string];
    const added = await q.addJobLog(job.id, job.token, 'fetched 3 images');
    expect(added.line).toBe('fetched 3 images');
    expect(Math.abs(added.at - Number(clock) * 1000)).toBeLessThan(5_000);
    await q.addJobLog(job.id, job.token, '');
    await q.addJobLog(job.id, job.token, 'ünïcode: 3 of 3 ✓');
    const page = await q.jobLogs(job.id);
    expect(page?.logs.map((l) => l.line)).toEqual(['fetched 3 images', '', 'ünïcode: 3 of 3 ✓']);
    expect(page?.totalCount).toBe(3);
    expect(page?.hasNextPage).toBe(false);
    expect(page?.logs[0]?.at).toBe(added.at);
  });

  it('pages by cursor, and a cursor goes on where it was after older lines are dropped', async () => {
    const q = queue();
    const job = await claimed(q);
    const kept = Defaults.logsKept;
    await Promise.all(
      Array.from({ length: kept }, (_, i) => q.addJobLog(job.id, job.token, `line ${i + 1}`)),
    );
    const first = await q.jobLogs(job.id, { first: 2 });
    expect(first?.logs.map((l) => l.line)).toEqual(['line 1', 'line 2']);
    expect(first?.hasNextPage).toBe(true);
    expect(first?.totalCount).toBe(kept);
    // Two more lines drop 'line 1' and 'line 2'; the page after 'line 1' starts at 'line 3'.
    await q.addJobLog(job.id, job.token, 'more 1');
    await q.addJobLog(job.id, job.token, 'more 2');
    const next = await q.jobLogs(job.id, { first: 2, after: first?.cursors[0] ?? null });
    expect(next?.logs.map((l) => l.line)).toEqual(['line 3', 'line 4']);
    const all = await q.jobLogs(job.id, { first: 500, after: next?.endCursor ?? null });
    expect(all?.logs[0]?.line).toBe('line 5');
    expect(all?.totalCount).toBe(kept);
    expect(await q.redis.llen(q.keys.logs(job.id))).toBe(kept);
    // 1,000 kept: lines 3..1,000 and the two more; 2 and 500 read, 498 left.
    const tail = await q.jobLogs(job.id, { first: 500, after: all?.endCursor ?? null });
    expect(tail?.logs).toHaveLength(498);
    expect(tail?.logs.at(-1)?.line).toBe('more 2');
    expect(tail?.hasNextPage).toBe(false);
  });

  it('last: the newest lines, oldest first, and a cursor on to the lines added after them', async () => {
    const q = queue();
    const job = await claimed(q);
    for (const line of ['a', 'b', 'c', 'd']) await q.addJobLog(job.id, job.token, line);
    const end = await q.jobLogs(job.id, { last: 2 });
    expect(end?.logs.map((l) => l.line)).toEqual(['c', 'd']);
    expect([end?.totalCount, end?.hasNextPage]).toEqual([4, false]);
    await q.addJobLog(job.id, job.token, 'e');
    const after = await q.jobLogs(job.id, { after: end?.endCursor ?? null });
    expect(after?.logs.map((l) => l.line)).toEqual(['e']);
    expect((await q.jobLogs(job.id, { last: 10 }))?.logs).toHaveLength(5);
    for (const options of [
      { last: 0 },
      { last: 501 },
      { last: 2, first: 2 },
      { last: 2, after: end?.endCursor },
    ]) {
      const error = await refusal(() => q.jobLogs(job.id, options));
      expect([error.code, error.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'last']);
    }
  });

  it('refuses a line that is not a string or too long, and a cursor not of this log', async () => {
    const q = queue();
    const job = await claimed(q);
    const other = await claimed(q, 'h');
    await q.addJobLog(other.id, other.token, 'x');
    const before = await queueSnapshot(q);
    for (const line of [42, null, 'é'.repeat(Limits.logLineBytes / 2 + 1)]) {
      const error = await refusal(() => q.addJobLog(job.id, job.token, line as string));
      expect([error.code, error.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'line']);
    }
    expect((await refusal(() => q.addJobLog(job.id, 'stale', 'x'))).code).toBe(
      ErrorCode.LEASE_LOST,
    );
    expect(await queueSnapshot(q)).toEqual(before);
    const foreign = (await q.jobLogs(other.id))?.endCursor as string;
    for (const after of [foreign, 'garbage', (await q.jobs({ state: 'ACTIVE' })).endCursor]) {
      const error = await refusal(() => q.jobLogs(job.id, { after }));
      expect([error.code, error.argument]).toEqual([ErrorCode.BAD_USER_INPUT, 'after']);
    }
    expect((await refusal(() => q.jobLogs(job.id, { first: 0 }))).argument).toBe('first');
  });

  it('of a job that is not there is null', async () => {
    const q = queue();
    expect(await q.jobLogs('12345')).toBeNull();
    expect(await q.jobLogs('not-an-id')).toBeNull();
    const job = await claimed(q);
    expect(await q.jobLogs(job.id)).toEqual({
      logs: [],
      cursors: [],
      hasNextPage: false,
      endCursor: null,
      totalCount: 0,
    });
  });
});

describe('a job forgotten takes its log with it', () => {
  /** A claimed job with a log line and progress; `gone` checks both left with its hash. */
  async function logged(q: Queue, group = 'g') {
    const job = await claimed(q, group);
    await q.addJobLog(job.id, job.token, 'working');
    await q.updateJobProgress(job.id, job.token, 10);
    const gone = async () => {
      expect(await q.redis.exists(q.keys.job(job.id), q.keys.logs(job.id))).toBe(0);
      expect(await q.jobLogs(job.id)).toBeNull();
    };
    return { job, gone };
  }

  it('completed with retention count 0 (complete and completeAndClaim)', async () => {
    const q = queue();
    await q.setRetention({ completed: { count: 0 } });
    const a = await logged(q);
    await q.complete(a.job.id, a.job.token);
    await a.gone();
    const b = await logged(q, 'h');
    await q.completeAndClaim([{ id: b.job.id, token: b.job.token }], { claim: 0 });
    await b.gone();
  });

  it('trimmed past the completed retention', async () => {
    const q = queue();
    await q.setRetention({ completed: { count: 1 } });
    const a = await logged(q);
    await q.complete(a.job.id, a.job.token);
    expect((await q.jobLogs(a.job.id))?.totalCount).toBe(1);
    const b = await claimed(q, 'h');
    await q.complete(b.id, b.token);
    await a.gone();
  });

  it('dead with dead retention count 0', async () => {
    const q = queue();
    await q.setRetention({ dead: { count: 0 } });
    const a = await logged(q);
    await q.retry(a.job.id, a.job.token, { error: 'no' });
    const again = await q.claim();
    expect(again?.id).toBe(a.job.id);
    await q.retry(a.job.id, again?.token as string, { error: 'no' });
    const last = await q.claim();
    await q.retry(a.job.id, last?.token as string, { error: 'no' });
    expect(await q.job(a.job.id)).toBeNull();
    await a.gone();
  });

  it('removed by an operator', async () => {
    const q = queue();
    const a = await logged(q);
    await q.complete(a.job.id, a.job.token);
    expect((await q.removeJobs({ ids: [a.job.id] })).count).toBe(1);
    await a.gone();
  });
});

describe('a Worker', () => {
  it("gives its processor job.updateProgress and job.log, and says so in 'progress'", async () => {
    const q = queue();
    const enqueued = await q.enqueue('g', { n: 2 });
    const reports: unknown[] = [];
    const worker = new Worker(
      q,
      async (job: ActiveJob) => {
        await job.log('started');
        await job.updateProgress(50);
        expect(job.progress).toBe(50);
        await job.updateProgress({ stage: 'done' });
        await job.log('finished');
        return 'ok';
      },
      { parkTimeoutMs: 60_000, reaper: false },
    );
    worker.on('progress', (_job, progress) => reports.push(progress));
    const [completed] = (await once(worker, 'completed')) as [Job];
    await worker.close();
    expect(completed.progress).toEqual({ stage: 'done' });
    expect(reports).toEqual([50, { stage: 'done' }]);
    expect((await q.job(enqueued.id))?.progress).toEqual({ stage: 'done' });
    expect((await q.jobLogs(enqueued.id))?.logs.map((l) => l.line)).toEqual([
      'started',
      'finished',
    ]);
  });

  it('a refused report rejects in the processor, which may go on', async () => {
    const q = queue();
    await q.enqueue('g', null);
    const worker = new Worker(
      q,
      async (job: ActiveJob) => {
        const error = await job.updateProgress(500).catch((e: unknown) => e);
        return (error as { argument?: string }).argument;
      },
      { parkTimeoutMs: 60_000, reaper: false },
    );
    const [completed] = (await once(worker, 'completed')) as [Job];
    await worker.close();
    expect(completed.result).toBe('progress');
    expect(completed.progress).toBeNull();
  });
});
