/**
 * The README's five-minute tour and docs/library.md's worker program are programs that work.
 * The tour's TypeScript blocks (between "## A five-minute tour" and the next "## " heading),
 * joined in order, are one program; library.md's first TypeScript block is another. Each is
 * written to a temporary folder with a tsconfig that extends this repository's (strict) and maps
 * the package name `ringmaster` to `src/lanes/index.ts` through `paths`, typechecked by this
 * checkout's `tsc`, then run by `tsx` (which reads the same `paths`) against the test file's
 * real redis-server.
 *
 * What the test changes in the examples: `REDIS_URL` in their environment is the test Redis'
 * URL (they read it), and each one's queue name (`'emails'`, `'orders'`) becomes a fresh one
 * (`uniqueQueueName`), so they never meet another test's keys on a shared Redis. The folder
 * gets a `node_modules` symlink to this checkout's, so `ioredis` resolves as it would in a
 * user's project. The outputs the examples' comments promise are checked in their stdout.
 */
import { execFile } from 'node:child_process';
import {
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const redis = useTestRedis();

/** The tour's TypeScript blocks, joined in order. */
function tourProgram(readme: string): string {
  const start = readme.indexOf('\n## A five-minute tour\n');
  const end = readme.indexOf('\n## ', start + 1);
  if (start < 0 || end < 0) throw new Error('README.md has no "## A five-minute tour" section');
  const section = readme.slice(start, end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]).join('\n');
}

/** docs/library.md's first TypeScript block: its worker program. */
function libraryProgram(page: string): string {
  const block = /^```ts\n([\s\S]*?)^```/m.exec(page)?.[1];
  if (block === undefined) throw new Error('docs/library.md has no TypeScript block');
  return block;
}

/** Each example: its file in the folder, its program, and the queue name it uses. */
const examples = [
  { file: 'tour.ts', source: 'README.md', read: tourProgram, queue: 'emails' },
  { file: 'library.ts', source: 'docs/library.md', read: libraryProgram, queue: 'orders' },
] as const;

const program = (example: (typeof examples)[number]): string =>
  example.read(readFileSync(path.join(root, example.source), 'utf8'));

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-tour-'));
  for (const example of examples) {
    const text = program(example);
    const named = text.replaceAll(`'${example.queue}'`, `'${uniqueQueueName('tour')}'`);
    expect(named, `${example.source} names its queue '${example.queue}'`).not.toBe(text);
    writeFileSync(path.join(dir, example.file), named);
  }
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: path.join(root, 'tsconfig.json'),
      compilerOptions: {
        noEmit: true,
        rootDir: '/',
        paths: { ringmaster: [path.join(root, 'src/lanes/index.ts')] },
      },
      files: examples.map((example) => example.file),
      include: [],
    }),
  );
  symlinkSync(realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Run one example's file with tsx against the test Redis. */
function runExample(file: string): Promise<{ stdout: string; stderr: string }> {
  const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
  return run(process.execPath, [tsx, file], {
    cwd: dir,
    env: { ...process.env, REDIS_URL: redis.url },
    timeout: 60_000,
  });
}

it('the examples typecheck strictly against the engine', async () => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const result = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch(
    (error: { stdout?: string; stderr?: string }) => error,
  );
  expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
}, 120_000);

describe("the README's five-minute tour", () => {
  it('has TypeScript to run, importing the package by its name', () => {
    const text = program(examples[0]);
    expect(text).toMatch(/from 'ringmaster'/);
    expect(text).toMatch(/new Worker\(/);
    for (const read of ['queue.job(', 'queue.counts(', 'queue.jobs(']) {
      expect(text).toContain(read);
    }
  });

  it('runs against a real Redis and prints what its comments say', async () => {
    const { stdout, stderr } = await runExample('tour.ts');
    expect(stderr).toBe('');
    for (let n = 1; n <= 5; n++) expect(stdout).toContain(`sent to user${n}@acme.test (attempt 1)`);
    expect(stdout).toMatch(/: smtp timeout sending to ops@globex\.test; now DELAYED\n/);
    expect(stdout).toContain('sent to ops@globex.test (attempt 2)');
    expect(stdout).toMatch(/state: 'PAUSED'/);
    expect(stdout).toContain('COMPLETED 2 smtp timeout sending to ops@globex.test\n');
    expect(stdout).toContain("6 [ 'globex', 'acme', 'acme' ] true\n");
    expect(stdout).toMatch(/completed: 6\s*}/);
  }, 90_000);
});

describe("docs/library.md's worker program", () => {
  it('makes its queue and worker in the documented shapes, importing the package by its name', () => {
    const text = program(examples[1]);
    expect(text).toMatch(/from 'ringmaster'/);
    expect(text).toContain("new Queue('orders', { connection })");
    expect(text).toMatch(/new Worker\(\s*'orders',/);
  });

  it('runs against a real Redis: its job done, no warning, and it ends', async () => {
    const { stdout, stderr } = await runExample('library.ts');
    expect(stderr).toBe('');
    expect(stdout).toBe('order 42 of acme: done\n');
  }, 90_000);
});
