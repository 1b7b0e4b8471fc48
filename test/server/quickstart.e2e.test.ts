/**
 * The README's quick start, for real: a fresh `git clone` of this repository's committed HEAD in
 * a temporary folder, `npm start` as a child process (the `npm install` step is replaced by a
 * symlink to this checkout's node_modules, which is what it would install), REDIS_URL unset so
 * the server runs its embedded redis-server. It must answer `{ queues { name } }`, stop cleanly
 * on SIGTERM (exit 0, its redis-server gone with it), keep its state in DATA_DIR across a
 * restart, and, without redis-server on PATH, refuse to start with a message saying what to do.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import getPort from 'get-port';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer } from '../../src/server/redisProcess/index.js';
import {
  EnqueueDocument,
  GroupByIdDocument,
  QueuesDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { waitFor } from '../support/pubsub.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

let work: string;
let clone: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-quickstart-'));
  clone = path.join(work, 'ringmaster');
  await run('git', ['clone', '--quiet', ROOT, clone]);
  await symlink(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
});

afterAll(async () => {
  // A test that failed half-way may leave a server running: end its whole process group (even
  // when npm itself has exited, something it started may live on in the group).
  for (const child of children) {
    if (child.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
  }
  if (work) await rm(work, { recursive: true, force: true });
});

/** The environment of a user's shell: none of the test runner's variables, no REDIS_URL. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|REDIS_URL$|TEST_REDIS$|NODE_ENV$|NODE_OPTIONS$)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

interface NpmStart {
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

/** `npm start` in the clone, in a process group of its own (so a test can signal it whole). */
function npmStart(env: NodeJS.ProcessEnv, npm = 'npm'): NpmStart {
  const child = spawn(npm, ['start'], {
    cwd: clone,
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
const output = (p: NpmStart) => `stdout:\n${p.stdout.join('')}\nstderr:\n${p.stderr.join('')}`;

/** An operation over HTTP to `port`; its data, which must come without errors. */
async function graphql<T, V>(
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

/** Wait until the server answers `{ queues { name } }`; fail at once if it exits first. */
async function untilServing(p: NpmStart, port: number): Promise<void> {
  await waitFor(
    'the server to answer { queues { name } }',
    async () => {
      if (p.child.exitCode !== null || p.child.signalCode !== null) {
        throw new Error(`npm start exited before serving\n${output(p)}`);
      }
      return graphql(port, QueuesDocument).then(
        () => true,
        () => false,
      );
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

/** The embedded redis-server, as the server logged it: its pid and port. */
function embeddedRedis(p: NpmStart): { pid: number; port: number } {
  const ready = p.logs().find((line) => line.msg === 'redis-server ready');
  expect(ready, output(p)).toBeDefined();
  return { pid: Number(ready?.pid), port: Number(ready?.port) };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether anything accepts a TCP connection on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
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
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `promise`, or a failure naming `what` after `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
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
 * Wait (bounded) for npm to exit, then for everything it started to be gone too (nothing left
 * in its process group, its output closed); npm's exit status.
 */
async function exitOf(p: NpmStart) {
  const status = await within(p.exited, 15_000, `npm start did not exit\n${output(p)}`);
  const pgid = p.child.pid as number;
  await waitFor(`every process npm started to exit\n${output(p)}`, () => !groupAlive(pgid), {
    timeoutMs: 10_000,
  });
  await within(p.closed, 5_000, 'the output did not close');
  return status;
}

describe('the quick start', () => {
  it('is the one the README shows', async () => {
    const readme = await readFile(path.join(clone, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('## Quick start'));
    expect(quickStart).toMatch(/^npm install && npm start\b/m);
    expect(existsSync(path.join(clone, 'src', 'server', 'main.ts'))).toBe(true);
  });

  it.skipIf(findRedisServer() === null)(
    'starts with an embedded Redis, stops cleanly on SIGTERM, and keeps its state across a restart',
    async () => {
      const dataDir = path.join(work, 'data');
      const port = await getPort({ exclude: [4000, 6379] });
      const first = npmStart(userEnv({ PORT: String(port), DATA_DIR: dataDir }));
      await untilServing(first, port);
      expect(await graphql(port, QueuesDocument)).toEqual({ queues: [] });
      const redis = embeddedRedis(first);
      expect(alive(redis.pid)).toBe(true);
      expect(await listening(redis.port)).toBe(true);

      const job = await graphql(port, EnqueueDocument, {
        queue: 'orders',
        group: 'acme',
        payload: { orderId: 42 },
      });
      expect(job.enqueue).toMatchObject({ group: 'acme', state: 'PENDING' });
      await graphql(port, SetLimitDocument, { queue: 'orders', group: 'acme', limit: 5 });

      // SIGTERM to npm alone, as a supervisor sends it to the process it started.
      process.kill(first.child.pid as number, 'SIGTERM');
      expect(await exitOf(first), output(first)).toEqual({ code: 0, signal: null });
      expect(
        first.logs().some((line) => line.msg === 'ringmaster stopped'),
        output(first),
      ).toBe(true);
      expect(alive(redis.pid)).toBe(false);
      expect(await listening(redis.port)).toBe(false);
      expect(await listening(port)).toBe(false);

      // Again, same DATA_DIR: the append-only file brings the state back.
      const second = npmStart(userEnv({ PORT: String(port), DATA_DIR: dataDir }));
      await untilServing(second, port);
      expect(await graphql(port, QueuesDocument)).toEqual({ queues: [{ name: 'orders' }] });
      const { queue } = await graphql(port, GroupByIdDocument, { queue: 'orders', id: 'acme' });
      expect(queue.group).toEqual({
        id: 'acme',
        queue: 'orders',
        limit: 5,
        active: 0,
        pending: 1,
        paused: false,
        onRing: true,
        state: 'READY',
      });
      const redis2 = embeddedRedis(second);

      // Ctrl-C in a terminal: SIGINT to the whole process group (npm, tsx and the server alike).
      process.kill(-(second.child.pid as number), 'SIGINT');
      expect(await exitOf(second), output(second)).toEqual({ code: 0, signal: null });
      expect(alive(redis2.pid)).toBe(false);
      expect(await listening(redis2.port)).toBe(false);
    },
    60_000,
  );

  it('without redis-server on PATH, exits non-zero and says how to install it or set REDIS_URL', async () => {
    // A PATH with only what `npm start` itself needs: node, npm, and the shell npm runs scripts in.
    const bin = path.join(work, 'bin-without-redis');
    await mkdir(bin, { recursive: true });
    const npm = realpathSync(
      (await run('sh', ['-c', 'command -v npm'])).stdout.trim() || 'npm-not-found',
    );
    await symlink(process.execPath, path.join(bin, 'node'));
    await symlink(npm, path.join(bin, 'npm'));
    await symlink(realpathSync('/bin/sh'), path.join(bin, 'sh'));

    const port = await getPort({ exclude: [4000, 6379] });
    const dataDir = path.join(work, 'data-without-redis');
    const started = npmStart(
      { PATH: bin, HOME: process.env.HOME ?? work, PORT: String(port), DATA_DIR: dataDir },
      path.join(bin, 'npm'),
    );
    const { code } = await exitOf(started);
    const stderr = started.stderr.join('');
    expect(code, output(started)).not.toBe(0);
    expect(code).not.toBeNull();
    expect(stderr).toMatch(/redis-server was not found on PATH/);
    expect(stderr).toMatch(/apt-get install redis-server/);
    expect(stderr).toMatch(/brew install redis/);
    expect(stderr).toMatch(/set REDIS_URL/);
    expect(await listening(port)).toBe(false);
  }, 30_000);
});
