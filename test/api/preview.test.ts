/**
 * `Job.payloadPreview`, `Job.resultPreview` and `Job.progressPreview` (`chars`) over HTTP (DESIGN.md §4.2): the
 * JSON text whole up to `chars` characters (code points), else its first `chars − 1` and "…";
 * 120 by default; null without a payload, result or progress; in a list as by id, so a page of large
 * results answers a line each; `chars` outside 1..2,000 (or null) refused with BAD_USER_INPUT
 * `chars`, writing nothing.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { Limits } from '../../src/lanes/limits.js';
import { CompletedPreviewsDocument, JobPreviewsDocument } from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

/** Enqueue, claim and complete one job with `result`; its id. */
async function completed(queue: string, result: unknown): Promise<string> {
  const q = api.server.engine.queue(queue);
  await q.enqueue('g', { n: 1 });
  const job = await q.claim({ leaseMs: 60_000 });
  if (!job?.token) throw new Error('nothing claimed');
  await q.complete(job.id, job.token, result === undefined ? {} : { result });
  return job.id;
}

const previews = async (queue: string, id: string, chars?: number) =>
  (
    await api.ok(JobPreviewsDocument, {
      queue,
      id,
      ...(chars === undefined ? {} : { chars }),
    })
  ).queue.job;

describe('Job.resultPreview', () => {
  it('cuts a large result to 120 characters by default and to `chars` when asked, ending with …', async () => {
    const queue = uniqueQueueName('preview');
    const result = { text: 'x'.repeat(300_000), n: 1 };
    const text = JSON.stringify(result);
    const id = await completed(queue, result);

    const byDefault = await previews(queue, id);
    expect(byDefault?.resultShort).toBe(`${text.slice(0, 119)}…`);
    expect(byDefault?.resultShort).toHaveLength(120);

    for (const chars of [1, 2, 60, Limits.maxPreviewChars]) {
      const cut = (await previews(queue, id, chars))?.resultCut;
      expect(cut).toBe(`${text.slice(0, chars - 1)}…`);
      expect(cut).toHaveLength(chars);
    }
  });

  it('gives a result of at most `chars` characters whole, and cuts one more', async () => {
    const queue = uniqueQueueName('preview');
    const result = { ok: true, items: [1, 2, 3], name: 'a b' };
    const text = JSON.stringify(result);
    const id = await completed(queue, result);

    expect((await previews(queue, id))?.resultShort).toBe(text);
    expect((await previews(queue, id, text.length))?.resultCut).toBe(text);
    expect((await previews(queue, id, text.length - 1))?.resultCut).toBe(
      `${text.slice(0, text.length - 2)}…`,
    );
  });

  it('counts code points, so a cut never splits a character outside the BMP', async () => {
    const queue = uniqueQueueName('preview');
    // JSON text `"😀😀😀"`: 5 code points, 8 UTF-16 units.
    const id = await completed(queue, '😀😀😀');

    expect((await previews(queue, id, 5))?.resultCut).toBe('"😀😀😀"');
    expect((await previews(queue, id, 7))?.resultCut).toBe('"😀😀😀"');
    expect((await previews(queue, id, 4))?.resultCut).toBe('"😀😀…');
    expect((await previews(queue, id, 3))?.resultCut).toBe('"😀…');
  });

  it('is null for a completed job without a result and for a job not completed', async () => {
    const queue = uniqueQueueName('preview');
    const none = await completed(queue, undefined);
    expect(await previews(queue, none)).toMatchObject({
      state: 'COMPLETED',
      resultShort: null,
      resultCut: null,
    });

    const pending = (await api.server.engine.queue(queue).enqueue('g', { n: 2 })).id;
    expect(await previews(queue, pending, 10)).toMatchObject({
      state: 'PENDING',
      resultShort: null,
      progressShort: null,
    });
  });

  it('answers a line per row in a list of completed jobs, not their whole results', async () => {
    const queue = uniqueQueueName('preview');
    const results = [0, 1, 2].map((n) => ({ n, text: String(n).repeat(100_000) }));
    const ids: string[] = [];
    for (const result of results) ids.push(await completed(queue, result));

    const response = await api.request(CompletedPreviewsDocument, { queue, chars: 60, first: 3 });
    expect(response.body.errors).toBeUndefined();
    const rows = response.body.data?.queue.jobs.edges.map((e) => e.node);
    // Newest first.
    expect(rows).toEqual(
      [...ids].reverse().map((id, i) => ({
        id,
        resultPreview: `${JSON.stringify(results[2 - i]).slice(0, 59)}…`,
      })),
    );
    expect(JSON.stringify(response.body).length).toBeLessThan(2_000);
  });
});

describe('Job.progressPreview', () => {
  it("gives a number's text and an object's JSON text, cut as a result's", async () => {
    const queue = uniqueQueueName('preview');
    const q = api.server.engine.queue(queue);
    await q.enqueue('g', { n: 1 });
    await q.enqueue('g', { n: 2 });
    const first = await q.claim({ leaseMs: 60_000 });
    const second = await q.claim({ leaseMs: 60_000 });
    if (!first?.token || !second?.token) throw new Error('nothing claimed');
    expect((await previews(queue, first.id))?.progressShort).toBeNull();

    await q.updateJobProgress(first.id, first.token, 40);
    const progress = { step: 'upload', files: 'f'.repeat(5_000) };
    await q.updateJobProgress(second.id, second.token, progress);
    const text = JSON.stringify(progress);

    expect(await previews(queue, first.id, 2)).toMatchObject({
      state: 'ACTIVE',
      progressShort: '40',
      progressCut: '40',
      resultShort: null,
    });
    expect(await previews(queue, second.id, 40)).toMatchObject({
      progressShort: `${text.slice(0, 119)}…`,
      progressCut: `${text.slice(0, 39)}…`,
    });
  });
});

describe('Job.payloadPreview', () => {
  it("cuts a large payload as a result's, and is null for a null payload", async () => {
    const queue = uniqueQueueName('preview');
    const q = api.server.engine.queue(queue);
    const payload = { items: Array.from({ length: 5_000 }, (_, i) => i) };
    const text = JSON.stringify(payload);
    const big = (await q.enqueue('g', payload)).id;
    const none = (await q.enqueue('g', null)).id;

    expect(await previews(queue, big, 60)).toMatchObject({
      payloadShort: `${text.slice(0, 119)}…`,
      payloadCut: `${text.slice(0, 59)}…`,
    });
    expect(await previews(queue, none, 60)).toMatchObject({
      payloadShort: null,
      payloadCut: null,
    });
  });
});

describe('a preview’s chars out of range', () => {
  it.each([0, -1, Limits.maxPreviewChars + 1, null])(
    'refuses chars %s with BAD_USER_INPUT `chars` and writes nothing',
    async (chars) => {
      const queue = uniqueQueueName('preview');
      const id = await completed(queue, { n: 1 });
      const response = await expectRedisUnchanged(r, () =>
        api.request(JobPreviewsDocument, { queue, id, chars }),
      );
      // Both fields that take the variable are refused; the defaults still answer.
      expect(response.body.errors?.map((e) => e.extensions?.code)).toEqual([
        'BAD_USER_INPUT',
        'BAD_USER_INPUT',
        'BAD_USER_INPUT',
      ]);
      expect(response.body.errors?.map((e) => e.extensions?.argument)).toEqual([
        'chars',
        'chars',
        'chars',
      ]);
      expect(response.body.errors?.[0]?.message).toMatch(
        /chars: must be an integer from 1 to 2000/,
      );
      expect(response.body.data?.queue.job).toMatchObject({
        payloadShort: '{"n":1}',
        payloadCut: null,
        resultShort: '{"n":1}',
        resultCut: null,
        progressCut: null,
      });
    },
  );

  it('refuses a chars past a 32-bit Int while the variables are coerced', async () => {
    const queue = uniqueQueueName('preview');
    const id = await completed(queue, { n: 1 });
    const response = await api.request(JobPreviewsDocument, { queue, id, chars: 2 ** 40 });
    expect(refusal(response).code).toBe('BAD_USER_INPUT');
    expect(response.body.data).toBeUndefined();
  });
});
