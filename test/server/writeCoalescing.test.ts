/**
 * `coalesceWrites` (src/server/writeCoalescing.ts): the commands a connection sends in one
 * event-loop turn reach the socket in one write, each still with its own reply; and a script
 * call refused in such a batch — "Function not found" after FUNCTION FLUSH, or NOSCRIPT after
 * SCRIPT FLUSH on a Redis without Functions (what ended the process under ioredis'
 * auto-pipelining) — loads the library or falls back to EVAL on its own, every call answered.
 */
import type { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import { coalesceWrites } from '../../src/server/writeCoalescing.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
/** A Redis without Functions (as 6.2 is): every script runs by EVALSHA. */
const bare = useTestRedis({ withoutCommands: ['FCALL', 'FUNCTION'] });

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

  it.each([
    [
      'after FUNCTION FLUSH, every script call of a batch loads the library again',
      redis,
      'FUNCTION',
    ],
    [
      'after SCRIPT FLUSH, on a Redis without Functions, every call falls back to EVAL',
      bare,
      'SCRIPT',
    ],
  ] as const)('%s and is answered', async (_, server, flushed) => {
    const client = server.client();
    await client.ping();
    coalesceWrites(client);
    const queue = new Ringmaster(client).queue(uniqueQueueName('coalesce'));
    await queue.setLimit('g0', 1);
    for (let round = 0; round < 3; round++) {
      await client.call(flushed, 'FLUSH');
      const groups = await Promise.all(
        Array.from({ length: 30 }, (_, i) => queue.setLimit(`g${i}`, round + 2)),
      );
      expect(groups.map((g) => g.limit)).toEqual(Array(30).fill(round + 2));
      // The flush really hit what the calls run: the library was loaded again (Functions), or
      // the scripts by EVAL (without them).
      const loaded =
        flushed === 'FUNCTION'
          ? ((await client.call('FUNCTION', 'LIST')) as unknown[]).length
          : Number((/number_of_cached_scripts:(\d+)/.exec(await client.info('memory')) ?? [])[1]);
      expect(loaded).toBeGreaterThan(0);
    }
  });
});
