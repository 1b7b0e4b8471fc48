/**
 * `npm run bench` — Ringmaster's benchmark, every figure measured in this one run on a
 * private redis-server and reported beside its comparator. Prints a table on stdout (progress on
 * stderr) and writes bench/results.json.
 *
 *   npm run bench                      the full run (a few minutes on 2 cores)
 *   npm run bench -- --quick           a smoke run with tiny sizes (seconds; what CI runs)
 *   npm run bench -- --only=flat,memory   some sections: throughput, flat, graphql, fanout, memory,
 *                                        startup, latency, enqueue, ringscale
 *   npm run bench -- --cluster [--quick]   Ringmaster on a 3 + 3 Redis Cluster beside a single
 *                                        Redis (bench/cluster.ts); alone, not with the sections
 *
 * Nothing here asserts anything about time: the targets are judged and printed, never enforced.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { CLUSTER_FULL, CLUSTER_QUICK, clusterBench, renderCluster } from './cluster.js';
import { type EnqueueOptions, enqueueCost } from './enqueue.js';
import { type FanoutOptions, fanout } from './fanout.js';
import { type FlatCostOptions, flatCost } from './flatCost.js';
import { type GraphqlOptions, graphqlOverhead } from './graphql.js';
import { type LatencyOptions, latency } from './latency.js';
import { type MemoryOptions, memory } from './memory.js';
import { info, startBenchRedis } from './redis.js';
import { judge, type Results, render, writeResults } from './report.js';
import {
  RING_SCALE_FULL,
  RING_SCALE_QUICK,
  type RingScaleOptions,
  ringScale,
} from './ringScale.js';
import { type StartupOptions, startup } from './startup.js';
import { type ThroughputOptions, throughput } from './throughput.js';
import { now, progress } from './util.js';

interface Plan {
  throughput: ThroughputOptions;
  flat: FlatCostOptions;
  graphql: GraphqlOptions;
  fanout: FanoutOptions;
  memory: MemoryOptions;
  startup: StartupOptions;
  latency: LatencyOptions;
  enqueue: EnqueueOptions;
  ringScale: RingScaleOptions;
}

const FULL: Plan = {
  throughput: {
    concurrencies: [1, 8, 64],
    jobs: (c) => (c === 1 ? 5_000 : c === 8 ? 20_000 : 30_000),
    groups: 1_000,
    limit: 2,
    floorMs: 2_000,
    warmupJobs: 2_000,
    repeats: 3,
    manyWorkers: 8,
  },
  flat: {
    sizes: [10, 10_000, 100_000],
    rounds: 12,
    calls: 250,
    batch: 250,
    batchesPerRound: 1,
    delayed: 100_000,
    rateLimited: 100_000,
    perLevel: 10_000,
  },
  graphql: { connections: 50, seconds: 10, slices: 5, warmupSeconds: 1 },
  fanout: {
    counts: [1, 100, 1_000, 5_000],
    rounds: 30,
    gapMs: 100,
    noGcIdleMs: 30_000,
    settle: { minIdleMs: 6_000, maxIdleMs: 30_000 },
  },
  memory: { groups: 100_000, jobs: 50_000 },
  startup: { runs: 5, idleMs: 3_000 },
  latency: {
    ratePerSec: 100,
    jobsPerTurn: 100,
    turns: 20,
    warmupJobs: 200,
    concurrency: 8,
    groups: 300,
    limit: 2,
    idleMs: 10_000,
    idleJitterMs: 1_000,
    idleSamples: 5,
  },
  enqueue: { jobs: 20_000, groups: 1_000, batch: 100, concurrency: 16, rounds: 3 },
  ringScale: RING_SCALE_FULL,
};

const QUICK: Plan = {
  throughput: {
    concurrencies: [1, 8, 64],
    jobs: () => 200,
    groups: 1_000,
    limit: 2,
    floorMs: 200,
    warmupJobs: 0,
    repeats: 1,
    manyWorkers: 8,
  },
  flat: {
    sizes: [10, 1_000],
    rounds: 1,
    calls: 20,
    batch: 5,
    batchesPerRound: 1,
    delayed: 2_000,
    rateLimited: 2_000,
    perLevel: 200,
  },
  graphql: { connections: 50, seconds: 2, slices: 1, warmupSeconds: 0 },
  fanout: {
    counts: [1, 10, 50],
    rounds: 3,
    gapMs: 50,
    noGcIdleMs: 500,
    settle: { minIdleMs: 200, maxIdleMs: 1_000 },
  },
  memory: { groups: 2_000, jobs: 1_000 },
  startup: { runs: 1, idleMs: 500 },
  latency: {
    ratePerSec: 100,
    jobsPerTurn: 50,
    turns: 2,
    warmupJobs: 0,
    concurrency: 8,
    groups: 300,
    limit: 2,
    idleMs: 1_000,
    idleJitterMs: 100,
    idleSamples: 1,
  },
  enqueue: { jobs: 500, groups: 50, batch: 100, concurrency: 16, rounds: 1 },
  ringScale: RING_SCALE_QUICK,
};

const SECTIONS = [
  'throughput',
  'flat',
  'graphql',
  'fanout',
  'memory',
  'startup',
  'latency',
  'enqueue',
  'ringscale',
] as const;
type Section = (typeof SECTIONS)[number];

function parseArgs(argv: string[]): { quick: boolean; only: Set<Section>; cluster: boolean } {
  let quick = false;
  let cluster = false;
  let only = new Set<Section>(SECTIONS);
  for (const arg of argv) {
    if (arg === '--quick') quick = true;
    else if (arg === '--cluster') cluster = true;
    else if (arg.startsWith('--only=')) {
      const names = arg.slice('--only='.length).split(',');
      for (const name of names) {
        if (!SECTIONS.includes(name as Section)) {
          throw new Error(`unknown section ${name}; sections: ${SECTIONS.join(', ')}`);
        }
      }
      only = new Set(names as Section[]);
    } else {
      throw new Error(`unknown argument ${arg}; use --quick, --cluster and/or --only=<sections>`);
    }
  }
  return { quick, only, cluster };
}

async function main(): Promise<void> {
  const { quick, only, cluster } = parseArgs(process.argv.slice(2));
  if (cluster) {
    const runs = await clusterBench(quick ? CLUSTER_QUICK : CLUSTER_FULL);
    process.stdout.write(`\n${renderCluster(runs)}\n`);
    return;
  }
  const plan = quick ? QUICK : FULL;
  const started = now();
  const loadStart = os.loadavg()[0] as number;
  const redis = await startBenchRedis();
  const sectionSeconds: Record<string, number> = {};
  const timed = async <T>(name: Section, run: () => Promise<T>): Promise<T | undefined> => {
    if (!only.has(name)) return undefined;
    const t0 = now();
    try {
      return await run();
    } finally {
      sectionSeconds[name] = (now() - t0) / 1000;
    }
  };
  try {
    progress(`private redis-server at ${redis.url} (appendonly no)`);
    const redisVersion = (await info(redis.admin, 'server')).redis_version ?? 'unknown';
    const sections = {
      throughput: await timed('throughput', () => throughput(redis, plan.throughput)),
      flatCost: await timed('flat', () => flatCost(redis, plan.flat)),
      graphql: await timed('graphql', () => graphqlOverhead(redis, plan.graphql)),
      fanout: await timed('fanout', () => fanout(redis, plan.fanout)),
      memory: await timed('memory', () => memory(redis, plan.memory)),
      startup: await timed('startup', () => startup(plan.startup)),
      latency: await timed('latency', () => latency(redis, plan.latency)),
      enqueue: await timed('enqueue', () => enqueueCost(redis, plan.enqueue)),
      ringScale: await timed('ringscale', () => ringScale(redis, plan.ringScale)),
    };
    const cpus = os.cpus();
    const partial: Omit<Results, 'targets'> = {
      meta: {
        date: new Date().toISOString(),
        quick,
        node: process.version,
        redis: redisVersion,
        cpus: cpus.length,
        cpuModel: cpus[0]?.model.trim() ?? 'unknown',
        loadStart,
        loadEnd: os.loadavg()[0] as number,
        seconds: (now() - started) / 1000,
        sectionSeconds,
      },
      ...Object.fromEntries(Object.entries(sections).filter(([, v]) => v !== undefined)),
    };
    const results: Results = { ...partial, targets: judge(partial) };
    const path = fileURLToPath(new URL('./results.json', import.meta.url));
    await writeResults(path, results);
    process.stdout.write(`\n${render(results)}\n\nWrote ${path}\n`);
  } finally {
    await redis.stop();
  }
}

main().then(
  // Clients of the peer libraries may keep timers alive; the run is over.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
