/**
 * Fault: Redis loses a queue's state under a running server — restarted without persistence
 * (SIGKILL, no append-only file), or FLUSHALL while it runs.
 *
 * What must hold (DESIGN.md §3, "A Redis that lost a queue's state"): the server says so in ONE
 * log line naming the queue and what was lost; `/ready` lists the loss in its body (200: it is
 * reported, not a reason to refuse traffic); `ringmaster_redis_state_lost_total{queue,cause}`
 * counts it; a `ringChanged` subscriber gets a RESYNC with `resyncReason` STATE_LOST; the queue
 * is back in the registry; and no new job gets an id the server handed out before the loss, so
 * `job(id)` of an old id never answers another job.
 */
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from '../../src/lanes/index.js';
import { buildServer, type RingmasterServer } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/config.js';
import {
  EnqueueDocument,
  JobByIdDocument,
  RingResyncDocument,
  SetLimitDocument,
} from '../gql/graphql.js';
import { wsSubscribe } from '../support/live.js';
import { captureLogger, queueName } from '../support/pubsub.js';
import { startTestRedis, type TestRedis, usingExternalRedis } from '../support/redis.js';
import { cleanup, hold, mustPost, post, until, wsClient } from './support.js';

describe.skipIf(usingExternalRedis())('Redis that lost its data under a running server', () => {
  let redis: TestRedis;
  let server: RingmasterServer;
  let endpoint: string;
  let lines: Array<Record<string, unknown>>;
  let ws: Client;

  beforeAll(async () => {
    // No append-only file: a restart comes back empty.
    redis = await startTestRedis();
    const captured = captureLogger();
    lines = captured.lines;
    const config = loadConfig({
      PORT: '0',
      REDIS_URL: redis.url,
      REAP_INTERVAL_MS: '200',
      RESYNC_INTERVAL_MS: '1000',
      LOG_LEVEL: 'debug',
    });
    server = await buildServer(config, captured.logger);
    await server.start();
    endpoint = `${server.url}/graphql`;
    ws = wsClient(endpoint);
  });

  afterAll(async () => {
    await cleanup();
    await server?.stop();
    await redis?.stop();
  });

  const lossLines = (queue: string) =>
    lines.filter((line) => line.level === 50 && line.queue === queue);

  async function metricRow(prefix: string): Promise<number> {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const row = text.split('\n').find((l) => l.startsWith(prefix));
    return row === undefined ? 0 : Number(row.split(' ').at(-1));
  }
  const metric = (queue: string, cause: string) =>
    metricRow(`ringmaster_redis_state_lost_total{queue="${queue}",cause="${cause}"}`);
  const checks = () =>
    metricRow('ringmaster_script_duration_seconds_count{script="checkEpoch",result="ok"}');

  /** Enqueue over GraphQL, retried while Redis comes back; the new job's id. */
  async function enqueue(queue: string): Promise<string> {
    const data = await until('an enqueue to succeed', async () => {
      const { status, body } = await post(endpoint, EnqueueDocument, { queue, group: 'acme' });
      return status === 200 && body.data ? body.data : null;
    });
    return data.enqueue?.id ?? '';
  }

  async function loseAndCheck(
    lose: () => Promise<void>,
    cause: 'RESTARTED' | 'DELETED',
  ): Promise<void> {
    const queue = queueName('lost');
    await mustPost(endpoint, SetLimitDocument, { queue, group: 'acme', limit: 1 });
    const before: string[] = [];
    for (let i = 0; i < 5; i++) before.push(await enqueue(queue));
    expect(before).toEqual(['1', '2', '3', '4', '5']);
    // The server's checks (a sweep a second) see the limit and the jobs before the loss.
    const checked = await checks();
    await until('two more state checks', async () => (await checks()) >= checked + 2);

    const sub = wsSubscribe(ws, RingResyncDocument, { queue });
    expect((await sub.events.next(10_000)).data?.ringChanged.reason).toBe('SNAPSHOT');
    const seen = sub.events.items.length;

    await lose();
    // At once, before anything may have noticed: the id floor alone keeps ids unique.
    const after = await enqueue(queue);
    expect(Number(after)).toBeGreaterThan(5);

    const [line] = await until('the loss in the log', () =>
      lossLines(queue).length > 0 ? lossLines(queue) : null,
    );
    expect(line).toMatchObject({ component: 'redis', cause });
    expect(String(line?.msg)).toContain(`queue ${queue} lost its state in Redis`);
    expect(String(line?.msg)).toContain(
      'held 5 pending, 0 delayed and 0 active jobs, 1 group limits',
    );
    expect(String(line?.msg)).toContain('new job ids continue after');

    await sub.events.until(
      'a RESYNC with the reason STATE_LOST',
      () =>
        sub.events.items
          .slice(seen)
          .some(
            (e) =>
              e.data?.ringChanged.reason === 'RESYNC' &&
              e.data.ringChanged.resyncReason === 'STATE_LOST',
          ),
      10_000,
    );
    sub.close();

    const ready = await fetch(`${server.url}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { stateLost?: { queue: string; cause: string }[] };
    expect(body.stateLost).toContainEqual(expect.objectContaining({ queue, cause }));
    expect(await metric(queue, cause)).toBe(1);
    // The check wrote nothing but the epoch: the queue is unknown, as Redis holds it.
    const fresh = new Queue(redis.client(), queue);
    expect(await fresh.known()).toBe(false);

    // An old id answers no other job; a new one is past every id handed out.
    const old = await mustPost(endpoint, JobByIdDocument, { queue, id: '3' });
    expect(old.queue?.job ?? null).toBeNull();
    expect(Number(await enqueue(queue))).toBeGreaterThan(Number(after));
    // Marked with this job layout by that write (it raised `seq`), so another process (a new
    // connection asks) takes its new jobs as this version's.
    await expect(fresh.checkLayout()).resolves.toBeUndefined();

    // Said once: later checks (every second, and every reap) find the new epoch.
    await hold(2_500);
    expect(lossLines(queue)).toHaveLength(1);
    expect(await metric(queue, cause)).toBe(1);
  }

  it('restarted without persistence: one line, /ready, the metric, a RESYNC STATE_LOST, no id reused', async () => {
    await loseAndCheck(async () => {
      await redis.kill('SIGKILL');
      await redis.restart();
    }, 'RESTARTED');
  }, 60_000);

  it('FLUSHALL while it runs: the same, cause DELETED', async () => {
    await loseAndCheck(() => redis.flush(), 'DELETED');
  }, 60_000);
});
