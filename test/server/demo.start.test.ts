/**
 * `npm run demo` refused at start ends as `npm start` does: one line on stderr naming the
 * setting and the cause, exit 3, no stack (a taken PORT printed a stack trace).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestRedis } from '../support/redis.js';
import { operatorEnv } from '../support/serverRun.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const redis = useTestRedis();

let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  port = (taken.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

/** The demo as `npm run demo` runs it, to its end. */
function runDemo(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/index.ts'], {
    cwd: ROOT,
    env: operatorEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.resume();
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stderr })),
  );
}

describe('npm run demo, refused at start', () => {
  it('with its PORT taken: one line naming PORT, exit 3', async () => {
    const result = await runDemo({ REDIS_URL: redis.url, PORT: String(port) });
    expect(result.stderr).toMatch(
      new RegExp(
        `^ringmaster: PORT=${port}: another process already listens on 127\\.0\\.0\\.1:${port}[^\\n]*\\n$`,
      ),
    );
    expect(result.code).toBe(3);
  });

  it('with a setting invalid as written: one line naming it, exit 2', async () => {
    const result = await runDemo({ REDIS_URL: redis.url, PORT: '70000' });
    expect(result.stderr).toBe('ringmaster: PORT=70000: must be a port number (0 to 65535)\n');
    expect(result.code).toBe(2);
  });
});
