/**
 * The engine's package as a user gets it (DESIGN.md §4.1, "The package"): packed by
 * scripts/pack/engine.mjs, installed from its tarball into an empty project under the system's
 * temporary folder (so nothing of this repository's node_modules is in reach) from npm's cache
 * alone (scripts/pack/offline.mjs), a strict TypeScript program typechecked against its
 * declarations with this repository's tsc, then run against the test's Redis: a job enqueued, a
 * Worker processes it, both closed.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without declarations
import { packEngine } from '../../scripts/pack/engine.mjs';
// @ts-expect-error: a plain ES module script without declarations
import { installOffline } from '../../scripts/pack/offline.mjs';
import { Queue } from '../../src/lanes/index.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const exec = promisify(execFile);
/** Packing (a compile of src/lanes), an install and a compile, on a machine that may be busy. */
const SETUP_MS = 180_000;
/** tsc over the program and the declarations it reads, then the run. */
const RUN_MS = 120_000;

const redis = useTestRedis();

/** The user's program: today's API, as the README shows it. */
const PROGRAM = `import { Redis } from 'ioredis';
import { type Job, Ringmaster, Worker } from 'ringmaster';

const [url, name] = process.argv.slice(2);
if (url === undefined || name === undefined) throw new Error('usage: main.js <redis url> <queue>');
const redis = new Redis(url);
const queue = new Ringmaster(redis).queue(name);
const enqueued: Job = await queue.enqueue('tenant-1', { n: 42 });
let worker: Worker | undefined;
const processed = await new Promise<Job>((resolve, reject) => {
  worker = new Worker(queue, async (job) => job.payload, { concurrency: 1 });
  worker.once('completed', resolve);
  worker.once('failed', (_job, error) => reject(error));
});
await worker?.close();
await redis.quit();
process.stdout.write(JSON.stringify({ enqueued: enqueued.id, processed: processed.id, payload: processed.payload }));
`;

let dir: string;
let app: string;
let npmWarnings: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ringmaster-package-'));
  app = path.join(dir, 'app');
  await mkdir(app);
  const packed = await packEngine({ root: ROOT, dest: path.join(dir, 'packs') });
  const root = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  npmWarnings = await installOffline({
    dir: app,
    root: ROOT,
    dependencies: { '@types/node': root.devDependencies['@types/node'] },
    tarballs: [packed],
  });
}, SETUP_MS);

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('the packed engine', () => {
  it('brings only ioredis, cluster-key-slot and croner (and @types/node for the program), without EBADENGINE', async () => {
    expect(npmWarnings).not.toContain('EBADENGINE');
    const installed = JSON.parse(
      await readFile(path.join(app, 'node_modules', '.package-lock.json'), 'utf8'),
    ) as { packages: Record<string, unknown> };
    const names = Object.keys(installed.packages).map((key) =>
      key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length),
    );
    expect(new Set(names)).toEqual(
      new Set([
        'ringmaster',
        'ioredis',
        '@ioredis/commands',
        'cluster-key-slot',
        'croner',
        'debug',
        'ms',
        'denque',
        'redis-errors',
        'redis-parser',
        'standard-as-callback',
        '@types/node',
        'undici-types',
      ]),
    );
  });

  it('ships the compiled engine and its scripts, and no sources, tests or benchmarks', async () => {
    const pkg = path.join(app, 'node_modules', 'ringmaster');
    const files = (await readdir(pkg, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(pkg, path.join(entry.parentPath, entry.name)));
    const outside = files.filter(
      (file) =>
        !['package.json', 'README.md', 'LICENSE'].includes(file) &&
        !/^dist\/lanes\/.+\.(js|d\.ts|js\.map)$/.test(file) &&
        !/^dist\/lua\/.+\.lua$/.test(file),
    );
    expect(outside).toEqual([]);
    expect(files).toContain('dist/lanes/index.d.ts');
    expect(files).toContain('dist/lanes/worker.js.map');
    expect(files).toContain('dist/lua/claim-1.lua');
  });

  it('has declarations that import only what it ships, Node built-ins and its dependencies', async () => {
    const pkg = path.join(app, 'node_modules', 'ringmaster');
    const manifest = JSON.parse(await readFile(path.join(pkg, 'package.json'), 'utf8'));
    const declarations = (await readdir(pkg, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
      .map((entry) => path.join(entry.parentPath, entry.name));
    expect(declarations.length).toBeGreaterThan(10);
    const wrong: string[] = [];
    for (const file of declarations) {
      const text = await readFile(file, 'utf8');
      for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
        const ok = fileName.startsWith('.')
          ? existsSync(path.resolve(path.dirname(file), fileName.replace(/\.js$/, '.d.ts')))
          : isBuiltin(fileName) || fileName in manifest.dependencies;
        if (!ok) wrong.push(`${path.relative(pkg, file)} -> ${fileName}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it(
    'typechecks a strict program against its declarations and runs it: a Worker processes a job',
    async () => {
      await writeFile(path.join(app, 'main.ts'), PROGRAM);
      await writeFile(
        path.join(app, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            types: ['node'],
            strict: true,
            noUncheckedIndexedAccess: true,
            exactOptionalPropertyTypes: true,
            // ioredis's and Node's declarations are not this test's to check (8 s of CPU); the
            // engine's are, by the imports test above and by the program's use of them.
            skipLibCheck: true,
            outDir: 'build',
          },
          files: ['main.ts'],
        }),
      );
      await writeFile(
        path.join(app, 'package.json'),
        JSON.stringify({
          ...JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')),
          type: 'module',
        }),
      );
      await exec(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app });
      const name = uniqueQueueName('packed');
      const { stdout } = await exec(
        process.execPath,
        [path.join('build', 'main.js'), redis.url, name],
        { cwd: app, timeout: 30_000 },
      );
      const result = JSON.parse(stdout) as {
        enqueued: string;
        processed: string;
        payload: unknown;
      };
      expect(result.processed).toBe(result.enqueued);
      expect(result.payload).toEqual({ n: 42 });
      // Read back by this repository's engine: the packed one completed it.
      const job = await new Queue(redis.client(), name).job(result.enqueued);
      expect(job?.state).toBe('COMPLETED');
    },
    RUN_MS,
  );
});
