/**
 * A processor's result kept with its completed job (DESIGN.md §2 "Job layout", §3 complete, §5
 * "Payloads"): `complete(id, token, { result })`, completeAndClaim's completions and a Worker's
 * return value, read back as `Job.result`; kept only while the retention keeps the job (count 0
 * stores nothing), deleted by the trim and by removeJobs; a result JSON would not give back is
 * refused with nothing changed (a Worker's attempt fails instead). And the typed jobs:
 * `Queue<Payload, Result>`, `Worker<Payload, Result>`, checked by `tsc --noEmit` over test/.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ErrorCode, type Job, Queue, Worker } from '../../src/lanes/index.js';
import { pollUntil, queueSnapshot, refusal, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

interface Order {
  readonly sku: string;
  readonly qty: number;
}
interface Receipt {
  readonly total: number;
}

function typedQueue(): Queue<Order, Receipt> {
  return new Queue<Order, Receipt>(engine.redis(), uniqueQueueName('typed'));
}

/** The queue's results hash, raw: job id → JSON text. */
function resultsHash(q: Queue<Order, Receipt> | Queue): Promise<Record<string, string>> {
  return q.redis.hgetall(q.keys.results);
}

async function claimed(q: Queue<Order, Receipt>, group = 'g'): Promise<Job<Order, Receipt>> {
  await q.enqueue(group, { sku: 'a', qty: 1 });
  const job = await q.claim();
  if (job === null) throw new Error('nothing claimed');
  return job;
}

describe('complete with a result', () => {
  it('keeps it with the retained job: the reply, job(id) and the COMPLETED page read it back', async () => {
    const q = typedQueue();
    const job = await claimed(q);
    const done = await q.complete(job.id, job.token as string, { result: { total: 42 } });
    expect(done.result).toEqual({ total: 42 });
    expect((await q.job(job.id))?.result).toEqual({ total: 42 });
    const page = await q.jobs({ state: 'COMPLETED' });
    expect(page.jobs.map((j) => j.result)).toEqual([{ total: 42 }]);
    expect(await resultsHash(q)).toEqual({ [job.id]: '{"total":42}' });
  });

  it('without one, or undefined, stores nothing and reads null', async () => {
    const q = typedQueue();
    const a = await claimed(q);
    const b = await claimed(q, 'h');
    await q.complete(a.id, a.token as string);
    expect((await q.complete(b.id, b.token as string, { result: undefined })).result).toBeNull();
    expect((await q.job(a.id))?.result).toBeNull();
    expect((await q.job(b.id))?.result).toBeNull();
    expect(await q.redis.exists(q.keys.results)).toBe(0);
    expect(await q.redis.hexists(q.keys.job(a.id), 'hasResult')).toBe(0);
  });

  it('is null on a job that is not completed', async () => {
    const q = typedQueue();
    const job = await claimed(q);
    expect(job.result).toBeNull();
    expect((await q.job(job.id))?.result).toBeNull();
  });

  it('with completed retention count 0 stores nothing: no results key, no field', async () => {
    const q = typedQueue();
    await q.setRetention({ completed: { count: 0 } });
    const job = await claimed(q);
    await q.complete(job.id, job.token as string, { result: { total: 1 } });
    const [a, b] = [await claimed(q), await claimed(q, 'h')];
    await q.completeAndClaim(
      [
        { id: a.id, token: a.token as string, result: { total: 2 } },
        { id: b.id, token: b.token as string, result: { total: 3 } },
      ],
      { claim: 0 },
    );
    expect(await q.redis.exists(q.keys.results)).toBe(0);
    expect(await q.job(job.id)).toBeNull();
  });

  it('a result JSON would not give back is refused, BAD_USER_INPUT result, and nothing changes', async () => {
    const q = typedQueue();
    const job = await claimed(q);
    const before = await queueSnapshot(q as unknown as Queue);
    const error = await refusal(() =>
      q.complete(job.id, job.token as string, { result: { total: Number.NaN } }),
    );
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe('result');
    expect(error.message).toMatch(/^result: result\.total is NaN/);
    const unknown = await refusal(() =>
      // @ts-expect-error an option complete does not take
      q.complete(job.id, job.token as string, { reslt: { total: 1 } }),
    );
    expect(unknown.argument).toBe('options.reslt');
    const batch = await refusal(() =>
      q.completeAndClaim([{ id: job.id, token: job.token as string, result: { total: Infinity } }]),
    );
    expect(batch.argument).toBe('completions[0].result');
    expect(await queueSnapshot(q as unknown as Queue)).toEqual(before);
    expect((await q.job(job.id))?.state).toBe('ACTIVE');
  });
});

describe('completeAndClaim', () => {
  it('keeps each completion its own result, in one HSET', async () => {
    const q = typedQueue();
    const a = await claimed(q);
    const b = await claimed(q, 'h');
    const c = await claimed(q, 'i');
    const reply = await q.completeAndClaim(
      [
        { id: a.id, token: a.token as string, result: { total: 1 } },
        { id: b.id, token: b.token as string },
        { id: c.id, token: c.token as string, result: { total: 3 } },
      ],
      { claim: 0 },
    );
    expect(reply.refused).toEqual([null, null, null]);
    expect(await resultsHash(q)).toEqual({ [a.id]: '{"total":1}', [c.id]: '{"total":3}' });
    expect((await q.job(a.id))?.result).toEqual({ total: 1 });
    expect((await q.job(b.id))?.result).toBeNull();
    expect((await q.job(c.id))?.result).toEqual({ total: 3 });
  });
});

describe('where the job is forgotten, its result goes', () => {
  it('the trim past the retention count deletes it', async () => {
    const q = typedQueue();
    await q.setRetention({ completed: { count: 1 } });
    const a = await claimed(q);
    await q.complete(a.id, a.token as string, { result: { total: 1 } });
    const b = await claimed(q);
    await q.complete(b.id, b.token as string, { result: { total: 2 } });
    expect(await q.job(a.id)).toBeNull();
    expect(await resultsHash(q)).toEqual({ [b.id]: '{"total":2}' });
  });

  it('removeJobs deletes it', async () => {
    const q = typedQueue();
    const a = await claimed(q);
    await q.complete(a.id, a.token as string, { result: { total: 1 } });
    const removed = await q.removeJobs({ ids: [a.id] });
    expect(removed.count).toBe(1);
    expect(await q.redis.exists(q.keys.results)).toBe(0);
  });
});

describe('a Worker', () => {
  it("keeps its processor's return value as the job's result", async () => {
    const q = typedQueue();
    const job = await q.enqueue('g', { sku: 'b', qty: 3 });
    const worker = new Worker<Order, Receipt>(q, async (j) => ({ total: j.payload.qty * 10 }), {
      parkTimeoutMs: 60_000,
      reaper: false,
    });
    const [completed] = (await once(worker, 'completed')) as [Job<Order, Receipt>];
    await worker.close();
    expect(completed.result).toEqual({ total: 30 });
    expect((await q.job(job.id))?.result).toEqual({ total: 30 });
  });

  it('fails the attempt when the return value is no result, with a readable lastError', async () => {
    const q = new Queue(engine.redis(), uniqueQueueName('bad'));
    const job = await q.enqueue('g', null, { maxAttempts: 1 });
    const worker = new Worker(q, async () => ({ when: new Map() }), {
      parkTimeoutMs: 60_000,
      reaper: false,
    });
    const [failed, error] = (await once(worker, 'failed')) as [Job, Error];
    await worker.close();
    expect(failed.state).toBe('DEAD');
    expect(error.message).toMatch(/^result: result\.when is a Map/);
    const read = await q.job(job.id);
    expect(read?.lastError).toMatch(/^result: result\.when is a Map/);
    expect(read?.result).toBeNull();
    await pollUntil('no result stored', async () => (await q.redis.exists(q.keys.results)) === 0);
  });
});

describe('typed jobs', () => {
  // Checked by tsc (test/ is in its program); never run.
  const typeChecks = (q: Queue<Order, Receipt>, plain: Queue): void => {
    void q.enqueue('g', { sku: 'a', qty: 1 });
    // @ts-expect-error a payload of the wrong shape
    void q.enqueue('g', { sku: 'a', qty: '1' });
    void plain.enqueue('g', 'anything');
    void (async () => {
      const job = await q.job('1');
      const total: number | undefined = job?.result?.total;
      const qty: number | undefined = job?.payload.qty;
      // @ts-expect-error the result is a Receipt
      const wrong: string | undefined = job?.result?.total;
      const page = await q.jobs({ state: 'COMPLETED' });
      const first: Receipt | null | undefined = page.jobs[0]?.result;
      const { claimed: jobs } = await q.completeAndClaim([]);
      const sku: string | undefined = jobs[0]?.payload.sku;
      void [total, qty, wrong, first, sku];
      // @ts-expect-error a result of the wrong shape
      await q.complete('1', 't', { result: { total: 'x' } });
    })();
    new Worker<Order, Receipt>(q, async (job) => ({ total: job.payload.qty }));
    new Worker<Order, Receipt>('orders', (job) => ({ total: job.payload.qty }), {
      connection: 'redis://localhost:1',
    });
    // @ts-expect-error the processor must return a Receipt
    new Worker<Order, Receipt>(q, async () => ({ sum: 1 }));
    // @ts-expect-error the payload is an Order
    new Worker<Order, Receipt>(q, async (job) => ({ total: job.payload.price }));
    new Worker(plain, async () => 'anything');
  };

  it('are checked by the compiler (tsc --noEmit covers this file)', () => {
    expect(typeof typeChecks).toBe('function');
  });
});
