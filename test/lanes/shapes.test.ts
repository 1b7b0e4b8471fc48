/**
 * The constructors' shapes (DESIGN.md §4.1, "Connections"): BullMQ's `new Queue(name, {
 * connection })` and `new Worker(name, processor, { connection })` beside the engine's own, a
 * connection given as an ioredis client, a URL or ioredis options, what `close()` closes, and
 * every wrong shape refused in one BAD_USER_INPUT line that shows the right call, opening
 * nothing.
 */
import { once } from 'node:events';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type Job,
  Queue,
  type RedisConnection,
  Ringmaster,
  RingmasterError,
  Worker,
} from '../../src/lanes/index.js';
import { closedPort } from '../support/closedPort.js';
import { pollUntil, uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
/** The test's own view of the server: CLIENT LIST, raw reads. */
let admin: Redis | undefined;
const adminClient = (): Redis => {
  admin ??= redis.client();
  return admin;
};
const given: Redis[] = [];
afterAll(() => {
  for (const client of given) client.disconnect();
});

/** Connections the server has open now (count), the admin's included. */
async function clientCount(): Promise<number> {
  const list = (await adminClient().client('LIST')) as string;
  return list.split('\n').filter((line) => line.trim() !== '').length;
}

/** Wait until the server has `count` connections open, bounded. */
function settlesAt(count: number): Promise<void> {
  return pollUntil(`${count} open connections`, async () => (await clientCount()) === count);
}

/** The test's Redis as ioredis options. */
function serverOptions(): { host: string; port: number; db?: number } {
  const url = new URL(redis.url);
  const db = url.pathname.slice(1);
  return { host: url.hostname, port: Number(url.port), ...(db === '' ? {} : { db: Number(db) }) };
}

/** The test's Redis as a URL without a database: `redis://host:port`. */
function serverAddress(): string {
  const { host, port } = serverOptions();
  return `redis://${host}:${port}`;
}

/** The kinds of connection the engine opens itself, on the test's Redis. */
const KINDS: readonly [string, () => RedisConnection][] = [
  ['a URL', () => redis.url],
  ['ioredis options', serverOptions],
];

/** A worker's next completed job. */
async function nextCompleted(worker: Worker): Promise<Job> {
  const [job] = (await once(worker, 'completed')) as [Job];
  return job;
}

describe('BullMQ shapes', () => {
  it.each(KINDS)(
    'with %s, a queue and a worker each open a connection, run a job and close it',
    async (_kind, connection) => {
      const before = await clientCount();
      const name = uniqueQueueName('shape');
      const queue = new Queue(name, { connection: connection() });
      const enqueued = await queue.enqueue('acme', { n: 1 });
      const worker = new Worker(name, async (job) => job.payload, {
        connection: connection(),
        concurrency: 2,
      });
      const done = await nextCompleted(worker);
      expect(done.id).toBe(enqueued.id);
      expect((await queue.job(enqueued.id))?.state).toBe('COMPLETED');
      await worker.close();
      await queue.close();
      expect(queue.redis.status).toBe('end');
      expect(worker.queue.redis.status).toBe('end');
      await settlesAt(before);
    },
  );

  it('takes a prefix, and a URL or options for the engine too', async () => {
    const before = await clientCount();
    const name = uniqueQueueName('shape');
    const queue = new Queue(name, { connection: redis.url, prefix: 'shapes' });
    await queue.enqueue('acme');
    const worker = new Worker(name, async () => {}, {
      connection: serverOptions(),
      prefix: 'shapes',
    });
    await nextCompleted(worker);
    const engine = new Ringmaster(redis.url, { prefix: 'shapes' });
    expect(await engine.queues()).toContain(name);
    expect((await engine.queue(name).counts()).completed).toBe(1);
    await Promise.all([worker.close(), queue.close(), engine.close()]);
    expect(engine.redis.status).toBe('end');
    await settlesAt(before);
  });

  it("with a client, closes nothing of the caller's", async () => {
    const client = redis.client();
    given.push(client);
    const name = uniqueQueueName('shape');
    const queue = new Queue(name, { connection: client });
    await queue.enqueue('acme');
    const worker = new Worker(name, async () => {}, { connection: client });
    await nextCompleted(worker);
    const engine = new Ringmaster(client);
    await Promise.all([worker.close(), queue.close(), engine.close()]);
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
  });

  it("keeps the engine's own shapes, whose close() leaves the client open", async () => {
    const client = redis.client();
    given.push(client);
    const queue = new Queue(client, uniqueQueueName('shape'), { prefix: 'own' });
    await queue.enqueue('acme');
    const worker = new Worker(queue, async () => {});
    await nextCompleted(worker);
    await worker.close();
    await queue.close();
    const handle = new Ringmaster(client).queue(uniqueQueueName('shape'));
    await handle.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
  });
});

describe('a wrong shape', () => {
  const fn = async () => {};
  const url = () => redis.url;
  /** [what, the call, the argument named, a part of the one line]. */
  const WRONG: readonly [string, () => unknown, string, string][] = [
    // @ts-expect-error a URL where the options belong
    ['Queue: a string for options', () => new Queue('orders', url()), 'options', 'not a string'],
    // @ts-expect-error no options, so no connection
    ['Queue: no options', () => new Queue('orders'), 'options', 'not undefined'],
    // @ts-expect-error the connection is required
    ['Queue: no connection', () => new Queue('orders', {}), 'options.connection', 'required'],
    // @ts-expect-error a number is no name
    ['Queue: a number first', () => new Queue(42, { connection: url() }), 'name', 'a number'],
    // @ts-expect-error null is no name
    ['Queue: null first', () => new Queue(null, { connection: url() }), 'name', 'null'],
    [
      'Queue: options first',
      // @ts-expect-error BullMQ's options come second
      () => new Queue({ connection: url() }, 'orders'),
      'name',
      'queue name first',
    ],
    [
      'Queue: a client as the options',
      () => new Queue('orders', adminClient() as never),
      'options',
      'inside the options',
    ],
    [
      'Queue: the connection a number',
      // @ts-expect-error a number is no connection
      () => new Queue('orders', { connection: 6379 }),
      'options.connection',
      'not a number',
    ],
    [
      'Queue: the connection null',
      // @ts-expect-error null is no connection
      () => new Queue('orders', { connection: null }),
      'options.connection',
      'not null',
    ],
    [
      'Queue: the connection another object',
      () => new Queue('orders', { connection: new Map() as never }),
      'options.connection',
      'not a Map',
    ],
    [
      'Queue: options naming no server',
      () => new Queue('orders', { connection: { password: 'x' } }),
      'options.connection',
      'must name the server',
    ],
    [
      'Queue: a URL of another scheme',
      () => new Queue('orders', { connection: 'http://user:secret@localhost:6379' }),
      'options.connection',
      'not http://…',
    ],
    [
      'Queue: a database in the URL that is no number',
      () => new Queue('orders', { connection: `${serverAddress()}/abc` }),
      'options.connection',
      'the database (db) must be a whole number',
    ],
    [
      'Queue: a database option that is no number',
      () => new Queue('orders', { connection: { ...serverOptions(), db: 'x' as never } }),
      'options.connection',
      'the database (db) must be a whole number',
    ],
    [
      'Queue: a port that is no number',
      () => new Queue('orders', { connection: { host: 'localhost', port: 'abc' as never } }),
      'options.connection',
      'the port must be a whole number from 1 to 65535',
    ],
    [
      'Worker: a port out of range',
      () => new Worker('orders', fn, { connection: { host: 'localhost', port: 70_000 } }),
      'options.connection',
      'the port must be a whole number from 1 to 65535',
    ],
    [
      'Queue: a URL with no host',
      () => new Queue('orders', { connection: 'redis://:secret@:6390' }),
      'options.connection',
      'has no host',
    ],
    [
      'Queue: a string that is no URL',
      () => new Queue('orders', { connection: 'localhost:6379' }),
      'options.connection',
      'has no scheme',
    ],
    [
      'Queue: a connection twice',
      // @ts-expect-error the connection comes first or in the options, not both
      () => new Queue(adminClient(), 'orders', { connection: url() }),
      'options.connection',
      'not an option when the connection comes first',
    ],
    [
      'Worker: no options',
      // @ts-expect-error a name needs { connection }
      () => new Worker('orders', fn),
      'options.connection',
      'required after a queue name',
    ],
    [
      'Worker: no connection',
      // @ts-expect-error a name needs { connection }
      () => new Worker('orders', fn, { concurrency: 2 }),
      'options.connection',
      'required after a queue name',
    ],
    [
      'Worker: a string for options',
      // @ts-expect-error a URL where the options belong
      () => new Worker('orders', fn, url()),
      'options',
      'not a string',
    ],
    [
      'Worker: not a queue',
      // @ts-expect-error neither a name nor a Queue
      () => new Worker({ name: 'orders' }, fn, { connection: url() }),
      'queue',
      'a queue name',
    ],
    // @ts-expect-error a number is no queue
    ['Worker: a number first', () => new Worker(7, fn), 'queue', 'not a number'],
    [
      'Worker: a URL of another scheme',
      () => new Worker('orders', fn, { connection: 'https://localhost' }),
      'options.connection',
      'not https://…',
    ],
    [
      'Worker: a connection with a Queue',
      // @ts-expect-error the Queue has its connection
      () => new Worker(new Queue(adminClient(), 'orders'), fn, { connection: url() }),
      'options.connection',
      'not an option when a Queue comes first',
    ],
    // @ts-expect-error a number is no connection
    ['Ringmaster: a number', () => new Ringmaster(6379), 'redis', 'not a number'],
    // @ts-expect-error null is no connection
    ['Ringmaster: null', () => new Ringmaster(null), 'redis', 'not null'],
    // @ts-expect-error the connection is required
    ['Ringmaster: nothing', () => new Ringmaster(), 'redis', 'not undefined'],
    [
      'Ringmaster: its options first',
      () => new Ringmaster({ prefix: 'emq' } as never),
      'redis',
      'must name the server',
    ],
    [
      'Ringmaster: a URL of another scheme',
      () => new Ringmaster('postgres://localhost/db'),
      'redis',
      'not postgres://…',
    ],
  ];

  it.each(WRONG)(
    '%s is one BAD_USER_INPUT line with the right call',
    async (_what, call, argument, part) => {
      const before = await clientCount();
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RingmasterError);
      const error = thrown as RingmasterError;
      expect(error.code).toBe(ErrorCode.BAD_USER_INPUT);
      expect(error.argument).toBe(argument);
      expect(error.message).toContain(part);
      expect(error.message).not.toContain('\n');
      expect(error.message).toMatch(
        /new (Queue|Worker|Ringmaster)\((redis|queue|'orders'|new Redis)/,
      );
      // A password in a refused URL is never repeated.
      expect(error.message).not.toContain('secret');
      expect(await clientCount()).toBe(before);
    },
  );

  it('of a keyPrefix in the URL is refused, and the connection opened for it dropped', async () => {
    const before = await clientCount();
    expect(() => new Queue('orders', { connection: `${redis.url}?keyPrefix=app:` })).toThrow(
      /keyPrefix "app:"/,
    );
    expect(await clientCount()).toBe(before);
  });

  it.each([
    ['new Queue(name, { connection })', (c: Redis) => new Queue('orders', { connection: c })],
    ['new Queue(connection, name)', (c: Redis) => new Queue(c, 'orders')],
    [
      'new Worker(name, fn, { connection })',
      (c: Redis) => new Worker('orders', async () => undefined, { connection: c }),
    ],
  ])('of a given client with a keyPrefix is refused by %s', (_shape, make) => {
    const client = redis.client({ keyPrefix: 'app:', lazyConnect: true });
    given.push(client);
    expect(() => make(client)).toThrow(/keyPrefix "app:"/);
  });
});

describe('a Redis it cannot reach', () => {
  it('REDIS_UNAVAILABLE says where (never the password) and why', async () => {
    const port = await closedPort();
    const name = uniqueQueueName();
    const connection = { host: '127.0.0.1', port, password: 'secret', maxRetriesPerRequest: 0 };
    const queue = new Queue(name, { connection });
    try {
      const error = (await queue.counts().catch((e: unknown) => e)) as RingmasterError;
      expect(error.code).toBe(ErrorCode.REDIS_UNAVAILABLE);
      expect(error.queue).toBe(name);
      expect(error.message).toBe(
        `Redis is unavailable at 127.0.0.1:${port} (connection refused): retry later`,
      );
    } finally {
      await queue.close();
    }
  });

  it('a database the server lacks fails the calls naming it, and nothing lands in database 0', async () => {
    const zero = redis.client({ db: 0 });
    given.push(zero);
    const name = uniqueQueueName();
    const queue = new Queue(name, { connection: `${serverAddress()}/99` });
    try {
      const error = (await queue.enqueue('g').catch((e: unknown) => e)) as RingmasterError;
      expect(error.code).toBe(ErrorCode.REDIS_UNAVAILABLE);
      expect(error.message).toContain('(database 99 does not exist on this Redis)');
      expect(await zero.keys(`*${name}*`)).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
