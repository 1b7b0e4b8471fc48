/**
 * The worker process of section 9 (forked by `latency.ts`, never run alone): one worker of one
 * system (Ringmaster's Worker or BullMQ's) at the given concurrency, whose processor does nothing
 * but note when it was entered. The producer runs in the parent; the two read one clock,
 * `process.hrtime.bigint()` (CLOCK_MONOTONIC, shared by every process on the machine), taken
 * relative to a base the parent sends, in µs.
 *
 * Its own process, not the producer's, because that is how queues are used (producers in one
 * program, workers in another) and because in one process the producer's enqueue reply and
 * the worker's wake would be handled by one event loop, one after the other, so each system's
 * figure would include the other side's callbacks.
 *
 * Messages from the parent (IPC):
 *   { type: 'collect', count }   answer once `count` jobs in all have started (or after 30 s)
 *                                with the starts not yet sent
 *   { type: 'close' }            close the worker and exit
 */
import { Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { Ringmaster, Worker } from '../src/lanes/index.js';

export interface WorkerSetup {
  system: 'ringmaster' | 'bullmq';
  url: string;
  port: number;
  queue: string;
  concurrency: number;
  /** process.hrtime.bigint() of the parent at the start, as decimal text: the clocks' zero */
  base: string;
}

type Command = { type: 'collect'; count: number } | { type: 'close' };

export type WorkerReply =
  | { type: 'ready' }
  /** [job index, µs since base when its processor was entered] */
  | { type: 'starts'; starts: [number, number][] }
  | { type: 'error'; message: string };

const COLLECT_TIMEOUT_MS = 30_000;

const setup = JSON.parse(process.argv[2] ?? '{}') as WorkerSetup;
const base = BigInt(setup.base);
const clock = (): number => Number(process.hrtime.bigint() - base) / 1000;

let unsent: [number, number][] = [];
let total = 0;
let waiting: { count: number; timer: NodeJS.Timeout } | null = null;

const send = (reply: WorkerReply) => process.send?.(reply);

function started(index: number): void {
  // First thing in the processor, before anything else is allocated for the job.
  const at = clock();
  unsent.push([index, at]);
  total++;
  if (waiting !== null && total >= waiting.count) answer();
}

function answer(): void {
  if (waiting !== null) clearTimeout(waiting.timer);
  waiting = null;
  send({ type: 'starts', starts: unsent });
  unsent = [];
}

async function main(): Promise<() => Promise<void>> {
  if (setup.system === 'ringmaster') {
    const redis = new Redis(setup.url, { maxRetriesPerRequest: null });
    const queue = new Ringmaster(redis).queue(setup.queue);
    const worker = new Worker(queue, async (job) => started((job.payload as { i: number }).i), {
      concurrency: setup.concurrency,
    });
    worker.on('error', (error) => send({ type: 'error', message: error.message }));
    await redis.ping();
    return async () => {
      await worker.close();
      redis.disconnect();
    };
  }
  const worker = new BullWorker(
    setup.queue,
    async (job) => started((job.data as { i: number }).i),
    {
      connection: { host: '127.0.0.1', port: setup.port, maxRetriesPerRequest: null },
      concurrency: setup.concurrency,
      removeOnComplete: { count: 1_000 },
    },
  );
  worker.on('error', (error) => send({ type: 'error', message: error.message }));
  await worker.waitUntilReady();
  return () => worker.close();
}

main().then(
  (close) => {
    process.on('message', (command: Command) => {
      if (command.type === 'collect') {
        if (waiting !== null) clearTimeout(waiting.timer);
        waiting = { count: command.count, timer: setTimeout(answer, COLLECT_TIMEOUT_MS) };
        if (total >= command.count) answer();
      } else if (command.type === 'close') {
        void close().finally(() => process.exit(0));
      }
    });
    send({ type: 'ready' });
  },
  (error: unknown) => {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
