/**
 * `npm run bench -- --cluster` — Ringmaster on a Redis Cluster beside a single Redis, in one run.
 *
 * The same workload three times: `queues` queues of no-op jobs over `groups` groups each (limit
 * `limit`), pre-filled, then drained by one Worker per queue at `concurrency`:
 * 1. a single redis-server (the baseline);
 * 2. a 3-master + 3-replica cluster with every queue's slot on ONE master;
 * 3. the same cluster with the queues spread over all THREE masters (as many per master).
 * Reported per run: jobs/s, and the Redis CPU per job (INFO cpu, user + sys, summed over the
 * masters and, apart, over the replicas, which replay every write). On this machine every Redis
 * process and the benchmark share 2 cores, so spreading over 3 masters cannot show the scaling a
 * core per master would give: the CPU per job says what each master would need.
 */
import calculateSlot from 'cluster-key-slot';
import { type Cluster, Redis } from 'ioredis';
import { Ringmaster, Worker } from '../src/lanes/index.js';
import { startRedisServer } from '../src/server/redisProcess/index.js';
import { startTestCluster, type TestCluster } from './clusterProcess.js';
import { latch, now, pool, progress, table } from './util.js';

export interface ClusterBenchOptions {
  queues: number;
  jobsPerQueue: number;
  groups: number;
  limit: number;
  concurrency: number;
}

export const CLUSTER_FULL: ClusterBenchOptions = {
  queues: 6,
  jobsPerQueue: 10_000,
  groups: 100,
  limit: 2,
  concurrency: 32,
};
export const CLUSTER_QUICK: ClusterBenchOptions = {
  queues: 3,
  jobsPerQueue: 200,
  groups: 10,
  limit: 2,
  concurrency: 8,
};

export interface ClusterRun {
  readonly name: string;
  readonly jobs: number;
  readonly seconds: number;
  readonly jobsPerSec: number;
  /** Redis CPU per job on the nodes serving the queues (µs). */
  readonly masterCpuUsecPerJob: number;
  /** Replicas' CPU per job (µs); 0 on a single Redis. */
  readonly replicaCpuUsecPerJob: number;
}

async function cpuUsec(nodes: readonly Redis[]): Promise<number> {
  let total = 0;
  for (const node of nodes) {
    const text = (await node.info('cpu')) as string;
    const field = (name: string) => Number(new RegExp(`^${name}:(\\S+)`, 'm').exec(text)?.[1] ?? 0);
    total += (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
  }
  return total;
}

/** Fill, then drain with one Worker per queue; CPU read around the drain only. */
async function drain(
  name: string,
  connection: Redis | Cluster,
  queueNames: readonly string[],
  masters: readonly Redis[],
  replicas: readonly Redis[],
  o: ClusterBenchOptions,
): Promise<ClusterRun> {
  const engine = new Ringmaster(connection);
  const queues = queueNames.map((q) => engine.queue(q));
  progress(`${name}: filling ${queues.length} × ${o.jobsPerQueue} jobs`);
  for (const queue of queues) {
    await pool(o.groups, 100, (g) => queue.setLimit(`g${g}`, o.limit));
    await pool(o.jobsPerQueue, 200, (i) => queue.enqueue(`g${i % o.groups}`, { i }));
  }
  const jobs = queues.length * o.jobsPerQueue;
  const done = latch(jobs);
  const [m0, r0] = [await cpuUsec(masters), await cpuUsec(replicas)];
  const t0 = now();
  const workers = queues.map((queue) => {
    const worker = new Worker(queue, async () => {}, { concurrency: o.concurrency });
    worker.on('completed', () => done.hit());
    worker.on('error', (error) => progress(`${name}: worker error ${error.message}`));
    return worker;
  });
  await done.done;
  const seconds = (now() - t0) / 1000;
  const [m1, r1] = [await cpuUsec(masters), await cpuUsec(replicas)];
  await Promise.all(workers.map((worker) => worker.close()));
  for (const queue of queues) {
    const stats = await queue.stats();
    if (stats.completed !== o.jobsPerQueue) {
      throw new Error(`${name}: ${queue.name} completed ${stats.completed}/${o.jobsPerQueue}`);
    }
  }
  progress(`${name}: ${Math.round(jobs / seconds)} jobs/s`);
  return {
    name,
    jobs,
    seconds,
    jobsPerSec: jobs / seconds,
    masterCpuUsecPerJob: (m1 - m0) / jobs,
    replicaCpuUsecPerJob: (r1 - r0) / jobs,
  };
}

/** `count` queue names whose slots are served by the masters at `ports`, round robin. */
async function queuesOn(cluster: TestCluster, ports: readonly number[], count: number) {
  const nodes = await cluster.topology();
  const ownerOf = (slot: number) =>
    nodes.find((n) => n.role === 'master' && n.slots.some(([a, b]) => slot >= a && slot <= b))
      ?.port;
  const names: string[] = [];
  for (let i = 0; names.length < count; i++) {
    const name = `bench-${i}`;
    if (ownerOf(calculateSlot(name)) === ports[names.length % ports.length]) names.push(name);
  }
  return names;
}

/** Run the three drains and return their rows (see the module comment). */
export async function clusterBench(o: ClusterBenchOptions): Promise<ClusterRun[]> {
  const runs: ClusterRun[] = [];
  const single = await startRedisServer({ appendOnly: false });
  const client = new Redis(single.url, { maxRetriesPerRequest: null });
  try {
    const names = Array.from({ length: o.queues }, (_, i) => `bench-${i}`);
    runs.push(await drain('single Redis', client, names, [client], [], o));
  } finally {
    client.disconnect();
    await single.stop();
  }

  // As PERFORMANCE.md's cluster figures were measured: keyspace notifications on every node
  // (the single Redis above runs without).
  const cluster = await startTestCluster({ notifyKeyspaceEvents: 'KEA' });
  try {
    const nodes = await cluster.topology();
    const masterPorts = nodes.filter((n) => n.role === 'master').map((n) => n.port);
    const replicaPorts = nodes.filter((n) => n.role === 'replica').map((n) => n.port);
    const masters = masterPorts.map((port) => cluster.node(port));
    const replicas = replicaPorts.map((port) => cluster.node(port));
    const first = masterPorts.slice(0, 1);
    for (const [name, ports] of [
      ['cluster, 1 master', first],
      ['cluster, 3 masters', masterPorts],
    ] as const) {
      const connection = cluster.client({ scaleReads: 'master' });
      try {
        const names = await queuesOn(cluster, ports, o.queues);
        const serving = masters.filter((_, i) => ports.includes(masterPorts[i] as number));
        runs.push(await drain(name, connection, names, serving, replicas, o));
        await Promise.all(masters.map((m) => m.flushall()));
      } finally {
        connection.disconnect();
      }
    }
  } finally {
    await cluster.stop();
  }
  return runs;
}

/** The section's table, with the ratios against the single Redis. */
export function renderCluster(runs: readonly ClusterRun[]): string {
  const base = runs[0];
  const rows = runs.map((run) => [
    run.name,
    String(run.jobs),
    run.jobsPerSec.toFixed(0),
    base ? `${(run.jobsPerSec / base.jobsPerSec).toFixed(2)}×` : '',
    run.masterCpuUsecPerJob.toFixed(1),
    base ? `${(run.masterCpuUsecPerJob / base.masterCpuUsecPerJob).toFixed(2)}×` : '',
    run.replicaCpuUsecPerJob.toFixed(1),
  ]);
  return [
    "Redis Cluster (same run; every process shares this machine's cores)",
    table(
      [
        'run',
        'jobs',
        'jobs/s',
        '÷ single',
        'Redis CPU µs/job (masters)',
        '÷ single',
        'replicas µs/job',
      ],
      rows,
    ),
  ].join('\n');
}
