/**
 * REDIS_URL at something that is not a Redis, or at a Redis given a password it does not need
 * (the real server bundle, as startup.test.ts runs it): each names the cause in one line. A port
 * that closed the connection on Redis' first command once gave ioredis' "Reached the max
 * retries per request limit" (with a password) or, after 5 s, "a TLS port? Then use rediss://";
 * a password Redis does not need printed ioredis' raw `[WARN]` lines on stderr, outside the log.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { operatorEnv, runServerBundle, type ServerOutcome } from '../support/serverRun.js';

const BOUND_MS = 60_000;
const PASSWORD = 'not-needed-secret-42';

let redis: TestRedis;
let closer: Server;
let garbage: Server;
const children = new Set<ChildProcess>();

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}
const portOf = (server: Server) => (server.address() as { port: number }).port;

beforeAll(async () => {
  redis = await startTestRedis();
  // Postgres and an MQTT broker do this with Redis' first command: close, no reply.
  closer = createServer((socket) => socket.once('data', () => socket.destroy()));
  garbage = createServer((socket) =>
    socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.2\r\n\u0000\u0001\u0002')),
  );
  await listen(closer);
  await listen(garbage);
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await new Promise((resolve) => closer?.close(resolve));
  await new Promise((resolve) => garbage?.close(resolve));
  await redis?.stop();
});

/** Run the server entry with REDIS_URL `url` until it exits, or until `until` is on stdout. */
function start(url: string, until?: RegExp): Promise<ServerOutcome> {
  return runServerBundle({
    env: operatorEnv({ REDIS_URL: url }),
    boundMs: BOUND_MS,
    children,
    ...(until ? { until } : {}),
  });
}

const CLOSED =
  /^ringmaster: REDIS_URL=\S+: not a Redis server: it accepted the connection and closed it on Redis’ first command, without a reply \(is that the Redis port\? Redis listens on 6379 by default\)\n$/;

it.each([
  ['without a password', () => `redis://127.0.0.1:${portOf(closer)}`],
  [
    'with a password (ioredis retried AUTH)',
    () => `redis://:${PASSWORD}@127.0.0.1:${portOf(closer)}`,
  ],
])(
  'a port that closes on Redis’ first command, %s: not a Redis server, at once',
  async (_name, url) => {
    const outcome = await start(url());
    expect(outcome.code, outcome.stderr).toBe(3);
    expect(outcome.stderr).toMatch(CLOSED);
    expect(outcome.stderr + outcome.stdout).not.toContain(PASSWORD);
  },
  BOUND_MS + 10_000,
);

it(
  'a port that answers garbage: not a Redis server, with what it answered',
  async () => {
    const outcome = await start(`redis://127.0.0.1:${portOf(garbage)}`);
    expect(outcome.code, outcome.stderr).toBe(3);
    expect(outcome.stderr).toMatch(
      /^ringmaster: REDIS_URL=\S+: not a Redis server: it does not answer in the Redis protocol \(its reply began with "S"\)\n$/,
    );
  },
  BOUND_MS + 10_000,
);

it(
  'a Redis without a password given one: starts, and says so once in the log, not on stderr',
  async () => {
    const url = `redis://127.0.0.1:${new URL(redis.url).port}?password=${PASSWORD}`;
    const outcome = await start(url, /ringmaster listening/);
    expect(outcome.stdout).toMatch(/ringmaster listening/);
    expect(outcome.stderr).toBe('');
    const warnings = outcome.stdout
      .split('\n')
      .filter((line) => line.includes('needs none'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe(40);
    expect(warnings[0]?.msg).toMatch(/^REDIS_URL gives a password, but this Redis needs none/);
    expect(outcome.stdout).not.toContain(PASSWORD);
  },
  BOUND_MS + 10_000,
);
