/**
 * Values invalid as written, run as an operator runs the server (its bundle, one bad variable
 * each; test/support/serverRun.ts): each must end the start with exit code 2 and one line
 * `ringmaster: NAME=value: cause`, before anything connects (docs/server.md "Configuration").
 *
 * The fresh-user review found: numeric settings read `0x10` and `1e3` (JavaScript's `Number`),
 * where the CLI refuses them; and REDIS_URL values that ioredis parses its own way — a database
 * `abc` (SELECT NaN), `1.5` or `3x` (parseInt: databases 1 and 3), `-1`; a port out of range or
 * not a number; a URL that does not parse ("Invalid URL", no variable named, exit 1); ioredis
 * options in the query string.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/redis.js';
import { operatorEnv, runServerBundle, type ServerOutcome } from '../support/serverRun.js';

/** Longest a start may take (ms), on a loaded machine; a refused one takes under a second. */
const BOUND_MS = 60_000;
const children = new Set<ChildProcess>();
const PASSWORD = 'hunter2-not-to-be-seen';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis();
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await redis?.stop();
});

/** Start the server bundle with `env`; it must not be killed at the bound. */
async function start(env: Record<string, string>): Promise<ServerOutcome> {
  const outcome = await runServerBundle({
    env: operatorEnv(env),
    boundMs: BOUND_MS,
    children,
    until: /ringmaster listening/,
  });
  return outcome;
}

/** The one line on stderr, without `ringmaster: `; fails unless the start ended with `code`. */
async function refusal(env: Record<string, string>, code: number): Promise<string> {
  const outcome = await start(env);
  const context = `stderr:\n${outcome.stderr}\nstdout (tail):\n${outcome.stdout.slice(-2_000)}`;
  expect(outcome.signal, `it started or hung\n${context}`).toBeNull();
  expect(outcome.code, context).toBe(code);
  const lines = outcome.stderr.split('\n').filter((line) => line.trim() !== '');
  expect(lines, context).toHaveLength(1);
  expect(lines[0]?.startsWith('ringmaster: '), context).toBe(true);
  expect(outcome.stderr, 'no stack trace').not.toMatch(/^\s+at /m);
  expect(outcome.stderr + outcome.stdout).not.toContain(PASSWORD);
  // Nothing was connected: no embedded Redis either (that line is logged on stdout).
  expect(outcome.stdout).not.toContain('embedded redis-server started');
  return (lines[0] as string).slice('ringmaster: '.length);
}

const DIGITS = /plain decimal digits/;

// One per parsing helper of src/server/config.ts: ms, count, PORT, HISTORY_MAX_LEN.
describe('numeric settings take plain decimal digits only (exit 2)', () => {
  it.concurrent.each([
    ['REAP_INTERVAL_MS', '0x10'],
    ['RESYNC_INTERVAL_MS', '1e3'],
    ['MAX_WATCHES', '1e3'],
    ['MAX_CONNECTIONS_PER_CLIENT', '+5'],
    ['PORT', '0x10'],
    ['HISTORY_MAX_LEN', '1e3'],
    ['POLL_INTERVAL_MS', '1000.0'],
  ])(
    '%s=%s',
    async (name, value) => {
      const message = await refusal({ [name]: value }, 2);
      expect(message.startsWith(`${name}=${value}: must be `)).toBe(true);
      expect(message).toMatch(DIGITS);
    },
    BOUND_MS * 3,
  );
});
describe('REDIS_URL invalid as written: exit 2 before connecting, naming it', () => {
  const at = () => `127.0.0.1:${redis.port}`;
  const cases: [string, () => string, RegExp][] = [
    ['a database that is not a number', () => `redis://${at()}/abc`, /database/],
    ['?db= that is not a number', () => `redis://${at()}?db=abc`, /database/],
    ['a fractional database', () => `redis://${at()}/1.5`, /database/],
    ['a database with letters after it', () => `redis://${at()}/3x`, /database/],
    ['a negative database', () => `redis://${at()}/-1`, /database/],
    ['/db and ?db= that disagree', () => `redis://${at()}/1?db=2`, /database/],
    ['a port above 65535', () => 'redis://127.0.0.1:99999', /port/],
    ['port 0', () => 'redis://127.0.0.1:0', /port/],
    ['a port that is not a number', () => 'redis://127.0.0.1:abc', /port|URL/],
    ['an unclosed IPv6 bracket', () => 'redis://[::1', /URL/],
    ['no host', () => `redis://:${PASSWORD}@/0`, /host/],
    ['?keyPrefix= (KEY_PREFIX is the way)', () => `redis://${at()}?keyPrefix=x`, /KEY_PREFIX/],
    ['an unknown query parameter', () => `redis://${at()}?connectTimeout=5`, /connectTimeout/],
    ['a password, masked', () => `redis://:${PASSWORD}@${at()}/abc`, /:\*\*\*\*@/],
  ];
  it.concurrent.each(cases)(
    '%s',
    async (_name, url, cause) => {
      const message = await refusal({ REDIS_URL: url() }, 2);
      expect(message.startsWith('REDIS_URL=redis://')).toBe(true);
      expect(message).toMatch(cause);
    },
    BOUND_MS * 3,
  );

  it('still names REDIS_URL for a database Redis lacks (exit 3: Redis says so at connect)', async () => {
    const message = await refusal({ REDIS_URL: `redis://127.0.0.1:${redis.port}?db=99` }, 3);
    expect(message).toBe(
      `REDIS_URL=redis://127.0.0.1:${redis.port}?db=99: database 99 does not exist on this Redis (ERR DB index is out of range)`,
    );
  });

  it(
    'accepts what it should: /0, /15 with ?db=15, ?db=2 with ?family=4, a password',
    async () => {
      for (const url of [
        `redis://127.0.0.1:${redis.port}/0`,
        `redis://:${PASSWORD}@127.0.0.1:${redis.port}/15?db=15`,
        `redis://localhost:${redis.port}?db=2&family=4`,
      ]) {
        const outcome = await start({ REDIS_URL: url });
        // It may warn (ioredis: a password this Redis does not need); it starts.
        expect(outcome.stdout, outcome.stderr).toMatch(/ringmaster listening/);
      }
    },
    BOUND_MS * 3,
  );
});
