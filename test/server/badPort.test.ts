/**
 * A PORT that browsers and Node's fetch refuse (the fetch standard's "bad ports", 6000, 6667,
 * …; src/badPorts.ts). The server starts there and serves curl and other clients, but the
 * console (a browser) and the `ringmaster` CLI (Node's fetch) cannot reach it; the fresh-user
 * review met the CLI's "cannot reach … (bad port): start the server", advice that cannot help.
 * Now the server warns at start, naming PORT and why, and the CLI says the port is one fetch
 * refuses and to run the server on another PORT (exit 4, unreachable, as before).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isFetchBadPort } from '../../src/badPorts.js';
import { runCli } from '../cli/support.js';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { operatorEnv } from '../support/serverRun.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Bad ports an unprivileged process may listen on (the rest are below 1024). */
const CANDIDATES = [6666, 6667, 6668, 6669, 6665, 10080, 6679, 6697, 6566, 6000, 5060, 5061, 4190];

let redis: TestRedis;
let server: ChildProcess | undefined;
let port: number;
let stdout = '';

beforeAll(async () => {
  redis = await startTestRedis();
  port = await getPort({ host: '127.0.0.1', port: CANDIDATES });
  if (!CANDIDATES.includes(port)) throw new Error(`every candidate bad port is in use: ${port}`);
  server = spawn(process.execPath, [inject('serverBundle')], {
    cwd: ROOT,
    env: operatorEnv({ REDIS_URL: redis.url, PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    server?.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('ringmaster listening')) resolve();
    });
    server?.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${stdout}`)));
  });
}, 60_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await redis?.stop();
});

describe(`a PORT fetch refuses`, () => {
  it('starts, serves plain HTTP clients, and warns once naming PORT and why', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      get(`http://127.0.0.1:${port}/health`, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(status).toBe(200);
    const warnings = stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; port?: number })
      .filter((entry) => entry.level === 40 && entry.msg.includes('fetch'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.port).toBe(port);
    expect(warnings[0]?.msg).toMatch(
      new RegExp(`^PORT=${port} is a port that browsers and Node's fetch refuse .*another PORT`),
    );
  });

  it('the CLI says the port is one fetch refuses and to use another PORT, not to start the server', async () => {
    const result = await runCli(['status', '--url', `http://127.0.0.1:${port}/graphql`]);
    expect(result.code, result.stderr).toBe(4);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^ringmaster: cannot reach http://127\\.0\\.0\\.1:${port}/\\S*: port ${port} is one that fetch refuses .*run the server on another PORT`,
      ),
    );
    expect(result.stderr).not.toMatch(/start the server/);
  });
});

describe('the list of bad ports (src/badPorts.ts)', () => {
  it("names only ports Node's own fetch refuses, and not the server's default", async () => {
    const listed = Array.from({ length: 65_535 }, (_, i) => i + 1).filter(isFetchBadPort);
    expect(listed.length).toBe(82);
    for (const bad of listed) {
      // Refused before any connection is tried: nothing is sent to whatever listens there.
      const error = await fetch(`http://127.0.0.1:${bad}/`).then(
        () => null,
        (e: Error) => e,
      );
      expect((error?.cause as Error | undefined)?.message, `port ${bad}`).toBe('bad port');
    }
    expect(isFetchBadPort(4000)).toBe(false);
  });
});
