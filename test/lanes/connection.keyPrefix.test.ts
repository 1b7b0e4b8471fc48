/**
 * A connection whose options move keys: ioredis' `keyPrefix` prefixes the
 * keys a command or a script's KEYS name, not those a script builds from ARGV (the lane a claim
 * picks, a new job's hash), so jobs are stranded. Every entry point that takes a connection —
 * Ringmaster, Queue, Worker (which duplicates it for BLPOP), LiveFeed (which duplicates it for
 * the keyspace subscriber), audit/repair (which duplicate it for the WATCH), the server's
 * REDIS_URL — refuses one before anything reaches Redis, naming the option and the fix. So does
 * a connection moved to another database by SELECT, whose duplicates would open on its `db`.
 */
import { Cluster, Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Ringmaster, RingmasterError, Worker } from '../../src/lanes/index.js';
import { LiveFeed } from '../../src/pubsub/index.js';
import { buildServer } from '../../src/server/app.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { StartupError } from '../../src/server/startupError.js';
import { expectRedisUnchanged } from '../support/api.js';
import { uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
let plain: Redis;
beforeAll(() => {
  plain = redis.client();
});

const clusters: Cluster[] = [];
afterEach(() => {
  for (const cluster of clusters.splice(0)) cluster.disconnect();
});

/** The refusal every entry point gives: BAD_USER_INPUT on `redis`, naming option and fix. */
function expectRefusal(error: unknown, ...mentions: string[]): void {
  expect(error).toBeInstanceOf(RingmasterError);
  const refusal = error as RingmasterError;
  expect(refusal.code).toBe('BAD_USER_INPUT');
  expect(refusal.argument).toBe('redis');
  for (const text of mentions) expect(refusal.message).toContain(text);
}

/** Run `action`, which must throw; returns what it threw. */
async function thrown(action: () => unknown): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal, but the call went through');
}

/** The input on `connection`: a limit, an enqueue and a claim. */
async function strandAJob(engine: () => Ringmaster, queue: string): Promise<void> {
  const q = engine().queue(queue);
  await q.setLimit('acme', 1);
  await q.enqueue('acme', { n: 1 });
  await q.claim();
}

describe('a connection with an ioredis keyPrefix', () => {
  it('is refused by Ringmaster before anything is written, naming keyPrefix and the prefix option', async () => {
    const prefixed = redis.client({ keyPrefix: 'app:' });
    const error = await expectRedisUnchanged(plain, () =>
      thrown(() => strandAJob(() => new Ringmaster(prefixed), uniqueQueueName('kp'))),
    );
    expectRefusal(error, 'keyPrefix "app:"', 'stranded', '{ prefix: "app:emq" }');
    // At construction, not at the first call.
    expectRefusal(await thrown(() => new Ringmaster(prefixed, { prefix: 'jobs' })), 'app:jobs');
  });

  it('is refused by Queue, and by a URL that carries ?keyPrefix=', async () => {
    const prefixed = redis.client({ keyPrefix: 'app:' });
    const name = uniqueQueueName('kp');
    expectRefusal(
      await expectRedisUnchanged(plain, () =>
        thrown(() => new Queue(prefixed, name, { prefix: 'x' }).enqueue('acme')),
      ),
      'keyPrefix',
      '{ prefix: "app:x" }',
    );
    // ioredis copies a URL's query string into the options.
    const viaUrl = new Redis(`${redis.url}?keyPrefix=app:`, { lazyConnect: true });
    try {
      expectRefusal(await thrown(() => new Ringmaster(viaUrl)), 'keyPrefix "app:"');
    } finally {
      viaUrl.disconnect();
    }
  });

  it('is refused by Worker and LiveFeed, which duplicate it, and by audit/repair', async () => {
    // A Queue and an engine can only be made on a plain connection; its options can still be
    // edited afterwards, and every duplicate copies them.
    const conn = redis.client();
    const engine = new Ringmaster(conn);
    const queue = engine.queue(uniqueQueueName('kp'));
    await queue.enqueue('acme', { n: 1 });
    const feed = new LiveFeed({
      engine,
      resyncIntervalMs: 5_000,
      pollIntervalMs: 1_000,
      logger: pino({ level: 'silent' }),
    });
    conn.options.keyPrefix = 'app:';
    const clientCount = async () =>
      String(await plain.client('LIST'))
        .trim()
        .split('\n').length;
    const clientsBefore = await clientCount();
    await expectRedisUnchanged(plain, async () => {
      expectRefusal(
        await thrown(() => new Worker(queue, async () => {}, { autorun: false })),
        'keyPrefix',
      );
      expectRefusal(
        await thrown(
          () =>
            new LiveFeed({
              engine,
              resyncIntervalMs: 5_000,
              pollIntervalMs: 1_000,
              logger: pino({ level: 'silent' }),
            }),
        ),
        'keyPrefix',
      );
      // A feed made before the edit: its start() opens the subscriber, a duplicate.
      expectRefusal(await thrown(() => feed.start()), 'keyPrefix');
      await feed.stop();
      expectRefusal(await thrown(() => queue.repair()), 'keyPrefix');
      expectRefusal(await thrown(() => queue.audit()), 'keyPrefix');
    });
    // No connection was opened for a refused Worker, LiveFeed, feed start or audit.
    expect(await clientCount()).toBe(clientsBefore);
  });

  it('is refused on a Cluster, whether set on it or in its redisOptions', async () => {
    const onCluster = new Cluster([{ host: '127.0.0.1', port: redis.redis.port }], {
      lazyConnect: true,
      keyPrefix: 'app:',
    });
    const inRedisOptions = new Cluster([{ host: '127.0.0.1', port: redis.redis.port }], {
      lazyConnect: true,
      redisOptions: { keyPrefix: 'tenant:' },
    });
    clusters.push(onCluster, inRedisOptions);
    // The engine is typed for Redis; a JavaScript caller can still hand it a Cluster.
    expectRefusal(
      await thrown(() => new Ringmaster(onCluster as unknown as Redis)),
      'keyPrefix "app:"',
    );
    expectRefusal(
      await thrown(() => new Ringmaster(inRedisOptions as unknown as Redis)),
      'keyPrefix "tenant:"',
    );
  });

  it('is refused by the server when REDIS_URL carries it, naming REDIS_URL and KEY_PREFIX', async () => {
    // Invalid as written: refused with the configuration (exit 2), before anything connects.
    const error = await expectRedisUnchanged(plain, () =>
      thrown(() =>
        loadConfig({ PORT: '0', REDIS_URL: `${redis.url}?keyPrefix=app:`, LOG_LEVEL: 'silent' }),
      ),
    );
    expect(error).toBeInstanceOf(ConfigError);
    // A Config made without loadConfig (a program's own) meets the engine's check at connect.
    const config = {
      ...loadConfig({ PORT: '0', REDIS_URL: redis.url, LOG_LEVEL: 'silent' }),
      redisUrl: `${redis.url}?keyPrefix=app:`,
    };
    const atStart = await expectRedisUnchanged(plain, () =>
      thrown(() => buildServer(config, pino({ level: 'silent' }))),
    );
    expect(atStart).toBeInstanceOf(StartupError);
    expect((atStart as Error).message).toContain('KEY_PREFIX=app puts every key under app:');
    const message = (error as Error).message;
    for (const text of [
      'REDIS_URL',
      'keyPrefix="app:"',
      'KEY_PREFIX=app puts every key under app:',
    ]) {
      expect(message).toContain(text);
    }
  });

  it("is not needed: Ringmaster's own prefix puts every key under it, and jobs flow", async () => {
    const name = uniqueQueueName('kp');
    const queue = new Ringmaster(plain, { prefix: 'app:emq' }).queue(name);
    await queue.setLimit('acme', 1);
    const job = await queue.enqueue('acme', { n: 1 });
    expect((await queue.claim())?.id).toBe(job.id);
    const keys = await plain.keys(`*{${name}}*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key.startsWith(`app:emq:{${name}}:`)).toBe(true);
  });
});

describe('a connection moved to another database by SELECT', () => {
  it('is refused, since the connections duplicated from it would use its db option', async () => {
    const moved = redis.client();
    await moved.select(1);
    expectRefusal(await thrown(() => new Ringmaster(moved)), 'SELECT 1', '{ db: 1 }');
    // Made with the db option instead, it is accepted.
    const onDb1 = redis.client({ db: 1 });
    expect(new Ringmaster(onDb1).redis).toBe(onDb1);
  });
});
