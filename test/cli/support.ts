/**
 * Run the CLI as a user does, in a child process: `node <the CLI> …`, the CLI being
 * src/cli/main.ts compiled once for the run (test/support/bundles.ts; the launcher,
 * bin/ringmaster.mjs, has its own test), with colour off and no RINGMASTER_* variables but
 * those a test gives.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = inject('cliBundle');

/** How a run ended. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI child: ours without RINGMASTER_*, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('RINGMASTER_')),
  );
  return { ...base, NO_COLOR: '1', ...env };
}

/** Start `ringmaster <args>`; the caller drives stdin and signals. */
export function spawnCli(
  args: string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: childEnv(env) });
}

/** util-linux `script`, which runs a command on a pseudo-terminal; null where there is none. */
export const SCRIPT = ['/usr/bin/script', '/bin/script'].find((file) => existsSync(file)) ?? null;

/**
 * Start `ringmaster <args>` on a pseudo-terminal (`script`), as in a user's terminal: stdin is
 * a TTY (raw mode), and stdout one whose size nobody set (0 rows, 0 columns).
 */
export function spawnCliInTerminal(
  args: string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  if (SCRIPT === null) throw new Error('no `script` (util-linux) to make a terminal with');
  const command = [process.execPath, CLI, ...args].map((word) => `'${word}'`).join(' ');
  return spawn(SCRIPT, ['-qefc', command, '/dev/null'], { cwd: ROOT, env: childEnv(env) });
}

/** Collect a child's output until it exits. */
export function finished(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Run `ringmaster <args>` to its end, stdin closed. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const child = spawnCli(args, env);
  child.stdin.end();
  return finished(child);
}

/** {@link runCli}, asserting it succeeded: exit 0 and nothing on stderr. */
export async function runCliOk(
  args: string[],
  env: Record<string, string> = {},
): Promise<CliResult> {
  const result = await runCli(args, env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result;
}

/** Resolve once the child's stdout so far satisfies `test` (its text); reject if it exits first. */
export function stdoutUntil(
  child: ChildProcessWithoutNullStreams,
  test: (text: string) => boolean,
): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (test(text)) {
        child.stdout.off('data', onData);
        child.off('exit', onExit);
        resolve(text);
      }
    };
    const onExit = (code: number | null) =>
      reject(
        new Error(`ringmaster exited (${code}) before the expected output; it wrote:\n${text}`),
      );
    child.stdout.on('data', onData);
    child.once('exit', onExit);
  });
}
