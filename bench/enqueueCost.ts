/**
 * Redis instructions per job to enqueue (the producer's side), under callgrind: the
 * deterministic companion of `npm run bench -- --only=enqueue` (whose INFO cpu figures a shared
 * machine disturbs). A private redis-server under valgrind (`bench/callgrind.ts`), instrumented
 * only while the timed jobs are sent; for each way, from an empty keyspace and one job sent
 * untimed (registration, the layout check, script loading):
 *
 * - Ringmaster `Queue.enqueue`, `--concurrency` calls in flight, over `--groups` groups;
 * - Ringmaster `Queue.enqueueMany`, batches of `--batch`;
 * - Ringmaster `Queue.enqueue` with a debounce key, one per group (`enqueue debounce`): after the
 *   first of each key, every call replaces its key's waiting job (DESIGN.md §3, "Debounce");
 *   only when named in `--ways`;
 * - Ringmaster ticks (`schedule tick`): `Queue.tickSchedules` with 1,000 schedules due at once
 *   (the most a queue holds), one job each, per job fired (DESIGN.md §3, "Schedules"); only
 *   when named in `--ways`;
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
import {
  idleInstructionsPerMs,
  instructionsDuring,
  type Server,
  startServer,
} from './callgrind.js';
import { inBatches, orderPayload, pool, scriptFlags } from './util.js';

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
  const flags = scriptFlags(argv, {
    values: ['jobs', 'groups', 'batch', 'concurrency', 'rounds', 'idleMs', 'ways'],
    switches: [],
  });
  const ways = flags.text('ways');
  return {
    jobs: flags.whole('jobs', 2_000, 1),
    groups: flags.whole('groups', 100, 1),
    batch: flags.whole('batch', 100, 1),
    concurrency: flags.whole('concurrency', 16, 1),
    rounds: flags.whole('rounds', 1, 1),
    idleMs: flags.whole('idleMs', 2_000, 1),
    ways:
      ways === undefined
        ? ['enqueue', 'enqueueMany', 'bullmq add', 'bullmq addBulk']
        : (ways.split(',') as Way[]),
  };
}

type Way =
  | 'enqueue'
  | 'enqueueMany'
  | 'enqueue debounce'
  | 'schedule tick'
  | 'bullmq add'
  | 'bullmq addBulk';

const payload = orderPayload;

/** Schedules due at once in the `schedule tick` way: the most a queue holds (`Limits.maxSchedules`). */
const SCHEDULES_DUE = 1_000;

/** Redis instructions per job of `work` (`jobs` jobs), the idle baseline taken out. */
async function measure(
  server: Server,
  dir: string,
  idlePerMs: number,
  work: () => Promise<void>,
  jobs: number,
): Promise<number> {
  const { instructions, ms } = await instructionsDuring(server, dir, work);
  return Math.round(((instructions as number) - idlePerMs * ms) / jobs);
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
  try {
    if (way === 'schedule tick') {
      const client = new Redis(connection);
      const queue = new Ringmaster(client).queue('cost');
      await queue.enqueue('warm-up', payload(-1));
      const schedules = Math.min(o.jobs, SCHEDULES_DUE);
      for (let i = 0; i < schedules; i++) {
        await queue.upsertSchedule({
          id: `s-${i}`,
          group: group(i),
          everyMs: 60_000,
          payload: payload(i),
        });
      }
      // All due now, as if their tick had come: each fires once.
      const now = Number((await admin.time())[0]) * 1_000;
      await admin.zadd(
        queue.keys.schedules,
        ...Array.from({ length: schedules }, (_, i) => [now - 1, `s-${i}`]).flat(),
      );
      let fired = 0;
      const work = async () => {
        for (let n = await queue.tickSchedules(); n > 0; n = await queue.tickSchedules())
          fired += n;
      };
      const perJob = await measure(server, dir, idlePerMs, work, schedules);
      if (fired !== schedules) throw new Error(`${fired} of ${schedules} schedules fired`);
      client.disconnect();
      return perJob;
    }
    if (way === 'enqueue debounce') {
      const client = new Redis(connection);
      const queue = new Ringmaster(client).queue('cost');
      await queue.enqueue('warm-up', payload(-1), { debounce: { key: 'warm-up', windowMs: 1 } });
      const work = () =>
        pool(o.jobs, o.concurrency, (i) =>
          queue.enqueue(group(i), payload(i), {
            debounce: { key: `key-${i % o.groups}`, windowMs: 60_000 },
          }),
        );
      const perJob = await measure(server, dir, idlePerMs, work, o.jobs);
      client.disconnect();
      return perJob;
    }
    if (way === 'enqueue' || way === 'enqueueMany') {
      const client = new Redis(connection);
      const queue = new Ringmaster(client).queue('cost');
      await queue.enqueue('warm-up', payload(-1));
      if (way === 'enqueueMany')
        await queue.enqueueMany([{ group: 'warm-up', payload: payload(-2) }]);
      const work =
        way === 'enqueue'
          ? () => pool(o.jobs, o.concurrency, (i) => queue.enqueue(group(i), payload(i)))
          : () =>
              inBatches(
                o.jobs,
                o.batch,
                (i) => ({ group: group(i), payload: payload(i) }),
                (jobs) => queue.enqueueMany(jobs),
              );
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
        : () =>
            inBatches(
              o.jobs,
              o.batch,
              (i) => ({ name: 'job', data: payload(i) }),
              (jobs) => queue.addBulk(jobs),
            );
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
    const idlePerMs = await idleInstructionsPerMs(server, dir, o.idleMs);
    const results = new Map<Way, number[]>();
    const order: Way[][] = [
      ['enqueue', 'enqueueMany', 'enqueue debounce', 'schedule tick', 'enqueueMany', 'enqueue'],
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
        (o.ways.includes('enqueue debounce')
          ? `Ringmaster: enqueue with a debounce key (replacing) ${Math.round(mean('enqueue debounce'))} instructions/job\n`
          : '') +
        (o.ways.includes('schedule tick')
          ? `Ringmaster: a tick with ${Math.min(o.jobs, SCHEDULES_DUE)} schedules due ${Math.round(mean('schedule tick'))} instructions/job fired (× ${(mean('schedule tick') / mean('enqueue')).toFixed(3)} of an enqueue)\n`
          : '') +
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
