/**
 * The worker registry (DESIGN.md §4.9 "Workers") against a real Redis: a `Worker` is listed by
 * `Queue.workers` while it runs, with what it says of itself; its heartbeat moves lastSeenAt and
 * reports the jobs it holds; `close()` takes it out at once; a worker killed mid-job is gone
 * once 3 heartbeats lapse (reads) and is pruned by the reaper's pass. Claims keep the claiming
 * worker's id on the job (`Job.workerId`) while it is ACTIVE. A fleet of 1,000 is listed,
 * counted by the metrics, and pruned by one reaper pass. Checked against Redis itself.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, Queue, Worker } from '../../src/lanes/index.js';
import { pollUntil, redisNow, uniqueQueueName, untilRedisTimePasses } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';

const redis = useTestRedis();
const CHILD = fileURLToPath(new URL('../fixtures/worker-child.ts', import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const children: ChildProcess[] = [];
const workers: Worker[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 1 })));
});

function queue(): Queue {
  return new Queue(redis.client(), uniqueQueueName('workers'));
}

/** The registry as stored: id → [lapsesAt, JSON]. */
async function stored(q: Queue): Promise<Map<string, [number, Record<string, unknown>]>> {
  const zset = await q.redis.zrange(q.keys.workers, 0, -1, 'WITHSCORES');
  const info = await q.redis.hgetall(q.keys.workerInfo);
  const out = new Map<string, [number, Record<string, unknown>]>();
  for (let i = 0; i < zset.length; i += 2) {
    const id = zset[i] as string;
    out.set(id, [Number(zset[i + 1]), JSON.parse(info[id] ?? 'null') as Record<string, unknown>]);
  }
  return out;
}

describe('Worker registry', () => {
  it('a running Worker is listed with what it says of itself, holds its jobs by id, and leaves at close', async () => {
    const q = queue();
    const job = await q.enqueue('g', { n: 1 });
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    const w = new Worker(
      q,
      async (j) => {
        started.push(j.workerId ?? 'none');
        await held;
      },
      { id: 'alpha', concurrency: 3, heartbeatMs: 300 },
    );
    workers.push(w);
    expect(w.id).toBe('alpha');
    await pollUntil('the job to start', async () => started.length === 1);
    expect(started).toEqual(['alpha']);
    // Held by the worker: the job says so while ACTIVE, and the registry counts it.
    expect((await q.job(job.id))?.workerId).toBe('alpha');
    expect(await q.redis.hget(q.keys.job(job.id), 'worker')).toBe('alpha');
    await pollUntil(
      'a heartbeat reporting the job',
      async () => (await q.workers())[0]?.active === 1,
    );
    const [info] = await q.workers();
    const now = await redisNow(q.redis);
    expect(info).toMatchObject({
      id: 'alpha',
      hostname: hostname(),
      pid: process.pid,
      concurrency: 3,
      active: 1,
      version: VERSION,
      heartbeatMs: 300,
      client: false,
    });
    expect(info?.startedAt).toBeLessThanOrEqual(info?.lastSeenAt as number);
    expect(info?.lastSeenAt).toBeLessThanOrEqual(now);
    expect(info?.lapsesAt).toBe((info?.lastSeenAt as number) + 900);
    // As stored: the zset scores when it lapses, the hash holds the JSON.
    const raw = await stored(q);
    expect(raw.get('alpha')?.[0]).toBe(info?.lapsesAt);
    expect(raw.get('alpha')?.[1]).toMatchObject({ pid: process.pid, concurrency: 3 });
    // The heartbeat moves lastSeenAt on, startedAt stays.
    const first = info as NonNullable<typeof info>;
    await pollUntil(
      'a later heartbeat',
      async () => ((await q.workers())[0]?.lastSeenAt ?? 0) > first.lastSeenAt,
    );
    expect((await q.workers())[0]?.startedAt).toBe(first.startedAt);
    expect(await q.metrics()).toMatchObject({ workers: 1 });
    expect(await q.workerCount()).toBe(1);

    release();
    await pollUntil(
      'the job to complete',
      async () => (await q.job(job.id))?.state === 'COMPLETED',
    );
    // Completed: held by nobody.
    expect((await q.job(job.id))?.workerId).toBeNull();
    await w.close();
    // Gone at once: nothing to wait for.
    expect(await q.workers()).toEqual([]);
    expect(await q.redis.exists(q.keys.workers, q.keys.workerInfo)).toBe(0);
  });

  it('a default id is <hostname>:<pid>:<random>, and two Workers get two', async () => {
    const q = queue();
    const a = new Worker(q, async () => {}, { heartbeatMs: 1_000 });
    const b = new Worker(q, async () => {}, { heartbeatMs: 1_000 });
    workers.push(a, b);
    expect(a.id).toMatch(
      new RegExp(
        `^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${process.pid}:[0-9a-f]{8}$`,
      ),
    );
    expect(a.id).not.toBe(b.id);
    await pollUntil('both registered', async () => (await q.workerCount()) === 2);
    expect((await q.workers()).map((w) => w.id)).toEqual([a.id, b.id].sort());
  });

  it('a worker killed mid-job stays listed until 3 heartbeats lapse, then the reaper prunes it', async () => {
    const q = queue();
    await q.enqueue('g');
    const child = fork(CHILD, [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        RINGMASTER_CHILD_REDIS: redis.url,
        RINGMASTER_CHILD_QUEUE: q.name,
        RINGMASTER_CHILD_LEASE_MS: '60000',
        RINGMASTER_CHILD_WORKER_ID: 'doomed',
        RINGMASTER_CHILD_HEARTBEAT_MS: '200',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.on('message', (m: { started?: string; error?: string }) => {
        if (m.started) resolve();
        if (m.error) reject(new Error(`child worker: ${m.error}`));
      });
    });
    await pollUntil('the child registered', async () => (await q.workers())[0]?.id === 'doomed');
    expect((await q.workers())[0]).toMatchObject({ pid: child.pid, client: false });
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    const [, [lapsesAt]] = [...(await stored(q))][0] as [string, [number, unknown]];
    // Still listed until it lapses on the Redis clock (it may have beaten just before dying).
    await untilRedisTimePasses(q.redis, lapsesAt);
    expect(await q.workers()).toEqual([]);
    expect(await q.metrics()).toMatchObject({ workers: 0 });
    // Left out by reads, still stored until a reaper's pass prunes it.
    expect(await q.redis.zcard(q.keys.workers)).toBe(1);
    await q.reap();
    expect(await q.redis.exists(q.keys.workers, q.keys.workerInfo)).toBe(0);
  });

  it('claim keeps workerId on the job while ACTIVE; a later claim without one drops it', async () => {
    const q = queue();
    const job = await q.enqueue('g');
    const claimed = await q.claim({ workerId: 'w-1' });
    expect(claimed?.workerId).toBe('w-1');
    expect((await q.job(job.id))?.workerId).toBe('w-1');
    await q.retry(job.id, claimed?.token as string, 'again');
    // Pending again: held by nobody (the field is left, and read only while ACTIVE).
    expect((await q.job(job.id))?.workerId).toBeNull();
    const again = await q.claim();
    expect(again?.workerId).toBeNull();
    expect(await q.redis.hget(q.keys.job(job.id), 'worker')).toBeNull();
    // completeAndClaim names the worker too.
    const other = await q.enqueue('h');
    const { claimed: batch } = await q.completeAndClaim([], { claim: 1, workerId: 'w-2' });
    expect(batch.map((j) => [j.id, j.workerId])).toEqual([[other.id, 'w-2']]);
    expect(await q.redis.hget(q.keys.job(other.id), 'worker')).toBe('w-2');
  });

  it('a client (no count of its own) is counted by its leases', async () => {
    const q = queue();
    await q.enqueue('a');
    await q.enqueue('b');
    await q.enqueue('c');
    await q.workerHeartbeat({ id: 'client-1', heartbeatMs: 60_000 });
    const one = await q.claim({ workerId: 'client-1' });
    await q.claim({ workerId: 'client-1' });
    await q.claim({ workerId: 'someone-else' });
    expect(await q.workers()).toEqual([
      expect.objectContaining({
        id: 'client-1',
        client: true,
        active: 2,
        hostname: null,
        pid: null,
        concurrency: null,
        version: null,
      }),
    ]);
    await q.complete(one?.id as string, one?.token as string);
    expect((await q.workers())[0]?.active).toBe(1);
  });

  it('bad ids and counts are refused with BAD_USER_INPUT and write nothing', async () => {
    const q = queue();
    await q.enqueue('g');
    const bad: [() => Promise<unknown>, string][] = [
      [() => q.claim({ workerId: '' }), 'workerId'],
      [() => q.claim({ workerId: 'x'.repeat(201) }), 'workerId'],
      [() => q.claim({ workerId: 'a\nb' }), 'workerId'],
      [() => q.completeAndClaim([], { workerId: 7 as unknown as string }), 'workerId'],
      [() => q.workerHeartbeat({ id: '', heartbeatMs: 5 }), 'id'],
      [() => q.workerHeartbeat({ id: 'w', heartbeatMs: 0 }), 'heartbeatMs'],
      [() => q.workerHeartbeat({ id: 'w', heartbeatMs: 5, active: -1 }), 'active'],
      [() => q.workerHeartbeat({ id: 'w', heartbeatMs: 5, pid: 1.5 }), 'pid'],
      [() => q.removeWorker('\u0000'), 'id'],
    ];
    for (const [call, argument] of bad) {
      await expect(call()).rejects.toMatchObject({ code: ErrorCode.BAD_USER_INPUT, argument });
    }
    expect(() => new Worker(q, async () => {}, { id: '', autorun: false })).toThrow(/options\.id/);
    expect(await q.redis.exists(q.keys.workers, q.keys.workerInfo)).toBe(0);
    expect(await q.counts()).toMatchObject({ pending: 1, active: 0 });
  });

  it('a fleet of 1,000: listed, counted, lapsed from reads, and pruned in bounded reaper passes', async () => {
    const q = queue();
    const ids = Array.from({ length: 1_000 }, (_, i) => `fleet-${String(i).padStart(4, '0')}`);
    await Promise.all(
      ids.map((id, i) =>
        q.workerHeartbeat({
          id,
          hostname: `host-${i % 10}`,
          pid: 1000 + i,
          concurrency: 4,
          active: i % 5,
          version: VERSION,
          heartbeatMs: 60_000,
          fresh: true,
        }),
      ),
    );
    const listed = await q.workers();
    expect(listed.map((w) => w.id)).toEqual(ids);
    expect(listed[7]).toMatchObject({ hostname: 'host-7', pid: 1007, active: 2 });
    expect(await q.workerCount()).toBe(1_000);
    expect(await q.metrics()).toMatchObject({ workers: 1_000 });

    // 1,500 lapsed: reads leave them out at once; each reaper pass prunes at most 1,000.
    const short = Array.from({ length: 1_500 }, (_, i) => `gone-${i}`);
    await Promise.all(short.map((id) => q.workerHeartbeat({ id, heartbeatMs: 1 })));
    await untilRedisTimePasses(q.redis, (await redisNow(q.redis)) + 5);
    expect(await q.workerCount()).toBe(1_000);
    expect(await q.redis.zcard(q.keys.workers)).toBe(2_500);
    await q.reap();
    expect(await q.redis.zcard(q.keys.workers)).toBe(1_500);
    await q.reap();
    expect(await q.redis.zcard(q.keys.workers)).toBe(1_000);
    expect(await q.redis.hlen(q.keys.workerInfo)).toBe(1_000);
    expect((await q.workers()).length).toBe(1_000);
  });
});
