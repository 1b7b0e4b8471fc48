/**
 * Redis instructions per job to enqueue (issue 18, the producer's side), under callgrind: the
 * deterministic companion of `npm run bench -- --only=enqueue` (whose INFO cpu figures a shared
 * machine disturbs). A private redis-server under valgrind (`bench/callgrind.ts`), instrumented
 * only while the timed jobs are sent; for each way, from an empty keyspace and one job sent
 * untimed (registration, the layout check, script loading):
 *
 * - Ringmaster `Queue.enqueue`, `--concurrency` calls in flight, over `--groups` groups;
 * - Ringmaster `Queue.enqueueMany`, batches of `--batch`;
 * - BullMQ `Queue.add`, `--concurrency` in flight, and `Queue.addBulk`, batches of `--batch`.
 *
 * Reported per job: instructions (the dump's total less an idle baseline — the server
 * instrumented with no client work for `--idle-ms`, scaled to the run's length), and the ways'
 * ratios. The ways run in the order A B B A per system (`--rounds` rounds).
 *
 *   npx tsx bench/enqueueCost.ts                     # 2,000 jobs a way, batch 100
 *   npx tsx bench/enqueueCost.ts --jobs=5000 --batch=1000 --rounds=1
 *   npx tsx bench/enqueueCost.ts --ways=enqueue      # one way (a tree without enqueueMany)
 *
 * Never touches 127.0.0.1:6379 (get-port picks a free port). Output: one line per run, then a
 * summary, on stdout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue as BullQueue } from 'bullmq';
import { Redis } from 'ioredis';
import { Ringmaster } from '../src/lanes/index.js';
import { dumpTotal, instrument, type Server, startServer } from './callgrind.js';
import { pool, sleep } from './util.js';

interface Options {
  jobs: number;
  groups: number;
  batch: number;
  concurrency: number;
  rounds: number;
  idleMs: number;
  /** The ways to run (`--ways=enqueue,bullmq add`); all four by default. */
  ways: Way[];
}

function parse(argv: string[]): Options {
  const o: Options = {
    jobs: 2_000,
    groups: 100,
    batch: 100,
    concurrency: 16,
    rounds: 1,
    idleMs: 2_000,
    ways: ['enqueue', 'enqueueMany', 'bullmq add', 'bullmq addBulk'],
  };
  for (const arg of argv) {
    if (arg.startsWith('--ways=')) {
      o.ways = arg.slice('--ways='.length).split(',') as Way[];
      continue;
    }
    const m = /^--([a-zA-Z]+)=(\d+)$/.exec(arg);
    if (!m || !((m[1] as string) in o) || m[1] === 'ways')
      throw new Error(`unknown argument ${arg}`);
    (o as unknown as Record<string, number>)[m[1] as string] = Number(m[2]);
  }
  return o;
}

type Way = 'enqueue' | 'enqueueMany' | 'bullmq add' | 'bullmq addBulk';

const payload = (i: number) => ({ orderId: i, customer: `customer-${i % 997}`, total: i * 3 });

async function measure(
  server: Server,
  dir: string,
  idlePerMs: number,
  work: () => Promise<void>,
  jobs: number,
): Promise<number> {
  await dumpTotal(server, dir); // counters from zero
  await instrument(server, true);
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  await instrument(server, false);
  const counted = await dumpTotal(server, dir);
  return Math.round((counted - idlePerMs * ms) / jobs);
}

async function run(
  server: Server,
  dir: string,
  o: Options,
  way: Way,
  idlePerMs: number,
): Promise<number> {
  const admin = new Redis({ port: server.port, host: '127.0.0.1' });
  await admin.flushall('SYNC');
  const connection = { host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null };
  const group = (i: number) => `tenant-${i % o.groups}`;
  const batches = <T>(make: (i: number) => T): T[][] => {
    const out: T[][] = [];
    for (let start = 0; start < o.jobs; start += o.batch) {
      out.push(
        Array.from({ length: Math.min(o.batch, o.jobs - start) }, (_, j) => make(start + j)),
      );
    }
    return out;
  };
  try {
    if (way === 'enqueue' || way === 'enqueueMany') {
      const client = new Redis(connection);
      const queue = new Ringmaster(client).queue('cost');
      await queue.enqueue('warm-up', payload(-1));
      if (way === 'enqueueMany')
        await queue.enqueueMany([{ group: 'warm-up', payload: payload(-2) }]);
      const work =
        way === 'enqueue'
          ? () => pool(o.jobs, o.concurrency, (i) => queue.enqueue(group(i), payload(i)))
          : async () => {
              for (const jobs of batches((i) => ({ group: group(i), payload: payload(i) }))) {
                await queue.enqueueMany(jobs);
              }
            };
      const perJob = await measure(server, dir, idlePerMs, work, o.jobs);
      client.disconnect();
      return perJob;
    }
    const queue = new BullQueue('cost', { connection });
    await queue.add('job', payload(-1));
    await queue.addBulk([{ name: 'job', data: payload(-2) }]);
    const work =
      way === 'bullmq add'
        ? () => pool(o.jobs, o.concurrency, (i) => queue.add('job', payload(i)))
        : async () => {
            for (const jobs of batches((i) => ({ name: 'job', data: payload(i) }))) {
              await queue.addBulk(jobs);
            }
          };
    const perJob = await measure(server, dir, idlePerMs, work, o.jobs);
    await queue.close();
    return perJob;
  } finally {
    admin.disconnect();
  }
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'enqueue-cost-'));
  const server = await startServer(false, dir);
  try {
    await instrument(server, true);
    await sleep(o.idleMs);
    await instrument(server, false);
    const idlePerMs = (await dumpTotal(server, dir)) / o.idleMs;
    const results = new Map<Way, number[]>();
    const order: Way[][] = [
      ['enqueue', 'enqueueMany', 'enqueueMany', 'enqueue'],
      ['bullmq add', 'bullmq addBulk', 'bullmq addBulk', 'bullmq add'],
    ];
    for (let round = 1; round <= o.rounds; round++) {
      for (const ways of order) {
        for (const way of ways.filter((w) => o.ways.includes(w))) {
          const perJob = await run(server, dir, o, way, idlePerMs);
          results.set(way, [...(results.get(way) ?? []), perJob]);
          process.stdout.write(`${way}\tround ${round}\t${perJob} instructions/job\n`);
        }
      }
    }
    const mean = (way: Way) => {
      const v = results.get(way) ?? [];
      return v.length === 0 ? Number.NaN : v.reduce((a, b) => a + b, 0) / v.length;
    };
    process.stdout.write(
      `\n${o.jobs} jobs a run, ${o.groups} groups, batch ${o.batch}, ${o.concurrency} in flight one by one\n` +
        `Ringmaster: enqueue ${Math.round(mean('enqueue'))}, enqueueMany ${Math.round(mean('enqueueMany'))} instructions/job (× ${(mean('enqueueMany') / mean('enqueue')).toFixed(3)})\n` +
        `BullMQ: add ${Math.round(mean('bullmq add'))}, addBulk ${Math.round(mean('bullmq addBulk'))} instructions/job (× ${(mean('bullmq addBulk') / mean('bullmq add')).toFixed(3)})\n`,
    );
  } finally {
    await server.stop();
    if (process.env.KEEP_DUMPS) process.stderr.write(`dumps kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
