/**
 * The engine's per-connection state (scripts defined on the client, the
 * registration cache) belongs to a `Connection` object the engine owns, not to module globals.
 * A `Ringmaster` shares one across every handle `queue()` makes; a client gets its scripts
 * defined once however many Connections are made on it.
 */
import { describe, expect, it } from 'vitest';
import { Connection, Queue, Ringmaster } from '../../src/lanes/internal.js';
import { uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();

/** The script function ioredis keeps on `client` for `enqueue`. */
function enqueueCommand(client: unknown): unknown {
  return (client as Record<string, unknown>).ringmaster_enqueue;
}

describe('per-connection state', () => {
  it('defines the scripts once per client, however many engines and queues use it', async () => {
    const client = engine.client();
    const first = new Ringmaster(client);
    const defined = enqueueCommand(client);
    expect(typeof defined).toBe('function');
    new Ringmaster(client);
    new Connection(client);
    new Queue(client, uniqueQueueName());
    expect(enqueueCommand(client)).toBe(defined);
    const job = await first.queue(uniqueQueueName()).enqueue('g', { n: 1 });
    expect(job.state).toBe('PENDING');
  });

  it('handles from one engine share its registrations: one SADD per queue, not per handle', async () => {
    const client = engine.client();
    const prefix = uniqueQueueName('conn');
    const rm = new Ringmaster(client, { prefix });
    const name = uniqueQueueName();
    await rm.queue(name).enqueue('g');
    expect(await client.smembers(`${prefix}:queues`)).toEqual([name]);
    // Removed by hand: a handle sharing the engine's registration does not send it again
    // within REGISTRATION_REFRESH_MS, while an engine of its own does.
    await client.del(`${prefix}:queues`);
    await rm.queue(name).enqueue('g');
    expect(await client.smembers(`${prefix}:queues`)).toEqual([]);
    await new Ringmaster(client, { prefix }).queue(name).enqueue('g');
    expect(await client.smembers(`${prefix}:queues`)).toEqual([name]);
  });
});
