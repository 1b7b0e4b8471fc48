/**
 * `GET /metrics` (DESIGN.md §4.7, §6) on the real server over a real Redis: the per-queue values
 * equal the engine's counts after a workload, the per-server gauges follow the live feed, the
 * script histogram and the GraphQL operation counter count what ran, the auth rules (AUTH_TOKENS,
 * METRICS_TOKEN, loopback Host) hold, and a scrape's Redis commands do not grow with groups.
 */
import { print } from 'graphql';
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { ServerMetrics } from '../../src/server/metrics.js';
import { MAX_OPERATION_NAMES } from '../../src/server/plugins/operationMetrics.js';
import { RingChangedDocument } from '../gql/graphql.js';
import { pollUntil, redisNow, uniqueQueueName, untilRedisTimePasses } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { type TestServer, useTestServer } from '../support/server.js';

const redis = useTestRedis();

/** One sample line: `name{a="x",b="y"} value`. */
type Samples = Map<string, number>;

/** Parse Prometheus text: sample key `name{labels as written}` → value (comments skipped). */
function parse(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The key of a sample with labels in the given order (prom-client writes them in labelNames order). */
const key = (name: string, labels: Record<string, string> = {}) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
};

async function scrape(
  api: TestServer,
  init: { token?: string; host?: string } = {},
): Promise<{ status: number; text: string; type: string | null; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.host) headers.host = init.host;
  const response = await fetch(`${api.server.url}/metrics`, { headers });
  return {
    status: response.status,
    text: await response.text(),
    type: response.headers.get('content-type'),
    headers: response.headers,
  };
}

async function samples(api: TestServer, token?: string): Promise<Samples> {
  const r = await scrape(api, token === undefined ? {} : { token });
  expect(r.status, r.text).toBe(200);
  return parse(r.text);
}

/** POST a GraphQL document as text. */
async function gql(api: TestServer, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(api.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { errors?: unknown[] };
}

describe('GET /metrics without AUTH_TOKENS', () => {
  // Quiet: no reaper pass and no safety re-read during the test (they would add commands).
  const api = useTestServer(
    {
      REAP_INTERVAL_MS: '86400000',
      RESYNC_INTERVAL_MS: '86400000',
    },
    { redis },
  );
  let r: Redis;

  beforeAll(() => {
    r = redis.client();
  });

  it('answers Prometheus text with every per-queue value equal to the engine after a workload', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    for (const g of ['a', 'b', 'c', 'd']) for (let i = 0; i < 3; i++) await q.enqueue(g, { i });
    await q.enqueue('e', null, { delayMs: 600_000 });
    await q.setLimit('a', 1);
    await q.pause('d');
    const claimed = [];
    for (let i = 0; i < 4; i++) claimed.push(await q.claim());
    const [first, second] = claimed;
    await q.complete(first?.id as string, first?.token as string);
    await q.retry(second?.id as string, second?.token as string, 'boom');
    await q.setLimit('b', 0);

    const m = await samples(api);
    const counts = await q.counts();
    const stats = await q.stats();
    const queue = { queue: name };
    const group = (state: string) => m.get(key('ringmaster_groups', { queue: name, state }));
    expect(group('ready')).toBe(counts.onRing);
    expect(group('saturated')).toBe(counts.saturated);
    expect(group('paused')).toBe(counts.paused);
    expect(group('rate_limited')).toBe(0);
    expect(group('total')).toBe(counts.groups);
    expect(m.get(key('ringmaster_ring_length', queue))).toBe((await q.ring()).length);
    for (const state of ['pending', 'delayed', 'active', 'dead', 'completed'] as const) {
      expect(m.get(key('ringmaster_jobs', { queue: name, state })), state).toBe(counts[state]);
    }
    for (const [counter, value] of Object.entries(stats)) {
      expect(m.get(key(`ringmaster_jobs_${counter}_total`, queue)), counter).toBe(value);
    }
    expect(stats.claimed).toBe(4);
    expect(counts.saturated).toBeGreaterThan(0);

    // The oldest pending job: the lowest lane score over every lane, its age on the Redis clock.
    const oldest = await q.metrics();
    const age = m.get(key('ringmaster_oldest_pending_age_seconds', queue));
    expect(oldest.oldestPending).not.toBeNull();
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((oldest.oldestPending?.ageMs ?? 0) / 1000);
  });

  it('counts the groups of every priority level as on the ring (ready, ring length)', async () => {
    const name = uniqueQueueName('metrics-levels');
    const q = api.server.engine.queue(name);
    await q.enqueue('a', null, { priority: 5 });
    await q.enqueue('b', null, { priority: 2 });
    await q.enqueue('c', null, { priority: 9 });
    expect(await q.ring()).toEqual(['b', 'a', 'c']);
    const m = await samples(api);
    expect(m.get(key('ringmaster_ring_length', { queue: name }))).toBe(3);
    expect(m.get(key('ringmaster_groups', { queue: name, state: 'ready' }))).toBe(3);
  });

  it('has its type, the counters as counters, and HEAD without a body', async () => {
    const r1 = await scrape(api);
    expect(r1.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(r1.text).toContain('# TYPE ringmaster_jobs_claimed_total counter');
    expect(r1.text).toContain('# TYPE ringmaster_groups gauge');
    expect(r1.text).toContain('# TYPE ringmaster_script_duration_seconds histogram');
    // prom-client's default process metrics.
    expect(r1.text).toContain('process_cpu_user_seconds_total');
    expect(r1.text).toContain('nodejs_eventloop_lag_seconds');
    const head = await fetch(`${api.server.url}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('reports 0 for a queue with nothing pending, and drops a queue that left the registry', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    const job = await q.enqueue('a', null);
    const claimed = await q.claim();
    await q.complete(job.id, claimed?.token as string);
    let m = await samples(api);
    expect(m.get(key('ringmaster_oldest_pending_age_seconds', { queue: name }))).toBe(0);
    expect(m.get(key('ringmaster_jobs_completed_total', { queue: name }))).toBe(1);
    await r.srem('emq:queues', name);
    m = await samples(api);
    expect(m.has(key('ringmaster_jobs_completed_total', { queue: name }))).toBe(false);
  });

  it('reports the queue cap and the sum of its reserves while a cap is set', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    await q.enqueue('a', null);
    let m = await samples(api);
    expect(m.has(key('ringmaster_queue_limit', { queue: name }))).toBe(false);
    expect(m.has(key('ringmaster_queue_reserved', { queue: name }))).toBe(false);
    await q.setQueueLimit(7);
    await q.setReserve('a', 3);
    await q.claim();
    m = await samples(api);
    expect(m.get(key('ringmaster_queue_limit', { queue: name }))).toBe(7);
    expect(m.get(key('ringmaster_queue_reserved', { queue: name }))).toBe(3);
    expect(m.get(key('ringmaster_jobs', { queue: name, state: 'active' }))).toBe(1);
    await q.clearQueueLimit();
    m = await samples(api);
    expect(m.has(key('ringmaster_queue_limit', { queue: name }))).toBe(false);
    expect(m.get(key('ringmaster_queue_reserved', { queue: name }))).toBe(3);
  });

  it('reports the queue’s schedules', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    await q.enqueue('a', null);
    expect((await samples(api)).get(key('ringmaster_schedules', { queue: name }))).toBe(0);
    await q.upsertSchedule({ id: 's1', group: 'a', everyMs: 60_000 });
    await q.upsertSchedule({ id: 's2', group: 'a', cron: '0 0 * * *' });
    expect((await samples(api)).get(key('ringmaster_schedules', { queue: name }))).toBe(2);
    await q.removeSchedule('s1');
    expect((await samples(api)).get(key('ringmaster_schedules', { queue: name }))).toBe(1);
  });

  it('reports the live workers of a queue, a fleet of 1,000 too, and not the lapsed ones', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    await q.enqueue('a', null);
    let m = await samples(api);
    expect(m.get(key('ringmaster_workers', { queue: name }))).toBe(0);
    await Promise.all(
      Array.from({ length: 1_000 }, (_, i) =>
        q.workerHeartbeat({ id: `w-${i}`, heartbeatMs: 60_000, active: 1 }),
      ),
    );
    // Lapsed as soon as they beat (3 × 1 ms): never counted.
    await q.workerHeartbeat({ id: 'lapsed', heartbeatMs: 1 });
    await untilRedisTimePasses(r, (await redisNow(r)) + 5);
    m = await samples(api);
    expect(m.get(key('ringmaster_workers', { queue: name }))).toBe(1_000);
    await q.removeWorker('w-0');
    m = await samples(api);
    expect(m.get(key('ringmaster_workers', { queue: name }))).toBe(999);
  });

  it('leaves out a queue it cannot read, counts the failure, and answers the rest', async () => {
    const bad = uniqueQueueName('metrics');
    const good = uniqueQueueName('metrics');
    await api.server.engine.queue(bad).enqueue('a', null);
    await api.server.engine.queue(good).enqueue('a', null);
    const before = await samples(api);
    // Another writer's key of the wrong type: the queue's script fails (WRONGTYPE).
    await r.del(api.server.engine.queue(bad).keys.ring);
    await r.set(api.server.engine.queue(bad).keys.ring, 'not a list');
    const after = await samples(api);
    expect(after.get('ringmaster_metrics_read_errors_total')).toBe(
      (before.get('ringmaster_metrics_read_errors_total') ?? 0) + 1,
    );
    expect(after.has(key('ringmaster_jobs_enqueued_total', { queue: bad }))).toBe(false);
    expect(after.get(key('ringmaster_jobs_enqueued_total', { queue: good }))).toBe(1);
    await r.del(api.server.engine.queue(bad).keys.ring);
  });

  it('shares one read between scrapes that arrive together', async () => {
    let reads = 0;
    const engine = new Ringmaster(r, {
      onScript: (name) => {
        if (name === 'readMetrics') reads++;
      },
    });
    const metrics = new ServerMetrics();
    metrics.attach({ engine, feed: api.server.feed });
    const queues = (await engine.queues()).length;
    const texts = await Promise.all([metrics.scrape(), metrics.scrape(), metrics.scrape()]);
    expect(reads).toBe(queues);
    for (const text of texts) expect(text).toContain('ringmaster_jobs_enqueued_total{queue=');
    await metrics.scrape();
    expect(reads).toBe(2 * queues);
  });

  it('times every script call of the server engine by script and result', async () => {
    const name = uniqueQueueName('metrics');
    const q = api.server.engine.queue(name);
    const before = await samples(api);
    const countOf = (m: Samples, script: string, result: string) =>
      m.get(key('ringmaster_script_duration_seconds_count', { script, result })) ?? 0;
    for (let i = 0; i < 5; i++) await q.enqueue('a', null);
    // A refused stored number: the enqueue script fails (DATA_OUT_OF_RANGE).
    await r.set(q.keys.seq, 'garbage');
    await expect(q.enqueue('a', null)).rejects.toMatchObject({ code: 'DATA_OUT_OF_RANGE' });
    const after = await samples(api);
    expect(countOf(after, 'enqueue', 'ok') - countOf(before, 'enqueue', 'ok')).toBe(5);
    expect(countOf(after, 'enqueue', 'error') - countOf(before, 'enqueue', 'error')).toBe(1);
    // Each scrape runs readMetrics once per queue: it is timed too.
    expect(countOf(after, 'readMetrics', 'ok')).toBeGreaterThan(
      countOf(before, 'readMetrics', 'ok'),
    );
  });

  it('counts GraphQL operations by name and result, anonymous ones as anonymous', async () => {
    const op = (m: Samples, operation: string, type: string, result: string) =>
      m.get(key('ringmaster_graphql_operations_total', { operation, type, result })) ?? 0;
    const before = await samples(api);
    expect((await gql(api, 'query MetricsViewer { viewer { role } }')).errors).toBeUndefined();
    expect((await gql(api, 'query MetricsViewer { viewer { role } }')).errors).toBeUndefined();
    expect((await gql(api, '{ viewer { role } }')).errors).toBeUndefined();
    const refused = await gql(
      api,
      'mutation MetricsBadLimit($q: String!) { setLimit(queue: $q, group: "g", limit: -1) { limit } }',
      { q: uniqueQueueName('metrics') },
    );
    expect(refused.errors).toBeDefined();
    expect((await gql(api, 'query MetricsInvalid { nope }')).errors).toBeDefined();
    const after = await samples(api);
    expect(
      op(after, 'MetricsViewer', 'query', 'ok') - op(before, 'MetricsViewer', 'query', 'ok'),
    ).toBe(2);
    expect(op(after, 'anonymous', 'query', 'ok') - op(before, 'anonymous', 'query', 'ok')).toBe(1);
    expect(
      op(after, 'MetricsBadLimit', 'mutation', 'error') -
        op(before, 'MetricsBadLimit', 'mutation', 'error'),
    ).toBe(1);
    expect(
      op(after, 'MetricsInvalid', 'query', 'error') -
        op(before, 'MetricsInvalid', 'query', 'error'),
    ).toBe(1);
  });

  it('bounds the operation names: past the cap a new name counts as other', async () => {
    for (let i = 0; i < MAX_OPERATION_NAMES + 5; i++) {
      await gql(api, `query MetricsCap${i} { viewer { role } }`);
    }
    const m = await samples(api);
    const names = new Set(
      [...m.keys()]
        .filter((k) => k.startsWith('ringmaster_graphql_operations_total{'))
        .map((k) => /operation="([^"]*)"/.exec(k)?.[1]),
    );
    expect(names.size).toBeLessThanOrEqual(MAX_OPERATION_NAMES + 2); // + anonymous, other
    expect(names.has('other')).toBe(true);
    expect(names.has(`MetricsCap${MAX_OPERATION_NAMES + 4}`)).toBe(false);
  });

  it('shows the live feed: subscribers, watches, mode and subscriber health', async () => {
    const name = uniqueQueueName('metrics');
    const client = api.ws();
    const events: unknown[] = [];
    const stop = client.subscribe(
      { query: print(RingChangedDocument), variables: { queue: name } },
      { next: (e) => events.push(e), error: () => {}, complete: () => {} },
    );
    await pollUntil('the first ring event', async () => events.length > 0, 5_000);
    const m = await samples(api);
    expect(m.get('ringmaster_feed_subscribers')).toBe(1);
    expect(m.get('ringmaster_feed_watches')).toBe(1);
    expect(m.get(key('ringmaster_feed_mode', { mode: 'notifications' }))).toBe(1);
    expect(m.get(key('ringmaster_feed_mode', { mode: 'polling' }))).toBe(0);
    expect(m.get('ringmaster_feed_subscriber_up')).toBe(1);
    stop();
    await client.dispose();
  });

  it('keeps no watch for a subscription asked over plain HTTP (406)', async () => {
    await pollUntil('no watch left by earlier tests', async () => {
      return (await samples(api)).get('ringmaster_feed_watches') === 0;
    });
    for (let i = 0; i < 3; i++) {
      const response = await fetch(api.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          query: print(RingChangedDocument),
          variables: { queue: uniqueQueueName('unaccepted') },
        }),
      });
      expect(response.status).toBe(406);
      const answer = (await response.json()) as { errors: { extensions: { code: string } }[] };
      expect(answer.errors[0]?.extensions.code).toBe('BAD_REQUEST');
    }
    // Yoga subscribed before it found no processor for the stream; the stream was ended.
    await pollUntil('the refused subscriptions’ watches released', async () => {
      const m = await samples(api);
      return m.get('ringmaster_feed_watches') === 0 && m.get('ringmaster_feed_subscribers') === 0;
    });
  });

  it('refuses a Host that is not loopback (DNS rebinding), as /graphql does', async () => {
    const { request } = await import('node:http');
    const url = new URL(`${api.server.url}/metrics`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/metrics', headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it.skipIf(process.env.REDIS_URL !== undefined)(
    'costs the same Redis commands per scrape at 30 and at 1,000 groups (per-group series: the top 20)',
    async () => {
      const name = uniqueQueueName('metrics');
      const q = api.server.engine.queue(name);
      /** Commands Redis ran (scripts' own commands included), INFO itself left out. */
      const commands = async () => {
        const info = await r.info('commandstats');
        let total = 0;
        for (const [, cmd, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
          if (cmd !== 'info') total += Number(calls);
        }
        return total;
      };
      const perScrape = async () => {
        await samples(api); // settle the oldest-pending index first
        const before = await commands();
        await samples(api);
        return (await commands()) - before;
      };
      // More groups than METRICS_TOP_GROUPS (20 by default) either way: the per-group series
      // read that many groups whatever the number of tenants.
      for (let g = 0; g < 30; g++) await q.enqueue(`g${g}`, null);
      const at30 = await perScrape();
      for (let g = 30; g < 1_000; g++) await q.enqueue(`g${g}`, null);
      expect(await r.zcard(q.keys.groups)).toBe(1_000);
      const at1000 = await perScrape();
      console.log(`metrics scrape: ${at30} Redis commands at 30 groups, ${at1000} at 1,000`);
      expect(at1000).toBe(at30);
      // O(queues × N): SMEMBERS, and per queue the metrics script and two topGroups scripts
      // (each ≤ 16 reads per group answered, N = 20).
      expect(at30).toBeLessThan((30 + 2 * 20 * 16) * (await r.scard('emq:queues')) + 5);
    },
    60_000,
  );
});

describe('GET /metrics with AUTH_TOKENS', () => {
  const READ = 'read-token-0123456789';
  const ADMIN = 'admin-token-0123456789';
  const METRICS = 'metrics-token-0123456789';
  const api = useTestServer(
    {
      AUTH_TOKENS: `read:${READ},admin:${ADMIN}`,
      METRICS_TOKEN: METRICS,
      REAP_INTERVAL_MS: '86400000',
    },
    { redis },
  );

  it('is 401 without a token or with a wrong one', async () => {
    const none = await scrape(api);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.text).not.toContain('ringmaster_');
    expect((await scrape(api, { token: 'not-a-token-at-all-000' })).status).toBe(401);
  });

  it('is 200 with a token of any role, or with METRICS_TOKEN', async () => {
    for (const token of [READ, ADMIN, METRICS]) {
      const r = await scrape(api, { token });
      expect(r.status, token).toBe(200);
      expect(r.text).toContain('ringmaster_feed_mode');
    }
  });

  it('METRICS_TOKEN opens /metrics only, not /graphql', async () => {
    const response = await fetch(api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${METRICS}` },
      body: JSON.stringify({ query: '{ viewer { role } }' }),
    });
    expect(response.status).toBe(401);
  });
});

describe('METRICS_TOKEN configuration', () => {
  it('needs 16 characters and AUTH_TOKENS, and is masked in the message', () => {
    const base = { REDIS_URL: 'redis://127.0.0.1:1' };
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short-secret' })).toThrow(ConfigError);
    try {
      loadConfig({
        ...base,
        AUTH_TOKENS: 'read:read-token-0123456789',
        METRICS_TOKEN: 'short-secret',
      });
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message).toMatch(/^METRICS_TOKEN=\*\*\*\*: must have 16 or more/);
      expect((error as Error).message).not.toContain('short-secret');
    }
    expect(() => loadConfig({ ...base, METRICS_TOKEN: 'metrics-token-0123456789' })).toThrow(
      /METRICS_TOKEN=\*\*\*\*: is set without AUTH_TOKENS/,
    );
    expect(
      loadConfig({
        ...base,
        AUTH_TOKENS: 'read:read-token-0123456789',
        METRICS_TOKEN: 'metrics-token-0123456789',
      }).metricsToken,
    ).toBe('metrics-token-0123456789');
    expect(loadConfig(base).metricsToken).toBeNull();
    // A token of AUTH_TOKENS would open all its role opens, not only /metrics.
    try {
      loadConfig({
        ...base,
        AUTH_TOKENS: 'alice=admin:admin-token-0123456789',
        METRICS_TOKEN: 'admin-token-0123456789',
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(
        /^METRICS_TOKEN=\*\*\*\*: is also a token of AUTH_TOKENS/,
      );
      expect((error as Error).message).not.toContain('admin-token-0123456789');
    }
  });
});
