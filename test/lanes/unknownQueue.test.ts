/**
 * A Worker whose queue is not known (DESIGN.md §4.1, "A worker on a queue nobody knows"): at its
 * start it says so once, as a `warning` event naming the queue, the prefix and the queues that
 * prefix knows, or through `process.emitWarning` when nobody listens, and then waits for jobs
 * there as any worker does.
 */
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { Queue, Worker } from '../../src/lanes/index.js';
import { pollUntil, uniqueQueueName, useEngine } from '../support/lanes.js';

const engine = useEngine();
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.close()));
});

function start(queue: Queue, options: { parkTimeoutMs?: number } = {}): Worker {
  const worker = new Worker(queue, async () => {}, { reaper: false, ...options });
  workers.push(worker);
  return worker;
}

/** Calls of `command` the server has run (count), from INFO commandstats. */
async function calls(command: string): Promise<number> {
  const info = await engine.redis().info('commandstats');
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}

describe('a worker on a queue nobody knows', () => {
  it('warns once at its start, naming the queue, the prefix and the queues known there', async () => {
    const prefix = `warn${uniqueQueueName('p').replace(/\W/g, '')}`;
    const known = [uniqueQueueName('orders'), uniqueQueueName('refunds')];
    for (const name of known) await new Queue(engine.redis(), name, { prefix }).enqueue('g');
    const misspelt = new Queue(engine.redis(), uniqueQueueName('ordrs'), { prefix });
    const worker = start(misspelt);
    const [line] = (await once(worker, 'warning')) as [string];
    expect(line).toBe(
      `ringmaster worker: queue "${misspelt.name}" is not known to this Redis under prefix ` +
        `"${prefix}" (no job or setting was ever written to it; 2 queues known there: ` +
        `${[...known].sort().join(', ')}): check the queue name and the prefix; it will wait ` +
        'for jobs enqueued there',
    );
    // It still waits there: a job enqueued now is run.
    const job = await misspelt.enqueue('g');
    const [completed] = await once(worker, 'completed');
    expect(completed.id).toBe(job.id);
  });

  it('says so under a prefix that knows no queue', async () => {
    const worker = start(new Queue(engine.redis(), uniqueQueueName(), { prefix: 'nothing' }));
    const [line] = (await once(worker, 'warning')) as [string];
    expect(line).toContain('under prefix "nothing"');
    expect(line).toContain('no queue is known under that prefix');
  });

  it('does not warn for a known queue', async () => {
    const queue = engine.queue();
    await queue.enqueue('g');
    const heard: string[] = [];
    start(queue).on('warning', (line) => heard.push(line));
    // A worker on an unknown queue after it, on the same connection: its warning comes after
    // the first worker's check was answered (one connection answers in order).
    const sentinel = start(engine.queue());
    await once(sentinel, 'warning');
    expect(heard).toEqual([]);
  });

  it('does not warn for a queue a job registers while it looks', async () => {
    const queue = engine.queue();
    const heard: string[] = [];
    start(queue).on('warning', (line) => heard.push(line));
    // Sent at once on the worker's connection: answered after its SISMEMBER (not known yet)
    // and before its listing, which then shows the queue.
    const job = await queue.enqueue('g');
    await pollUntil(
      'the job completed',
      async () => (await queue.job(job.id))?.state !== 'PENDING',
    );
    // A worker on an unknown queue after it, on the same connection: its warning comes after
    // every check of the first worker was answered.
    await once(start(engine.queue()), 'warning');
    expect(heard).toEqual([]);
  });

  it('warns once per start, not per poll', async () => {
    const before = await calls('sismember');
    const blpops = await calls('blpop');
    const worker = start(engine.queue(), { parkTimeoutMs: 10 });
    let warnings = 0;
    worker.on('warning', () => {
      warnings += 1;
    });
    // Parked and woken by its timeout again and again, claiming after each park.
    await pollUntil('five parks', async () => (await calls('blpop')) >= blpops + 5);
    expect(warnings).toBe(1);
    // The check and its second look, once.
    expect((await calls('sismember')) - before).toBe(2);
  });

  it('with no listener, goes to process.emitWarning and the worker goes on', async () => {
    const heard: Error[] = [];
    const onWarning = (warning: Error) => heard.push(warning);
    process.on('warning', onWarning);
    try {
      const queue = engine.queue();
      const worker = start(queue);
      await pollUntil('the warning', async () => heard.length > 0);
      expect(heard).toHaveLength(1);
      expect((heard[0] as Error & { code?: string }).code).toBe('RINGMASTER_UNKNOWN_QUEUE');
      expect(heard[0]?.message).toContain(`queue "${queue.name}" is not known`);
      const job = await queue.enqueue('g');
      const [completed] = await once(worker, 'completed');
      expect(completed.id).toBe(job.id);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
