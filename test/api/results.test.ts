/**
 * A job's result over HTTP (DESIGN.md §4.3 `complete`'s `result`, §4.2 `Job.result`): kept with
 * the completed job and read back by `Queue.job`; null without one; a result JSON would not
 * give back (a number past a double parses as Infinity) refused, BAD_USER_INPUT `result`,
 * with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { CompleteWithResultDocument, JobResultDocument } from '../gql/graphql.js';
import { codes, expectRedisUnchanged, post } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import type { GraphQLResponse } from '../support/server.js';
import { startTestServer, type TestServer } from '../support/server.js';

const redis = useTestRedis();
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
});
afterAll(async () => {
  await api?.stop();
});

function ok<T>(response: GraphQLResponse<T>): T {
  expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.body.data as T;
}

const engineQueue = (name: string): Queue => api.server.engine.queue(name);

async function active(q: string): Promise<{ id: string; token: string }> {
  await engineQueue(q).enqueue('g', { n: 1 });
  const job = await engineQueue(q).claim({ leaseMs: 60_000 });
  if (job === null) throw new Error('nothing claimed');
  return { id: job.id, token: job.token as string };
}

describe('complete(result) and Job.result', () => {
  it('keeps the result with the completed job and reads it back', async () => {
    const q = uniqueQueueName('res');
    const { id, token } = await active(q);
    const result = { total: 42, lines: ['a', 'b'] };
    const done = ok(await api.request(CompleteWithResultDocument, { queue: q, id, token, result }));
    expect(done.complete).toEqual({ id, state: 'COMPLETED', result });
    const read = ok(await api.request(JobResultDocument, { queue: q, id }));
    expect(read.queue.job).toEqual({ id, state: 'COMPLETED', result });
  });

  it('without a result, or null, Job.result is null', async () => {
    const q = uniqueQueueName('res');
    const a = await active(q);
    const b = await active(q);
    ok(await api.request(CompleteWithResultDocument, { queue: q, ...a }));
    ok(await api.request(CompleteWithResultDocument, { queue: q, ...b, result: null }));
    for (const { id } of [a, b]) {
      const read = ok(await api.request(JobResultDocument, { queue: q, id }));
      expect(read.queue.job?.result).toBeNull();
    }
  });

  it('a result past a double is refused, BAD_USER_INPUT result, writing nothing', async () => {
    const q = uniqueQueueName('res');
    const { id, token } = await active(q);
    const r = redis.client();
    const body = `{"query":"mutation($q: String!, $id: ID!, $t: String!, $r: JSON) { complete(queue: $q, id: $id, token: $t, result: $r) { id } }","variables":{"q":"${q}","id":"${id}","t":"${token}","r":{"n":1e400}}}`;
    const response = await expectRedisUnchanged(r, () => post(api.endpoint, body));
    expect(codes(response.json)).toEqual(['BAD_USER_INPUT']);
    const error = response.json?.errors?.[0];
    expect(error?.extensions?.argument).toBe('result');
    expect(error?.message).toMatch(/^result: result\.n is Infinity/);
    r.disconnect();
  });
});
