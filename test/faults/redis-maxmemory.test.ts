/**
 * Fault kind: Redis at `maxmemory` with the `noeviction` policy — a memory
 * incident. Redis then refuses every command that may add memory ("OOM command not allowed"),
 * and used to refuse `pauseGroup` and `setLimit` (and the registry SADD beside every steering
 * call, even for a name it holds already) exactly when an operator needs to stop a tenant, and a
 * worker's `extendLease`, so a long job lost its lease and ran twice.
 *
 * What must hold, through the engine and GraphQL: pause, resume, setLimit and clearLimit work
 * (registering a queue the connection has not registered yet included), and their timed forms,
 * cancelOverride and a due revert, as do the queue's own
 * pauseQueue, resumeQueue and setRetention, a lease
 * extension and the calls that drain a queue (reap, claim, complete, retry, and a Reaper's pass
 * with its lock); an enqueue is refused with REDIS_OUT_OF_MEMORY (HTTP 507 when the whole request
 * failed for it, no Redis text) and changes nothing at all; once memory is available again,
 * enqueue works.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Job, Reaper, Ringmaster, RingmasterError } from '../../src/lanes/index.js';
import {
  ClearLimitDocument,
  EnqueueDocument,
  PauseGroupDocument,
  ResumeGroupDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { expectNoLeak, expectRedisUnchanged } from '../support/api.js';
import { uniqueQueueName, untilRedisTimePasses } from '../support/lanes.js';
import { usingExternalRedis } from '../support/redis.js';
import { useScenario } from './support.js';

/** Size of each filler value written to reach maxmemory (bytes). */
const FILLER_BYTES = 64 * 1024;
/**
 * How far below the memory in use maxmemory is put once Redis refuses writes (bytes), so that a
 * buffer freed by the test's own connections cannot end the incident midway: the largest is the
 * query buffer of the connection that sent FUNCTION LOAD (the library's ~0.7 MB of text), which
 * Redis shrinks a moment later.
 */
const MARGIN_BYTES = 4 * 1024 * 1024;

async function usedMemory(admin: Redis): Promise<number> {
  return Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))?.[1]);
}

/** Fill Redis up to a maxmemory set just above what it uses now, until it refuses a write. */
async function reachMaxmemory(admin: Redis): Promise<void> {
  await admin.config('SET', 'maxmemory-policy', 'noeviction');
  await admin.config('SET', 'maxmemory', String((await usedMemory(admin)) + 1024 * 1024));
  const filler = 'x'.repeat(FILLER_BYTES);
  for (let i = 0; ; i++) {
    const refused = await admin.set(`filler:${i}`, filler).then(
      () => null,
      (error: Error) => error,
    );
    if (refused) {
      expect(refused.message).toMatch(/^OOM /);
      break;
    }
    expect(i, 'Redis never refused a write').toBeLessThan(1_000);
  }
  await admin.config('SET', 'maxmemory', String((await usedMemory(admin)) - MARGIN_BYTES));
}

describe.skipIf(usingExternalRedis())('Redis at maxmemory with noeviction', () => {
  const { redis, server } = useScenario({ server: {} });
  let admin: Redis;

  beforeAll(() => {
    admin = redis.client();
  });

  it('steers and extends leases, refuses enqueue with REDIS_OUT_OF_MEMORY and changes nothing', async () => {
    const name = uniqueQueueName('oom');
    const before = new Ringmaster(redis.client()).queue(name);
    for (const group of ['a', 'b', 'c', 'd']) {
      await before.setLimit(group, 2);
      await before.enqueue(group, { group });
    }
    const leased = (await before.claim({ leaseMs: 60_000 })) as Job;
    // Leased for 1 ms: the reaper's to give back during the incident.
    const lapsed = (await before.claim({ leaseMs: 1 })) as Job;

    await reachMaxmemory(admin);

    // A connection that has not registered the queue yet: its first steering call sends the
    // registry write too, which Redis refused as a plain SADD.
    const queue = new Ringmaster(redis.client()).queue(name);
    expect(await queue.pause('a')).toMatchObject({ id: 'a', paused: true });
    expect(await queue.resume('a')).toMatchObject({ id: 'a', paused: false });
    expect(await queue.setLimit('a', 5)).toMatchObject({ id: 'a', limit: 5 });
    expect(await queue.clearLimit('a')).toMatchObject({ id: 'a', limit: null });
    // Rate limits: throttling a tenant is what an operator does in an incident too.
    expect(await queue.setRateLimit('a', { max: 1, windowMs: 60_000 })).toMatchObject({
      rateLimit: { max: 1, windowMs: 60_000 },
    });
    expect(await queue.clearRateLimit('a')).toMatchObject({ rateLimit: null });
    // Timed overrides: timed calls, a cancel and a due revert write at maxmemory too.
    expect(await queue.setLimit('a', 1, { forMs: 60_000 })).toMatchObject({ limit: 1 });
    expect((await queue.cancelOverride('a', 'limit')).limitOverride).toBeNull();
    const { pauseOverride } = await queue.pause('a', { forMs: 1 });
    await untilRedisTimePasses(admin, pauseOverride?.until ?? 0);
    await queue.applyOverrides(); // (or the server's reaper did, at maxmemory all the same)
    expect(await queue.group('a')).toMatchObject({ paused: false, pauseOverride: null });
    expect(await queue.clearLimit('a')).toMatchObject({ id: 'a', limit: null });
    expect(await queue.setWeight('a', 3)).toMatchObject({ id: 'a', weight: 3 });
    // The queue's cap and a reserve: capping the whole queue is an incident's move too.
    expect(await queue.setQueueLimit(50)).toMatchObject({ limit: 50 });
    expect(await queue.setReserve('a', 2)).toMatchObject({ id: 'a', reserve: 2 });
    expect(await queue.setReserve('a', 0)).toMatchObject({ id: 'a', reserve: 0 });
    expect(await queue.clearQueueLimit()).toMatchObject({ limit: null });
    // The whole queue too, and its retention (shrinking it is what an operator does here).
    expect(await queue.pauseQueue()).toBe('PAUSED');
    expect(await queue.claim()).toBeNull();
    expect(await queue.resumeQueue()).toBe('RUNNING');
    expect((await queue.setRetention({ completed: { count: 10 } })).completed.count).toBe(10);
    const extended = await queue.extendLease(leased.id, leased.token as string, 120_000);
    expect(extended.leaseUntil as number).toBeGreaterThan(leased.leaseUntil as number);

    // Draining goes on, so workers can free memory: reap, claim, complete, retry.
    expect(await queue.reap()).toBe(1);
    expect(await queue.job(lapsed.id)).toMatchObject({ state: 'PENDING' });
    const claimed = (await queue.claim()) as Job;
    expect((await queue.complete(claimed.id, claimed.token as string)).state).toBe('COMPLETED');
    // kept by the completed retention: its first write freed nothing, so Redis lets it on
    expect(await queue.job(claimed.id)).toMatchObject({ state: 'COMPLETED' });
    const again = (await queue.claim()) as Job;
    expect((await queue.retry(again.id, again.token as string, 'later')).state).toBe('PENDING');
    // The engine's Reaper too (a Worker's, the server's): its lock script runs at maxmemory,
    // where the plain `SET NX` lock it took before was refused (OOM), so no reaper reaped.
    const lapsedAgain = (await queue.claim({ leaseMs: 1 })) as Job;
    await untilRedisTimePasses(admin, lapsedAgain.leaseUntil as number);
    const reaperErrors: Error[] = [];
    await new Reaper(queue, { intervalMs: 1, onError: (e) => reaperErrors.push(e) }).reapOnce();
    expect(reaperErrors).toEqual([]);
    // (Reaped by it, or by the server's reaper first.)
    expect(await queue.job(lapsedAgain.id)).toMatchObject({ state: 'PENDING' });

    // The server's connection has not registered the queue either.
    const steer = [
      server.request(PauseGroupDocument, { queue: name, group: 'b' }),
      server.request(ResumeGroupDocument, { queue: name, group: 'c' }),
      server.request(SetLimitDocument, { queue: name, group: 'd', limit: 0 }),
      server.request(ClearLimitDocument, { queue: name, group: 'c' }),
    ];
    for (const { status, body } of await Promise.all(steer)) {
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      expect(status).toBe(200);
    }
    expect(await queue.group('b')).toMatchObject({ paused: true });
    expect(await queue.group('c')).toMatchObject({ paused: false, limit: null });
    expect(await queue.group('d')).toMatchObject({ limit: 0, onRing: false });

    // Enqueue may add memory: refused, and nothing is written (the keyspace byte for byte,
    // so seq, stats, lanes and the registry are what they were).
    const refused = await expectRedisUnchanged(admin, () =>
      queue.enqueue('a', { big: 'y'.repeat(1_000) }).then(
        () => null,
        (error: unknown) => error,
      ),
    );
    expect(refused).toBeInstanceOf(RingmasterError);
    expect(refused).toMatchObject({ code: 'REDIS_OUT_OF_MEMORY' });
    expect((refused as Error).message).toMatch(/out of memory/);

    const response = await expectRedisUnchanged(admin, async () => {
      const raw = await fetch(server.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: JSON.stringify({
          query: `mutation { enqueue(queue: "${name}", group: "a") { id } }`,
        }),
      });
      return { status: raw.status, text: await raw.text() };
    });
    expect(response.status).toBe(507);
    const body = JSON.parse(response.text) as {
      data: unknown;
      errors: { message: string; extensions: { code: string } }[];
    };
    expect(body.data).toEqual({ enqueue: null }); // mutation fields are nullable: a refused one is null
    expect(body.errors.map((e) => e.extensions.code)).toEqual(['REDIS_OUT_OF_MEMORY']);
    expect(body.errors[0]?.message).toMatch(/out of memory.*changed nothing/);
    expectNoLeak(response.text);

    // The incident over, the same calls write again.
    await admin.config('SET', 'maxmemory', '0');
    const job = await queue.enqueue('a');
    expect(job.state).toBe('PENDING');
    const viaApi = await server.request(EnqueueDocument, { queue: name, group: 'a' });
    expect(viaApi.body.errors).toBeUndefined();
    expect(viaApi.body.data?.enqueue?.id).toBe(String(Number(job.id) + 1));
  });
});
