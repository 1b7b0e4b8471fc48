/**
 * The Ringmaster server as its own process, as `npm start` runs it (`node dist/server/bundle.js`,
 * built first if stale; `dist/server/main.js` for a BENCH_SERVER_ROOT that has no bundle), so
 * that the load generator and the subscribers never share its event loop. Pointed at the benchmark's Redis with REDIS_URL, on a free port,
 * LOG_LEVEL silent. The pid is the server's own Node process (no npm wrapper in between), so its
 * RSS can be read.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { ensureBuilt, SERVER_ROOT, serverEntry, startScriptEnv } from './build.js';
import { now, sleep } from './util.js';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export interface ServerProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number;
  /** Resident set size of the server process now (bytes). */
  rss(): Promise<number>;
  /**
   * Two forced full GCs in the server (`gcOnSignal.mjs`), then its memory: RSS from /proc and
   * V8's heap figures (bytes).
   */
  memory(): Promise<Memory>;
  /**
   * The server's memory once idle: waits `minIdleMs`, then {@link memory}; while V8 still holds
   * the new space a burst of allocation grew (over {@link SETTLED_NEW_SPACE}: it shrinks it
   * only once its allocation-rate accounting has seen the process idle for some seconds,
   * PERFORMANCE.md §5), waits {@link SETTLE_STEP_MS} more and reads again, up to `maxIdleMs`.
   * `idleMs` says how long it waited in all; `settled` whether the new space had shrunk.
   */
  idleMemory(o: { minIdleMs: number; maxIdleMs: number }): Promise<IdleMemory>;
  /** CPU time (user + sys) the server process has used so far (µs); NaN where unknown. */
  cpu(): Promise<number>;
  /** SIGTERM (the server's clean shutdown), SIGKILL if it lingers. */
  stop(): Promise<void>;
}

/** The server's memory after two forced full GCs (bytes). */
export interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  /** V8's new space reserved (both semi-spaces) */
  newSpace: number;
}

export interface IdleMemory extends Memory {
  /** how long the server sat idle before this reading (ms) */
  idleMs: number;
  /** the new space was back to its idle size ({@link SETTLED_NEW_SPACE} or less) */
  settled: boolean;
}

/**
 * A new space this size or smaller has been shrunk after a burst: V8 grows it up to 2 × 16 MiB
 * (Node 20's default semi-space maximum) and shrinks it to 1–4 MiB once idle.
 */
export const SETTLED_NEW_SPACE = 8 * 2 ** 20;
/** Between two readings of {@link ServerProcess.idleMemory} while the new space is still grown. */
export const SETTLE_STEP_MS = 3_000;

export async function startServer(redisUrl: string): Promise<ServerProcess> {
  await ensureBuilt();
  const port = await getPort({ host: '127.0.0.1', exclude: [4000, 6379] });
  // No auth: the caller's AUTH_TOKENS is left out, not blanked (a blank one is refused, §6).
  const { AUTH_TOKENS: _callers, ...inherited } = process.env;
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs(), serverEntry()], {
    cwd: SERVER_ROOT,
    env: {
      ...inherited,
      // What the start script sets before it execs node (MALLOC_ARENA_MAX): the same process.
      ...startScriptEnv(inherited),
      REDIS_URL: redisUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      // Every subscriber of section 4 comes from one address: 5,000 sockets, over the default
      // 1,000 per client.
      MAX_CONNECTIONS_PER_CLIENT: '100000',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const memoryWaiters: ((line: string) => void)[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
    const line = /BENCH-MEMORY (\{[^\n]*\})\n/.exec(stderr);
    if (line) {
      stderr = stderr.replace(line[0], '');
      memoryWaiters.shift()?.(line[1] as string);
    }
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) throw new Error(`the server exited at start:\n${stderr}`);
    try {
      const res = await fetch(`${url}/ready`);
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not become ready in ${START_TIMEOUT_MS} ms:\n${stderr}`);
    }
    await sleep(50);
  }
  const pid = child.pid as number;
  async function memory(): Promise<Memory> {
    if (exited) throw new Error(`the server has exited; its last output:\n${stderr}`);
    const line = new Promise<string>((resolve) => memoryWaiters.push(resolve));
    child.kill('SIGUSR2');
    // A server that dies (killed from outside, a crash) never answers: fail the section then,
    // rather than wait for ever.
    const died = exit.then(() => {
      throw new Error(
        `the server exited before it reported its memory; its last output:\n${stderr}`,
      );
    });
    // Handled here too: once the memory line came, a later exit (stop()) must not reject unheard.
    died.catch(() => {});
    const usage = JSON.parse(await Promise.race([line, died])) as Omit<Memory, 'rss'>;
    // RSS read after the GC; V8 gives freed pages back to the system in its own time.
    await sleep(500);
    return {
      rss: await rssOf(pid),
      heapUsed: usage.heapUsed,
      external: usage.external,
      newSpace: usage.newSpace ?? Number.NaN,
    };
  }
  return {
    url,
    pid,
    rss: () => rssOf(pid),
    memory,
    async idleMemory({ minIdleMs, maxIdleMs }) {
      const t0 = now();
      await sleep(minIdleMs);
      for (;;) {
        const m = await memory();
        const settled = m.newSpace <= SETTLED_NEW_SPACE;
        const idleMs = now() - t0;
        if (settled || idleMs + SETTLE_STEP_MS > maxIdleMs) return { ...m, idleMs, settled };
        await sleep(SETTLE_STEP_MS);
      }
    },
    cpu: () => cpuOf(pid),
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exit;
      clearTimeout(timer);
    },
  };
}

/** Preloaded so `memory()` can force a GC; `--expose-gc` changes nothing else in the server. */
const GC_ON_SIGNAL = fileURLToPath(new URL('./gcOnSignal.mjs', import.meta.url));

function nodeArgs(): string[] {
  const extra = process.env.BENCH_SERVER_NODE_ARGS?.trim();
  return ['--expose-gc', '--import', GC_ON_SIGNAL, ...(extra ? extra.split(/\s+/) : [])];
}

/** User + system CPU of `pid` so far (µs), from /proc (Linux only: NaN elsewhere). */
export async function cpuOf(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks / CLOCK_TICKS) * 1e6;
  } catch {
    return Number.NaN;
  }
}

/** USER_HZ: the unit of /proc/<pid>/stat times, 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS = 100;

/** RSS of `pid` in bytes, from /proc (Linux) or `ps` (elsewhere). */
export async function rssOf(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // Not Linux: ask ps.
  }
  const { execFileSync } = await import('node:child_process');
  return (
    Number(
      execFileSync('ps', ['-o', 'rss=', '-p', String(pid)])
        .toString()
        .trim(),
    ) * 1024
  );
}

/** POST a GraphQL operation; throws on HTTP or GraphQL errors. */
export async function graphql<T = unknown>(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!res.ok || body.errors !== undefined || body.data === undefined) {
    throw new Error(`GraphQL request failed (${res.status}): ${JSON.stringify(body)}`);
  }
  return body.data;
}
