/**
 * Section 10 — the producer's side: Redis CPU per job to enqueue N jobs one call per
 * job against in batches of `batch`, for Ringmaster (`Queue.enqueue` against
 * `Queue.enqueueMany`, one `enqueueMany-9.lua` call per batch) and, in the same run on the same
 * Redis, BullMQ (`Queue.add` against `Queue.addBulk`).
 *
 * Every run starts from an empty keyspace (`fresh`), enqueues one job untimed (registration, the
 * layout check, BullMQ's script loading), then N jobs spread round robin over `groups` groups
 * (BullMQ: one queue, no groups), each with a small JSON payload. One by one: `concurrency`
 * calls in flight (a producer's pipeline; one call at a time would measure the round trip);
 * batched: one batch at a time. Measured per job over the timed part: redis-server CPU (user +
 * sys, INFO cpu), the commands Redis ran (INFO commandstats, those inside scripts included),
 * script calls (EVALSHA + EVAL), this process' CPU, and the rate.
 *
 * The machine is shared and noisy, so the two ways of each system run interleaved within a
 * round as A B B A (one by one, batched, batched, one by one), `rounds` rounds; every run is
 * reported, and the summary is the median of each way's runs.
 */
import { Queue as BullQueue } from 'bullmq';
import { Ringmaster } from '../src/lanes/index.js';
import { type BenchRedis, fresh, measured } from './redis.js';
import { inBatches, orderPayload, pool, progress, table } from './util.js';

export interface EnqueueOptions {
  /** Jobs enqueued per timed run. */
  jobs: number;
  /** Groups the Ringmaster jobs are spread over (round robin). */
  groups: number;
  /** Jobs per enqueueMany / addBulk call. */
  batch: number;
  /** Calls in flight for the one-by-one ways. */
  concurrency: number;
  /** Rounds of A B B A per system. */
  rounds: number;
}

export type EnqueueWay =
  | 'ringmaster enqueue'
  | 'ringmaster enqueueMany'
  | 'bullmq add'
  | 'bullmq addBulk';

/** One timed run, per job unless named otherwise. */
export interface EnqueueRun {
  way: EnqueueWay;
  round: number;
  jobs: number;
  seconds: number;
  jobsPerSec: number;
  redisCpuUsecPerJob: number;
  redisCommandsPerJob: number;
  scriptsPerJob: number;
  clientCpuUsecPerJob: number;
}

export interface EnqueueResult {
  options: EnqueueOptions;
  runs: EnqueueRun[];
}

const payload = orderPayload;

async function timed(
  redis: BenchRedis,
  way: EnqueueWay,
  round: number,
  jobs: number,
  work: () => Promise<void>,
): Promise<EnqueueRun> {
  const m = await measured(redis, jobs, work);
  const run: EnqueueRun = {
    way,
    round,
    jobs,
    seconds: m.seconds,
    jobsPerSec: jobs / m.seconds,
    redisCpuUsecPerJob: m.redisCpuUsecPerJob,
    redisCommandsPerJob: m.redisCommandsPerJob,
    scriptsPerJob: m.scriptsPerJob,
    clientCpuUsecPerJob: m.clientCpuUsecPerJob,
  };
  progress(
    `enqueue: ${way} round ${round}: ${run.redisCpuUsecPerJob.toFixed(2)} µs Redis CPU/job, ${run.redisCommandsPerJob.toFixed(2)} commands/job, ${Math.round(run.jobsPerSec)} jobs/s`,
  );
  return run;
}

async function ringmasterRun(
  redis: BenchRedis,
  o: EnqueueOptions,
  way: EnqueueWay,
  round: number,
): Promise<EnqueueRun> {
  await fresh(redis.admin);
  const client = redis.connect();
  try {
    const queue = new Ringmaster(client).queue('bench-enqueue');
    await queue.enqueue('warm-up', payload(-1));
    const group = (i: number) => `tenant-${i % o.groups}`;
    return await timed(redis, way, round, o.jobs, async () => {
      if (way === 'ringmaster enqueue') {
        await pool(o.jobs, o.concurrency, (i) => queue.enqueue(group(i), payload(i)));
        return;
      }
      await inBatches(
        o.jobs,
        o.batch,
        (i) => ({ group: group(i), payload: payload(i) }),
        (jobs) => queue.enqueueMany(jobs),
      );
    });
  } finally {
    client.disconnect();
  }
}

async function bullmqRun(
  redis: BenchRedis,
  o: EnqueueOptions,
  way: EnqueueWay,
  round: number,
): Promise<EnqueueRun> {
  await fresh(redis.admin);
  const connection = { host: '127.0.0.1', port: redis.process.port, maxRetriesPerRequest: null };
  const queue = new BullQueue('bench-enqueue', { connection });
  try {
    await queue.add('job', payload(-1));
    return await timed(redis, way, round, o.jobs, async () => {
      if (way === 'bullmq add') {
        await pool(o.jobs, o.concurrency, (i) => queue.add('job', payload(i)));
        return;
      }
      await inBatches(
        o.jobs,
        o.batch,
        (i) => ({ name: 'job', data: payload(i) }),
        (jobs) => queue.addBulk(jobs),
      );
    });
  } finally {
    await queue.close();
  }
}

/** Run the section: `rounds` rounds of A B B A for each system, Ringmaster's and BullMQ's alternating. */
export async function enqueueCost(redis: BenchRedis, o: EnqueueOptions): Promise<EnqueueResult> {
  const runs: EnqueueRun[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    for (const way of [
      'ringmaster enqueue',
      'ringmaster enqueueMany',
      'ringmaster enqueueMany',
      'ringmaster enqueue',
    ] as const) {
      runs.push(await ringmasterRun(redis, o, way, round));
    }
    for (const way of ['bullmq add', 'bullmq addBulk', 'bullmq addBulk', 'bullmq add'] as const) {
      runs.push(await bullmqRun(redis, o, way, round));
    }
  }
  return { options: o, runs };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/** The section's table: each way's median and its runs' range, and batched ÷ one by one. */
export function renderEnqueue(r: EnqueueResult): string {
  const o = r.options;
  const ways: EnqueueWay[] = [
    'ringmaster enqueue',
    'ringmaster enqueueMany',
    'bullmq add',
    'bullmq addBulk',
  ];
  const of = (way: EnqueueWay) => r.runs.filter((run) => run.way === way);
  const med = (way: EnqueueWay, f: (run: EnqueueRun) => number) => median(of(way).map(f));
  const rows = ways.map((way) => {
    const cpu = of(way).map((run) => run.redisCpuUsecPerJob);
    const single = way.startsWith('ringmaster') ? 'ringmaster enqueue' : 'bullmq add';
    return [
      way,
      med(way, (run) => run.redisCpuUsecPerJob).toFixed(2),
      `${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}`,
      (
        med(way, (run) => run.redisCpuUsecPerJob) / med(single, (run) => run.redisCpuUsecPerJob)
      ).toFixed(2),
      med(way, (run) => run.redisCommandsPerJob).toFixed(2),
      med(way, (run) => run.scriptsPerJob).toFixed(3),
      med(way, (run) => run.clientCpuUsecPerJob).toFixed(1),
      Math.round(med(way, (run) => run.jobsPerSec)).toLocaleString('en-US'),
    ];
  });
  return [
    `10. Enqueue — ${o.jobs.toLocaleString('en-US')} jobs a run (Ringmaster over ${o.groups} groups), one by one (${o.concurrency} in flight) or in batches of ${o.batch}; ${o.rounds} rounds of A B B A; medians`,
    table(
      [
        'way',
        'Redis CPU µs/job',
        'runs',
        '÷ one by one',
        'Redis commands/job',
        'scripts/job',
        'client CPU µs/job',
        'jobs/s',
      ],
      rows,
    ),
  ].join('\n');
}
