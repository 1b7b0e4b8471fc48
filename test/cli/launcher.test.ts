/**
 * The launcher users run, bin/ringmaster.mjs (package.json `bin`): it runs dist/cli/main.js when
 * the package is built, else src/cli/main.ts through tsx; RINGMASTER_CLI_FROM=source|dist picks
 * one. The other CLI tests run the CLI compiled once (test/support/bundles.ts), so this file
 * is what holds the launcher's choice and its exit codes.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, finished } from './support.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LAUNCHER = path.join(ROOT, 'bin', 'ringmaster.mjs');

/** `node <launcher> <args>`, stdin closed; RINGMASTER_CLI_FROM as given (unset: undefined). */
function launch(launcher: string, args: string[], from?: string): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.RINGMASTER_CLI_FROM;
  if (from !== undefined) env.RINGMASTER_CLI_FROM = from;
  const child = spawn(process.execPath, [launcher, ...args], { env });
  child.stdin.end();
  return finished(child);
}

describe('bin/ringmaster.mjs', () => {
  it('runs the TypeScript source through tsx with RINGMASTER_CLI_FROM=source', async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
    const result = await launch(LAUNCHER, ['--version'], 'source');
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.trim()).toBe(version);
  });

  describe('in a package of its own (a copy of the launcher beside a stand-in dist/ and src/)', () => {
    let pkg: string;
    let launcher: string;

    beforeAll(async () => {
      pkg = await mkdtemp(path.join(tmpdir(), 'ringmaster-launcher-'));
      launcher = path.join(pkg, 'bin', 'ringmaster.mjs');
      await mkdir(path.dirname(launcher));
      await copyFile(LAUNCHER, launcher);
    });
    afterAll(async () => {
      await rm(pkg, { recursive: true, force: true });
    });

    it('says to build when dist is asked for and not there (exit 5)', async () => {
      const result = await launch(launcher, ['status'], 'dist');
      expect(result.code).toBe(5);
      expect(result.stderr).toBe(
        'ringmaster: dist/cli/main.js is not built: run `npm run build`\n',
      );
    });

    it('says to install and build when there is neither a build nor a source (exit 5)', async () => {
      const result = await launch(launcher, ['status']);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain('the CLI is not built');
    });

    it('runs the build when there is one, with the arguments, and exits with its code', async () => {
      const cli = path.join(pkg, 'dist', 'cli', 'main.js');
      await mkdir(path.dirname(cli), { recursive: true });
      await writeFile(path.join(pkg, 'package.json'), '{"type":"module"}\n');
      await writeFile(
        cli,
        'export async function run(argv) { process.stdout.write(JSON.stringify(argv)); return 3; }\n',
      );
      const result = await launch(launcher, ['groups', '--json']);
      expect(result).toMatchObject({ code: 3, stdout: '["groups","--json"]', stderr: '' });
    });
  });
});
