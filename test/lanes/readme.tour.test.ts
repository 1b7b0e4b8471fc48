/**
 * The README's five-minute tour is a program that works. Its TypeScript blocks (between
 * "## A five-minute tour" and the next "## " heading), joined in order, are one program: written
 * to a temporary folder with a tsconfig that extends this repository's (strict) and maps the
 * package name `ringmaster` to `src/lanes/index.ts` through `paths`, typechecked by this
 * checkout's `tsc`, then run by `tsx` (which reads the same `paths`) against the test file's
 * real redis-server.
 *
 * What the test changes in the example: `REDIS_URL` in its environment is the test Redis' URL
 * (the example reads it), and the queue name `'emails'` becomes a fresh one
 * (`uniqueQueueName`), so the tour never meets another test's keys on a shared Redis. The
 * folder gets a `node_modules` symlink to this checkout's, so `ioredis` resolves as it would in
 * a user's project. The outputs the tour's comments promise are checked in its stdout.
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

let dir: string;
let queueName: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-tour-'));
  queueName = uniqueQueueName('tour');
  const program = tourProgram(readFileSync(path.join(root, 'README.md'), 'utf8'));
  const named = program.replaceAll("'emails'", `'${queueName}'`);
  expect(named, "the tour names its queue 'emails'").not.toBe(program);
  writeFileSync(path.join(dir, 'tour.ts'), named);
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
      files: ['tour.ts'],
      include: [],
    }),
  );
  symlinkSync(realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's five-minute tour", () => {
  it('has TypeScript to run, importing the package by its name', () => {
    const program = tourProgram(readFileSync(path.join(root, 'README.md'), 'utf8'));
    expect(program).toMatch(/from 'ringmaster'/);
    expect(program).toMatch(/new Worker\(/);
    for (const read of ['queue.job(', 'queue.counts(', 'queue.jobs(']) {
      expect(program).toContain(read);
    }
  });

  it('typechecks strictly against the engine', async () => {
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const result = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).catch(
      (error: { stdout?: string; stderr?: string }) => error,
    );
    expect(`${result.stdout ?? ''}${result.stderr ?? ''}`).toBe('');
  }, 120_000);

  it('runs against a real Redis and prints what its comments say', async () => {
    const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
    const { stdout, stderr } = await run(process.execPath, [tsx, 'tour.ts'], {
      cwd: dir,
      env: { ...process.env, REDIS_URL: redis.url },
      timeout: 60_000,
    });
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
