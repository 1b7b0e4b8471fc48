/**
 * A private redis-server for instruction counts (the Redis cost measures, docs/PERFORMANCE.md
 * "Hot spots"): under `valgrind --tool=callgrind --instr-atstart=no` unless `plain`, on a free
 * loopback port (never 6379), no persistence. Instrumentation is switched on and off around the
 * part measured ({@link instrument}), and {@link dumpTotal} reads the instructions counted so far.
 * Used by bench/redisCost.ts (the project's Worker) and bench/redisBound.ts (the floor and a
 * minimal fair claim).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import getPort from 'get-port';
import { Redis } from 'ioredis';
import { sleep } from './util.js';

const run = promisify(execFile);

/** A redis-server child, under callgrind unless plain. */
export interface Server {
  readonly port: number;
  readonly child: ChildProcess;
  readonly outFile: string | null;
  stop(): Promise<void>;
}

export async function startServer(plain: boolean, dir: string): Promise<Server> {
  const port = await getPort({ host: '127.0.0.1', exclude: [6379] });
  const serverArgs = [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
  ];
  const outFile = plain ? null : path.join(dir, `callgrind.${port}.out`);
  const child = plain
    ? spawn('redis-server', serverArgs, { stdio: 'ignore' })
    : spawn(
        'valgrind',
        [
          '--tool=callgrind',
          '--instr-atstart=no',
          `--callgrind-out-file=${outFile}`,
          'redis-server',
          ...serverArgs,
        ],
        { stdio: 'ignore' },
      );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; ; i++) {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      if (i > 300) throw new Error('redis-server did not start');
      await sleep(100);
    }
  }
  return {
    port,
    child,
    outFile,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Turn callgrind's instrumentation on or off for the server's process. */
export async function instrument(server: Server, on: boolean): Promise<void> {
  await run('callgrind_control', ['-i', on ? 'on' : 'off', String(server.child.pid)]);
}

/** Instructions counted so far: dump, then read the newest dump's totals. */
export async function dumpTotal(server: Server, dir: string): Promise<number> {
  await run('callgrind_control', ['-d', String(server.child.pid)]);
  const { stdout } = await run('sh', [
    '-c',
    `ls -t ${dir}/callgrind.${server.port}.out* | head -1`,
  ]);
  const text = readFileSync(stdout.trim(), 'utf8');
  const m = /^totals:\s+(\d+)/m.exec(text) ?? /^summary:\s+(\d+)/m.exec(text);
  if (!m) throw new Error('no totals in the callgrind dump');
  return Number(m[1]);
}

/**
 * The instructions `server` runs with no client work, per ms: instrumented for `idleMs` (its
 * cron, the clients' idle sockets), to be taken out of a measured section scaled to its length.
 */
export async function idleInstructionsPerMs(
  server: Server,
  dir: string,
  idleMs: number,
): Promise<number> {
  await dumpTotal(server, dir); // counters from zero
  await instrument(server, true);
  await sleep(idleMs);
  await instrument(server, false);
  return (await dumpTotal(server, dir)) / idleMs;
}

/**
 * `work`'s wall time (ms) and, when `count` (the server runs under callgrind), the instructions
 * `server` ran meanwhile (instrumentation on for it alone, counters from zero; null otherwise):
 * take out {@link idleInstructionsPerMs} × ms for the work's own.
 */
export async function instructionsDuring(
  server: Server,
  dir: string,
  work: () => Promise<void>,
  count = true,
): Promise<{ instructions: number | null; ms: number }> {
  if (count) {
    await dumpTotal(server, dir);
    await instrument(server, true);
  }
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  if (!count) return { instructions: null, ms };
  await instrument(server, false);
  return { instructions: await dumpTotal(server, dir), ms };
}
