/**
 * An enqueue may carry an idempotency key. The same key within a queue
 * answers the job it made (for keyTtlMs after it, default 24 h) and writes nothing, so a
 * producer can retry safely — and so can ioredis, which resends a call in flight when its
 * connection drops (reproduced here with a proxy that cuts the connection instead of passing
 * one reply on: Redis ran the script, the client never heard). Without a key that resend adds a
 * second job: delivery of an enqueue is at least once.
 */
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode, Queue } from '../../src/lanes/index.js';
import { JOB_LAYOUT } from '../../src/lanes/keys.js';
import type { RedisClient } from '../../src/lanes/redis/client.js';
import { codes, post } from '../support/api.js';
import { pollUntil, refusal, scanAll, uniqueQueueName, useEngine } from '../support/lanes.js';
import { useTestServer } from '../support/server.js';

const engine = useEngine();

/**
 * The keyspace byte for byte, as `snapshot` in support/lanes.ts takes it, but with each key's
 * absolute expiry (PEXPIRETIME, Redis 7) rather than its PTTL, which counts down: an idempotency
 * key expires, and two equal snapshots must still mean nothing was written. (Redis 6.2, under
 * REDIS_URL, has no PEXPIRETIME: there only whether a key expires is compared.)
 */
async function snapshot(r: RedisClient): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const expiryOf = (key: string) =>
    r.call('PEXPIRETIME', key).catch(async () => ((await r.pttl(key)) > 0 ? 'expires' : 'never'));
  for (const key of (await scanAll(r)).sort()) {
    const [dump, expiry] = await Promise.all([r.dumpBuffer(key), expiryOf(key)]);
    out.set(key, `${dump?.toString('hex') ?? 'nil'}|${expiry}`);
  }
  return out;
}

describe('enqueue with a key', () => {
  it('the same key answers the same job and writes nothing', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', { order: 42 }, { key: 'order-42' });
    const before = await snapshot(q.redis);
    const again = await q.enqueue('g', { order: 42 }, { key: 'order-42' });
    expect(again).toEqual(first);
    expect(await snapshot(q.redis)).toEqual(before);
    expect(await q.redis.zrange(q.keys.lane('g'), 0, -1)).toEqual([first.id]);
    expect(await q.redis.hget(q.keys.stats, 'enqueued')).toBe('1');
  });

  it('calls racing with one key make one job', async () => {
    const q = engine.queue();
    const jobs = await Promise.all(
      Array.from({ length: 10 }, () => q.enqueue('g', { n: 1 }, { key: 'k' })),
    );
    expect(new Set(jobs.map((j) => j.id)).size).toBe(1);
    expect(await q.redis.zcard(q.keys.lane('g'))).toBe(1);
  });

  it('answers the job as it is now: ACTIVE without the worker’s token, and COMPLETED once its hash is gone', async () => {
    const q = engine.queue();
    const job = await q.enqueue('g', { n: 7 }, { key: 'k', maxAttempts: 5 });
    const claimed = await q.claim();
    const active = await q.enqueue('g', { n: 7 }, { key: 'k', maxAttempts: 5 });
    expect(active).toMatchObject({ id: job.id, state: 'ACTIVE', attempts: 1, token: null });

    await q.complete(job.id, claimed?.token as string);
    const before = await snapshot(q.redis);
    const done = await q.enqueue('g', { n: 7 }, { key: 'k', maxAttempts: 5 });
    expect(done).toMatchObject({
      id: job.id,
      group: 'g',
      payload: { n: 7 },
      state: 'COMPLETED',
      maxAttempts: 5,
      enqueuedAt: job.enqueuedAt,
      token: null,
    });
    expect(await snapshot(q.redis)).toEqual(before);
  });

  it.each([
    ['another group', 'h', { n: 1 }, 3],
    ['another payload', 'g', { n: 2 }, 3],
    ['another maxAttempts', 'g', { n: 1 }, 4],
  ] as const)(
    'a key used for %s is BAD_USER_INPUT, and nothing is written',
    async (_what, group, payload, maxAttempts) => {
      const q = engine.queue();
      const job = await q.enqueue('g', { n: 1 }, { key: 'k' });
      const before = await snapshot(q.redis);
      const error = await refusal(() => q.enqueue(group, payload, { key: 'k', maxAttempts }));
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
      expect(error.argument).toBe('key');
      expect(error.message).toContain(`job ${job.id}`);
      expect(await snapshot(q.redis)).toEqual(before);
    },
  );

  it('a key is remembered for keyTtlMs, then a new job is made', async () => {
    const q = engine.queue();
    const first = await q.enqueue('g', null, { key: 'k', keyTtlMs: 200 });
    const ttl = await q.redis.pttl(q.keys.idem('k'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    expect((await q.enqueue('g', null, { key: 'k' })).id).toBe(first.id);
    await pollUntil(
      'the key to expire',
      async () => (await q.redis.exists(q.keys.idem('k'))) === 0,
    );
    expect((await q.enqueue('g', null, { key: 'k' })).id).not.toBe(first.id);
  });

  it('the default window is 24 h', async () => {
    const q = engine.queue();
    await q.enqueue('g', null, { key: 'k' });
    const ttl = await q.redis.pttl(q.keys.idem('k'));
    expect(ttl).toBeGreaterThan(86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);
  });

  it('keys are per queue', async () => {
    const a = engine.queue();
    const b = engine.queue();
    await a.enqueue('g', null, { key: 'k' });
    await b.enqueue('g', null, { key: 'k' });
    expect(await a.redis.zcard(a.keys.lane('g'))).toBe(1);
    expect(await b.redis.zcard(b.keys.lane('g'))).toBe(1);
  });

  it.each([
    ['an empty key', { key: '' }, 'key'],
    ['a key of 257 bytes', { key: `${'é'.repeat(128)}x` }, 'key'],
    ['a key with a control character', { key: 'a\nb' }, 'key'],
    ['keyTtlMs without a key', { keyTtlMs: 1_000 }, 'keyTtlMs'],
    ['keyTtlMs 0', { key: 'k', keyTtlMs: 0 }, 'keyTtlMs'],
    ['keyTtlMs past 30 days', { key: 'k', keyTtlMs: 2_592_000_001 }, 'keyTtlMs'],
  ] as const)('%s is BAD_USER_INPUT before anything is sent', async (_what, options, argument) => {
    const q = engine.queue();
    const before = await snapshot(q.redis);
    const error = await refusal(() => q.enqueue('g', null, options));
    expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
    expect(error.argument).toBe(argument);
    expect(await snapshot(q.redis)).toEqual(before);
  });
});

/**
 * A TCP proxy to Redis whose `loseNextReply()` makes it cut the connection instead of passing
 * the next reply on: Redis ran the command, the client never heard, and ioredis resends it on
 * the connection it opens next.
 */
async function lossyProxy(target: URL) {
  let loseNext = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (loseNext) {
        loseNext = false;
        client.destroy();
        return;
      }
      client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    loseNextReply() {
      loseNext = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('a call ioredis resends after its reply was lost', () => {
  let proxy: Awaited<ReturnType<typeof lossyProxy>>;
  let redis: Redis;
  beforeAll(async () => {
    const url = new URL(engine.handle.url);
    proxy = await lossyProxy(url);
    redis = new Redis({
      host: '127.0.0.1',
      port: proxy.port,
      db: Number(url.pathname.slice(1) || 0),
    });
    redis.on('error', () => {});
  });
  afterAll(async () => {
    redis?.disconnect();
    await proxy?.close();
  });

  /** Enqueue on `q` with its reply lost once; returns the job ioredis answered at last. */
  async function enqueueLosingReply(q: Queue, key?: string) {
    await q.setLimit('warm-up', 1); // registers the queue: the next reply is the script's
    // The job layout is asked until the queue is marked: marked here, and asked
    // now, so nothing else goes before the enqueue whose reply is lost.
    await redis.hset(q.keys.settings, 'layout', JOB_LAYOUT);
    await q.checkLayout();
    proxy.loseNextReply();
    return q.enqueue('g', { n: 1 }, key === undefined ? {} : { key });
  }

  it('with a key makes one job', async () => {
    const q = new Queue(redis, uniqueQueueName());
    const job = await enqueueLosingReply(q, 'k');
    expect(await redis.zrange(q.keys.lane('g'), 0, -1)).toEqual([job.id]);
    expect(await redis.get(q.keys.seq)).toBe('1');
  });

  it('without a key makes two (at least once, as documented)', async () => {
    const q = new Queue(redis, uniqueQueueName());
    await enqueueLosingReply(q);
    expect(await redis.zcard(q.keys.lane('g'))).toBe(2);
  });
});

describe('over GraphQL', () => {
  const api = useTestServer({}, { redis: engine.handle });

  it('enqueue(key:) answers the same job twice, and a key reused for another payload is BAD_USER_INPUT', async () => {
    const q = engine.queue();
    const enqueue = (n: number) =>
      post(api.endpoint, {
        query: `mutation($p: JSON) { enqueue(queue: "${q.name}", group: "g", payload: $p, key: "order-1") { id state } }`,
        variables: { p: { n } },
      });
    const first = await enqueue(1);
    const again = await enqueue(1);
    expect(first.json?.data).toEqual({ enqueue: { id: '1', state: 'PENDING' } });
    expect(again.json?.data).toEqual(first.json?.data);
    const reused = await enqueue(2);
    expect(codes(reused.json)).toEqual(['BAD_USER_INPUT']);
    expect(reused.json?.errors?.[0]?.extensions?.argument).toBe('key');
    expect(await q.redis.zcard(q.keys.lane('g'))).toBe(1);
  });
});
