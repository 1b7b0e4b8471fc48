/**
 * The build `npm start` runs before the server (scripts/build.mjs, DESIGN.md §6), on a fresh
 * clone of HEAD as in the quick start:
 * - what a production install ships runs on its own: dist/, console/dist, package.json and
 *   scripts/ beside a node_modules holding only what `npm ci --omit=dev` installs (the packages
 *   package-lock.json does not mark `dev`), no src/: `npm start` uses the build as it is and the
 *   server serves the API (its Lua scripts from dist/lua), the console and GraphiQL;
 * - a later `npm start` rebuilds what changed since the last build — a server source, the
 *   console, a Lua script gone from src/lua — and nothing when nothing did.
 */

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRedisServer, startRedisServer } from '../../src/server/redisProcess/index.js';
import { EnqueueDocument, QueuesDocument } from '../gql/graphql.js';
import {
  type Clone,
  childrenOf,
  cloneHead,
  exitOf,
  FIRST_START_MS,
  graphql,
  npmStart,
  output,
  ROOT,
  run,
  untilReady,
  userEnv,
} from '../support/npmStart.js';

let checkout: Clone;

beforeAll(async () => {
  checkout = await cloneHead('ringmaster-build-');
  // The build a deployment would make (`npm run build`), once for both tests.
  await run('npm', ['run', 'build'], { cwd: checkout.clone, env: userEnv({}) });
}, FIRST_START_MS);

afterAll(async () => {
  await checkout?.remove();
});

const skip = findRedisServer() === null || process.platform !== 'linux';

/** A GET of `pathname` with `accept`; status and body. */
async function get(port: number, pathname: string, accept = '*/*') {
  const res = await fetch(`http://127.0.0.1:${port}${pathname}`, { headers: { accept } });
  return { status: res.status, body: await res.text() };
}

/** `node dist/server/bundle.js` in `cwd` until it exits (a refused start); its code and stderr. */
function runBundle(
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/server/bundle.js'], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** SIGTERM to npm, as a supervisor sends it; it must exit 0. */
async function stop(started: ReturnType<typeof npmStart>): Promise<void> {
  process.kill(started.child.pid as number, 'SIGTERM');
  expect(await exitOf(started), output(started)).toEqual({ code: 0, signal: null });
}

describe('the build npm start runs', () => {
  it.skipIf(skip)(
    'runs on production dependencies alone: no src/, no tsx, TypeScript or Vite',
    async () => {
      const { clone, work } = checkout;
      const prod = path.join(work, 'production');
      for (const part of ['dist', path.join('console', 'dist'), 'scripts']) {
        await cp(path.join(clone, part), path.join(prod, part), { recursive: true });
      }
      for (const file of ['package.json', 'package-lock.json']) {
        await cp(path.join(clone, file), path.join(prod, file));
      }
      // node_modules as `npm ci --omit=dev` makes it: the top-level packages the lock file does
      // not mark `dev` (nested ones come inside their parent), linked from this checkout's.
      const lock = JSON.parse(await readFile(path.join(clone, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>;
      };
      for (const [key, meta] of Object.entries(lock.packages)) {
        if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) || meta.dev === true) continue;
        // An optional package for another platform is not installed here either.
        if (!existsSync(path.join(ROOT, key))) continue;
        await mkdir(path.dirname(path.join(prod, key)), { recursive: true });
        await symlink(path.join(ROOT, key), path.join(prod, key), 'dir');
      }
      for (const devOnly of ['tsx', 'typescript', 'vite', 'vitest', '@biomejs/biome']) {
        expect(existsSync(path.join(prod, 'node_modules', devOnly)), devOnly).toBe(false);
      }
      expect(existsSync(path.join(prod, 'node_modules', 'ioredis'))).toBe(true);

      const port = await getPort({ exclude: [4000, 6379] });
      const started = npmStart(
        prod,
        userEnv({ PORT: String(port), DATA_DIR: path.join(work, 'data-production') }),
      );
      await untilReady(started, port, 60_000);
      expect(started.stderr.join('')).toMatch(/typescript is not installed .*existing dist\//);
      const [server] = await childrenOf(started.child.pid as number);
      expect(server?.argv.slice(1)).toEqual(['dist/server/bundle.js']);

      // Every script call goes through the Lua of dist/lua.
      await graphql(port, EnqueueDocument, { queue: 'orders', group: 'acme', payload: {} });
      expect(await graphql(port, QueuesDocument)).toEqual({ queues: [{ name: 'orders' }] });
      const page = await get(port, '/');
      expect(page.status).toBe(200);
      expect(page.body).toContain('<title>Ringmaster console</title>');
      const graphiql = await get(port, '/graphql', 'text/html');
      expect(graphiql.status).toBe(200);
      expect(graphiql.body).toMatch(/graphiql/i);
      await stop(started);

      // The bundle renames some libraries' classes (redis-errors' ReplyError, whose `name` is
      // its constructor's): the operator's one line for a wrong password and for a port that is
      // not Redis must not depend on those names.
      const guarded = await startRedisServer({ extraArgs: ['--requirepass', 'right'] });
      const http = createServer((_req, res) => res.end('<!doctype html><title>not redis</title>'));
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      try {
        const httpPort = (http.address() as { port: number }).port;
        for (const [url, said] of [
          [`redis://:wrong@127.0.0.1:${guarded.port}`, /wrong user name or password \(WRONGPASS\)/],
          [`redis://127.0.0.1:${guarded.port}`, /this Redis needs a password/],
          [`redis://127.0.0.1:${httpPort}`, /not a Redis server/],
        ] as const) {
          const refused = await runBundle(prod, userEnv({ REDIS_URL: url }));
          expect(refused.code, refused.stderr).toBe(3);
          expect(refused.stderr).toMatch(said);
        }
      } finally {
        http.close();
        await guarded.stop();
      }
    },
    120_000,
  );

  it.skipIf(skip)(
    'rebuilds what changed since the last build, and nothing when nothing did',
    async () => {
      const { clone, work } = checkout;
      const env = userEnv({ DATA_DIR: path.join(work, 'data-rebuild') });
      const marker = 'ringmaster: a line added after the last build';
      const main = path.join(clone, 'src', 'server', 'main.ts');
      await writeFile(
        main,
        `${await readFile(main, 'utf8')}process.stderr.write('${marker}\\n');\n`,
      );
      const html = path.join(clone, 'console', 'index.html');
      await writeFile(
        html,
        (await readFile(html, 'utf8')).replace(/<title>[^<]*<\/title>/, '<title>Edited</title>'),
      );
      // A script that has since left src/lua (renamed, say, when its key count changed).
      const gone = path.join(clone, 'dist', 'lua', 'goneSince-1.lua');
      await writeFile(gone, 'return 1\n');

      try {
        const port = await getPort({ exclude: [4000, 6379] });
        const edited = npmStart(clone, { ...env, PORT: String(port) });
        await untilReady(edited, port, FIRST_START_MS);
        const said = edited.stderr.join('');
        expect(said, output(edited)).toMatch(/dist\/ rebuilt/);
        expect(said).toMatch(/console\/dist built/);
        expect(said).toContain(marker);
        expect((await get(port, '/')).body).toContain('<title>Edited</title>');
        expect(existsSync(gone)).toBe(false);
        await stop(edited);

        const again = npmStart(clone, { ...env, PORT: String(port) });
        await untilReady(again, port, 60_000);
        const second = again.stderr.join('');
        expect(second, output(again)).toMatch(/dist\/ up to date/);
        expect(second).not.toMatch(/console\/dist built/);
        expect(second).toContain(marker);
        await stop(again);
      } finally {
        await run('git', ['checkout', '--', '.'], { cwd: clone });
        await rm(gone, { force: true });
      }
    },
    FIRST_START_MS + 60_000,
  );
});
