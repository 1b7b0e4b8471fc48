/**
 * `GET /metrics`' per-group series (DESIGN.md §4.7, §6 METRICS_TOP_GROUPS):
 * `ringmaster_group_pending` and `ringmaster_group_oldest_pending_age_seconds` for the top N
 * groups of each queue — by pending jobs and by oldest pending job — so the series are bounded by
 * N whatever the number of groups; 0 turns them off; a bad value is refused in one line.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config.js';
import { redisNow, uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { type TestServer, useTestServer } from '../support/server.js';

const redis = useTestRedis();
const QUIET = { REAP_INTERVAL_MS: '86400000', RESYNC_INTERVAL_MS: '86400000' };

/** The samples of `name` for `queue`: group → value. */
async function series(api: TestServer, name: string, queue: string): Promise<Map<string, number>> {
  const response = await fetch(`${api.server.url}/metrics`);
  expect(response.status).toBe(200);
  const out = new Map<string, number>();
  const prefix = `${name}{queue="${queue}",group="`;
  for (const line of (await response.text()).split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const end = line.indexOf('"}', prefix.length);
    out.set(line.slice(prefix.length, end), Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

describe('per-group series, METRICS_TOP_GROUPS=3', () => {
  const api = useTestServer({ ...QUIET, METRICS_TOP_GROUPS: '3' }, { redis });

  it('exports the top 3 groups by pending and by oldest pending job, no more', async () => {
    const queue = uniqueQueueName('topmetrics');
    const q = api.server.engine.queue(queue);
    // Enqueue order a, b, c, d, e, f (a oldest); pending counts 1, 2, 3, 4, 5, 6.
    const groups = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const g of groups) await q.enqueue(g, null);
    for (const [i, g] of groups.entries()) for (let n = 0; n < i; n++) await q.enqueue(g, null);
    expect(await series(api, 'ringmaster_group_pending', queue)).toEqual(
      new Map([
        ['f', 6],
        ['e', 5],
        ['d', 4],
      ]),
    );
    const before = await redisNow(redis.client());
    const ages = await series(api, 'ringmaster_group_oldest_pending_age_seconds', queue);
    expect([...ages.keys()]).toEqual(['a', 'b', 'c']);
    const enqueuedAt = Number(await redis.client().hget(q.keys.job('1'), 'enqueuedAt'));
    const age = ages.get('a') as number;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThanOrEqual((before - enqueuedAt) / 1000 + 5);

    // The ranking moves with the work: the claim takes a's only job; a leaves the age series.
    await q.claim();
    expect([
      ...(await series(api, 'ringmaster_group_oldest_pending_age_seconds', queue)).keys(),
    ]).toEqual(['b', 'c', 'd']);
    // 100 more groups of one job each: still 3 series per metric for this queue.
    await q.enqueueMany(Array.from({ length: 100 }, (_, i) => ({ group: `x${i}`, payload: i })));
    expect((await series(api, 'ringmaster_group_pending', queue)).size).toBe(3);
    expect((await series(api, 'ringmaster_group_oldest_pending_age_seconds', queue)).size).toBe(3);
  });
});

describe('per-group series, METRICS_TOP_GROUPS=0', () => {
  const api = useTestServer({ ...QUIET, METRICS_TOP_GROUPS: '0' }, { redis });

  it('exports none', async () => {
    const queue = uniqueQueueName('topmetrics');
    await api.server.engine.queue(queue).enqueue('a', null);
    const response = await fetch(`${api.server.url}/metrics`);
    const text = await response.text();
    expect(text).toContain(`ringmaster_jobs{queue="${queue}",state="pending"} 1`);
    expect(text).not.toMatch(/^ringmaster_group_pending\{/m);
    expect(text).not.toMatch(/^ringmaster_group_oldest_pending_age_seconds\{/m);
  });
});

describe('METRICS_TOP_GROUPS configuration', () => {
  const base = { REDIS_URL: 'redis://127.0.0.1:1' };

  it('defaults to 20, takes 0..100, and refuses anything else in one line', () => {
    expect(loadConfig(base).metricsTopGroups).toBe(20);
    expect(loadConfig({ ...base, METRICS_TOP_GROUPS: '0' }).metricsTopGroups).toBe(0);
    expect(loadConfig({ ...base, METRICS_TOP_GROUPS: '100' }).metricsTopGroups).toBe(100);
    for (const bad of ['101', '-1', 'ten', '2.5']) {
      let error: unknown;
      try {
        loadConfig({ ...base, METRICS_TOP_GROUPS: bad });
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).toBeInstanceOf(ConfigError);
      const message = (error as Error).message;
      expect(message).toMatch(
        /^METRICS_TOP_GROUPS=.*: must be a whole number from 0 \(no per-group series\) to 100/,
      );
      expect(message).not.toContain('\n');
    }
  });
});
