/**
 * `coalesceWrites` (src/server/writeCoalescing.ts): the commands a connection sends in one
 * event-loop turn reach the socket in one write, each still with its own reply; and a script
 * refused with NOSCRIPT in such a batch (after SCRIPT FLUSH: what ended the process under
 * ioredis' auto-pipelining, ioredis #1931) falls back to EVAL on its own, every call answered.
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import { coalesceWrites } from '../../src/server/writeCoalescing.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();

/** Count the socket's writes to the kernel path (one per `_write` or `_writev` call). */
function countWrites(client: Redis): { readonly writes: number } {
  const socket = (client as unknown as { stream: Socket }).stream;
  const counter = { writes: 0 };
  const socketWrites = socket as unknown as {
    _write: (...args: unknown[]) => void;
    _writev: (...args: unknown[]) => void;
  };
  for (const method of ['_write', '_writev'] as const) {
    const original = socketWrites[method].bind(socket);
    socketWrites[method] = (...args: unknown[]) => {
      counter.writes++;
      original(...args);
    };
  }
  return counter;
}

describe('coalesceWrites', () => {
  it('sends the commands of one turn in one socket write, each with its own reply', async () => {
    const client = redis.client();
    await client.ping();
    coalesceWrites(client);
    const counter = countWrites(client);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => client.echo(`message ${i}`)),
    );
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => `message ${i}`));
    expect(counter.writes).toBe(1);
    // The next turn's commands go out in a write of their own: nothing waits for more.
    await client.echo('alone');
    expect(counter.writes).toBe(2);
  });

  it('an error reply fails its own command only', async () => {
    const client = redis.client();
    await client.ping();
    coalesceWrites(client);
    const [a, b, c] = await Promise.allSettled([
      client.set('coalesce:k', 'v'),
      client.hget('coalesce:k', 'f'), // WRONGTYPE
      client.get('coalesce:k'),
    ]);
    expect(a).toEqual({ status: 'fulfilled', value: 'OK' });
    expect(b.status).toBe('rejected');
    expect(c).toEqual({ status: 'fulfilled', value: 'v' });
  });

  it('after SCRIPT FLUSH, every script call of a batch falls back to EVAL and is answered', async () => {
    const client = redis.client();
    await client.ping();
    coalesceWrites(client);
    const queue = new Ringmaster(client).queue(uniqueQueueName('coalesce'));
    await queue.setLimit('g0', 1);
    for (let round = 0; round < 3; round++) {
      await client.script('FLUSH');
      const groups = await Promise.all(
        Array.from({ length: 30 }, (_, i) => queue.setLimit(`g${i}`, round + 2)),
      );
      expect(groups.map((g) => g.limit)).toEqual(Array(30).fill(round + 2));
    }
  });
});
