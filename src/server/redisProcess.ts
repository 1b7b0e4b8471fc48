/**
 * A `redis-server` child process, owned by this Node process.
 *
 * Two users share this module: the server, which runs an embedded Redis when `REDIS_URL` is unset
 * (DESIGN.md §6), and the test harness (`test/support/redis.ts`), which gives every test file a
 * fresh Redis it may stop, SIGKILL, freeze and restart for real (STYLE.md items 12 and 14).
 *
 * What it guarantees:
 * - Redis listens on loopback only (`--bind 127.0.0.1`), on a free port unless one is given.
 * - `startRedisServer` resolves only once *this* child answers on that port (its `INFO server`
 *   `process_id` is checked, so another process that grabbed the port can never pass for it), and
 *   rejects with the exit status and the last lines Redis printed when it fails.
 * - The child never outlives this process: a process `'exit'` hook SIGKILLs every live child,
 *   and on Linux the child is started through util-linux `setpriv --pdeathsig KILL`, so the kernel
 *   kills it even when this process dies by SIGKILL or a crash, where no hook runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';

/**
 * The logging surface this module needs; a pino `Logger` (or a child of one) satisfies it.
 * Every call passes a context object first, pino style: `logger.info({ pid, port }, 'message')`.
 */
export interface RedisProcessLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link startRedisServer}. Every field is optional. */
export interface StartRedisServerOptions {
  /**
   * TCP port on 127.0.0.1. Default: a free port picked with get-port (never 6379, which belongs
   * to whatever Redis the machine already runs). With a picked port, a lost race for it (another
   * process binds it first) is retried on a new port; a given port is used as is.
   */
  port?: number;
  /**
   * Directory for Redis' files (`--dir`), created if missing. Giving one turns the append-only
   * file on unless `appendOnly` is false, so data survives a stop, a SIGKILL and a restart.
   */
  dataDir?: string;
  /**
   * `--appendonly yes|no`. Default: true when `dataDir` is given, else false. True without a
   * `dataDir` keeps the file in a private temporary directory that `stop()` deletes.
   */
  appendOnly?: boolean;
  /** `--notify-keyspace-events` flags, e.g. `'KEA'`. Default: Redis' own (none). */
  notifyKeyspaceEvents?: string;
  /**
   * More command-line arguments, appended last so they override the ones above, e.g.
   * `['--appendfsync', 'always']` or `['--rename-command', 'CONFIG', '']`.
   */
  extraArgs?: readonly string[];
  /** Where to log start, stop and exits (info/warn) and each line Redis prints (debug). */
  logger?: RedisProcessLogger;
  /** How long to wait for the server to answer, in milliseconds. Default 10 000. */
  readyTimeoutMs?: number;
  /** Path of the `redis-server` binary. Default: found on `searchPath`. */
  binary?: string;
  /** The PATH-style list searched for `redis-server`. Default `process.env.PATH`. */
  searchPath?: string;
}

/** A running (or stopped) `redis-server` child. */
export interface RedisProcess {
  /** `redis://127.0.0.1:<port>`. Unchanged by `restart()`. */
  readonly url: string;
  /** The loopback TCP port. Unchanged by `restart()`. */
  readonly port: number;
  /** The pid of the current child (a new one after each `restart()`). */
  readonly pid: number;
  /** The data directory in use, or null when Redis keeps nothing on disk. */
  readonly dataDir: string | null;
  /** True once the current child has exited (stopped, killed or crashed). */
  readonly exited: boolean;
  /**
   * Shut the server down for good: SIGTERM (plus SIGCONT, so a frozen server can act on it),
   * SIGKILL if it has not exited after 5 s; then delete the private temporary directory, if any.
   * Idempotent. Throws only if the child survives SIGKILL for another 5 s.
   */
  stop(): Promise<void>;
  /**
   * Send `signal` to the server. For signals that end it (SIGKILL, SIGTERM, SIGINT, SIGQUIT,
   * SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE) resolves once it has exited — throwing if it has
   * not within 10 s — and is a no-op if it already has. Any other signal (SIGSTOP, SIGCONT, ...)
   * is sent without waiting, and throws if the server is not running.
   */
  kill(signal: NodeJS.Signals): Promise<void>;
  /**
   * Start the server again on the same port with the same arguments and data directory, and wait
   * until it answers. A server still running is first shut down as by `stop()` (but its data
   * directory is kept). Works after `stop()` too, though a private temporary directory then
   * starts empty. Throws like {@link startRedisServer}, e.g. when the port has been taken.
   */
  restart(): Promise<void>;
  /** The last lines (at most 50) the current child printed, oldest first; for diagnostics. */
  recentOutput(): readonly string[];
}

/** Thrown by {@link startRedisServer} when no `redis-server` binary can be found. */
export class RedisServerNotFoundError extends Error {
  readonly code = 'REDIS_SERVER_NOT_FOUND';
  constructor(searched: string) {
    super(
      'redis-server was not found on PATH' +
        (searched === '' ? ' (PATH is empty)' : ` (searched: ${searched})`) +
        '. Install it — `apt-get install redis-server` on Debian/Ubuntu, `brew install redis` ' +
        'on macOS — or set REDIS_URL to use a Redis that is already running.',
    );
    this.name = 'RedisServerNotFoundError';
  }
}

/** Thrown when `redis-server` exits before it is ready, or is not ready in time. */
export class RedisStartError extends Error {
  readonly code = 'REDIS_START_FAILED';
  /** The last lines the failed child printed, oldest first. */
  readonly output: readonly string[];
  /** True when Redis said its port was already in use. */
  readonly addressInUse: boolean;
  constructor(message: string, output: readonly string[]) {
    super(
      output.length === 0
        ? `${message}\nIt printed nothing.`
        : `${message}\nLast output:\n${output.map((line) => `  | ${line}`).join('\n')}`,
    );
    this.name = 'RedisStartError';
    this.output = output;
    this.addressInUse = output.some((line) => /address already in use/i.test(line));
  }
}

const DEFAULT_READY_TIMEOUT_MS = 10_000;
/** How long `stop()` waits after SIGTERM before it sends SIGKILL. */
const STOP_GRACE_MS = 5_000;
/** How long to wait for a child to exit once SIGKILLed (it cannot refuse; this is a safety net). */
const KILL_WAIT_MS = 5_000;
/** How long `kill()` waits for a terminating signal to end the child. */
const SIGNAL_EXIT_WAIT_MS = 10_000;
/** Bounded retries when a picked port is taken between get-port's check and Redis' bind. */
const PORT_ATTEMPTS = 5;
const OUTPUT_LINES = 50;
/** Port of the shared Redis that may already run on this machine: never ours to use. */
const RESERVED_PORT = 6379;
const HOST = '127.0.0.1';

/**
 * Signals whose default action ends a process and which Redis does not ignore: after these,
 * `kill()` waits for the exit. Exported so other process controllers (the test harness's
 * container mode) wait on the same set.
 */
export const TERMINATING_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set<NodeJS.Signals>([
  'SIGKILL',
  'SIGTERM',
  'SIGINT',
  'SIGQUIT',
  'SIGABRT',
  'SIGSEGV',
  'SIGBUS',
  'SIGILL',
  'SIGFPE',
]);

/**
 * Find an executable named `name` in a PATH-style list of directories.
 * Empty entries (which POSIX reads as the current directory) are skipped on purpose: a binary
 * must never be picked up from wherever the process happens to run.
 */
function findExecutable(name: string, searchPath: string): string | null {
  const fileNames = process.platform === 'win32' ? [`${name}.exe`, name] : [name];
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    for (const fileName of fileNames) {
      const candidate = path.resolve(dir, fileName);
      try {
        if (!statSync(candidate).isFile()) continue;
        accessSync(candidate, fsConstants.X_OK);
        return candidate;
      } catch {
        // Missing or not executable: try the next directory, as a shell would.
      }
    }
  }
  return null;
}

/**
 * The absolute path of the `redis-server` binary on `searchPath`, or null if there is none.
 *
 * @param searchPath a PATH-style list (`path.delimiter`-separated); default `process.env.PATH`.
 *   Tests pass `''` to see the missing-binary path without touching the real environment.
 */
export function findRedisServer(searchPath: string = process.env.PATH ?? ''): string | null {
  return findExecutable('redis-server', searchPath);
}

/** `setpriv` (util-linux, always present on Debian) or null; looked up once. */
let setprivPath: string | null | undefined;
function findSetpriv(): string | null {
  if (setprivPath === undefined) {
    setprivPath =
      process.platform === 'linux'
        ? findExecutable('setpriv', `${process.env.PATH ?? ''}${path.delimiter}/usr/bin:/bin`)
        : null;
  }
  return setprivPath;
}

// ---------------------------------------------------------------------------------------------
// Children that must die with us. The 'exit' hook is installed only while there is something for
// it to do, so a process that has stopped all its servers carries no listener at all.

const liveChildren = new Set<ChildProcess>();
/** Private temporary data directories, deleted at exit if `stop()` never ran. */
const ownedDirs = new Set<string>();

function onProcessExit(): void {
  // 'exit' handlers must be synchronous: signal and delete, but never wait.
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone: nothing to do.
    }
  }
  for (const dir of ownedDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: a leftover directory in the OS temp dir is harmless.
    }
  }
}

let exitHookInstalled = false;
function syncExitHook(): void {
  const needed = liveChildren.size > 0 || ownedDirs.size > 0;
  if (needed && !exitHookInstalled) process.on('exit', onProcessExit);
  if (!needed && exitHookInstalled) process.off('exit', onProcessExit);
  exitHookInstalled = needed;
}

// ---------------------------------------------------------------------------------------------

/** How a child ended. `error` is set when it could not be spawned at all. */
interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/** The last `limit` lines of a child's stdout+stderr, each also logged at debug level. */
class OutputTail {
  readonly #lines: string[] = [];
  readonly #partial = new Map<string, string>();
  constructor(
    private readonly limit: number,
    private readonly onLine: (line: string) => void,
  ) {}

  push(stream: string, chunk: string): void {
    const lines = ((this.#partial.get(stream) ?? '') + chunk).split(/\r?\n/);
    // The last element is an unfinished line (or '' after a newline): keep it for next time.
    this.#partial.set(stream, lines.pop() ?? '');
    for (const line of lines) this.#add(line);
  }

  /** Flush unfinished lines, e.g. once the child has exited. */
  end(): void {
    for (const rest of this.#partial.values()) if (rest !== '') this.#add(rest);
    this.#partial.clear();
  }

  lines(): readonly string[] {
    return [...this.#lines];
  }

  #add(line: string): void {
    if (line.trim() === '') return;
    this.#lines.push(line);
    if (this.#lines.length > this.limit) this.#lines.shift();
    this.onLine(line);
  }
}

/** One spawned child and what we know about it. `restart()` makes a new one. */
interface Launch {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly output: OutputTail;
  /** Resolves once the child has exited and its output has been read (or after a short wait). */
  readonly exit: Promise<ExitInfo>;
  exited: boolean;
  /**
   * True while its exit would be no surprise: while starting (a failure is thrown instead) and
   * once we have signalled it to end. False while it serves, so a crash is logged as a warning.
   */
  expected: boolean;
}

type Ready = { kind: 'ready'; pid: number | null } | { kind: 'not-ready'; detail: string };

/**
 * One readiness probe: connect, send `INFO server`, read one RESP reply.
 * - a bulk reply is the server running: its `process_id` tells whose server it is;
 * - `-LOADING` is a server still reading its append-only file: not ready yet;
 * - any other error reply (NOAUTH when `requirepass` is in `extraArgs`, INFO renamed away) still
 *   proves a server is serving commands, so it counts as ready, without a pid to check;
 * - a refused, reset or silent connection is not ready.
 * A raw socket rather than ioredis: no reconnect logic, no offline queue, nothing left behind.
 */
function probe(port: number, timeoutMs: number): Promise<Ready> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: HOST, port });
    let buffer = Buffer.alloc(0);
    let settled = false;
    const finish = (result: Ready): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ kind: 'not-ready', detail: `no reply within ${timeoutMs} ms` }),
      timeoutMs,
    );
    socket.on('connect', () => socket.write('INFO server\r\n'));
    socket.on('error', (err: NodeJS.ErrnoException) =>
      finish({ kind: 'not-ready', detail: err.code ?? err.message }),
    );
    socket.on('close', () => finish({ kind: 'not-ready', detail: 'connection closed' }));
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const headerEnd = buffer.indexOf('\r\n');
      if (headerEnd < 0) return;
      const header = buffer.subarray(0, headerEnd).toString('utf8');
      if (header.startsWith('-')) {
        finish(
          header.startsWith('-LOADING')
            ? { kind: 'not-ready', detail: header.slice(1) }
            : { kind: 'ready', pid: null },
        );
        return;
      }
      if (!header.startsWith('$')) {
        finish({ kind: 'not-ready', detail: `unexpected reply ${JSON.stringify(header)}` });
        return;
      }
      // Bulk string: `$<byte length>\r\n<bytes>\r\n`. Wait until all its bytes are in.
      const length = Number(header.slice(1));
      if (buffer.length < headerEnd + 2 + length) return;
      const info = buffer.subarray(headerEnd + 2, headerEnd + 2 + length).toString('utf8');
      const match = /^process_id:(\d+)/m.exec(info);
      finish({ kind: 'ready', pid: match?.[1] === undefined ? null : Number(match[1]) });
    });
  });
}

const TIMED_OUT = Symbol('timed out');

/** `promise`, or {@link TIMED_OUT} after `ms`; the timer never keeps the process alive longer. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeExit(info: ExitInfo): string {
  if (info.error) return `could not be started (${info.error.message})`;
  if (info.signal) return `was killed by ${info.signal}`;
  return `exited with code ${info.code}`;
}

/** A command line a person can paste into a shell, for error messages. */
function shellQuote(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`))
    .join(' ');
}

/** Everything needed to (re)launch the same server. */
interface LaunchSpec {
  readonly binary: string;
  readonly port: number;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logger: RedisProcessLogger | undefined;
}

function launch(spec: LaunchSpec): Launch {
  const setpriv = findSetpriv();
  // `setpriv` execs Redis in place, so the pid we get is Redis' own and signals reach it directly.
  // The death signal is tied to the thread that spawned the child: spawned from a worker thread,
  // Redis dies with that thread, which is the right owner anyway.
  const [command, argv] = setpriv
    ? [setpriv, ['--pdeathsig', 'KILL', '--', spec.binary, ...spec.args]]
    : [spec.binary, [...spec.args]];
  const child = spawn(command, argv, { cwd: spec.cwd, stdio: ['ignore', 'pipe', 'pipe'] });

  const logger = spec.logger;
  const output = new OutputTail(OUTPUT_LINES, (line) =>
    logger?.debug({ component: 'redis-server', pid: child.pid, port: spec.port }, line),
  );
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => output.push('stdout', chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => output.push('stderr', chunk));

  let resolveExit!: (info: ExitInfo) => void;
  const exitInfo = new Promise<ExitInfo>((resolve) => {
    resolveExit = resolve;
  });
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // 'exit' can come before the last output is read; 'close' comes after, but may be held back by
  // a forked Redis child (an AOF rewrite) that inherited the pipes. Take 'close', or 'exit' plus
  // a short grace, whichever is first, so error messages carry the final lines without hanging.
  const exit = exitInfo.then(async (info) => {
    await within(closed, 250);
    output.end();
    return info;
  });

  const state: Launch = {
    child,
    pid: child.pid ?? -1,
    output,
    exit,
    exited: false,
    // An exit while starting is reported by waitUntilReady's error, not logged as a crash.
    expected: true,
  };

  if (child.pid === undefined) {
    // Spawning failed (ENOENT, EACCES, ...): Node reports it by an 'error' event and no 'exit'.
    state.exited = true;
    child.once('error', (error) => resolveExit({ code: null, signal: null, error }));
    return state;
  }

  liveChildren.add(child);
  syncExitHook();
  child.on('error', (error) => {
    // After a successful spawn this only reports a failed kill(); the exit is still to come.
    logger?.warn({ component: 'redis-server', pid: child.pid, err: error }, 'signal failed');
  });
  child.once('exit', (code, signal) => {
    state.exited = true;
    liveChildren.delete(child);
    syncExitHook();
    const info: ExitInfo = { code, signal };
    if (!state.expected) {
      logger?.warn(
        { component: 'redis-server', pid: state.pid, port: spec.port, ...info },
        `redis-server ${describeExit(info)} unexpectedly`,
      );
    }
    resolveExit(info);
  });
  return state;
}

/**
 * Wait until `current` answers on `port`, or fail with a {@link RedisStartError}.
 * Polls with a short, growing interval and stops early if the child exits. On failure the child
 * is SIGKILLed and reaped before the error is thrown, so nothing is left running.
 */
async function waitUntilReady(current: Launch, spec: LaunchSpec, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const where = `${HOST}:${spec.port}`;
  const commandLine = `Command: ${shellQuote([spec.binary, ...spec.args])}`;
  let interval = 10;
  let lastProbe = 'not probed yet';
  for (;;) {
    if (current.exited) {
      const info = await current.exit;
      throw new RedisStartError(
        `redis-server (pid ${current.pid}) ${describeExit(info)} before it was ready on ${where}.\n${commandLine}`,
        current.output.lines(),
      );
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      current.expected = true;
      current.child.kill('SIGKILL');
      await within(current.exit, KILL_WAIT_MS);
      throw new RedisStartError(
        `redis-server (pid ${current.pid}) did not become ready on ${where} within ` +
          `${timeoutMs} ms (last probe: ${lastProbe}).\n${commandLine}`,
        current.output.lines(),
      );
    }
    const result = await probe(spec.port, Math.min(1_000, remaining));
    if (result.kind === 'ready') {
      if (result.pid === null || result.pid === current.pid) {
        current.expected = false;
        return;
      }
      // Someone else owns the port; our child will fail to bind and exit, and the loop sees it.
      lastProbe = `port answered by another Redis, pid ${result.pid}`;
    } else {
      lastProbe = result.detail;
    }
    await within(current.exit, Math.min(interval, Math.max(0, deadline - Date.now())));
    interval = Math.min(interval * 2, 100);
  }
}

/** The process behind {@link RedisProcess}. Operations are serialised: one at a time. */
class ManagedRedisProcess implements RedisProcess {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string | null;
  readonly #spec: LaunchSpec;
  readonly #ownedDir: boolean;
  readonly #readyTimeoutMs: number;
  #current: Launch;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    spec: LaunchSpec,
    current: Launch,
    dataDir: string | null,
    ownedDir: boolean,
    readyTimeoutMs: number,
  ) {
    this.#spec = spec;
    this.#current = current;
    this.port = spec.port;
    this.url = `redis://${HOST}:${spec.port}`;
    this.dataDir = dataDir;
    this.#ownedDir = ownedDir;
    this.#readyTimeoutMs = readyTimeoutMs;
  }

  get pid(): number {
    return this.#current.pid;
  }

  get exited(): boolean {
    return this.#current.exited;
  }

  recentOutput(): readonly string[] {
    return this.#current.output.lines();
  }

  stop(): Promise<void> {
    return this.#serial(async () => {
      await this.#terminate(this.#current);
      if (this.#ownedDir && this.dataDir !== null) {
        await rm(this.dataDir, { recursive: true, force: true });
        ownedDirs.delete(this.dataDir);
        syncExitHook();
      }
      this.#spec.logger?.info(
        { component: 'redis-server', port: this.port },
        'redis-server stopped',
      );
    });
  }

  kill(signal: NodeJS.Signals): Promise<void> {
    return this.#serial(async () => {
      const current = this.#current;
      const terminating = TERMINATING_SIGNALS.has(signal);
      if (current.exited) {
        if (terminating) return;
        throw new Error(`cannot send ${signal}: redis-server on port ${this.port} is not running`);
      }
      if (terminating) current.expected = true;
      current.child.kill(signal);
      if (!terminating) return;
      if ((await within(current.exit, SIGNAL_EXIT_WAIT_MS)) === TIMED_OUT) {
        throw new Error(
          `redis-server (pid ${current.pid}) did not exit within ${SIGNAL_EXIT_WAIT_MS} ms of ` +
            `${signal} (is it stopped by SIGSTOP? send SIGCONT or SIGKILL)`,
        );
      }
    });
  }

  restart(): Promise<void> {
    return this.#serial(async () => {
      await this.#terminate(this.#current);
      // After stop() a private directory is gone; recreate it (empty) at the same path.
      if (this.dataDir !== null) {
        await mkdir(this.dataDir, { recursive: true });
        if (this.#ownedDir) {
          ownedDirs.add(this.dataDir);
          syncExitHook();
        }
      }
      this.#current = launch(this.#spec);
      await waitUntilReady(this.#current, this.#spec, this.#readyTimeoutMs);
      this.#spec.logger?.info(
        { component: 'redis-server', pid: this.pid, port: this.port },
        'redis-server restarted',
      );
    });
  }

  /** Graceful shutdown of one child: SIGTERM (+SIGCONT), then SIGKILL after the grace period. */
  async #terminate(current: Launch): Promise<void> {
    if (current.exited) {
      await current.exit;
      return;
    }
    current.expected = true;
    current.child.kill('SIGTERM');
    // A SIGSTOPped process keeps SIGTERM pending until it is continued; continue it, so it can
    // shut down cleanly (and flush its append-only file) instead of waiting for SIGKILL.
    current.child.kill('SIGCONT');
    if ((await within(current.exit, STOP_GRACE_MS)) !== TIMED_OUT) return;
    this.#spec.logger?.warn(
      { component: 'redis-server', pid: current.pid, port: this.port },
      `redis-server ignored SIGTERM for ${STOP_GRACE_MS} ms; sending SIGKILL`,
    );
    current.child.kill('SIGKILL');
    if ((await within(current.exit, KILL_WAIT_MS)) === TIMED_OUT) {
      throw new Error(`redis-server (pid ${current.pid}) survived SIGKILL for ${KILL_WAIT_MS} ms`);
    }
  }

  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation, operation);
    // The queue only orders operations; each caller sees its own operation's error.
    this.#queue = result.catch(() => undefined);
    return result;
  }
}

/**
 * Spawn `redis-server` on a loopback port and wait until it answers.
 *
 * Command line: `--bind 127.0.0.1 --port <port> --save "" --daemonize no`, then
 * `--appendonly yes|no --dir <dir>`, `--notify-keyspace-events <flags>` when given, and
 * `extraArgs` last. RDB snapshots are off (`--save ""`): the only persistence is the append-only
 * file, and only when asked for.
 *
 * @returns a {@link RedisProcess} whose child answers on `url`.
 * @throws {RedisServerNotFoundError} when no binary is given and none is on `searchPath`.
 * @throws {RedisStartError} when Redis exits before it is ready (bad argument, port in use, ...)
 *   or does not answer within `readyTimeoutMs`; the message holds the command line, the exit
 *   status and Redis' last output lines. The failed child is reaped before this is thrown.
 */
export async function startRedisServer(
  options: StartRedisServerOptions = {},
): Promise<RedisProcess> {
  const searchPath = options.searchPath ?? process.env.PATH ?? '';
  const binary = options.binary ?? findRedisServer(searchPath);
  if (binary === null) throw new RedisServerNotFoundError(searchPath);

  const appendOnly = options.appendOnly ?? options.dataDir !== undefined;
  let dataDir: string | null = null;
  let ownedDir = false;
  if (options.dataDir !== undefined) {
    // Absolute, so logs say exactly where the data is, whatever the working directory.
    dataDir = path.resolve(options.dataDir);
    await mkdir(dataDir, { recursive: true });
  } else if (appendOnly) {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-redis-'));
    ownedDir = true;
    ownedDirs.add(dataDir);
    syncExitHook();
  }

  const persistence = [
    '--appendonly',
    appendOnly ? 'yes' : 'no',
    // Without a data directory, point --dir at the OS temp dir, so a stray SAVE or a replication
    // snapshot never drops a dump.rdb into whatever directory the process runs in.
    '--dir',
    dataDir ?? os.tmpdir(),
  ];
  const events =
    options.notifyKeyspaceEvents === undefined
      ? []
      : ['--notify-keyspace-events', options.notifyKeyspaceEvents];
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const logger = options.logger;

  const attempts = options.port === undefined ? PORT_ATTEMPTS : 1;
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await getPort({ host: HOST, exclude: [RESERVED_PORT] }));
    const spec: LaunchSpec = {
      binary,
      port,
      cwd: dataDir ?? os.tmpdir(),
      logger,
      args: [
        '--bind',
        HOST,
        '--port',
        String(port),
        '--save',
        '',
        '--daemonize',
        'no',
        ...persistence,
        ...events,
        ...(options.extraArgs ?? []),
      ],
    };
    const current = launch(spec);
    try {
      await waitUntilReady(current, spec, readyTimeoutMs);
    } catch (err) {
      if (err instanceof RedisStartError && err.addressInUse && attempt < attempts) {
        logger?.warn(
          { component: 'redis-server', port },
          'port taken before Redis bound it; retrying on another',
        );
        continue;
      }
      if (ownedDir && dataDir !== null) {
        await rm(dataDir, { recursive: true, force: true });
        ownedDirs.delete(dataDir);
        syncExitHook();
      }
      throw err;
    }
    logger?.info(
      { component: 'redis-server', pid: current.pid, port, dataDir, appendOnly },
      'redis-server ready',
    );
    return new ManagedRedisProcess(spec, current, dataDir, ownedDir, readyTimeoutMs);
  }
}
