/**
 * "A rejected request that did something": a reply that reports a refusal has
 * changed nothing, and a reply never hides what did happen.
 *
 * - An operation the caller's role does not allow in full is refused (FORBIDDEN, HTTP 403)
 *   before any of its fields runs — whatever the field order, and through aliases, named and
 *   inline fragments and `@include`/`@skip` evaluated with the request's variables — on HTTP,
 *   SSE and WebSocket; Redis is unchanged byte for byte. (Before: a worker's
 *   `mutation { enqueue … setLimit … }` enqueued the job, then answered `data: null`.)
 * - A mutation field that ran shows its result when a later field fails: mutation fields are
 *   nullable, so one field's error nulls that field only, with the error at its path.
 */
import { GraphQLNonNull } from 'graphql';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';
import {
  codes,
  expectNoLeak,
  expectRedisUnchanged,
  post,
  type RawRequest,
  type WsOutcome,
  wsOperation,
} from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import {
  ROLE_AUTH_TOKENS as AUTH_TOKENS,
  ROLE_TOKENS as TOKENS,
  useTestServer,
} from '../support/server.js';

const api = useTestServer({ AUTH_TOKENS, REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

type Transport = 'http' | 'sse' | 'ws';

/** One operation on `transport`, as `{ status, result, text }` (status 0 on WebSocket). */
async function send(transport: Transport, request: RawRequest, token: string) {
  if (transport === 'ws') {
    const outcome: WsOutcome = await wsOperation(api.endpoint, request, { token });
    expect(outcome.closeCode, outcome.frames.join('\n')).toBeUndefined();
    return { status: 0, result: outcome.results[0], text: outcome.frames.join('\n') };
  }
  const response = await post(api.endpoint, request, {
    token,
    ...(transport === 'sse' ? { accept: 'text/event-stream' } : {}),
  });
  return { status: response.status, result: response.json, text: response.text };
}

describe.each(['http', 'sse', 'ws'] as const)('over %s', (transport) => {
  /** The worker's mutations, each with a field only an admin may run after one it may. */
  const refused: [string, (q: string) => RawRequest][] = [
    [
      'enqueue, then setLimit (the issue)',
      (q) => ({
        query: `mutation { e: enqueue(queue: "${q}", group: "zz") { id } s: setLimit(queue: "${q}", group: "g1", limit: 9) { id } }`,
      }),
    ],
    [
      'setLimit in a named fragment spread after the enqueue',
      (q) => ({
        query: `mutation M($q: String!) { enqueue(queue: $q, group: "zz") { id } ...Steer }
          fragment Steer on Mutation { setLimit(queue: $q, group: "g1", limit: 9) { id } }`,
        variables: { q },
      }),
    ],
    [
      'pauseGroup in an inline fragment, included by a variable',
      (q) => ({
        query: `mutation M($q: String!, $steer: Boolean!) {
          enqueue(queue: $q, group: "zz") { id }
          ... @include(if: $steer) { pauseGroup(queue: $q, group: "zz") { id } }
        }`,
        variables: { q, steer: true },
      }),
    ],
    [
      'repairQueue not skipped (@skip with a false variable)',
      (q) => ({
        query: `mutation M($q: String!, $skip: Boolean!) {
          claim(queue: $q) { id }
          repairQueue(queue: $q) @skip(if: $skip) { groupsChecked }
        }`,
        variables: { q, skip: false },
      }),
    ],
  ];

  it.each(refused)('a worker: %s — FORBIDDEN, nothing run', async (_label, build) => {
    const queue = uniqueQueueName('whole');
    // Something in the queue, so a stray enqueue, claim or repair would show in the snapshot.
    await api.server.engine.queue(queue).enqueue('zz', { seeded: true });
    const sent = await expectRedisUnchanged(r, () => send(transport, build(queue), TOKENS.worker));
    expectNoLeak(sent.text);
    expect(codes(sent.result), sent.text).toEqual(['FORBIDDEN']);
    expect(sent.result?.data ?? null).toBeNull();
    expect(sent.result?.errors?.[0]?.message).toMatch(/needs admin.*nothing was run/);
    if (transport === 'http') expect(sent.status).toBe(403);
  });

  it('a read token: a query asking for an admin field is refused in full', async () => {
    const queue = uniqueQueueName('whole-read');
    await api.server.engine.queue(queue).enqueue('g');
    const sent = await send(
      transport,
      { query: `{ queues { name } queue(name: "${queue}") { name audit { groupsChecked } } }` },
      TOKENS.read,
    );
    expect(codes(sent.result), sent.text).toEqual(['FORBIDDEN']);
    expect(sent.result?.data ?? null).toBeNull();
    // Refused before execution (field auth alone would answer 200 after running `queues`).
    expect(sent.result?.errors?.[0]?.message).toMatch(/"audit" needs admin/);
    if (transport === 'http') expect(sent.status).toBe(403);
  });

  it("one document, repeated, is judged for each role and each request's variables", async () => {
    // The verdict is kept per parsed operation and role (operationRole.ts): the same text from
    // an admin, a worker, an admin again, then a worker whose variables do not coerce.
    const queue = uniqueQueueName('whole-repeat');
    const query = `mutation Repeat($q: String!) {
      e: enqueue(queue: $q, group: "zz") { id }
      s: setLimit(queue: $q, group: "g1", limit: 9) { id limit }
    }`;
    const asAdmin = async () => {
      const sent = await send(transport, { query, variables: { q: queue } }, TOKENS.admin);
      expect(sent.result?.errors, sent.text).toBeUndefined();
      expect((sent.result?.data as { s?: { limit?: number } } | undefined)?.s?.limit).toBe(9);
    };
    await asAdmin();
    const refusedSent = await expectRedisUnchanged(r, () =>
      send(transport, { query, variables: { q: queue } }, TOKENS.worker),
    );
    expect(codes(refusedSent.result), refusedSent.text).toEqual(['FORBIDDEN']);
    await asAdmin();
    const badVariables = await expectRedisUnchanged(r, () =>
      send(transport, { query, variables: { q: null } }, TOKENS.worker),
    );
    // Not FORBIDDEN: an operation that cannot run is the executor's to answer, as before.
    expect(codes(badVariables.result), badVariables.text).toEqual(['BAD_USER_INPUT']);
  });

  it('a field the role may not run but @skip removes does not refuse the rest', async () => {
    const queue = uniqueQueueName('whole-skip');
    const sent = await send(
      transport,
      {
        query: `mutation M($q: String!, $yes: Boolean!) {
          e: enqueue(queue: $q, group: "zz") { id group }
          s: setLimit(queue: $q, group: "g1", limit: 9) @skip(if: $yes) { id }
          p: pauseGroup(queue: $q, group: "zz") @include(if: false) { id }
        }`,
        variables: { q: queue, yes: true },
      },
      TOKENS.worker,
    );
    expect(sent.result?.errors, sent.text).toBeUndefined();
    const data = sent.result?.data as { e: { id: string; group: string } };
    expect(data.e.group).toBe('zz');
    expect((await api.server.engine.queue(queue).job(data.e.id))?.state).toBe('PENDING');
  });

  it('an admin: a field that ran shows its result when a later field fails', async () => {
    const queue = uniqueQueueName('partial');
    const q = api.server.engine.queue(queue);
    await q.enqueue('g');
    const sent = await send(
      transport,
      {
        query: `mutation M($q: String!) {
          e: enqueue(queue: $q, group: "zz") { id group }
          s: setLimit(queue: $q, group: "g1", limit: -1) { id }
          p: pauseGroup(queue: $q, group: "g") { id paused }
          c: complete(queue: $q, id: "999", token: "t") { id }
        }`,
        variables: { q: queue },
      },
      TOKENS.admin,
    );
    expectNoLeak(sent.text);
    if (transport === 'http') expect(sent.status).toBe(200);
    const data = sent.result?.data as {
      e: { id: string; group: string } | null;
      s: unknown;
      p: { id: string; paused: boolean } | null;
      c: unknown;
    };
    // What ran is shown, and is what Redis holds.
    expect(data.e?.group).toBe('zz');
    expect((await q.job(data.e?.id ?? ''))?.state).toBe('PENDING');
    expect(data.p).toEqual({ id: 'g', paused: true });
    expect((await q.group('g')).paused).toBe(true);
    // What failed is null, its error at its path; it wrote nothing (no group g1).
    expect(data.s).toBeNull();
    expect(data.c).toBeNull();
    const errors = (sent.result?.errors ?? []).map((e) => [e.path, e.extensions?.code]);
    expect(errors).toEqual([
      [['s'], 'BAD_USER_INPUT'],
      [['c'], 'JOB_NOT_FOUND'],
    ]);
    expect(await r.zscore(q.keys.groups, 'g1')).toBeNull();
  });
});

describe('the schema', () => {
  it('every mutation field is nullable, so one failure cannot null the fields that ran', () => {
    const fields = Object.values(schema.getMutationType()?.getFields() ?? {});
    expect(fields.length).toBeGreaterThan(0);
    const nonNull = fields.filter((f) => f.type instanceof GraphQLNonNull).map((f) => f.name);
    expect(nonNull).toEqual([]);
  });
});
