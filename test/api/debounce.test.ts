/**
 * Debounce over HTTP (DESIGN.md §3 "Debounce"): `enqueue(debounce:)` and
 * `EnqueueJobInput.debounce` replace a waiting job's payload and answer its id, `Job.debounceKey`
 * reads the key, and a debounce with an idempotency key, or a key whose job waits in another
 * group, is BAD_USER_INPUT naming it, nothing written.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DebouncedJobDocument,
  EnqueueDebouncedDocument,
  EnqueueJobsDebouncedDocument,
} from '../gql/graphql.js';
import { codes, expectRedisUnchanged } from '../support/api.js';
import { expirySnapshot, uniqueQueueName } from '../support/lanes.js';
import { ok, useTestServer } from '../support/server.js';

const api = useTestServer({ REAP_INTERVAL_MS: '86400000' });
let r: Redis;

beforeAll(() => {
  r = api.redis.client();
});

describe('enqueue and enqueueJobs with debounce', () => {
  it('replaces the waiting job: the same id, the newest payload, its key on the job', async () => {
    const queue = uniqueQueueName('debounce');
    const debounce = { key: 'reindex-7', windowMs: 60_000 };
    const first = ok(
      await api.request(EnqueueDebouncedDocument, { queue, group: 'g', payload: 1, debounce }),
    ).enqueue;
    expect(first?.state).toBe('DELAYED');
    expect(first?.debounceKey).toBe('reindex-7');
    const second = ok(
      await api.request(EnqueueDebouncedDocument, { queue, group: 'g', payload: 2, debounce }),
    ).enqueue;
    expect(second?.id).toBe(first?.id);
    expect(second?.payload).toBe(2);
    const many = ok(
      await api.request(EnqueueJobsDebouncedDocument, {
        queue,
        jobs: [
          { group: 'g', payload: 3, debounce },
          { group: 'g', payload: 4 },
        ],
      }),
    ).enqueueJobs;
    expect(many?.[0]?.id).toBe(first?.id);
    expect(many?.[1]?.debounceKey).toBeNull();
    const read = ok(await api.request(DebouncedJobDocument, { queue, id: first?.id ?? '' })).queue
      .job;
    expect(read).toEqual({ id: first?.id, state: 'DELAYED', payload: 3, debounceKey: 'reindex-7' });
  });

  it('refuses debounce with a key, and a key waiting in another group, nothing written', async () => {
    const queue = uniqueQueueName('debounce');
    const debounce = { key: 'k', windowMs: 60_000 };
    const made = ok(
      await api.request(EnqueueDebouncedDocument, { queue, group: 'g', payload: 1, debounce }),
    ).enqueue;
    await expectRedisUnchanged(
      r,
      async () => {
        const both = await api.request(EnqueueDebouncedDocument, {
          queue,
          group: 'g',
          debounce,
          key: 'idem',
        });
        expect(codes(both.body as never)).toEqual(['BAD_USER_INPUT']);
        expect(both.body.errors?.[0]?.extensions?.argument).toBe('debounce');
        const other = await api.request(EnqueueDebouncedDocument, { queue, group: 'h', debounce });
        expect(codes(other.body as never)).toEqual(['BAD_USER_INPUT']);
        expect(other.body.errors?.[0]?.extensions?.argument).toBe('debounce.key');
        expect(other.body.errors?.[0]?.message).toContain(`job ${made?.id}`);
        const many = await api.request(EnqueueJobsDebouncedDocument, {
          queue,
          jobs: [{ group: 'g' }, { group: 'h', debounce }],
        });
        expect(codes(many.body as never)).toEqual(['BAD_USER_INPUT']);
        expect(many.body.errors?.[0]?.extensions?.argument).toBe('jobs[1].debounce.key');
        // The debounce record expires: its expiry compared as a time, not a countdown.
      },
      expirySnapshot,
    );
  });
});
