/**
 * Registration first, the engine side: a call that registers the queue (enqueue and the steering
 * calls) answers the registry's SADD before its script is sent, so when that SADD fails the call
 * reports the error having changed nothing. The SADD is made to fail for real: `P:queues` holds a
 * string (WRONGTYPE), as a registry key written by another program, or refused by a cluster node
 * answering MOVED, would.
 */
import { describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { snapshot, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** A queue under its own prefix, so its `P:queues` can be broken without touching others'. */
function queueWithBrokenRegistry(): { q: Queue; registry: string } {
  const prefix = uniqueQueueName('reg');
  // A fresh connection: the registration cache is per connection and would skip the SADD.
  const q = new Queue(engine.client(), uniqueQueueName(), { prefix });
  return { q, registry: `${prefix}:queues` };
}

describe('registration comes first', () => {
  it.each([
    ['enqueue', (q: Queue) => q.enqueue('g', { n: 1 })],
    ['setLimit', (q: Queue) => q.setLimit('g', 9)],
    ['clearLimit', (q: Queue) => q.clearLimit('g')],
    ['pause', (q: Queue) => q.pause('g')],
    ['resume', (q: Queue) => q.resume('g')],
    ['setRateLimit', (q: Queue) => q.setRateLimit('g', { max: 1, windowMs: 1_000 })],
    ['clearRateLimit', (q: Queue) => q.clearRateLimit('g')],
  ] as const)(
    '%s whose SADD to P:queues fails reports the error and writes nothing',
    async (_name, call) => {
      const { q, registry } = queueWithBrokenRegistry();
      await q.redis.set(registry, 'not a set');
      const before = await snapshot(q.redis);

      await expect(call(q)).rejects.toThrow(/WRONGTYPE/);

      expect(await snapshot(q.redis)).toEqual(before);
    },
  );

  it('a failed SADD is not remembered: once the registry is fixed, the next call registers and runs', async () => {
    const { q, registry } = queueWithBrokenRegistry();
    await q.redis.set(registry, 'not a set');
    await expect(q.enqueue('g')).rejects.toThrow(/WRONGTYPE/);

    await q.redis.del(registry);
    const job = await q.enqueue('g');
    expect(job.id).toBe('1');
    expect(await q.redis.smembers(registry)).toEqual([q.name]);
  });

  it('calls made while the first SADD is on the wire wait for it, and none runs when it fails', async () => {
    const { q, registry } = queueWithBrokenRegistry();
    await q.redis.set(registry, 'not a set');
    const before = await snapshot(q.redis);
    const results = await Promise.allSettled([q.enqueue('a'), q.setLimit('b', 1), q.enqueue('c')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(await snapshot(q.redis)).toEqual(before);
  });
});
