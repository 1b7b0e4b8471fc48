/**
 * How the engine runs its scripts (DESIGN.md §3, "How scripts run"): on Redis 7.0 and newer as
 * the functions of one library, loaded when Redis answers "Function not found" (a fresh Redis,
 * a FUNCTION FLUSH, a restart) and the call sent again; by EVALSHA for a user that may not FCALL
 * and on a Redis without Functions.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { LIBRARY } from '../../src/lanes/scripts/commands.js';
import { findRedisServer, startRedisServer } from '../../src/server/redisProcess/index.js';
import { scriptCallsIn } from '../support/commandStats.js';
import { pollUntil, uniqueQueueName, useEngine } from '../support/lanes.js';
import { useTestRedis, usingExternalRedis } from '../support/redis.js';

const engine = useEngine();

/** `cmdstat_<name>` of INFO commandstats: its calls and its refused calls. */
async function stat(name: string): Promise<{ calls: number; failed: number }> {
  const info = await engine.redis().info('commandstats');
  const line = info.split('\n').find((l) => l.startsWith(`cmdstat_${name}:`)) ?? '';
  const field = (f: string) => Number(new RegExp(`${f}=(\\d+)`).exec(line)?.[1] ?? 0);
  return { calls: field('calls'), failed: field('failed_calls') + field('rejected_calls') };
}

/** An enqueue, a claim and a completion on a queue of their own, through `client`. */
async function roundTrip(client = engine.client()) {
  const q = engine.queue(client);
  await q.enqueue('g', { n: 1 });
  const job = await q.claim();
  if (job?.token == null) throw new Error('nothing claimed');
  await q.complete(job.id, job.token);
  expect(await q.counts()).toMatchObject({ pending: 0, active: 0 });
}

// External Redis: FUNCTION FLUSH, ACL SETUSER and CONFIG RESETSTAT would disturb its other users.
describe.skipIf(usingExternalRedis())('the scripts as a Redis Function library', () => {
  it('runs the library: FUNCTION LIST shows it, FCALL counted, no EVALSHA', async () => {
    await engine.redis().call('FUNCTION', 'FLUSH');
    await engine.redis().config('RESETSTAT');
    await roundTrip();
    const libraries = (await engine.redis().call('FUNCTION', 'LIST')) as unknown[][];
    expect(libraries.map((l) => l[1])).toEqual([LIBRARY.name]);
    // A fresh Redis: the first call found no function, loaded the library once, and was sent again.
    expect(await stat('function|load')).toEqual({ calls: 1, failed: 0 });
    const fcall = await stat('fcall');
    expect(fcall.failed).toBe(1);
    expect(fcall.calls).toBeGreaterThanOrEqual(5);
    expect((await stat('evalsha')).calls).toBe(0);
  });

  it('loads the library again after a FUNCTION FLUSH, and the call succeeds', async () => {
    const client = engine.client();
    await roundTrip(client);
    await engine.redis().call('FUNCTION', 'FLUSH');
    await engine.redis().config('RESETSTAT');
    await roundTrip(client);
    expect(await stat('function|load')).toEqual({ calls: 1, failed: 0 });
    expect((await engine.redis().call('FUNCTION', 'LIST')) as unknown[]).toHaveLength(1);
  });

  it('loads it again after its library alone was deleted (another version left beside it)', async () => {
    const client = engine.client();
    await roundTrip(client);
    const other = '#!lua name=other\nredis.register_function("other_fn", function() return 1 end)';
    await engine.redis().call('FUNCTION', 'LOAD', 'REPLACE', other);
    await engine.redis().call('FUNCTION', 'DELETE', LIBRARY.name);
    await roundTrip(client);
    const names = ((await engine.redis().call('FUNCTION', 'LIST')) as unknown[][]).map((l) => l[1]);
    expect(names.sort()).toEqual([LIBRARY.name, 'other'].sort());
    await engine.redis().call('FUNCTION', 'DELETE', 'other');
  });

  it('runs the scripts by EVALSHA for a user that may not FCALL, on every call', async () => {
    await engine
      .redis()
      .call('ACL', 'SETUSER', 'nofcall', 'reset', 'on', '>pw', '~*', '&*', '+@all', '-fcall');
    await engine.redis().config('RESETSTAT');
    const client = engine.handle.client({ username: 'nofcall', password: 'pw' });
    await roundTrip(client);
    await roundTrip(client);
    // One FCALL refused (NOPERM), then none: the connection runs EVALSHA from then on.
    expect(await stat('fcall')).toEqual({ calls: 0, failed: 1 });
    expect((await stat('evalsha')).calls).toBeGreaterThanOrEqual(8);
  });

  it('runs by EVALSHA every call that was in flight by FCALL when the first refusal came', async () => {
    await engine
      .redis()
      .call('ACL', 'SETUSER', 'nofcall', 'reset', 'on', '>pw', '~*', '&*', '+@all', '-fcall');
    await engine.redis().config('RESETSTAT');
    const q = engine.queue(engine.handle.client({ username: 'nofcall', password: 'pw' }));
    // Sent together on a new connection: every one goes by FCALL, each is refused.
    const counts = await Promise.allSettled(Array.from({ length: 8 }, () => q.counts()));
    expect(counts.filter((c) => c.status === 'rejected')).toEqual([]);
    expect((await stat('fcall')).failed).toBeGreaterThan(1);
  });
});

describe.skipIf(usingExternalRedis())('on a Redis without Functions (as 6.2 is)', () => {
  const bare = useTestRedis({ withoutCommands: ['FCALL', 'FUNCTION'] });

  it('runs every call by EVALSHA after the one FCALL Redis did not know', async () => {
    const admin = bare.client();
    const queue = new Queue(bare.client(), uniqueQueueName());
    await queue.enqueue('g', { n: 1 });
    const job = await queue.claim();
    expect(job?.id).toBe('1');
    expect(await queue.counts()).toMatchObject({ pending: 0, active: 1 });
    const info = await admin.info('commandstats');
    expect(info).not.toMatch(/cmdstat_fcall/);
    // EVAL on a script's first use on the connection, EVALSHA after (ioredis).
    expect(scriptCallsIn(info)).toBeGreaterThanOrEqual(4);
  });
});

describe.skipIf(usingExternalRedis() || findRedisServer() === null)(
  'on a read-only replica without the library',
  () => {
    let replica: Awaited<ReturnType<typeof startRedisServer>> | undefined;
    afterAll(async () => {
      await replica?.stop();
    });

    it('runs a read by EVALSHA (a replica refuses FUNCTION LOAD), and the call succeeds', async () => {
      const primary = engine.handle.client();
      const queue = new Queue(primary, uniqueQueueName());
      await queue.enqueue('g', null);
      // The primary's FUNCTION FLUSH reaches the replica: it holds the queue, not the library.
      await primary.call('FUNCTION', 'FLUSH');
      // The snapshot at once, not after Redis' default 5 s wait for more replicas to share it.
      await primary.config('SET', 'repl-diskless-sync-delay', '0');
      const { hostname, port } = new URL(engine.handle.url);
      replica = await startRedisServer({ extraArgs: ['--replicaof', hostname, port] });
      const client = new Redis(replica.url);
      client.on('error', () => {});
      try {
        const onReplica = new Queue(client, queue.name);
        await pollUntil(
          'the replica to hold the job',
          async () => {
            const [role, , , state] = (await client.role()) as [string, string, number, string];
            return (
              role === 'slave' &&
              state === 'connected' &&
              (await client.exists(queue.keys.ring)) === 1
            );
          },
          20_000,
        );
        expect(await client.call('FUNCTION', 'LIST')).toEqual([]);
        expect(await onReplica.counts()).toMatchObject({ pending: 1 });
      } finally {
        client.disconnect();
      }
    }, 30_000);
  },
);
