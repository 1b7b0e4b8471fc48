/**
 * Section 6 — start-up: how long the server takes from spawn to `/ready` answering 200, and its
 * resident memory once ready and after sitting idle, with the embedded Redis (REDIS_URL unset, a
 * fresh DATA_DIR each run: the `npm start` of the README's quick start). Four ways to start it:
 *
 * - compiled: `node dist/server/bundle.js`, what `npm start` execs (scripts/bundle.mjs);
 * - compiled, unbundled: `node dist/server/main.js`, tsc's modules one file each, what `npm start`
 *   ran before the bundle;
 * - `npm start` with the build up to date: the above plus npm and the build check before it
 *   (`node scripts/build.mjs`, tsc -b finding nothing to do);
 * - tsx, cache warm: `node --import tsx src/server/main.ts` (what `npm start` ran before), after
 *   one unmeasured start has filled tsx's compile cache;
 * - tsx, no cache: the same with TSX_DISABLE_CACHE=1, every module compiled at start as on a
 *   fresh checkout's first start.
 *
 * Runs are interleaved (one of each, then again), so a change of load on the machine lands on
 * every row alike. RSS is VmRSS of the server's own Node process (not its redis-server child),
 * from /proc; the time is polled every 10 ms, so it is late by up to that.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import {
  ensureBuilt,
  SERVER_ENTRY,
  SERVER_MODULES_ENTRY,
  SERVER_ROOT,
  serverEntry,
  startScriptEnv,
} from './build.js';
import { rssOf } from './server.js';
import { now, percentile, progress, sleep } from './util.js';

export interface StartupOptions {
  /** Measured starts of each kind. */
  runs: number;
  /** How long the server sits idle after ready before its RSS is read again (ms). */
  idleMs: number;
}

/** One way of starting the server; each array has one entry per run. */
export interface StartupRow {
  name: string;
  command: string;
  /** spawn → `/ready` 200 (ms) */
  readyMs: number[];
  /** VmRSS when `/ready` first answered 200 (bytes); empty where the pid is npm's */
  rssReadyBytes: number[];
  /** VmRSS after `idleMs` more (bytes); empty where the pid is npm's */
  rssIdleBytes: number[];
}

export interface StartupResult {
  idleMs: number;
  rows: StartupRow[];
  /** `node scripts/build.mjs` with nothing to build (ms), once per run */
  buildCheckMs: number[];
}

const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

interface Way {
  name: string;
  command: string;
  argv: string[];
  env?: Record<string, string>;
  /** The spawned pid is the server itself (not npm), so its RSS can be read. */
  direct: boolean;
}

const WAYS: Way[] = [
  {
    name: 'compiled',
    command: `node ${SERVER_ENTRY}`,
    argv: [process.execPath, SERVER_ENTRY],
    // npm start's environment too (MALLOC_ARENA_MAX), so this row is its server minus npm.
    env: startScriptEnv(),
    direct: true,
  },
  {
    name: 'compiled, unbundled',
    command: `node ${SERVER_MODULES_ENTRY}`,
    argv: [process.execPath, SERVER_MODULES_ENTRY],
    direct: true,
  },
  {
    name: 'npm start, build up to date',
    command: 'npm start',
    argv: ['npm', 'start', '--silent'],
    direct: false,
  },
  {
    name: 'tsx, cache warm',
    command: 'node --import tsx src/server/main.ts',
    argv: [process.execPath, '--import', 'tsx', 'src/server/main.ts'],
    direct: true,
  },
  {
    name: 'tsx, no cache',
    command: 'TSX_DISABLE_CACHE=1 node --import tsx src/server/main.ts',
    argv: [process.execPath, '--import', 'tsx', 'src/server/main.ts'],
    env: { TSX_DISABLE_CACHE: '1' },
    direct: true,
  },
];

export async function startup(o: StartupOptions): Promise<StartupResult> {
  await ensureBuilt();
  // A BENCH_SERVER_ROOT from before the bundle has only tsc's modules.
  const ways = WAYS.filter((way) => way.name !== 'compiled' || serverEntry() === SERVER_ENTRY);
  const rows: StartupRow[] = ways.map((way) => ({
    name: way.name,
    command: way.command,
    readyMs: [],
    rssReadyBytes: [],
    rssIdleBytes: [],
  }));
  progress('start-up: one unmeasured tsx start, to fill its compile cache');
  await once(ways.find((way) => way.name === 'tsx, cache warm') as Way, 0);
  const buildCheckMs: number[] = [];
  for (let run = 0; run < o.runs; run++) {
    const t0 = now();
    await new Promise<void>((resolve, reject) =>
      spawn(process.execPath, ['scripts/build.mjs'], { cwd: SERVER_ROOT, stdio: 'ignore' }).once(
        'exit',
        (code) => (code === 0 ? resolve() : reject(new Error(`build check exited ${code}`))),
      ),
    );
    buildCheckMs.push(now() - t0);
    for (const [i, way] of ways.entries()) {
      const row = rows[i] as StartupRow;
      const m = await once(way, o.idleMs);
      row.readyMs.push(m.readyMs);
      if (m.rssReadyBytes !== undefined) row.rssReadyBytes.push(m.rssReadyBytes);
      if (m.rssIdleBytes !== undefined) row.rssIdleBytes.push(m.rssIdleBytes);
      progress(
        `start-up: ${way.name}: ready in ${m.readyMs.toFixed(0)} ms` +
          (m.rssIdleBytes === undefined
            ? ''
            : `, RSS ${(m.rssIdleBytes / 1_048_576).toFixed(1)} MiB idle`),
      );
    }
  }
  return { idleMs: o.idleMs, rows, buildCheckMs };
}

/** The user's environment for a start: no REDIS_URL (embedded Redis), no NODE_OPTIONS. */
function env(port: number, dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(REDIS_URL|NODE_OPTIONS|DATA_DIR|AUTH_TOKENS|PORT|HOST)$/.test(key)) continue;
    out[key] = value;
  }
  return {
    ...out,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/** Start once, wait for ready, read RSS, sit idle, read RSS, stop. */
async function once(
  way: Way,
  idleMs: number,
): Promise<{ readyMs: number; rssReadyBytes?: number; rssIdleBytes?: number }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-bench-startup-'));
  const port = await getPort({ host: '127.0.0.1', exclude: [4000, 6379] });
  const [command, ...args] = way.argv as [string, ...string[]];
  const t0 = now();
  // Its own process group, so whatever npm starts is stopped with it.
  const child = spawn(command, args, {
    cwd: SERVER_ROOT,
    env: env(port, dataDir, way.env),
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const readyMs = (await untilReady(child, port, () => stderr)) - t0;
    if (!way.direct) return { readyMs };
    const pid = child.pid as number;
    const rssReadyBytes = await rssOf(pid);
    await sleep(idleMs);
    return { readyMs, rssReadyBytes, rssIdleBytes: await rssOf(pid) };
  } finally {
    await stop(child, exited);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The time (now()) `/ready` first answered 200; throws if the child exits or it takes too long. */
async function untilReady(
  child: ChildProcess,
  port: number,
  stderr: () => string,
): Promise<number> {
  const deadline = now() + READY_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited at start:\n${stderr()}`);
    }
    const ok = await fetch(`http://127.0.0.1:${port}/ready`, {
      signal: AbortSignal.timeout(1_000),
    }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return now();
    if (now() > deadline) throw new Error(`not ready within ${READY_TIMEOUT_MS} ms:\n${stderr()}`);
    await sleep(10);
  }
}

/** SIGTERM (npm forwards it), then SIGKILL to the whole group if anything lingers. */
async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  const pgid = child.pid as number;
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const timer = setTimeout(() => {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }, STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Median and range of `values`, for the report. */
export function spread(values: readonly number[]): { median: number; min: number; max: number } {
  return {
    median: percentile(values, 50),
    min: values.length ? Math.min(...values) : Number.NaN,
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}
