/**
 * `npm start` as a user runs it, for the end-to-end tests of the quick start and of the build:
 * a fresh `git clone` of this repository's committed HEAD in a temporary folder (its `npm
 * install` replaced by a symlink to this checkout's node_modules, which is what it would
 * install), a user's environment (no REDIS_URL: the embedded Redis), `npm start` in a process
 * group of its own, and what the tests read of it: its log, its exit, the process it started.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';
import { waitFor } from './pubsub.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const run = promisify(execFile);

/**
 * How long the first `npm start` of a clone may take to serve (ms): it compiles the whole
 * server (tsc, ~15 s alone, up to a minute on a loaded 2-core machine) and builds the console.
 */
export const FIRST_START_MS = 150_000;

/** A temporary folder holding a fresh clone of HEAD with node_modules linked in. */
export interface Clone {
  /** the temporary folder (the clone is `clone` inside it; tests may add folders beside it) */
  readonly work: string;
  readonly clone: string;
  /** End every `npm start` still running, then delete the folder. */
  remove(): Promise<void>;
}

const children = new Set<ChildProcess>();

export async function cloneHead(prefix: string): Promise<Clone> {
  const work = await mkdtemp(path.join(os.tmpdir(), prefix));
  const clone = path.join(work, 'ringmaster');
  await run('git', ['clone', '--quiet', ROOT, clone]);
  await symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  return {
    work,
    clone,
    async remove() {
      // A test that failed half-way may leave a server running: end its whole process group
      // (even when npm itself has exited, something it started may live on in the group).
      for (const child of children) {
        if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
      }
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** The environment of a user's shell: none of the test runner's variables, no REDIS_URL. */
export function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|REDIS_URL$|TEST_REDIS$|NODE_ENV$|NODE_OPTIONS$)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

export interface NpmStart {
  readonly child: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  /** npm's own exit. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its output streams closed: every process that held them has exited. */
  readonly closed: Promise<void>;
  /** The JSON log lines printed so far. */
  logs(): Array<Record<string, unknown>>;
}

/** `npm start` in `cwd`, in a process group of its own (so a test can signal it whole). */
export function npmStart(cwd: string, env: NodeJS.ProcessEnv, npm = 'npm'): NpmStart {
  const child = spawn(npm, ['start'], {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => stdout.push(chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    child,
    stdout,
    stderr,
    exited,
    closed,
    logs: () =>
      stdout
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** What the process printed, for failure messages. */
export const output = (p: NpmStart) =>
  `stdout:\n${p.stdout.join('')}\nstderr:\n${p.stderr.join('')}`;

/** An operation over HTTP to `port`; its data, which must come without errors. */
export async function graphql<T, V>(
  port: number,
  document: TypedDocumentNode<T, V>,
  variables?: V,
): Promise<T> {
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (response.status !== 200 || body.errors !== undefined) {
    throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.data as T;
}

/** Wait until `/ready` answers 200; fail at once if npm exits first. */
export async function untilReady(p: NpmStart, port: number, timeoutMs: number): Promise<void> {
  await waitFor(
    'the server to answer /ready with 200',
    async () => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        throw new Error(`npm start exited before serving\n${output(p)}`);
      }
      return fetch(`http://127.0.0.1:${port}/ready`).then(
        (res) => res.status === 200,
        () => false,
      );
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/** The embedded redis-server, as the server logged it: its pid and port. */
export function embeddedRedis(p: NpmStart): { pid: number; port: number } | undefined {
  const ready = p.logs().find((line) => line.msg === 'redis-server ready');
  return ready && { pid: Number(ready.pid), port: Number(ready.port) };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether anything accepts a TCP connection on 127.0.0.1:`port`. */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether any process of the process group `pgid` is still alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `promise`, or a failure naming `what` after `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Wait (`timeoutMs` for npm: longer where it may build first) for npm to exit, then for everything it started to be gone too (nothing left
 * in its process group, its output closed); npm's exit status.
 */
export async function exitOf(p: NpmStart, timeoutMs = 15_000) {
  const status = await within(p.exited, timeoutMs, `npm start did not exit\n${output(p)}`);
  const pgid = p.child.pid as number;
  await waitFor(`every process npm started to exit\n${output(p)}`, () => !groupAlive(pgid), {
    timeoutMs: 10_000,
  });
  await within(p.closed, 5_000, 'the output did not close');
  return status;
}

/** A process as Linux shows it: its argv and environment. */
export interface ProcessInfo {
  readonly pid: number;
  readonly argv: string[];
  readonly env: Record<string, string>;
}

/**
 * The processes whose parent is `pid` (from /proc, Linux), with their argv and environment:
 * for npm, the script it runs (`sh -c …`, or what the script `exec`ed in place of sh).
 */
export async function childrenOf(pid: number): Promise<ProcessInfo[]> {
  const found: ProcessInfo[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      // After the command name (which may hold spaces and parentheses): state, then ppid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      const nul = (text: string) => text.split('\0').filter((s) => s !== '');
      const argv = nul(await readFile(`/proc/${entry}/cmdline`, 'utf8'));
      const env = Object.fromEntries(
        nul(await readFile(`/proc/${entry}/environ`, 'utf8')).map((kv) => {
          const at = kv.indexOf('=');
          return [kv.slice(0, at), kv.slice(at + 1)];
        }),
      );
      found.push({ pid: Number(entry), argv, env });
    } catch {
      // It exited while being read.
    }
  }
  return found;
}
