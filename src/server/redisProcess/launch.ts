/** Spawning one `redis-server` child and tracking it until it exits. */
import { type ChildProcess, spawn } from 'node:child_process';
import { findSetpriv } from './binary.js';
import { liveChildren, syncExitHook } from './children.js';
import { OutputTail } from './output.js';
import { within } from './probe.js';
import type { RedisProcessLogger } from './types.js';

const OUTPUT_LINES = 50;

/** How a child ended. `error` is set when it could not be spawned at all. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

/** One spawned child and what we know about it. `restart()` makes a new one. */
export interface Launch {
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

export function describeExit(info: ExitInfo): string {
  if (info.error) return `could not be started (${info.error.message})`;
  if (info.signal) return `was killed by ${info.signal}`;
  return `exited with code ${info.code}`;
}

/** Everything needed to (re)launch the same server. */
export interface LaunchSpec {
  readonly binary: string;
  readonly port: number;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logger: RedisProcessLogger | undefined;
}

export function launch(spec: LaunchSpec): Launch {
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
