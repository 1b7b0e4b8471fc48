/**
 * Redis' cost of one job in the Worker's hot path ("Redis CPU per job"): a private
 * redis-server, optionally under callgrind, filled with `--jobs` no-op jobs over `--groups`
 * groups, drained by the project's `Worker` at `--concurrency`. Reports, per job:
 *
 * - instructions (callgrind only): the server's instructions over the drain ÷ jobs, minus an
 *   idle baseline (the same server instrumented for `--idle-ms` with no client work, scaled to
 *   the drain's length). Deterministic to ~0.1% for a given tree, batch size and machine, so it
 *   is the before/after measure on a shared machine where wall-clock CPU is noise.
 * - Redis commands: every command Redis ran (INFO commandstats, FCALL/EVALSHA/EVAL excluded, the
 *   harness' own INFO excluded) ÷ jobs, and the same split by command.
 * - script calls: FCALL + EVALSHA + EVAL ÷ jobs (the Worker's batch size is its inverse).
 *
 * The callgrind run counts instructions only while the drain runs (`--instr-atstart=no`, then
 * `callgrind_control -i on/off`), so the fill and start-up are not in the figure.
 *
 *   npx tsx bench/redisCost.ts                                  # callgrind, both retentions
 *   npx tsx bench/redisCost.ts --plain --jobs=30000              # no valgrind: commands and CPU µs
 *   npx tsx bench/redisCost.ts --retention=none --runs=2 --groups=1000 --limit=2
 *   npx tsx bench/redisCost.ts --jobs=2000 --concurrency=1 --delayed=1   # a call's fixed cost, in a
 *                                                      queue that is not quiet (a job delayed 1 h)
 *   npx tsx bench/redisCost.ts --system=bullmq --concurrency=1 --jobs=2000   # BullMQ's job, the same
 *                                                      way (its Worker, removeOnComplete as §1 runs it)
 *
 * Output: one line per run on stdout, JSON with `--json`. Never touches 127.0.0.1:6379: the
 * server listens on a free port picked by get-port. DESIGN.md is not involved (a measurement).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { Ringmaster, Worker } from '../src/lanes/index.js';
import { idleInstructionsPerMs, instructionsDuring, startServer } from './callgrind.js';
import {
  commandStats,
  isBookkeeping,
  redisCpuUsec,
  SCRIPT_COMMANDS,
  scriptCalls,
} from './redis.js';
import { latch, pool, scriptFlags } from './util.js';

/** What one run measures; every field has a command-line flag of the same name. */
interface Options {
  jobs: number;
  groups: number;
  limit: number;
  concurrency: number;
  /** Jobs delayed an hour (never due in the drain) beside the drained ones, in their own group. */
  delayed: number;
  retention: 'none' | 'default';
  /**
   * Whose job: Ringmaster's, or BullMQ's (a plain queue drained by its Worker at `concurrency`,
   * removeOnComplete as the throughput section runs it; `groups`, `limit`, `delayed` and the
   * retention do not apply).
   */
  system: 'ringmaster' | 'bullmq';
  runs: number;
  /** Without valgrind: no instruction count, but Redis CPU µs per job from INFO. */
  plain: boolean;
  /** Idle baseline length (ms) under callgrind. */
  idleMs: number;
  json: boolean;
  /** Keep the callgrind dumps (for callgrind_annotate); their directory goes to stderr. */
  keep: boolean;
}

/** One drain's figures, per job unless named otherwise. */
interface Result {
  retention: Options['retention'];
  jobs: number;
  instructionsPerJob: number | null;
  idleInstructionsPerSecond: number | null;
  commandsPerJob: number;
  scriptCallsPerJob: number;
  redisCpuUsecPerJob: number;
  drainMs: number;
  byCommand: Record<string, number>;
}

function parseOptions(argv: readonly string[]): Options & { retentions: Options['retention'][] } {
  const flags = scriptFlags(argv, {
    values: [
      'jobs',
      'groups',
      'limit',
      'concurrency',
      'delayed',
      'retention',
      'system',
      'runs',
      'idle-ms',
    ],
    switches: ['plain', 'json', 'keep'],
  });
  const retention = flags.text('retention');
  if (retention !== undefined && retention !== 'none' && retention !== 'default') {
    throw new Error('--retention is none or default');
  }
  const system = flags.text('system') ?? 'ringmaster';
  if (system !== 'ringmaster' && system !== 'bullmq') {
    throw new Error('--system is ringmaster or bullmq');
  }
  return {
    jobs: flags.whole('jobs', 6000, 0),
    groups: flags.whole('groups', 100, 0),
    limit: flags.whole('limit', 2, 0),
    concurrency: flags.whole('concurrency', 64, 0),
    delayed: flags.whole('delayed', 0, 0),
    retention: retention ?? 'none',
    retentions:
      retention === undefined && system === 'ringmaster'
        ? ['none', 'default']
        : [retention ?? 'none'],
    system,
    runs: flags.whole('runs', 1, 0),
    plain: flags.has('plain'),
    idleMs: flags.whole('idle-ms', 2000, 0),
    json: flags.has('json'),
    keep: flags.has('keep'),
  };
}

async function fill(port: number, o: Options, retention: Options['retention']): Promise<void> {
  if (o.system === 'bullmq') {
    const queue = new BullQueue('cost', { connection: { port, host: '127.0.0.1' } });
    const opts = { removeOnComplete: true, removeOnFail: true };
    for (let start = 0; start < o.jobs; start += 1000) {
      const batch = [];
      for (let i = start; i < Math.min(o.jobs, start + 1000); i++) {
        batch.push({ name: 'noop', data: { i }, opts });
      }
      await queue.addBulk(batch);
    }
    await queue.close();
    return;
  }
  const setup = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: true });
  try {
    const queue = new Ringmaster(setup).queue('cost');
    if (retention === 'none') await queue.setRetention({ completed: { count: 0 } });
    await pool(o.groups, 50, (g) => queue.setLimit(`g${g}`, o.limit));
    await pool(o.jobs, 50, (i) => queue.enqueue(`g${i % o.groups}`, { i }));
    await pool(o.delayed, 50, (i) => queue.enqueue('later', { i }, { delayMs: 3_600_000 }));
  } finally {
    setup.disconnect();
  }
}

async function drainOnce(
  o: Options,
  retention: Options['retention'],
  dir: string,
): Promise<Result> {
  const server = await startServer(o.plain, dir);
  const admin = new Redis({ port: server.port, host: '127.0.0.1' });
  const conn = new Redis({ port: server.port, host: '127.0.0.1', maxRetriesPerRequest: null });
  try {
    await fill(server.port, o, retention);
    const queue = new Ringmaster(conn).queue('cost');
    await conn.ping();
    // BullMQ's Worker connects and checks the server before its first job: not the drain's.
    const bull =
      o.system === 'bullmq'
        ? new BullWorker('cost', async () => {}, {
            connection: { port: server.port, host: '127.0.0.1', maxRetriesPerRequest: null },
            concurrency: o.concurrency,
            autorun: false,
          })
        : undefined;
    await bull?.waitUntilReady();
    // Idle baseline: what the server does with nobody asking (cron, the clients' sockets).
    const idlePerMs = o.plain ? null : await idleInstructionsPerMs(server, dir, o.idleMs);
    await admin.config('RESETSTAT');
    const cpuBefore = await redisCpuUsec(admin);
    let worker: Worker | undefined;
    const { instructions: counted, ms: drainMs } = await instructionsDuring(
      server,
      dir,
      async () => {
        const completed = latch(o.jobs);
        const failed = (error: Error) => process.stderr.write(`worker error: ${error.message}\n`);
        if (bull) {
          bull.on('completed', () => completed.hit());
          bull.on('error', failed);
          void bull.run();
        } else {
          worker = new Worker(queue, async () => {}, {
            concurrency: o.concurrency,
            reaper: false,
          });
          worker.on('completed', () => completed.hit());
          worker.on('error', failed);
        }
        await completed.done;
      },
      !o.plain,
    );
    const cpuAfter = await redisCpuUsec(admin);
    const calls = await commandStats(admin);
    await worker?.close();
    await bull?.close();
    // The harness' own reads are not the job's (isBookkeeping); scripts are counted apart.
    let commands = 0;
    const scripts = scriptCalls(calls).calls;
    const byCommand: Record<string, number> = {};
    for (const [name, { calls: n }] of calls) {
      if (isBookkeeping(name) || SCRIPT_COMMANDS.includes(name)) continue;
      commands += n;
      byCommand[name] = Number((n / o.jobs).toFixed(3));
    }
    const instructions =
      counted === null || idlePerMs === null
        ? null
        : Math.round((counted - idlePerMs * drainMs) / o.jobs);
    return {
      retention,
      jobs: o.jobs,
      instructionsPerJob: instructions,
      idleInstructionsPerSecond: idlePerMs === null ? null : Math.round(idlePerMs * 1000),
      commandsPerJob: commands / o.jobs,
      scriptCallsPerJob: scripts / o.jobs,
      redisCpuUsecPerJob: (cpuAfter - cpuBefore) / o.jobs,
      drainMs,
      byCommand,
    };
  } finally {
    conn.disconnect();
    admin.disconnect();
    await server.stop();
  }
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'redis-cost-'));
  const results: Result[] = [];
  try {
    for (let r = 0; r < o.runs; r++) {
      for (const retention of o.retentions) {
        const result = await drainOnce(o, retention, dir);
        results.push(result);
        if (!o.json) {
          const ins = result.instructionsPerJob;
          process.stdout.write(
            `${o.system === 'bullmq' ? 'bullmq ' : ''}retention ${retention.padEnd(7)} jobs ${o.jobs} groups ${o.groups} limit ${o.limit} c ${o.concurrency}` +
              `${o.delayed > 0 ? ` delayed ${o.delayed}` : ''}: ` +
              `${ins === null ? '' : `instructions/job ${ins.toLocaleString('en-US')}  `}` +
              `commands/job ${result.commandsPerJob.toFixed(2)}  scripts/job ${result.scriptCallsPerJob.toFixed(3)}  ` +
              `${o.plain ? `Redis CPU µs/job ${result.redisCpuUsecPerJob.toFixed(1)}  ` : ''}` +
              `drain ${(result.drainMs / 1000).toFixed(1)} s\n` +
              `  by command /job: ${Object.entries(result.byCommand)
                .sort((a, b) => b[1] - a[1])
                .map(([name, n]) => `${name} ${n}`)
                .join(', ')}\n`,
          );
        }
      }
    }
    if (o.json) process.stdout.write(`${JSON.stringify({ options: o, results }, null, 2)}\n`);
  } finally {
    if (o.keep) process.stderr.write(`callgrind dumps kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

await main();
