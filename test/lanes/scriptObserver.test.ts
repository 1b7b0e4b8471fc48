/**
 * `RingmasterOptions.onScript` (DESIGN.md §4.7, engine): told of every script call of the
 * engine's queue handles — name, duration (ms), ok — and never able to break a call.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, Ringmaster, type RingmasterOptions } from '../../src/lanes/index.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

describe('onScript', () => {
  it('hears each script call with its name, a duration and whether it succeeded', async () => {
    const heard: [string, number, boolean][] = [];
    const rm = new Ringmaster(engine.redis(), {
      onScript: (name, ms, ok) => heard.push([name, ms, ok]),
    });
    const q = rm.queue(uniqueQueueName());
    const job = await q.enqueue('a', null);
    // A refusal answered as a reply (LEASE_LOST) is a successful call of the script.
    await expect(q.complete(job.id, 'not-the-token')).rejects.toMatchObject({ code: 'LEASE_LOST' });
    await engine.redis().set(q.keys.seq, 'garbage');
    await expect(q.enqueue('a', null)).rejects.toMatchObject({ code: 'DATA_OUT_OF_RANGE' });
    // The connection's first state check of the queue, sent after its first write, beside the
    // calls (DESIGN.md §3, "A Redis that lost a queue's state"); not again within a second.
    expect(heard.filter(([name]) => name === 'checkEpoch').map(([, , ok]) => ok)).toEqual([true]);
    expect(
      heard.filter(([name]) => name !== 'checkEpoch').map(([name, , ok]) => [name, ok]),
    ).toEqual([
      // The job layout, asked before an enqueue until the queue is marked (the first
      // enqueue marks it), then not again on this connection.
      ['checkLayout', true],
      ['enqueue', true],
      ['complete', true],
      ['checkLayout', true],
      ['enqueue', false],
    ]);
    for (const [, ms] of heard) expect(ms).toBeGreaterThanOrEqual(0);
  });

  it('an observer that throws changes nothing for the caller', async () => {
    const rm = new Ringmaster(engine.redis(), {
      onScript: () => {
        throw new Error('observer broke');
      },
    });
    const q = rm.queue(uniqueQueueName());
    const job = await q.enqueue('a', null);
    expect((await q.claim())?.id).toBe(job.id);
  });

  it('a Ringmaster without one, or a Queue on a bare client, runs as before', async () => {
    const q = new Ringmaster(engine.redis()).queue(uniqueQueueName());
    expect((await q.enqueue('a', null)).state).toBe('PENDING');
  });

  it('a callback option that is not a function is refused with BAD_USER_INPUT, naming it', () => {
    for (const [argument, options] of [
      ['onScript', { onScript: 5 }],
      ['onInvalidQueueName', { onInvalidQueueName: 'warn' }],
    ] as const) {
      expect(() => new Ringmaster(engine.redis(), options as unknown as RingmasterOptions)).toThrow(
        expect.objectContaining({ code: ErrorCode.BAD_USER_INPUT, argument }),
      );
    }
  });
});
