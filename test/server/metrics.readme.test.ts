/**
 * docs/metrics.md against a real `/metrics` (DESIGN.md §4.7): every metric the page names —
 * in its list and in its PromQL — is one the server exports, with the labels the text gives it
 * (`name{a,b}`, `name{state=x|y}`, `name{state="x"}`) and no others that it says it has. A page
 * that promised `ringmaster_metrics_read_errors_total{queue}` for a metric with no labels sent
 * operators to write queries that match nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { escapeGlob, scanAll, uniqueQueueName } from '../support/lanes.js';
import { useTestRedis } from '../support/redis.js';
import { useTestServer } from '../support/server.js';

const redis = useTestRedis();

/** docs/metrics.md, the metrics' guide. */
function metricsSection(): string {
  const page = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
  expect(page.startsWith('# Metrics\n')).toBe(true);
  return page;
}

/** A metric as the section names it: its name and the label names it writes after it. */
interface Named {
  readonly name: string;
  readonly labels: readonly string[];
}

/**
 * Every `ringmaster_…` name in `text`: `prefix_{a,b}_suffix` is a brace list of names (the page
 * writes the counters so); `name{…}` gives labels, `l`, `l=v|w` or `l="v"` separated by commas.
 */
function namedMetrics(text: string): Named[] {
  const named: Named[] = [];
  for (const m of text.matchAll(/ringmaster_([a-z_]*)(?:\{([^}]*)\}([a-z_]*))?/g)) {
    const [, head = '', braces, tail = ''] = m;
    if (braces !== undefined && tail !== '') {
      for (const part of braces.split(','))
        named.push({ name: `ringmaster_${head}${part.trim()}${tail}`, labels: [] });
      continue;
    }
    const labels = (braces ?? '')
      .split(',')
      .map((l) => (l.split('=')[0] as string).trim())
      .filter((l) => l !== '');
    named.push({ name: `ringmaster_${head}`, labels });
  }
  return named;
}

/** The exported metrics: name → the label names its samples carry (histogram series folded in). */
function exported(text: string): Map<string, Set<string>> {
  const metrics = new Map<string, Set<string>>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) metrics.set(type[1] as string, new Set());
  }
  for (const line of text.split('\n')) {
    const sample = /^([a-z_]+?)(?:_bucket|_sum|_count)?(?:\{([^}]*)\})? /.exec(line);
    if (!sample || line.startsWith('#')) continue;
    const labels = metrics.get(sample[1] as string);
    for (const pair of (sample[2] ?? '').split(',')) {
      const label = pair.split('=')[0] as string;
      if (label !== '' && label !== 'le') labels?.add(label);
    }
  }
  return metrics;
}

describe('docs/metrics.md', () => {
  const api = useTestServer(
    {
      REAP_INTERVAL_MS: '86400000',
      RESYNC_INTERVAL_MS: '86400000',
    },
    { redis },
  );

  it('names only metrics the server exports, with the labels they have', async () => {
    // A queue with a job, and a GraphQL operation: every labelled series has a sample.
    await api.server.engine.queue(uniqueQueueName('readme')).enqueue('g', 1);
    // A queue whose state Redis lost (its keys deleted by hand), for the loss counter's labels.
    const lost = api.server.engine.queue(uniqueQueueName('readme-lost'));
    await lost.enqueue('g', 1);
    await api.server.engine.checkState();
    const client = redis.client();
    await client.del(...(await scanAll(client, `${escapeGlob(lost.keys.base)}*`)));
    await api.server.engine.checkState();
    await fetch(api.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { role } }' }),
    });
    const metrics = exported(await (await fetch(`${api.server.url}/metrics`)).text());
    const named = namedMetrics(metricsSection());
    expect(named.length).toBeGreaterThan(20);
    for (const entry of named) {
      // A histogram's series (`_bucket`, …) are its metric's.
      const base = entry.name.replace(/_(bucket|sum|count)$/, '');
      const name = metrics.has(entry.name) ? entry.name : base;
      const { labels } = entry;
      expect(metrics.has(name), `${name} is not exported`).toBe(true);
      for (const label of labels) {
        expect([...(metrics.get(name) ?? [])], `${name} has no label ${label}`).toContain(label);
      }
    }
  });

  it('reads the brace lists and label forms the section uses', () => {
    expect(namedMetrics('`ringmaster_jobs_{enqueued,\nclaimed}_total`, x')).toEqual([
      { name: 'ringmaster_jobs_enqueued_total', labels: [] },
      { name: 'ringmaster_jobs_claimed_total', labels: [] },
    ]);
    expect(
      namedMetrics('ringmaster_groups{state=ready|\nsaturated} ringmaster_x{script,result}'),
    ).toEqual([
      { name: 'ringmaster_groups', labels: ['state'] },
      { name: 'ringmaster_x', labels: ['script', 'result'] },
    ]);
    expect(namedMetrics('max(ringmaster_groups{state="saturated"}[5m])')).toEqual([
      { name: 'ringmaster_groups', labels: ['state'] },
    ]);
  });
});
