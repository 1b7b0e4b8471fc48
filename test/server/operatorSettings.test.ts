/**
 * Settings a new operator meets at start, through the server as `npm start` runs it (the
 * bundle, a child process): look-alike variables are named with the one meant (one warning
 * each, the server still starts), `EMBEDDED_REDIS_PORT` fixes the embedded Redis' port, and
 * `LOG_FORMAT=pretty` prints lines a person reads (DESIGN.md §6).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { afterAll, describe, expect, it } from 'vitest';
import { operatorEnv, runServerBundle } from '../support/serverRun.js';

const children = new Set<ChildProcess>();
const scratch = mkdtempSync(path.join(os.tmpdir(), 'ringmaster-settings-'));

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(scratch, { recursive: true, force: true });
});

/** Start the server with `env` and the embedded Redis, stop it once it listens; its output. */
function startAndStop(name: string, env: Record<string, string>) {
  return runServerBundle({
    env: operatorEnv({ DATA_DIR: path.join(scratch, name), ...env }),
    boundMs: 60_000,
    children,
    until: /ringmaster listening/,
  });
}

/** Variables an operator mistyped, and the ones meant. */
const MISTYPED: Record<string, string> = {
  REDIS_ULR: 'REDIS_URL',
  AUTH_TOKEN: 'AUTH_TOKENS',
  KEY_PREFX: 'KEY_PREFIX',
  RINGMASTER_PORT: 'PORT',
  log_level: 'LOG_LEVEL',
};

describe('start-up settings', () => {
  it('warns once for each look-alike variable, naming the one meant, and starts', async () => {
    const outcome = await startAndStop('lookalikes', {
      ...Object.fromEntries(Object.keys(MISTYPED).map((name) => [name, 'x'])),
      // The CLI's own are not mistakes, nor are a machine's usual ones.
      RINGMASTER_URL: 'http://127.0.0.1:4000/graphql',
      HOME: '/root',
      HOSTNAME: 'box',
    });
    expect(outcome.stdout).toMatch(/ringmaster listening/);
    const warnings = outcome.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; variable?: string })
      .filter((entry) => entry.level === 40 && entry.variable !== undefined);
    expect(Object.fromEntries(warnings.map((w) => [w.variable, w.msg]))).toEqual(
      Object.fromEntries(
        Object.entries(MISTYPED).map(([variable, meant]) => [
          variable,
          `${variable} is set, but Ringmaster reads no such variable: did you mean ${meant}?`,
        ]),
      ),
    );
    expect(warnings).toHaveLength(Object.keys(MISTYPED).length);
  }, 90_000);

  it('runs the embedded Redis on EMBEDDED_REDIS_PORT, and LOG_FORMAT=pretty prints readable lines', async () => {
    const port = await getPort({ host: '127.0.0.1', exclude: [4000, 6379] });
    const outcome = await startAndStop('pretty', {
      EMBEDDED_REDIS_PORT: String(port),
      LOG_FORMAT: 'pretty',
    });
    const lines = outcome.stdout.split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(2);
    // pino-pretty's lines: `[HH:MM:ss.l] LEVEL: [component] message {fields}`.
    for (const line of lines) expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN): /);
    expect(outcome.stdout).toMatch(
      new RegExp(
        `^\\S+ INFO: embedded redis-server started \\{"url":"redis://127\\.0\\.0\\.1:${port}"`,
        'm',
      ),
    );
    expect(outcome.stdout).toMatch(
      /^\S+ INFO: ringmaster listening \{"url":"http:\/\/127\.0\.0\.1:\d+\/graphql"/m,
    );
  }, 90_000);
});
