/**
 * Operator mistakes at start: the real server entry (src/server/main.ts
 * bundled once for the run, test/support/bundles.ts, as `npm start` runs it bundled) with one
 * bad setting each — a REDIS_URL that
 * points nowhere, at the wrong password, at something that is not Redis; a DATA_DIR it cannot
 * use; a busy or impossible PORT/HOST; AUTH_TOKENS mistakes; no redis-server to embed.
 *
 * Each must end the process with a non-zero exit code, within a bound, with exactly one line on
 * stderr: `ringmaster: NAME=value: cause`, naming the variable and the cause, with no stack
 * trace, and never a token or password (not on stdout either).
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisProcess, startRedisServer } from '../../src/server/redisProcess/index.js';
import { startTestRedis, type TestRedis, usingExternalRedis } from '../support/redis.js';
import { operatorEnv, runServerBundle, type ServerOutcome } from '../support/serverRun.js';

/**
 * Longest a refused start may take (ms): loading the server on a heavily loaded 2-core machine,
 * plus at most 5 s of connection retries, with room to spare. A start that hangs (as DATA_DIR
 * under /proc did) is killed at this bound and fails.
 */
const BOUND_MS = 60_000;
/** Server processes started at once: each loads the whole server. */
const AT_ONCE = 3;
const PASSWORD = 'correct-horse-battery';
const WRONG = 'hunter2-wrong-password';
/** A password with an unescaped `@`: the masker once cut at the first one and showed the rest. */
const AT_SECRET = 'super@secretPW-9x7';
const TOKEN = 'tok-0123456789abcdef-secret';
/** The password of the ACL users made for the permission cases. */
const ACL_PASSWORD = 'acl-user-password-7';
/** ACL rules of users that lack what Ringmaster needs (docs/redis.md "Running on a Redis you did not configure"). */
const ACL_USERS: Record<string, string[]> = {
  noeval: ['~*', '&*', '+@all', '-eval', '-evalsha', '-script'],
  otherkeys: ['~other:*', '&*', '+@all'],
  readonly: ['~*', '&*', '+@read', '+@scripting', '+info', '+ping', '+client', '+config'],
};

let redis: TestRedis;
let guarded: RedisProcess;
let http: Server;
let httpPort: number;
let busy: NetServer;
let busyPort: number;
let closedPort: number;
let scratch: string;
/** Children still running when the file ends (a test that failed half-way). */
const children = new Set<ChildProcess>();

/** `unshare -rm` works here: a private mount namespace where a read-only bind can be made. */
const canUnshare =
  process.platform === 'linux' &&
  spawnSync('unshare', ['-rm', 'sh', '-c', 'mount -o bind,ro /tmp /tmp'], { stdio: 'ignore' })
    .status === 0;

/** At most {@link AT_ONCE} starts run at a time; the others wait their turn. */
let running = 0;
const waiting: (() => void)[] = [];
async function inTurn<T>(run: () => Promise<T>): Promise<T> {
  // A finished start hands its slot straight to the next in line.
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await run();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

beforeAll(async () => {
  redis = await startTestRedis();
  if (!usingExternalRedis()) {
    const admin = redis.client();
    for (const [user, rules] of Object.entries(ACL_USERS)) {
      await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${ACL_PASSWORD}`, ...rules);
    }
  }
  guarded = await startRedisServer({ extraArgs: ['--requirepass', PASSWORD] });
  http = createHttpServer((_req, res) => res.end('<!doctype html><title>not redis</title>'));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  httpPort = (http.address() as { port: number }).port;
  // Read to the end what connects (the embedded Redis' start probe), so that close() can finish.
  busy = createNetServer((socket) => socket.resume());
  busyPort = await getPort({ host: '127.0.0.1', exclude: [4000, 6379] });
  await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve));
  closedPort = await getPort({ host: '127.0.0.1', exclude: [4000, 6379, busyPort] });

  scratch = mkdtempSync(path.join(os.tmpdir(), 'rm-startup-'));
  writeFileSync(path.join(scratch, 'a-file'), 'not a directory');
  mkdirSync(path.join(scratch, 'readonly'));
  const broken = path.join(scratch, 'broken-aof', 'appendonlydir');
  mkdirSync(broken, { recursive: true });
  writeFileSync(path.join(broken, 'appendonly.aof.manifest'), 'not a manifest\n');
  mkdirSync(path.join(scratch, 'empty-path'));
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await new Promise((resolve) => http?.close(resolve));
  await new Promise((resolve) => busy?.close(resolve));
  await guarded?.stop();
  await redis?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Run the server entry with `env` until it exits (SIGKILL after BOUND_MS). */
function start(env: Record<string, string>, readOnly?: string): Promise<ServerOutcome> {
  return runServerBundle({
    env: operatorEnv(env),
    boundMs: BOUND_MS,
    children,
    // The bundle under a mount namespace where `readOnly` is mounted read-only.
    ...(readOnly
      ? {
          wrap: ['unshare', '-rm', 'sh', '-c', 'mount -o bind,ro "$0" "$0" && exec "$@"', readOnly],
        }
      : {}),
  });
}

interface Case {
  /** What the operator got wrong. */
  name: string;
  env: () => Record<string, string>;
  /** The variable the line must name (at its start, as `NAME=` or `NAME unset`, or anywhere). */
  variable: string;
  cause: RegExp;
  /** 2 for configuration errors, 3 for a setting refused at start. */
  code: 2 | 3;
  /** Text that must appear nowhere in the output (a token, a password). */
  secret?: string;
  /** Run inside a private mount namespace with this directory bound read-only. */
  readOnly?: () => string;
  /**
   * It waits out the 5 s of connection retries, idle: it runs beside the turns of
   * {@link AT_ONCE}, which bound the starts that keep a core busy.
   */
  retries?: true;
  skip?: boolean;
}

const redisUrl = () => redis.url;
const inScratch = (...parts: string[]) => path.join(scratch, ...parts);

const CASES: Case[] = [
  // ── REDIS_URL ──────────────────────────────────────────────────────────────────────────
  {
    name: 'REDIS_URL at a closed port',
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${closedPort}` }),
    variable: 'REDIS_URL',
    cause:
      /^REDIS_URL=redis:\/\/127\.0\.0\.1:\d+: nothing accepts connections there \(connection refused; gave up after 5 s\)$/,
    code: 3,
    retries: true,
  },
  {
    name: 'REDIS_URL at an unknown host',
    env: () => ({ REDIS_URL: 'redis://ringmaster-no-such-host.invalid:6379' }),
    variable: 'REDIS_URL',
    cause: /: host name not found \((ENOTFOUND|EAI_AGAIN); gave up after 5 s\)$/,
    code: 3,
    retries: true,
  },
  {
    name: 'REDIS_URL with a wrong password',
    env: () => ({ REDIS_URL: `redis://:${WRONG}@127.0.0.1:${guarded.port}` }),
    variable: 'REDIS_URL',
    cause:
      /^REDIS_URL=redis:\/\/:\*\*\*\*@127\.0\.0\.1:\d+: wrong user name or password \(WRONGPASS\)$/,
    code: 3,
    secret: WRONG,
  },
  {
    name: 'REDIS_URL with a user and a wrong password',
    env: () => ({ REDIS_URL: `redis://alice:${WRONG}@127.0.0.1:${guarded.port}` }),
    variable: 'REDIS_URL',
    cause: /^REDIS_URL=redis:\/\/alice:\*\*\*\*@127\.0\.0\.1:\d+: wrong user name or password/,
    code: 3,
    secret: WRONG,
  },
  {
    // WHATWG URL (ioredis' parse) takes the user information up to the LAST `@`.
    name: 'REDIS_URL with a wrong password holding an @',
    env: () => ({ REDIS_URL: `redis://:${AT_SECRET}@127.0.0.1:${guarded.port}` }),
    variable: 'REDIS_URL',
    cause:
      /^REDIS_URL=redis:\/\/:\*\*\*\*@127\.0\.0\.1:\d+: wrong user name or password \(WRONGPASS\)$/,
    code: 3,
    secret: 'secretPW-9x7',
  },
  {
    name: 'REDIS_URL at a closed port, with a password holding an @',
    env: () => ({ REDIS_URL: `redis://:${AT_SECRET}@127.0.0.1:${closedPort}` }),
    variable: 'REDIS_URL',
    cause: /^REDIS_URL=redis:\/\/:\*\*\*\*@127\.0\.0\.1:\d+: nothing accepts connections there/,
    code: 3,
    secret: 'secretPW-9x7',
    retries: true,
  },
  {
    name: 'REDIS_URL with ?password= at a closed port',
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${closedPort}?password=${AT_SECRET}` }),
    variable: 'REDIS_URL',
    cause: /^REDIS_URL=redis:\/\/127\.0\.0\.1:\d+\?password=\*\*\*\*: nothing accepts/,
    code: 3,
    secret: 'secretPW-9x7',
    retries: true,
  },
  {
    name: 'REDIS_URL without the password Redis needs',
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${guarded.port}` }),
    variable: 'REDIS_URL',
    cause: /: this Redis needs a password: give it as redis:\/\/:PASSWORD@host:port \(NOAUTH\)$/,
    code: 3,
  },
  {
    name: 'REDIS_URL at an HTTP server',
    env: () => ({ REDIS_URL: `redis://127.0.0.1:${httpPort}` }),
    variable: 'REDIS_URL',
    cause: /: not a Redis server: it does not answer in the Redis protocol/,
    code: 3,
  },
  {
    name: 'REDIS_URL with rediss:// to a plain Redis port',
    env: () => ({ REDIS_URL: redisUrl().replace(/^redis:/, 'rediss:') }),
    variable: 'REDIS_URL',
    cause: /^REDIS_URL=rediss:.*: .*TLS.*redis:\/\/, not rediss:\/\//,
    code: 3,
  },
  {
    name: 'REDIS_URL with a database that does not exist',
    env: () => ({ REDIS_URL: `${redisUrl()}/99` }),
    variable: 'REDIS_URL',
    cause: /: database 99 does not exist on this Redis/,
    code: 3,
  },
  {
    name: 'REDIS_URL with a scheme that is not Redis (and a password)',
    env: () => ({ REDIS_URL: `https://alice:${WRONG}@cache.example:6379` }),
    variable: 'REDIS_URL',
    cause:
      /^REDIS_URL=https:\/\/alice:\*\*\*\*@cache\.example:6379: must start with redis:\/\/ or rediss:\/\//,
    code: 2,
    secret: WRONG,
  },
  ...(
    [
      ['that may not run scripts', 'noeval', /the EVAL(SHA)? command/],
      ['whose keys exclude the prefix', 'otherkeys', /a key/],
      ['that may only read', 'readonly', /the (EVAL(SHA)?|DEL) command|a command run by a script/],
    ] as const
  ).map(
    ([what, user, refused]): Case => ({
      name: `REDIS_URL with a user ${what}`,
      env: () => ({
        REDIS_URL: redisUrl().replace('redis://', `redis://${user}:${ACL_PASSWORD}@`),
      }),
      variable: 'REDIS_URL',
      cause: new RegExp(
        `^REDIS_URL=redis://${user}:\\*\\*\\*\\*@127\\.0\\.0\\.1:\\d+: Redis refused ${refused.source} to this connection's user \\(NOPERM\\): grant .*\\(~emq:\\* for its prefix\\)$`,
      ),
      code: 3,
      secret: ACL_PASSWORD,
      skip: usingExternalRedis(),
    }),
  ),
  // ── PORT and HOST ──────────────────────────────────────────────────────────────────────
  {
    name: 'PORT in use',
    env: () => ({ REDIS_URL: redisUrl(), PORT: String(busyPort) }),
    variable: 'PORT',
    cause: /^PORT=\d+: another process already listens on 127\.0\.0\.1:\d+/,
    code: 3,
  },
  {
    name: 'PORT out of range',
    env: () => ({ PORT: '70000' }),
    variable: 'PORT',
    cause: /^PORT=70000: must be a port number \(0 to 65535\)$/,
    code: 2,
  },
  {
    name: 'HOST that does not resolve',
    env: () => ({
      REDIS_URL: redisUrl(),
      HOST: 'ringmaster-no-such-host.invalid',
      AUTH_TOKENS: `admin:${TOKEN}`,
    }),
    variable: 'HOST',
    cause: /^HOST=ringmaster-no-such-host\.invalid: host name not found/,
    code: 3,
    secret: TOKEN,
  },
  {
    name: 'HOST that is not an address of this machine',
    env: () => ({ REDIS_URL: redisUrl(), HOST: '192.0.2.1', AUTH_TOKENS: `admin:${TOKEN}` }),
    variable: 'HOST',
    cause: /^HOST=192\.0\.2\.1: is not an address of this machine$/,
    code: 3,
    secret: TOKEN,
  },
  // ── AUTH_TOKENS ────────────────────────────────────────────────────────────────────────
  {
    name: 'AUTH_TOKENS with an unknown role',
    env: () => ({ AUTH_TOKENS: `root:${TOKEN}` }),
    variable: 'AUTH_TOKENS',
    cause: /^AUTH_TOKENS=root:\*\*\*\*: entry 1: role "root" is not read, worker or admin$/,
    code: 2,
    secret: TOKEN,
  },
  {
    name: 'AUTH_TOKENS with a short token',
    env: () => ({ AUTH_TOKENS: `admin:${TOKEN},read:tiny9` }),
    variable: 'AUTH_TOKENS',
    cause: /: entry 2 \(read\): the token has 5 characters, 16 or more are needed$/,
    code: 2,
    secret: 'tiny9',
  },
  {
    name: 'AUTH_TOKENS with a token and no role',
    env: () => ({ AUTH_TOKENS: TOKEN }),
    variable: 'AUTH_TOKENS',
    cause: /^AUTH_TOKENS=\*\*\*\*: entry 1 has no colon: each entry is role:token$/,
    code: 2,
    secret: TOKEN,
  },
  {
    name: 'AUTH_TOKENS giving one token two roles',
    env: () => ({ AUTH_TOKENS: `read:${TOKEN},admin:${TOKEN}` }),
    variable: 'AUTH_TOKENS',
    cause: /: entries 1 \(read\) and 2 \(admin\) hold the same token/,
    code: 2,
    secret: TOKEN,
  },
  {
    // Once read as unset: auth off, every caller admin, without a word.
    name: 'AUTH_TOKENS set but blank',
    env: () => ({ AUTH_TOKENS: ' ' }),
    variable: 'AUTH_TOKENS',
    cause:
      /^AUTH_TOKENS=" ": is set but blank: unset it to run without auth \(loopback only, every caller admin\), or give tokens as role:token,…$/,
    code: 2,
  },
  {
    name: 'AUTH_TOKENS with a stray comma',
    env: () => ({ AUTH_TOKENS: `read:${TOKEN},` }),
    variable: 'AUTH_TOKENS',
    cause: /^AUTH_TOKENS=read:\*\*\*\*,: entry 2 is empty \(a stray comma\?\)$/,
    code: 2,
    secret: TOKEN,
  },
  // ── DATA_DIR and the embedded redis-server ─────────────────────────────────────────────
  {
    name: 'EMBEDDED_REDIS_PORT another process listens on',
    env: () => ({ DATA_DIR: inScratch('embedded-busy'), EMBEDDED_REDIS_PORT: String(busyPort) }),
    variable: 'EMBEDDED_REDIS_PORT',
    cause:
      /^EMBEDDED_REDIS_PORT=\d+: another process already listens on 127\.0\.0\.1:\d+: .*unset it for a free port$/,
    code: 3,
  },
  {
    name: 'EMBEDDED_REDIS_PORT 0 (redis-server would listen on no TCP port)',
    env: () => ({ EMBEDDED_REDIS_PORT: '0' }),
    variable: 'EMBEDDED_REDIS_PORT',
    cause: /^EMBEDDED_REDIS_PORT=0: must be a port number \(1 to 65535\)$/,
    code: 2,
  },
  {
    name: 'EMBEDDED_REDIS_PORT beside REDIS_URL (no embedded Redis to give it to)',
    env: () => ({ REDIS_URL: redisUrl(), EMBEDDED_REDIS_PORT: '7000' }),
    variable: 'EMBEDDED_REDIS_PORT',
    cause: /^EMBEDDED_REDIS_PORT=7000: is set with REDIS_URL or REDIS_CLUSTER_NODES/,
    code: 2,
  },
  {
    name: 'DATA_DIR at a file',
    env: () => ({ DATA_DIR: inScratch('a-file') }),
    variable: 'DATA_DIR',
    cause: /^DATA_DIR=\S+a-file: is a file, not a directory$/,
    code: 3,
  },
  {
    name: 'DATA_DIR under a file',
    env: () => ({ DATA_DIR: inScratch('a-file', 'data') }),
    variable: 'DATA_DIR',
    cause: /: a part of the path is a file, not a directory$/,
    code: 3,
  },
  {
    name: 'DATA_DIR to be made under /proc (mkdir -p there loops for ever on Node 20)',
    env: () => ({ DATA_DIR: '/proc/ringmaster-data' }),
    variable: 'DATA_DIR',
    cause: /^DATA_DIR=\/proc\/ringmaster-data: cannot be created: the file system refuses it/,
    code: 3,
    skip: process.platform !== 'linux',
  },
  {
    name: 'DATA_DIR at /proc itself',
    env: () => ({ DATA_DIR: '/proc' }),
    variable: 'DATA_DIR',
    cause: /^DATA_DIR=\/proc: cannot create files in it/,
    code: 3,
    skip: process.platform !== 'linux',
  },
  {
    name: 'DATA_DIR on a read-only mount',
    env: () => ({ DATA_DIR: inScratch('readonly') }),
    readOnly: () => inScratch('readonly'),
    variable: 'DATA_DIR',
    cause: /^DATA_DIR=\S+readonly: cannot create files in it: a read-only file system \(EROFS\)$/,
    code: 3,
    skip: !canUnshare,
  },
  {
    name: 'DATA_DIR holding a broken append-only file',
    env: () => ({ DATA_DIR: inScratch('broken-aof') }),
    variable: 'DATA_DIR',
    cause:
      /^DATA_DIR=\S+broken-aof: the embedded redis-server exited with code 1 before it was ready on 127\.0\.0\.1:\d+: .*manifest/i,
    code: 3,
  },
  {
    name: 'no redis-server on PATH for the embedded Redis',
    env: () => ({ DATA_DIR: inScratch('no-binary'), PATH: inScratch('empty-path') }),
    variable: 'PATH',
    cause: /^redis-server was not found on PATH .*set REDIS_URL/,
    code: 3,
  },
];

describe('a mistaken setting ends the start with one clear line', () => {
  // Shown as skipped where the platform lacks what they need (Linux /proc, `unshare`).
  for (const c of CASES.filter((c) => c.skip)) it.skip(c.name, () => {});
  it.concurrent.each(CASES.filter((c) => !c.skip).map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      const run = () => start(c.env(), c.readOnly?.());
      const outcome = await (c.retries ? run() : inTurn(run));
      const context = `stderr:\n${outcome.stderr}\nstdout (tail):\n${outcome.stdout.slice(-2_000)}`;
      expect(outcome.signal, `killed after ${BOUND_MS} ms: it hung\n${context}`).toBeNull();
      expect(outcome.code, context).toBe(c.code);
      const lines = outcome.stderr.split('\n').filter((line) => line.trim() !== '');
      expect(lines, context).toHaveLength(1);
      const line = lines[0] as string;
      expect(line.startsWith('ringmaster: '), context).toBe(true);
      const message = line.slice('ringmaster: '.length);
      expect(message, context).toContain(c.variable);
      expect(message, context).toMatch(c.cause);
      expect(outcome.stderr, 'no stack trace').not.toMatch(/^\s+at /m);
      if (c.secret !== undefined) {
        expect(outcome.stderr).not.toContain(c.secret);
        expect(outcome.stdout).not.toContain(c.secret);
      }
      expect(outcome.ms).toBeLessThan(BOUND_MS);
    },
    // Waiting for a turn counts too: every case may queue behind the others.
    BOUND_MS * Math.ceil(CASES.length / AT_ONCE) + 60_000,
  );
});
