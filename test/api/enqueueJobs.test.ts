/**
 * `enqueueJobs(queue, jobs)` over HTTP (DESIGN.md §4.3, the producer's side): a thin
 * resolver over `Queue.enqueueMany`. 1,000 jobs of a normal selection pass the query limits
 * (sent as a variable, as the mutation's description says); the answers come in input order,
 * each as `enqueue` answers it; the worker role is needed (a read token is FORBIDDEN); a bad job
 * is refused with its index in `extensions.argument`, and a refused call changes nothing in
 * Redis (every key's DUMP compared). Payloads over the engine's 16 MiB a call are
 * BAD_USER_INPUT `jobs` too, checked through the server's GraphQL execution without HTTP,
 * whose 1 MiB body limit refuses such a call first.
 */
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { Limits } from '../../src/lanes/index.js';
import { MAX_REQUEST_BYTES } from '../../src/server/plugins/limits.js';
import {
  type EnqueueJobInput,
  EnqueueJobsDocument,
  type EnqueueJobsMutation,
} from '../gql/graphql.js';
import { expectRedisUnchanged, refusal } from '../support/api.js';
import { expirySnapshot, redisNow, uniqueQueueName } from '../support/lanes.js';
import { type GraphQLResponse, useTestServer } from '../support/server.js';

const TOKENS = {
  read: 'read-token-0123456789abcdef',
  worker: 'worker-token-0123456789abcdef',
} as const;
const api = useTestServer({
  AUTH_TOKENS: `read:${TOKENS.read},worker:${TOKENS.worker}`,
  REAP_INTERVAL_MS: '86400000',
});

/**
 * Run `action` and assert the keyspace is byte for byte what it was (expiries as absolute
 * times: the idempotency keys' PTTL counts down). Returns what `action` returned.
 */
const send = (queue: string, jobs: EnqueueJobInput[], token: string = TOKENS.worker) =>
  api.request(EnqueueJobsDocument, { queue, jobs }, { token });

describe('enqueueJobs', () => {
  it('enqueues 1,000 jobs in one call, answered in input order, each as enqueue answers it', async () => {
    const queue = uniqueQueueName();
    const jobs: EnqueueJobInput[] = Array.from({ length: 1_000 }, (_, i) => ({
      group: `tenant-${i % 10}`,
      payload: { orderId: i, note: 'x'.repeat(200) },
      ...(i % 4 === 0 ? { delayMs: 60_000, backoff: { type: 'FIXED', delayMs: 500 } } : {}),
      ...(i === 7 ? { key: 'order-7', maxAttempts: 5 } : {}),
    }));
    const response = await send(queue, jobs);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const answered = response.body.data?.enqueueJobs ?? [];
    expect(answered.map((j) => j.id)).toEqual(jobs.map((_, i) => String(i + 1)));
    expect(answered.map((j) => j.group)).toEqual(jobs.map((j) => j.group));
    expect(answered[0]).toMatchObject({
      state: 'DELAYED',
      backoff: { type: 'FIXED', delayMs: 500 },
      payload: { orderId: 0 },
      token: null,
    });
    expect(answered[1]).toMatchObject({ state: 'PENDING', runAt: null, backoff: null });
    const q = api.server.engine.queue(queue);
    expect(await q.job('8')).toMatchObject({ maxAttempts: 5, payload: { orderId: 7 } });
    expect((await q.counts()).pending).toBe(750);
    expect((await q.counts()).delayed).toBe(250);
    expect((await q.audit()).findings).toEqual([]);

    // The same call again: job 8's key answers job 8; every other job is new.
    const again = (await send(queue, jobs.slice(5, 10))).body.data?.enqueueJobs ?? [];
    expect(again.map((j) => j.id)).toEqual(['1001', '1002', '8', '1003', '1004']);
  });

  it('needs the worker role: a read token is FORBIDDEN and nothing is written', async () => {
    const queue = uniqueQueueName();
    await api.server.engine.queue(queue).enqueue('g', { seed: 1 });
    const response = await expectRedisUnchanged(
      api.redis.client(),
      () => send(queue, [{ group: 'g' }], TOKENS.read),
      expirySnapshot,
    );
    expect(refusal(response).code).toBe('FORBIDDEN');
    expect(response.body.data?.enqueueJobs ?? null).toBeNull();
  });

  it('a bad job is refused with its index, and the call writes nothing', async () => {
    const queue = uniqueQueueName();
    await api.server.engine.queue(queue).enqueue('g', { seed: 1 }, { key: 'used' });
    const now = await redisNow(api.redis.client());
    const ok: EnqueueJobInput = { group: 'g', payload: 1 };
    const cases: [EnqueueJobInput[], string][] = [
      [[ok, ok, { group: '' }], 'jobs[2].group'],
      [[ok, { group: 'g', maxAttempts: 101 }], 'jobs[1].maxAttempts'],
      [[{ group: 'g', delayMs: 1, runAt: new Date(now).toISOString() }, ok], 'jobs[0].runAt'],
      // Judged by the script (Redis clock) before its first write.
      [
        [ok, ok, ok, { group: 'g', runAt: new Date(now + 40 * 86_400_000).toISOString() }],
        'jobs[3].runAt',
      ],
      [[ok, { group: 'h', payload: 2, key: 'used' }], 'jobs[1].key'],
      [Array.from({ length: 1_001 }, () => ok), 'jobs'],
    ];
    for (const [jobs, argument] of cases) {
      const response = await expectRedisUnchanged(
        api.redis.client(),
        () => send(queue, jobs),
        expirySnapshot,
      );
      expect(refusal(response), argument).toEqual({ code: 'BAD_USER_INPUT', argument });
      expect(response.body.errors?.[0]?.message.startsWith(`${argument}: `)).toBe(true);
    }
  });

  it('payloads over 16 MiB in all are BAD_USER_INPUT `jobs`, past the body limit only in-process', async () => {
    // Over HTTP (and a WebSocket) the 1 MiB body limit refuses such a call first, so the
    // engine's bound is reached here through the server's own GraphQL execution, its plugins
    // (error masking and codes) included, with no transport.
    expect(Limits.enqueueBatchPayloadBytes).toBeGreaterThan(MAX_REQUEST_BYTES);
    const queue = uniqueQueueName();
    await api.server.engine.queue(queue).enqueue('g', { seed: 1 });
    const big = 'x'.repeat(Limits.payloadBytes - 2);
    const count = Limits.enqueueBatchPayloadBytes / Limits.payloadBytes;
    const jobs = Array.from({ length: count }, () => ({ group: 'g', payload: big }));
    const { parse, validate, execute, schema } = api.server.yoga.getEnveloped({});
    const document = parse(print(EnqueueJobsDocument));
    expect(validate(schema, document)).toEqual([]);
    const run = async (sent: EnqueueJobInput[]): Promise<GraphQLResponse<EnqueueJobsMutation>> => {
      const result = await execute({
        schema,
        document,
        variableValues: { queue, jobs: sent },
        contextValue: { engine: api.server.engine, feed: api.server.feed, role: 'worker' },
      });
      // As a transport would send it.
      return { status: 200, body: JSON.parse(JSON.stringify(result)) };
    };
    const response = await expectRedisUnchanged(
      api.redis.client(),
      () => run([...jobs, { group: 'g', payload: 1 }]),
      expirySnapshot,
    );
    expect(response.body.data?.enqueueJobs).toBeNull();
    expect(refusal(response)).toEqual({ code: 'BAD_USER_INPUT', argument: 'jobs' });
    expect(response.body.errors?.[0]?.message).toMatch(
      /^jobs: payloads total 16777217 bytes .* split/,
    );
  });
});
