/**
 * Section 9 — latency: the time from `enqueue` returning to the processor starting,
 * for Ringmaster and BullMQ in the same run, on the same Redis.
 *
 * Each system has one worker at concurrency 8 in a process of its own (`latencyWorker.ts`),
 * forked once and kept for the whole section; this process is the producer. Both read
 * `process.hrtime.bigint()` (CLOCK_MONOTONIC: one clock for every process on the machine)
 * against a zero sent to the workers, so a latency is the worker's "processor entered" minus
 * the producer's "enqueue resolved", in µs. The worker is woken by Redis at the same time as
 * the producer gets its reply, so a latency can be a little below zero; it is kept as measured.
 *
 * - Steady: a producer enqueues at a fixed rate, paced by scheduled send times (each send is
 *   due at start + i / rate, so a late timer does not push the rest back), not waiting for one
 *   enqueue before the next; Ringmaster's jobs spread round robin over a few hundred groups,
 *   each with a limit. The systems take short turns (A, B, B, A, A, B …: a second or so each)
 *   so the machine's noise, which comes in bursts of seconds here, lands on both. p50 / p99 /
 *   max over every job of every turn.
 * - From idle: the worker has had nothing to do for `idleMs` (longer than either system's
 *   park: Ringmaster's 5 s `parkTimeoutMs`, BullMQ's 5 s `drainDelay`), then one job is
 *   enqueued. The two systems' idle windows are staggered by half a window, so both idle
 *   samples of a pair are taken in one stretch of time without either system enqueueing while
 *   the other is measured.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Queue as BullQueue } from 'bullmq';
import { Ringmaster } from '../src/lanes/index.js';
import type { WorkerReply, WorkerSetup } from './latencyWorker.js';
import {
  type BenchRedis,
  type CommandStat,
  commandStats,
  fresh,
  redisCpuUsec,
  scriptCalls,
  statsDelta,
} from './redis.js';
import { askChild, percentile, pool, progress, sleep } from './util.js';

export interface LatencyOptions {
  /** Jobs enqueued per second by the producer. */
  ratePerSec: number;
  /** Jobs per turn of each system, and the turns each takes (interleaved). */
  jobsPerTurn: number;
  turns: number;
  /** Jobs per system before the measured turns (JIT, connections, scripts loaded), not counted. */
  warmupJobs: number;
  /** Worker concurrency (the 8). */
  concurrency: number;
  /** Ringmaster groups the jobs are spread over (round robin), each with limit {@link limit}. */
  groups: number;
  limit: number;
  /** How long each worker has nothing to do before an idle sample (ms), at least. */
  idleMs: number;
  /**
   * Up to this much more idle time per half window (ms, uniform), so the samples fall at every
   * phase of the workers' own park timeouts (5 s for both systems) instead of always at the
   * same one: 10 s idle is two of them to the millisecond.
   */
  idleJitterMs: number;
  /** Idle samples per system. */
  idleSamples: number;
}

export const SYSTEMS = ['ringmaster', 'bullmq'] as const;
export type System = (typeof SYSTEMS)[number];

/** One system's latencies (µs). */
export interface LatencyFigures {
  /** Steady rate: every job's latency, in enqueue order, over all turns. */
  steadyUsec: number[];
  /**
   * The same jobs timed from the enqueue call (before its round trip) instead of its promise
   * resolving: never below zero, and blind to a producer whose event loop handles the reply
   * late (on a loaded machine it often does: the "resolved" figure then shrinks or goes
   * negative while the job waited no less).
   */
  fromCallUsec: number[];
  fromCallP50Usec: number;
  fromCallP99Usec: number;
  p50Usec: number;
  p99Usec: number;
  maxUsec: number;
  /** The producer's enqueue round trip (call → resolved), p50 and p99, µs. */
  enqueueP50Usec: number;
  enqueueP99Usec: number;
  /** Each idle sample's latency, in order (µs); and from its enqueue call. */
  idleUsec: number[];
  idleFromCallUsec: number[];
  idleMedianUsec: number;
  idleMaxUsec: number;
  /**
   * Redis' side of the steady turns, per job, producer and worker together (INFO commandstats
   * and INFO cpu over each turn; the other system's idle worker adds its few timed calls):
   * script calls (EVALSHA + EVAL), blocking pops (BLPOP, BZPOPMIN: the worker's waits), and
   * redis-server CPU in µs.
   */
  scriptsPerJob: number;
  blockingPopsPerJob: number;
  redisCpuUsecPerJob: number;
}

export interface LatencyResult {
  ratePerSec: number;
  concurrency: number;
  groups: number;
  idleMs: number;
  /** Achieved producer rate over the measured turns (jobs/s), per system. */
  achievedRate: Record<System, number>;
  ringmaster: LatencyFigures;
  bullmq: LatencyFigures;
}

const QUEUE = 'bench-latency';
const REPLY_TIMEOUT_MS = 60_000;

/** µs since `base` on the shared monotonic clock. */
function clockFrom(base: bigint): () => number {
  return () => Number(process.hrtime.bigint() - base) / 1000;
}

/** A forked worker process of one system, and its conversation. */
interface WorkerProcess {
  child: ChildProcess;
  /** Ask for the starts until `count` in all have started. */
  collect(count: number): Promise<[number, number][]>;
  close(): Promise<void>;
  /** Errors the worker reported (it goes on after one). */
  errors: string[];
}

async function forkWorker(setup: WorkerSetup): Promise<WorkerProcess> {
  const child = fork(
    fileURLToPath(new URL('./latencyWorker.ts', import.meta.url)),
    [JSON.stringify(setup)],
    { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const errors: string[] = [];
  child.on('message', (reply: WorkerReply) => {
    if (reply.type === 'error') {
      errors.push(reply.message);
      progress(`latency: ${setup.system} worker error: ${reply.message}`);
    }
  });
  const wait = <T extends WorkerReply['type']>(expect: T, command?: object) =>
    askChild<WorkerReply, T>(child, expect, {
      name: `the ${setup.system} worker`,
      timeoutMs: REPLY_TIMEOUT_MS,
      command,
    });
  await wait('ready');
  return {
    child,
    errors,
    async collect(count) {
      return (await wait('starts', { type: 'collect', count })).starts;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (child.connected) child.send({ type: 'close' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Enqueue one job with data `{ i }` for a system; resolves when the enqueue call has. */
type Enqueue = (i: number) => Promise<unknown>;

/** One system under test: its producer side, its worker, and the latencies gathered. */
interface Side {
  system: System;
  enqueue: Enqueue;
  worker: WorkerProcess;
  /** Jobs enqueued so far (the next job's index). */
  next: number;
  /** Index → µs the enqueue resolved / was called. */
  resolvedAt: Map<number, number>;
  calledAt: Map<number, number>;
  /** Index → µs its processor was entered. */
  startedAt: Map<number, number>;
  steady: number[];
  fromCall: number[];
  idle: number[];
  idleFromCall: number[];
  /** Seconds the measured turns' enqueues took, for the achieved rate. */
  turnSeconds: number;
  /** Summed over the measured turns: script calls, blocking pops, Redis CPU µs. */
  scripts: number;
  blockingPops: number;
  redisCpuUsec: number;
}

/**
 * Enqueue `count` jobs at `ratePerSec`, each sent at its scheduled time (start + k / rate), not
 * after the previous one resolved; then wait until the worker has started them all. Returns the
 * indexes enqueued and the seconds from the first send to the last reply.
 */
async function produce(
  side: Side,
  count: number,
  ratePerSec: number,
  clock: () => number,
): Promise<{ indexes: number[]; seconds: number }> {
  const intervalUsec = 1e6 / ratePerSec;
  const first = side.next;
  const indexes = Array.from({ length: count }, (_, k) => first + k);
  side.next += count;
  const pending: Promise<unknown>[] = [];
  const t0 = clock();
  for (let k = 0; k < count; k++) {
    const due = t0 + k * intervalUsec;
    const wait = (due - clock()) / 1000;
    if (wait > 0) await sleep(wait);
    const i = first + k;
    side.calledAt.set(i, clock());
    pending.push(
      side.enqueue(i).then(() => {
        side.resolvedAt.set(i, clock());
      }),
    );
  }
  await Promise.all(pending);
  const seconds = (clock() - t0) / 1e6;
  for (const [i, at] of await side.worker.collect(side.next)) side.startedAt.set(i, at);
  const missing = indexes.filter((i) => !side.startedAt.has(i));
  if (missing.length > 0) {
    throw new Error(`${side.system}: ${missing.length} of ${count} jobs did not start in time`);
  }
  return { indexes, seconds };
}

/** µs from job `i`'s enqueue resolving (or, with `fromCall`, being called) to its start. */
function latencyOf(side: Side, i: number, fromCall = false): number {
  const from = fromCall ? side.calledAt : side.resolvedAt;
  return (side.startedAt.get(i) as number) - (from.get(i) as number);
}

const BLOCKING_POPS = ['blpop', 'brpop', 'blmove', 'brpoplpush', 'bzpopmin', 'bzpopmax'];

function blockingPops(delta: Map<string, CommandStat>): number {
  return BLOCKING_POPS.reduce((sum, name) => sum + (delta.get(name)?.calls ?? 0), 0);
}

function figures(side: Side): LatencyFigures {
  const jobs = side.steady.length;
  const enqueueUsec = [...side.resolvedAt.keys()].map(
    (i) => (side.resolvedAt.get(i) as number) - (side.calledAt.get(i) as number),
  );
  const sortedIdle = [...side.idle].sort((a, b) => a - b);
  return {
    steadyUsec: side.steady,
    fromCallUsec: side.fromCall,
    fromCallP50Usec: percentile(side.fromCall, 50),
    fromCallP99Usec: percentile(side.fromCall, 99),
    p50Usec: percentile(side.steady, 50),
    p99Usec: percentile(side.steady, 99),
    maxUsec: percentile(side.steady, 100),
    enqueueP50Usec: percentile(enqueueUsec, 50),
    enqueueP99Usec: percentile(enqueueUsec, 99),
    idleUsec: side.idle,
    idleFromCallUsec: side.idleFromCall,
    idleMedianUsec: percentile(sortedIdle, 50),
    idleMaxUsec: percentile(sortedIdle, 100),
    scriptsPerJob: side.scripts / jobs,
    blockingPopsPerJob: side.blockingPops / jobs,
    redisCpuUsecPerJob: side.redisCpuUsec / jobs,
  };
}

const ms = (usec: number) => (usec / 1000).toFixed(2);

export async function latency(redis: BenchRedis, o: LatencyOptions): Promise<LatencyResult> {
  await fresh(redis.admin);
  const base = process.hrtime.bigint();
  const clock = clockFrom(base);

  // Ringmaster: groups with a limit, as a tenant queue has them.
  const rmConn = redis.connect();
  const rmQueue = new Ringmaster(rmConn).queue(QUEUE);
  await pool(o.groups, 100, (g) => rmQueue.setLimit(`g${g}`, o.limit));
  const bullQueue = new BullQueue(QUEUE, {
    connection: { host: '127.0.0.1', port: redis.process.port, maxRetriesPerRequest: null },
  });
  await bullQueue.waitUntilReady();
  // BullMQ keeps completed jobs unless told; Ringmaster keeps the newest 1,000 by default.
  const bullOpts = { removeOnComplete: { count: 1_000 }, removeOnFail: true };

  const workers: WorkerProcess[] = [];
  try {
    const common = {
      url: redis.url,
      port: redis.process.port,
      queue: QUEUE,
      concurrency: o.concurrency,
      base: base.toString(),
    };
    const side = (system: System, enqueue: Enqueue, worker: WorkerProcess): Side => ({
      system,
      enqueue,
      worker,
      next: 0,
      resolvedAt: new Map(),
      calledAt: new Map(),
      startedAt: new Map(),
      steady: [],
      fromCall: [],
      idle: [],
      idleFromCall: [],
      turnSeconds: 0,
      scripts: 0,
      blockingPops: 0,
      redisCpuUsec: 0,
    });
    const rmWorker = await forkWorker({ ...common, system: 'ringmaster' });
    workers.push(rmWorker);
    const bullWorker = await forkWorker({ ...common, system: 'bullmq' });
    workers.push(bullWorker);
    const sides: Side[] = [
      side('ringmaster', (i) => rmQueue.enqueue(`g${i % o.groups}`, { i }), rmWorker),
      side('bullmq', (i) => bullQueue.add('noop', { i }, bullOpts), bullWorker),
    ];

    if (o.warmupJobs > 0) {
      progress(`latency: warm-up, ${o.warmupJobs} jobs per system`);
      for (const s of sides) await produce(s, o.warmupJobs, o.ratePerSec, clock);
    }
    for (let turn = 1; turn <= o.turns; turn++) {
      // Alternate which system goes first, so neither always follows the other.
      const order = turn % 2 === 1 ? sides : [...sides].reverse();
      for (const s of order) {
        progress(
          `latency: ${s.system}, ${o.jobsPerTurn} jobs at ${o.ratePerSec}/s (turn ${turn} of ${o.turns})`,
        );
        const stats0 = await commandStats(redis.admin);
        const cpu0 = await redisCpuUsec(redis.admin);
        const { indexes, seconds } = await produce(s, o.jobsPerTurn, o.ratePerSec, clock);
        s.redisCpuUsec += (await redisCpuUsec(redis.admin)) - cpu0;
        const delta = statsDelta(stats0, await commandStats(redis.admin));
        s.scripts += scriptCalls(delta).calls;
        s.blockingPops += blockingPops(delta);
        s.turnSeconds += seconds;
        const turnLatencies = indexes.map((i) => latencyOf(s, i));
        s.steady.push(...turnLatencies);
        s.fromCall.push(...indexes.map((i) => latencyOf(s, i, true)));
        progress(
          `  p50 ${ms(percentile(turnLatencies, 50))} ms, p99 ${ms(percentile(turnLatencies, 99))} ms, max ${ms(percentile(turnLatencies, 100))} ms`,
        );
      }
    }

    // From idle: each system's job every idleMs (a little more: the sample's own time), the
    // other's half a window later; the first waits a whole window after the steady turns.
    progress(
      `latency: from idle, ${o.idleSamples} samples per system, ${o.idleMs / 1000} s idle before each`,
    );
    const halfWindow = () => o.idleMs / 2 + Math.random() * o.idleJitterMs;
    await sleep(halfWindow());
    for (let k = 0; k < o.idleSamples; k++) {
      for (const s of sides) {
        await sleep(halfWindow());
        const { indexes } = await produce(s, 1, o.ratePerSec, clock);
        const value = latencyOf(s, indexes[0] as number);
        s.idle.push(value);
        s.idleFromCall.push(latencyOf(s, indexes[0] as number, true));
        progress(`  ${s.system}: ${ms(value)} ms`);
      }
    }
    const [rm, bull] = sides as [Side, Side];
    return {
      ratePerSec: o.ratePerSec,
      concurrency: o.concurrency,
      groups: o.groups,
      idleMs: o.idleMs,
      achievedRate: {
        ringmaster: (o.turns * o.jobsPerTurn) / rm.turnSeconds,
        bullmq: (o.turns * o.jobsPerTurn) / bull.turnSeconds,
      },
      ringmaster: figures(rm),
      bullmq: figures(bull),
    };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await bullQueue.close();
    rmConn.disconnect();
  }
}
