/**
 * The README's quick start, for real: a fresh `git clone` of this repository's committed HEAD in
 * a temporary folder, `npm start` as a child process (the `npm install` step is replaced by a
 * symlink to this checkout's node_modules, which is what it would install), REDIS_URL unset so
 * the server runs its embedded redis-server. It must answer `{ queues { name } }`, stop cleanly
 * on SIGTERM (exit 0, its redis-server gone with it), keep its state in DATA_DIR across a
 * restart, and, without redis-server on PATH, refuse to start with a message saying what to do.
 * What it runs is the compiled server's bundle, `node dist/server/bundle.js` in place of npm's shell,
 * with no TypeScript loader (DESIGN.md §6); test/server/build.e2e.test.ts covers the build itself.
 */
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer } from '../../src/server/redisProcess/index.js';
import {
  EnqueueDocument,
  GroupByIdDocument,
  QueuesDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import {
  alive,
  type Clone,
  childrenOf,
  cloneHead,
  embeddedRedis,
  exitOf,
  FIRST_START_MS,
  graphql,
  listening,
  type NpmStart,
  npmStart,
  output,
  run,
  untilReady,
  userEnv,
} from '../support/npmStart.js';

let checkout: Clone;
let work: string;
let clone: string;

beforeAll(async () => {
  checkout = await cloneHead('ringmaster-quickstart-');
  ({ work, clone } = checkout);
});

afterAll(async () => {
  await checkout?.remove();
});

/** The embedded redis-server the server logged; the test fails if it logged none. */
function redisOf(p: NpmStart): { pid: number; port: number } {
  const redis = embeddedRedis(p);
  expect(redis, output(p)).toBeDefined();
  return redis as { pid: number; port: number };
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
      const first = npmStart(clone, userEnv({ PORT: String(port), DATA_DIR: dataDir }));
      await untilReady(first, port, FIRST_START_MS);
      expect(await graphql(port, QueuesDocument)).toEqual({ queues: [] });
      const redis = redisOf(first);
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
      const second = npmStart(clone, userEnv({ PORT: String(port), DATA_DIR: dataDir }));
      await untilReady(second, port, FIRST_START_MS);
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
      const redis2 = redisOf(second);

      // Ctrl-C in a terminal: SIGINT to the whole process group (npm and the server alike).
      process.kill(-(second.child.pid as number), 'SIGINT');
      expect(await exitOf(second), output(second)).toEqual({ code: 0, signal: null });
      expect(alive(redis2.pid)).toBe(false);
      expect(await listening(redis2.port)).toBe(false);
    },
    FIRST_START_MS + 60_000,
  );

  it.skipIf(findRedisServer() === null || process.platform !== 'linux')(
    'runs the compiled server: npm execs `node dist/server/bundle.js`, with no TypeScript loader and MALLOC_ARENA_MAX=2',
    async () => {
      const port = await getPort({ exclude: [4000, 6379] });
      const env = userEnv({ PORT: String(port), DATA_DIR: path.join(work, 'data-compiled') });
      // The script's default applies only where the user has not set one.
      delete env.MALLOC_ARENA_MAX;
      const started = npmStart(clone, env);
      await untilReady(started, port, FIRST_START_MS);
      // `exec` in the script: npm's one child is the server itself (no shell in between to
      // swallow a signal), and its command line is the build's entry with no flag before it —
      // `--import tsx`, `--loader`, `--experimental-strip-types` and the like would show there.
      const spawned = await childrenOf(started.child.pid as number);
      expect(
        spawned.map((child) => child.argv),
        output(started),
      ).toEqual([[expect.stringMatching(/(^|\/)node$/), 'dist/server/bundle.js']]);
      const server = spawned[0] as (typeof spawned)[number];
      // Nor through the environment.
      expect(server.env.NODE_OPTIONS ?? '').not.toMatch(
        /--[a-z-]*(import|loader|require|types)|-r\b/,
      );
      // The script's one setting: glibc's malloc arenas capped at two, which keeps ~0.5–1.5 KB of
      // RSS per WebSocket subscriber out of the GC threads' arenas (PERFORMANCE.md §5).
      expect(server.env.MALLOC_ARENA_MAX, output(started)).toBe('2');
      expect(existsSync(path.join(clone, 'dist', 'server', 'bundle.js'))).toBe(true);
      expect(await graphql(port, QueuesDocument)).toEqual({ queues: [] });

      process.kill(started.child.pid as number, 'SIGTERM');
      expect(await exitOf(started), output(started)).toEqual({ code: 0, signal: null });
    },
    FIRST_START_MS + 30_000,
  );

  it(
    'without redis-server on PATH, exits non-zero and says how to install it or set REDIS_URL',
    async () => {
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
        clone,
        { PATH: bin, HOME: process.env.HOME ?? work, PORT: String(port), DATA_DIR: dataDir },
        path.join(bin, 'npm'),
      );
      // It builds first (the whole server when it is the first start of the clone).
      const { code } = await exitOf(started, FIRST_START_MS);
      const stderr = started.stderr.join('');
      expect(code, output(started)).not.toBe(0);
      expect(code).not.toBeNull();
      expect(stderr).toMatch(/redis-server was not found on PATH/);
      expect(stderr).toMatch(/apt-get install redis-server/);
      expect(stderr).toMatch(/brew install redis/);
      expect(stderr).toMatch(/set REDIS_URL/);
      expect(await listening(port)).toBe(false);
    },
    FIRST_START_MS,
  );
});
