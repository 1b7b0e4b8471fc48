/**
 * Section 1 — processing throughput: no-op jobs, pre-filled over 1,000 groups, then drained by
 * one worker at concurrency c; the figure is jobs completed per second of draining.
 *
 * In the same run and on the same Redis, at the same concurrency:
 * - the Redis floor: c loops calling a `return 1` script through one ioredis connection;
 *   efficiency = jobs/s × client calls per job ÷ floor calls/s (1.0 = every round trip the
 *   engine makes is as cheap as the cheapest possible one);
 * - Ringmaster one call per job: c loops, each completing its previous job and claiming the
 *   next in one `completeAndClaim` round trip (the design the efficiency target assumes), beside
 * the Worker,   which sends one call per batch; the two show what the efficiency formula can reach;
 * - BullMQ (plain queue: no groups, so no per-group limit) and GroupMQ (per-group FIFO, one job
 *   per group in flight), draining the same number of no-op jobs with their own Worker.
 * The Worker drains twice: under the queue's default completed retention (completed jobs kept,
 * the newest 1,000 for an hour: what a queue does unless told otherwise, and the figure the
 * targets judge) and with retention none (`setRetention({ completed: { count: 0 } })`: each
 * completed job's hash deleted at once, what every completion did before completed jobs were
 * retained, and what BullMQ's `removeOnComplete: true` here does).
 * Beside the concurrencies, the many-small-workers shape: `manyWorkers` Workers of concurrency 1,
 * each with its own connection (what as many single-job processes would have), for Ringmaster
 * (default retention), BullMQ and GroupMQ, draining the same jobs as at concurrency 8.
 * Calls per job are counted in the client (`countCommands`): Redis 7's commandstats also counts
 * the commands a script runs, so it cannot tell a round trip from a `redis.call`. Beside the
 * rates, each run records the CPU that redis-server and this process spent per job, which a
 * busy shared machine disturbs far less than it disturbs a rate.
 */
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { Queue as GroupQueue, Worker as GroupWorker } from 'groupmq';
import type { Redis } from 'ioredis';
import { Ringmaster, Worker } from '../src/lanes/index.js';
import {
  type BenchRedis,
  countCommands,
  fresh,
  type Measured,
  measured,
  redisCpuUsec,
} from './redis.js';
import { latch, now, pool, progress } from './util.js';

export interface ThroughputOptions {
  /** Concurrencies to run (the 1, 8, 64). */
  concurrencies: readonly number[];
  /** Jobs drained per run, by concurrency. */
  jobs: (concurrency: number) => number;
  /** Groups the jobs are spread over (round robin). */
  groups: number;
  /** Per-group limit set on every Ringmaster group. */
  limit: number;
  /** How long the floor is measured at each concurrency (ms). */
  floorMs: number;
  /** Jobs run once per system before the timed runs (JIT warm-up), 0 for none. */
  warmupJobs: number;
  /** Runs of each system at each concurrency, interleaved; the best (fastest) is kept. */
  repeats: number;
  /** Workers of concurrency 1, each on its own connection, in the many-small-workers shape. */
  manyWorkers: number;
}

/** One system's drain at one concurrency. */
export interface Drain {
  jobs: number;
  seconds: number;
  jobsPerSec: number;
  /** Commands the client sent per job (counted in the client); Ringmaster only. */
  clientCallsPerJob?: number;
  /** EVALSHA + EVAL per job (INFO commandstats): script round trips. */
  scriptsPerJob: number;
  /** Every command Redis ran per job, including those inside scripts (INFO commandstats). */
  redisCommandsPerJob: number;
  /** redis-server CPU (user + sys, INFO cpu) per job, µs: parsing, replies and scripts. */
  redisCpuUsecPerJob: number;
  /** This process' CPU (user + sys) per job, µs: the client library and the worker. */
  clientCpuUsecPerJob: number;
}

export interface ThroughputRow {
  concurrency: number;
  floorCallsPerSec: number;
  /** redis-server CPU per floor call (µs): what the cheapest round trip costs Redis. */
  floorRedisCpuUsecPerCall: number;
  /** The Worker, default completed retention. */
  ringmaster: Drain;
  efficiency: number;
  /** The Worker, completed retention none (count 0). */
  ringmasterNoRetention: Drain;
  /** efficiency of {@link ringmasterNoRetention}. */
  noRetentionEfficiency: number;
  /** c loops of one `completeAndClaim` per job (complete the previous, claim the next). */
  perJobCalls: Drain;
  /** efficiency of {@link perJobCalls}, by the same formula. */
  perJobEfficiency: number;
  bullmq: Drain;
  groupmq: Drain;
  vsBullmq: number;
  vsGroupmq: number;
}

/** The many-small-workers shape: `workers` Workers of concurrency 1 per system. */
export interface ManyWorkersRow {
  workers: number;
  ringmaster: Drain;
  bullmq: Drain;
  groupmq: Drain;
  vsBullmq: number;
  vsGroupmq: number;
}

/** The section's figures: one row per concurrency, and the many-small-workers shape. */
export interface ThroughputResult {
  rows: ThroughputRow[];
  manyWorkers: ManyWorkersRow;
}

const QUEUE = 'bench-throughput';
const FILL_BATCH = 1_000;
/** A no-op drain of this many jobs taking longer than this means something is broken. */
const DRAIN_TIMEOUT_MS = 180_000;

function drain(jobs: number, m: Measured, clientCalls?: number): Drain {
  return {
    jobs,
    seconds: m.seconds,
    jobsPerSec: jobs / m.seconds,
    ...(clientCalls === undefined ? {} : { clientCallsPerJob: clientCalls / jobs }),
    scriptsPerJob: m.scriptsPerJob,
    redisCommandsPerJob: m.redisCommandsPerJob,
    redisCpuUsecPerJob: m.redisCpuUsecPerJob,
    clientCpuUsecPerJob: m.clientCpuUsecPerJob,
  };
}

const groupOf = (i: number, groups: number) => `g${i % groups}`;

/** A queue's completed retention: the default, or none (count 0: hashes deleted at once). */
export type Retention = 'default' | 'none';

/**
 * Fill a Ringmaster queue: its completed retention set (for 'none'), every group gets the
 * limit, then `jobs` jobs round robin.
 */
async function fillRingmaster(
  redis: BenchRedis,
  o: ThroughputOptions,
  jobs: number,
  retention: Retention,
): Promise<void> {
  const setup = redis.connect({ enableAutoPipelining: true });
  try {
    const queue = new Ringmaster(setup).queue(QUEUE);
    if (retention === 'none') await queue.setRetention({ completed: { count: 0 } });
    await pool(o.groups, FILL_BATCH, (g) => queue.setLimit(`g${g}`, o.limit));
    await pool(jobs, FILL_BATCH, (i) => queue.enqueue(groupOf(i, o.groups), { i }));
  } finally {
    setup.disconnect();
  }
}

type RingmasterQueue = ReturnType<Ringmaster['queue']>;

/**
 * Fill a fresh queue with `jobs` jobs, then time `drive` draining it through `connections`
 * queue handles, each on its own connection; `drive` may return what to stop once the drain is
 * timed. Fails unless every job was completed.
 */
async function drainRingmaster(
  redis: BenchRedis,
  o: ThroughputOptions,
  jobs: number,
  drive: (queues: RingmasterQueue[]) => Promise<(() => Promise<void>) | undefined>,
  retention: Retention = 'default',
  connections = 1,
): Promise<Drain> {
  await fresh(redis.admin);
  await fillRingmaster(redis, o, jobs, retention);
  const conns = Array.from({ length: connections }, () => redis.connect());
  await Promise.all(conns.map((conn) => conn.ping()));
  const counters = conns.map((conn) => countCommands(conn));
  const queues = conns.map((conn) => new Ringmaster(conn).queue(QUEUE));
  for (const counter of counters) counter.reset();
  let stop: (() => Promise<void>) | undefined;
  const m = await measured(redis, jobs, async () => {
    stop = await drive(queues);
  });
  const calls = counters.reduce((sum, counter) => sum + counter.count, 0);
  await stop?.();
  await checkDrained(queues[0] as RingmasterQueue, jobs);
  for (const conn of conns) conn.disconnect();
  return drain(jobs, m, calls);
}

/**
 * The project's Worker at concurrency c, draining `jobs` pre-filled jobs; with `workers` > 1,
 * that many Workers of concurrency c, each on its own connection.
 */
function runRingmaster(
  redis: BenchRedis,
  o: ThroughputOptions,
  c: number,
  jobs: number,
  retention: Retention = 'default',
  workers = 1,
): Promise<Drain> {
  return drainRingmaster(
    redis,
    o,
    jobs,
    async (queues) => {
      const completed = latch(jobs);
      const started = queues.map((queue) => {
        const worker = new Worker(queue, async () => {}, { concurrency: c });
        worker.on('completed', () => completed.hit());
        worker.on('error', (error) => progress(`ringmaster worker error: ${error.message}`));
        return worker;
      });
      await withTimeout(completed.done, 'the Ringmaster drain');
      return async () => {
        await Promise.all(started.map((worker) => worker.close()));
      };
    },
    retention,
    workers,
  );
}

/**
 * Ringmaster without the Worker's batching: c loops, each sending one `completeAndClaim` per
 * job that completes the job it ran last and claims its next, until the ring is empty.
 */
function runRingmasterPerJob(
  redis: BenchRedis,
  o: ThroughputOptions,
  c: number,
  jobs: number,
): Promise<Drain> {
  return drainRingmaster(redis, o, jobs, async ([queue]) => {
    if (queue === undefined) throw new Error('no queue to drain');
    const loop = async () => {
      let previous: { id: string; token: string }[] = [];
      for (;;) {
        const result = await queue.completeAndClaim(previous, { claim: 1 });
        if (result.refused.some((r) => r !== null)) throw new Error('a completion was refused');
        const job = result.claimed[0];
        if (job === undefined) return;
        previous = [{ id: job.id, token: job.token as string }];
      }
    };
    await withTimeout(Promise.all(Array.from({ length: c }, loop)), 'the one-call-per-job drain');
    return undefined;
  });
}

async function checkDrained(queue: RingmasterQueue, jobs: number): Promise<void> {
  const [stats, counts] = await Promise.all([queue.stats(), queue.counts()]);
  if (stats.completed !== jobs || counts.pending !== 0 || counts.active !== 0) {
    throw new Error(
      `Ringmaster drain incomplete: completed ${stats.completed}/${jobs}, pending ${counts.pending}, active ${counts.active}`,
    );
  }
}

function connectionOptions(redis: BenchRedis) {
  return { host: '127.0.0.1', port: redis.process.port, maxRetriesPerRequest: null };
}

/**
 * BullMQ, plain queue: the same jobs (data and count), its Worker at concurrency c (`workers`
 * of them, each with its own connections).
 */
async function runBullmq(redis: BenchRedis, c: number, jobs: number, workers = 1): Promise<Drain> {
  await fresh(redis.admin);
  const connection = connectionOptions(redis);
  const queue = new BullQueue(QUEUE, { connection });
  const opts = { removeOnComplete: true, removeOnFail: true };
  for (let start = 0; start < jobs; start += FILL_BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(jobs, start + FILL_BATCH); i++) {
      batch.push({ name: 'noop', data: { i }, opts });
    }
    await queue.addBulk(batch);
  }
  const started = Array.from({ length: workers }, () => {
    const worker = new BullWorker(QUEUE, async () => {}, {
      connection,
      concurrency: c,
      autorun: false,
    });
    worker.on('error', (error) => progress(`bullmq worker error: ${error.message}`));
    return worker;
  });
  await Promise.all(started.map((worker) => worker.waitUntilReady()));
  const completed = latch(jobs);
  for (const worker of started) worker.on('completed', () => completed.hit());
  const m = await measured(redis, jobs, async () => {
    for (const worker of started) void worker.run();
    await withTimeout(completed.done, 'the BullMQ drain');
  });
  await Promise.all(started.map((worker) => worker.close()));
  await queue.close();
  return drain(jobs, m);
}

/**
 * GroupMQ: the same jobs over the same groups, its Worker at concurrency c (`workers` of them,
 * each with its own queue handle and connection).
 */
async function runGroupmq(
  redis: BenchRedis,
  o: ThroughputOptions,
  c: number,
  jobs: number,
  workers = 1,
): Promise<Drain> {
  await fresh(redis.admin);
  const conns: Redis[] = Array.from({ length: workers }, () => redis.connect());
  const queues = conns.map(
    (conn) => new GroupQueue({ redis: conn, namespace: QUEUE, jobTimeoutMs: 30_000 }),
  );
  const queue = queues[0] as GroupQueue;
  await pool(jobs, FILL_BATCH, (i) => queue.add({ groupId: groupOf(i, o.groups), data: { i } }));
  const completed = latch(jobs);
  const started: GroupWorker[] = [];
  const m = await measured(redis, jobs, async () => {
    for (const each of queues) {
      const worker = new GroupWorker({ queue: each, handler: async () => {}, concurrency: c });
      worker.on('completed', () => completed.hit());
      worker.on('error', (error) => progress(`groupmq worker error: ${String(error)}`));
      void worker.run();
      started.push(worker);
    }
    await withTimeout(completed.done, 'the GroupMQ drain');
  });
  await Promise.all(started.map((worker) => worker.close(0)));
  await Promise.all(queues.map((each) => each.close()));
  for (const conn of conns) conn.disconnect();
  return drain(jobs, m);
}

interface Floor {
  callsPerSec: number;
  /** redis-server CPU per call, µs. */
  redisCpuUsecPerCall: number;
}

/** The trivial-script floor: c loops of EVALSHA `return 1` on one connection for `ms`. */
async function runFloor(redis: BenchRedis, c: number, ms: number): Promise<Floor> {
  const conn = redis.connect();
  conn.defineCommand('benchFloor', { numberOfKeys: 0, lua: 'return 1' });
  const floor = () => (conn as unknown as { benchFloor(): Promise<number> }).benchFloor();
  await floor();
  let calls = 0;
  const redisCpu0 = await redisCpuUsec(redis.admin);
  const t0 = now();
  const end = t0 + ms;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (now() < end) {
        await floor();
        calls++;
      }
    }),
  );
  const rate = calls / ((now() - t0) / 1000);
  const redisCpu = (await redisCpuUsec(redis.admin)) - redisCpu0;
  conn.disconnect();
  return { callsPerSec: rate, redisCpuUsecPerCall: redisCpu / calls };
}

/** The efficiency target's measure: jobs/s × client calls per job ÷ floor calls/s. */
function efficiency(d: Drain, floorCallsPerSec: number): number {
  return (d.jobsPerSec * (d.clientCallsPerJob ?? Number.NaN)) / floorCallsPerSec;
}

async function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish in ${DRAIN_TIMEOUT_MS} ms`)),
      DRAIN_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function throughput(
  redis: BenchRedis,
  o: ThroughputOptions,
): Promise<ThroughputResult> {
  if (o.warmupJobs > 0) {
    progress(`throughput: warm-up (${o.warmupJobs} jobs per system)`);
    await runFloor(redis, 8, Math.min(500, o.floorMs));
    await runRingmaster(redis, o, 8, o.warmupJobs);
    await runRingmaster(redis, o, 8, o.warmupJobs, 'none');
    await runRingmasterPerJob(redis, o, 8, o.warmupJobs);
    await runBullmq(redis, 8, o.warmupJobs);
    await runGroupmq(redis, o, 8, o.warmupJobs);
  }
  const rows: ThroughputRow[] = [];
  for (const c of o.concurrencies) {
    const jobs = o.jobs(c);
    const best = {
      floor: null as Floor | null,
      ringmaster: null as Drain | null,
      noRetention: null as Drain | null,
      perJob: null as Drain | null,
      bullmq: null as Drain | null,
      groupmq: null as Drain | null,
    };
    for (let r = 1; r <= o.repeats; r++) {
      progress(`throughput: concurrency ${c}, ${jobs} jobs, run ${r} of ${o.repeats}`);
      await fresh(redis.admin);
      const floor = await runFloor(redis, c, o.floorMs);
      if (best.floor === null || floor.callsPerSec > best.floor.callsPerSec) best.floor = floor;
      best.ringmaster = keep(best.ringmaster, await runRingmaster(redis, o, c, jobs));
      best.noRetention = keep(best.noRetention, await runRingmaster(redis, o, c, jobs, 'none'));
      best.perJob = keep(best.perJob, await runRingmasterPerJob(redis, o, c, jobs));
      best.bullmq = keep(best.bullmq, await runBullmq(redis, c, jobs));
      best.groupmq = keep(best.groupmq, await runGroupmq(redis, o, c, jobs));
    }
    const floor = best.floor as Floor;
    const floorCallsPerSec = floor.callsPerSec;
    const ringmaster = best.ringmaster as Drain;
    const ringmasterNoRetention = best.noRetention as Drain;
    const perJobCalls = best.perJob as Drain;
    const bullmq = best.bullmq as Drain;
    const groupmq = best.groupmq as Drain;
    rows.push({
      concurrency: c,
      floorCallsPerSec,
      ringmaster,
      floorRedisCpuUsecPerCall: floor.redisCpuUsecPerCall,
      efficiency: efficiency(ringmaster, floorCallsPerSec),
      ringmasterNoRetention,
      noRetentionEfficiency: efficiency(ringmasterNoRetention, floorCallsPerSec),
      perJobCalls,
      perJobEfficiency: efficiency(perJobCalls, floorCallsPerSec),
      bullmq,
      groupmq,
      vsBullmq: ringmaster.jobsPerSec / bullmq.jobsPerSec,
      vsGroupmq: ringmaster.jobsPerSec / groupmq.jobsPerSec,
    });
    const r = rows.at(-1) as ThroughputRow;
    progress(
      `  ringmaster ${r.ringmaster.jobsPerSec.toFixed(0)}/s ` +
        `(retention none ${r.ringmasterNoRetention.jobsPerSec.toFixed(0)}/s), ` +
        `bullmq ${r.bullmq.jobsPerSec.toFixed(0)}/s, groupmq ${r.groupmq.jobsPerSec.toFixed(0)}/s, ` +
        `floor ${r.floorCallsPerSec.toFixed(0)} calls/s, efficiency ${r.efficiency.toFixed(2)}, ` +
        `one call per job ${r.perJobCalls.jobsPerSec.toFixed(0)}/s (efficiency ${r.perJobEfficiency.toFixed(2)})`,
    );
  }
  return { rows, manyWorkers: await runManyWorkers(redis, o) };
}

const keep = (current: Drain | null, next: Drain) =>
  current === null || next.jobsPerSec > current.jobsPerSec ? next : current;

/** The many-small-workers shape, each system in turn, `repeats` times, the best of each kept. */
async function runManyWorkers(redis: BenchRedis, o: ThroughputOptions): Promise<ManyWorkersRow> {
  const w = o.manyWorkers;
  const jobs = o.jobs(w);
  let ringmaster: Drain | null = null;
  let bullmq: Drain | null = null;
  let groupmq: Drain | null = null;
  for (let r = 1; r <= o.repeats; r++) {
    progress(`throughput: ${w} workers of concurrency 1, ${jobs} jobs, run ${r} of ${o.repeats}`);
    ringmaster = keep(ringmaster, await runRingmaster(redis, o, 1, jobs, 'default', w));
    bullmq = keep(bullmq, await runBullmq(redis, 1, jobs, w));
    groupmq = keep(groupmq, await runGroupmq(redis, o, 1, jobs, w));
  }
  const row = {
    workers: w,
    ringmaster: ringmaster as Drain,
    bullmq: bullmq as Drain,
    groupmq: groupmq as Drain,
    vsBullmq: (ringmaster as Drain).jobsPerSec / (bullmq as Drain).jobsPerSec,
    vsGroupmq: (ringmaster as Drain).jobsPerSec / (groupmq as Drain).jobsPerSec,
  };
  progress(
    `  ${w} × 1: ringmaster ${row.ringmaster.jobsPerSec.toFixed(0)}/s, ` +
      `bullmq ${row.bullmq.jobsPerSec.toFixed(0)}/s, groupmq ${row.groupmq.jobsPerSec.toFixed(0)}/s`,
  );
  return row;
}
