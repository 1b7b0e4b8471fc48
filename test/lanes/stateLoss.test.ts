/**
 * The engine's side of a Redis that lost a queue's state (DESIGN.md §3, "A Redis that lost a
 * queue's state"): the epoch each connection remembers, the one report per loss, the id floor,
 * and the check on reconnect. The queue's keys are deleted by hand here (the Redis is shared by
 * this file's tests); the fault scenarios (restart, FLUSHALL) are test/faults/redis-state-lost.
 */
import { describe, expect, it } from 'vitest';
import { Queue, Ringmaster, type StateLoss } from '../../src/lanes/index.js';
import { escapeGlob, scanAll, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** Delete every key of `queue` and its registry entry, as a FLUSHALL would for it. */
async function forget(queue: Queue): Promise<void> {
  const r = engine.client();
  const keys = await scanAll(r, `${escapeGlob(queue.keys.base)}*`);
  if (keys.length > 0) await r.del(...keys);
  await r.srem('emq:queues', queue.name);
}

function watched(): { ring: Ringmaster; losses: StateLoss[] } {
  const losses: StateLoss[] = [];
  const ring = new Ringmaster(engine.client(), { onStateLost: (loss) => losses.push(loss) });
  return { ring, losses };
}

describe('a queue whose state Redis lost', () => {
  it('is reported once, with what the last check saw; ids continue', async () => {
    const { ring, losses } = watched();
    const q = ring.queue(uniqueQueueName('lost'));
    await q.setLimit('acme', 2);
    await q.pause('other');
    for (let i = 0; i < 3; i++) await q.enqueue('acme', { i });
    await ring.checkState();
    expect(losses).toEqual([]);

    await forget(q);
    // Before anything noticed: the id floor.
    expect((await q.enqueue('acme')).id).toBe('4');
    await ring.checkState();
    await ring.checkState();
    expect(losses).toHaveLength(1);
    const [loss] = losses;
    expect(loss).toMatchObject({
      queue: q.name,
      cause: 'DELETED',
      highestId: 4,
      lastSeen: { pending: 3, delayed: 0, active: 0, limits: 1, paused: 1 },
    });
    expect(loss?.epochNow).not.toBe(loss?.epochBefore);
    expect(loss?.message).toContain(`queue ${q.name} lost its state in Redis`);
    expect(loss?.message).toContain('3 pending, 0 delayed and 0 active jobs, 1 group limits');
    expect(loss?.message).toContain('new job ids continue after 4');
    // The check writes nothing but the epoch: unknown, as Redis holds it (the next write whose
    // connection has not registered the queue lately puts it back).
    expect(await q.known()).toBe(false);
    expect(await q.job('2')).toBeNull();
    expect((await q.enqueueMany([{ group: 'acme' }, { group: 'acme' }])).map((j) => j.id)).toEqual([
      '5',
      '6',
    ]);
  });

  it('a loss found by the check, before any enqueue: the next enqueue raises seq and marks the layout', async () => {
    const { ring, losses } = watched();
    const q = ring.queue(uniqueQueueName('lost'));
    for (let i = 0; i < 5; i++) await q.enqueue('g');
    await forget(q);
    await ring.checkState();
    expect(losses).toHaveLength(1);
    // The enqueue raises seq to the engine's floor and marks the layout.
    expect((await q.enqueue('g')).id).toBe('6');
    // Another process (a new client) takes its jobs as this version's, not the layout before.
    const other = new Queue(engine.client(), q.name);
    await expect(other.checkLayout()).resolves.toBeUndefined();
    expect((await other.enqueue('g')).id).toBe('7');
  });

  it('is checked on every reconnect of the connection, without being asked', async () => {
    const losses: StateLoss[] = [];
    const client = engine.client();
    const ring = new Ringmaster(client, { onStateLost: (loss) => losses.push(loss) });
    const q = ring.queue(uniqueQueueName('lost'));
    await q.enqueue('g');
    await ring.checkState();
    await forget(q);
    const ready = new Promise((resolve) => client.once('ready', resolve));
    client.disconnect(true);
    await ready;
    await expect.poll(() => losses.length, { timeout: 5_000 }).toBe(1);
    expect(losses[0]?.queue).toBe(q.name);
  });

  it('a queue this engine never used is not checked; a steady queue reports nothing', async () => {
    const { ring, losses } = watched();
    const used = ring.queue(uniqueQueueName('kept'));
    const unused = ring.queue(uniqueQueueName('never'));
    await used.enqueue('g');
    await unused.counts();
    await ring.checkState();
    await used.enqueue('g');
    await ring.checkState();
    expect(losses).toEqual([]);
    // Reads register nothing, the epoch included.
    expect(await engine.client().exists(unused.keys.settings)).toBe(0);
  });
});
