/**
 * Weights beside none (DESIGN.md §3 "Weights"): the same drain of no-op jobs over
 * 1,000 groups, once with no weights and once with every group weighted (1..4, seeded), side by
 * side in one Redis, alternating so a noisy moment hits both alike. Two drains per mode:
 * - per job: c loops, each one `completeAndClaim` per job (complete the last, claim the next) —
 *   the claim script's own cost shows most here;
 * - batched: c loops, each completing its last b jobs and claiming b more in one call (the
 *   Worker's group commit), so a weighted head is served several times in one script.
 * Reported: jobs/s (median of the repeats) and Redis-side µs per script call (INFO
 * commandstats), with commands per job.
 *
 *   npx tsx bench/weights.ts [--jobs=20000] [--groups=1000] [--repeats=3] [--c=8] [--batch=8]
 *
 * Nothing is asserted: the figures are printed (stdout) for the report.
 */
import { Ringmaster } from '../src/lanes/index.js';
import {
  type BenchRedis,
  commandStats,
  fresh,
  scriptCalls,
  startBenchRedis,
  statsDelta,
  totalCalls,
} from './redis.js';
import { now, percentile, pool, progress } from './util.js';

const arg = (name: string, fallback: number): number => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const JOBS = arg('jobs', 20_000);
const GROUPS = arg('groups', 1_000);
const REPEATS = arg('repeats', 3);
const C = arg('c', 8);
const BATCH = arg('batch', 8);
const QUEUE = 'weights-bench';

type Mode = 'none' | 'weighted';
type Drive = 'per job' | 'batched';

interface Run {
  jobsPerSecond: number;
  usecPerScript: number;
  commandsPerJob: number;
}

/** A deterministic weight 1..4 for group `g` (a small LCG, so every run weighs alike). */
const weightOf = (g: number): number => 1 + ((g * 1_103_515_245 + 12_345) % 4);

async function fill(redis: BenchRedis, mode: Mode): Promise<void> {
  const setup = redis.connect({ enableAutoPipelining: true });
  try {
    const queue = new Ringmaster(setup).queue(QUEUE);
    if (mode === 'weighted') {
      const setWeight = (queue as { setWeight?: (g: string, w: number) => Promise<unknown> })
        .setWeight;
      if (!setWeight) throw new Error('this tree has no setWeight');
      await pool(GROUPS, 200, (g) => setWeight.call(queue, `g${g}`, weightOf(g)));
    }
    await queue.setRetention({ completed: { count: 0 } });
    await pool(JOBS, 200, (i) => queue.enqueue(`g${i % GROUPS}`, { i }));
  } finally {
    setup.disconnect();
  }
}

async function drain(redis: BenchRedis, mode: Mode, drive: Drive): Promise<Run> {
  await fresh(redis.admin);
  await fill(redis, mode);
  const conn = redis.connect();
  const queue = new Ringmaster(conn).queue(QUEUE);
  await queue.counts(); // connected, scripts defined
  const before = await commandStats(redis.admin);
  const per = drive === 'per job' ? 1 : BATCH;
  const started = now();
  const loop = async () => {
    let previous: { id: string; token: string }[] = [];
    for (;;) {
      const result = await queue.completeAndClaim(previous, { claim: per });
      previous = result.claimed.map((j) => ({ id: j.id, token: j.token as string }));
      if (previous.length === 0) return;
    }
  };
  await Promise.all(Array.from({ length: C }, loop));
  const seconds = (now() - started) / 1000;
  const delta = statsDelta(before, await commandStats(redis.admin));
  const scripts = scriptCalls(delta);
  const stats = await queue.stats();
  if (stats.completed !== JOBS) throw new Error(`completed ${stats.completed} of ${JOBS}`);
  conn.disconnect();
  return {
    jobsPerSecond: JOBS / seconds,
    usecPerScript: scripts.usec / scripts.calls,
    commandsPerJob: (totalCalls(delta) - scripts.calls) / JOBS,
  };
}

async function main(): Promise<void> {
  const modes: Mode[] = process.argv.includes('--none-only') ? ['none'] : ['none', 'weighted'];
  const drives: Drive[] = ['per job', 'batched'];
  const redis = await startBenchRedis();
  const runs = new Map<string, Run[]>();
  try {
    for (let r = 0; r < REPEATS; r++) {
      for (const drive of drives) {
        // alternate which mode goes first
        const order = r % 2 === 0 ? modes : [...modes].reverse();
        for (const mode of order) {
          progress(`repeat ${r + 1}/${REPEATS}: ${drive}, ${mode}`);
          const key = `${drive}\t${mode}`;
          runs.set(key, [...(runs.get(key) ?? []), await drain(redis, mode, drive)]);
        }
      }
    }
  } finally {
    await redis.stop();
  }
  const median = (values: number[]) => percentile(values, 50);
  console.log(`jobs ${JOBS}, groups ${GROUPS}, loops ${C}, batch ${BATCH}, repeats ${REPEATS}`);
  console.log('drive\tweights\tjobs/s (median; all)\tµs per script (median)\tcommands per job');
  for (const [key, list] of runs) {
    const jps = list.map((x) => x.jobsPerSecond);
    console.log(
      `${key}\t${Math.round(median(jps))} (${jps.map(Math.round).join(', ')})\t${median(
        list.map((x) => x.usecPerScript),
      ).toFixed(1)}\t${median(list.map((x) => x.commandsPerJob)).toFixed(2)}`,
    );
  }
}

await main();
