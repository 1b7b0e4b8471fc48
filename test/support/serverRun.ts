/**
 * The real server, as an operator starts it, run to its end: the bundle of src/server/main.ts
 * (test/support/bundles.ts) in a child process with an operator's environment, its output
 * collected. For the tests of what a start says and how it ends (startup, a non-Redis REDIS_URL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The environment of an operator's shell: none of the test runner's variables (VITEST*,
 * REDIS_URL, TEST_REDIS, NODE_OPTIONS, DATA_DIR, AUTH_TOKENS), `PORT=0`, `LOG_LEVEL=info`,
 * then `extra`.
 */
export function operatorEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|REDIS_URL$|TEST_REDIS$|NODE_OPTIONS$|DATA_DIR$|AUTH_TOKENS$)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, PORT: '0', LOG_LEVEL: 'info', ...extra };
}

/** How a run ended, what it wrote, and how long it took (ms). */
export interface ServerOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface ServerRun {
  /** The whole environment (see {@link operatorEnv}). */
  readonly env: NodeJS.ProcessEnv;
  /** SIGKILL after this long (ms): a start that hangs ends with `signal` set. */
  readonly boundMs: number;
  /** Where the child is kept while it runs, for the file's afterAll to kill. */
  readonly children: Set<ChildProcess>;
  /** SIGTERM once stdout so far matches (a start that succeeds, stopped as a user would). */
  readonly until?: RegExp;
  /** A command line to run `node <bundle>` under (its arguments follow these). */
  readonly wrap?: readonly string[];
}

/** Run the server bundle until it exits (or is killed: SIGTERM on `until`, SIGKILL at `boundMs`). */
export function runServerBundle(run: ServerRun): Promise<ServerOutcome> {
  const [command, ...args] = [...(run.wrap ?? []), process.execPath, inject('serverBundle')];
  const began = Date.now();
  const child = spawn(command as string, args, {
    cwd: ROOT,
    env: run.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  run.children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (run.until?.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), run.boundMs);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      run.children.delete(child);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - began });
    });
  });
}
