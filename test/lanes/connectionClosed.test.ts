/**
 * A call on a handle whose connection has ended (DESIGN.md §5, CONNECTION_CLOSED) fails at
 * once with nothing sent, in one line saying so and what to do, not as REDIS_UNAVAILABLE
 * ("retry later"), which would keep a retry loop spinning for ever. A Worker on such a client
 * reports it once and stops; a database the server lacks is a configuration, not an outage.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Reaper, Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import { useRedisFailureStatus } from '../../src/server/plugins/errors.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

async function rejection(call: () => Promise<unknown>): Promise<RingmasterError> {
  const error = await call().then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RingmasterError);
  return error as RingmasterError;
}

function expectClosed(error: RingmasterError, handle: string): void {
  expect(error.code).toBe('CONNECTION_CLOSED');
  expect(error.message).toMatch(/^Redis connection closed: /);
  expect(error.message).toContain(`make a new ${handle}`);
  expect(error.message).not.toContain('retry later');
  expect(error.message).not.toContain('\n');
}

describe('a handle whose connection has ended', () => {
  it('a Queue after its close(): every call refused at once, nothing sent', async () => {
    const queue = new Queue(uniqueQueueName(), { connection: engine.handle.url });
    await queue.enqueue('g', 1);
    await queue.close();
    for (const call of [
      () => queue.enqueue('g', 1),
      () => queue.counts(),
      () => queue.setLimit('g', 2),
    ]) {
      const error = await rejection(call);
      expectClosed(error, 'Queue');
      expect(error.message).toContain('nothing was sent');
      expect(error.queue).toBe(queue.name);
    }
  });

  it('a Queue and a Ringmaster given a client already quit() or disconnect()ed', async () => {
    const quit = engine.client();
    await quit.ping();
    await quit.quit();
    const dropped = engine.client();
    await dropped.ping();
    dropped.disconnect();
    const monitor = engine.redis();
    const before = Number(
      (await monitor.info('stats')).match(/total_commands_processed:(\d+)/)?.[1],
    );
    for (const client of [quit, dropped]) {
      expectClosed(
        await rejection(() => new Queue(client, uniqueQueueName()).enqueue('g', 1)),
        'Queue',
      );
      const rm = new Ringmaster(client);
      expectClosed(await rejection(() => rm.queues()), 'Ringmaster');
      expectClosed(await rejection(() => rm.queue(uniqueQueueName()).counts()), 'Queue');
    }
    const after = Number(
      (await monitor.info('stats')).match(/total_commands_processed:(\d+)/)?.[1],
    );
    // Only the two INFO calls themselves (the first counted once processed).
    expect(after - before).toBeLessThanOrEqual(1);
  });

  it('a Ringmaster after its close()', async () => {
    const rm = new Ringmaster(engine.handle.url);
    await rm.queues();
    await rm.close();
    expectClosed(await rejection(() => rm.queues()), 'Ringmaster');
    expectClosed(await rejection(() => rm.queue(uniqueQueueName()).enqueue('g')), 'Queue');
  });

  it('a Worker on a client already quit(): emits CONNECTION_CLOSED once, then stops', async () => {
    const client = engine.client();
    await client.ping();
    await client.quit();
    const worker = new Worker(new Queue(client, uniqueQueueName()), async () => {}, {
      reaper: { intervalMs: 20 },
      heartbeatMs: 20,
    });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    // Without the fix it backs off and retries for ever, an error every few hundred ms.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(errors.map((e) => (e as RingmasterError).code)).toEqual(['CONNECTION_CLOSED']);
    // It closed itself: run() and close() settle.
    await worker.run();
    await worker.close();
  });

  it('a Reaper whose engine closed reports it once and stops', async () => {
    const rm = new Ringmaster(engine.handle.url);
    await rm.queue(uniqueQueueName()).enqueue('g', 1);
    await rm.close();
    const errors: [Error, string | null][] = [];
    const reaper = new Reaper(rm, {
      intervalMs: 20,
      onError: (error, queue) => errors.push([error, queue]),
    });
    reaper.start();
    // Without the fix every pass reports it, one each 20 ms.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await reaper.close();
    expect(errors).toHaveLength(1);
    expect(errors.map(([error, queue]) => [(error as RingmasterError).code, queue])).toEqual([
      ['CONNECTION_CLOSED', null],
    ]);
  });

  it('over HTTP, a request that failed for it as a whole is a 503 with Retry-After', () => {
    const plugin = useRedisFailureStatus();
    let set: unknown;
    plugin.onExecutionResult?.({
      result: { data: null, errors: [{ extensions: { code: 'CONNECTION_CLOSED' } }] },
      setResult: (result: unknown) => {
        set = result;
      },
    } as never);
    expect(set).toMatchObject({
      extensions: { http: { status: 503, headers: { 'Retry-After': '1' } } },
    });
  });
});

describe('a database the server lacks', () => {
  it('is REDIS_UNAVAILABLE naming the database and the fix, without "retry later", every call', async () => {
    const queue = new Queue(uniqueQueueName(), { connection: `${engine.handle.url}/99` });
    for (let i = 0; i < 2; i += 1) {
      const error = await rejection(() => queue.enqueue('g', 1));
      expect(error.code).toBe('REDIS_UNAVAILABLE');
      expect(error.message).toContain('(database 99 does not exist on this Redis)');
      expect(error.message).toContain('name a database it has');
      expect(error.message).not.toContain('retry later');
    }
    await queue.close();
  });
});
