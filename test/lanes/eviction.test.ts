/**
 * A Redis that may evict keys: under any `maxmemory-policy` but
 * `noeviction`, Redis drops jobs, lanes, the ring and `seq` at `maxmemory`. The engine reports
 * the policy (`Ringmaster.checkEviction`, from INFO memory, so a Redis that refuses CONFIG is
 * checked too) and `checkServer()` refuses it; the server keeps `/ready` at 503 with the policy
 * named and logs an error once per change, re-reading it (a CONFIG SET changes it at runtime),
 * and is ready again once the policy is `noeviction`.
 *
 * A redis-server of this file's own: the policy is changed with CONFIG SET, which must not
 * reach a Redis other test files share.
 */
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EvictionPolicyError, Ringmaster } from '../../src/lanes/index.js';
import { buildServer, type RingmasterServer } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import {
  findRedisServer,
  type RedisProcess,
  startRedisServer,
} from '../../src/server/redisProcess/index.js';
import { captureLogger, useOwnRedisServer, waitFor } from '../support/pubsub.js';
import { READY } from '../support/server.js';

const noRedisBinary = findRedisServer() === null;

/** The server's re-read period in these tests (ms): RESYNC_INTERVAL_MS. */
const RECHECK_MS = 100;

describe.skipIf(noRedisBinary)('a Redis whose maxmemory-policy may evict keys', () => {
  const own = useOwnRedisServer({ notifyKeyspaceEvents: 'KEA' });
  let admin: Redis;
  beforeAll(() => {
    admin = own.client();
  });
  const setPolicy = (policy: string) => admin.config('SET', 'maxmemory-policy', policy);

  const servers: RingmasterServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop();
    await setPolicy('noeviction');
  });

  async function serve() {
    const { logger, lines } = captureLogger();
    const config = loadConfig({
      PORT: '0',
      REDIS_URL: own.server().url,
      RESYNC_INTERVAL_MS: String(RECHECK_MS),
      LOG_LEVEL: 'debug',
    });
    const server = await buildServer(config, logger);
    servers.push(server);
    await server.start();
    const ready = async () => {
      const response = await fetch(`${server.url}/ready`);
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const evictionErrors = () =>
      lines.filter((line) => line.level === 50 && String(line.msg).includes('maxmemory-policy'));
    return { server, lines, ready, evictionErrors };
  }

  it('the engine reports the policy, and checkServer() refuses it naming the fix', async () => {
    const engine = new Ringmaster(own.client());
    expect(await engine.checkEviction()).toEqual({ policy: 'noeviction', ok: true });
    expect(await engine.checkServer()).toMatch(/^\d+\.\d+/);

    await setPolicy('allkeys-random');
    expect(await engine.checkEviction()).toEqual({ policy: 'allkeys-random', ok: false });
    const error = await engine.checkServer().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EvictionPolicyError);
    expect((error as EvictionPolicyError).policy).toBe('allkeys-random');
    expect((error as Error).message).toContain('maxmemory-policy is allkeys-random');
    expect((error as Error).message).toContain('CONFIG SET maxmemory-policy noeviction');
  });

  it('the server: /ready 503 naming the policy and one error logged while it evicts; 200 again after noeviction', async () => {
    const { ready, lines, evictionErrors } = await serve();
    expect(await ready()).toEqual({
      status: 200,
      body: READY,
    });
    expect(evictionErrors()).toEqual([]);

    await setPolicy('allkeys-random');
    // Noticed by the periodic re-read, with nobody probing /ready.
    const [logged] = await waitFor('the eviction error in the log', () =>
      evictionErrors().length > 0 ? evictionErrors() : null,
    );
    expect(logged).toMatchObject({ policy: 'allkeys-random' });
    expect(String(logged?.msg)).toContain('maxmemory-policy is allkeys-random');
    expect(String(logged?.msg)).toContain('CONFIG SET maxmemory-policy noeviction');

    expect(await ready()).toEqual({
      status: 503,
      body: {
        ready: false,
        redis: 'up',
        notifications: 'notifications',
        subscriber: 'up',
        eviction: 'allkeys-random',
      },
    });
    // Once per change, not once per re-read or probe: let the server re-read a few more times
    // (counted in Redis' own INFO call count, less this loop's own INFO calls) and probe again.
    const infoCalls = async () =>
      Number(/^cmdstat_info:calls=(\d+)/m.exec(await admin.info('commandstats'))?.[1] ?? 0);
    const base = await infoCalls();
    let own = 1;
    await waitFor('three more re-reads by the server', async () => {
      own += 1;
      return (await infoCalls()) - base - own >= 3;
    });
    expect((await ready()).status).toBe(503);
    expect(evictionErrors()).toHaveLength(1);

    // Another evicting policy is another change: logged again, and named.
    await setPolicy('volatile-lru');
    expect((await ready()).body).toMatchObject({ ready: false, eviction: 'volatile-lru' });
    expect(evictionErrors().map((line) => line.policy)).toEqual(['allkeys-random', 'volatile-lru']);

    await setPolicy('noeviction');
    await waitFor('/ready to answer 200 again', async () => (await ready()).status === 200);
    expect((await ready()).body).toMatchObject({ ready: true, eviction: 'noeviction' });
    expect(lines.some((line) => String(line.msg).includes('noeviction again'))).toBe(true);
  });

  it('the server starts on an evicting Redis, not ready, and logs it at once', async () => {
    await setPolicy('allkeys-lru');
    const { ready, evictionErrors } = await serve();
    expect(evictionErrors().map((line) => line.policy)).toEqual(['allkeys-lru']);
    expect(await ready()).toMatchObject({
      status: 503,
      body: { ready: false, redis: 'up', eviction: 'allkeys-lru' },
    });
  });
});

describe.skipIf(noRedisBinary)('a managed Redis that refuses CONFIG', () => {
  let server: RedisProcess;
  beforeAll(async () => {
    server = await startRedisServer({
      extraArgs: ['--maxmemory-policy', 'volatile-lru', '--rename-command', 'CONFIG', ''],
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is checked all the same: the policy comes from INFO memory', async () => {
    const { Redis } = await import('ioredis');
    const client = new Redis(server.url);
    try {
      await expect(client.config('GET', 'maxmemory-policy')).rejects.toThrow(/unknown command/i);
      const engine = new Ringmaster(client);
      expect(await engine.checkEviction()).toEqual({ policy: 'volatile-lru', ok: false });
      await expect(engine.checkServer()).rejects.toBeInstanceOf(EvictionPolicyError);
    } finally {
      client.disconnect();
    }
  });
});
