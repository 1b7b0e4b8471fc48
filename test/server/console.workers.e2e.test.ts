/**
 * The console's Workers panel (WorkersPanel.tsx; DESIGN.md §4.9 "Workers"), in headless
 * Chromium against the real server over a real Redis: a queue with no live worker says so; a
 * running Worker appears with its host, pid, concurrency, the job it holds and its version, as
 * its heartbeat wrote them in Redis; a GraphQL client shows dashes for what it does not say; a
 * Worker that closes leaves the panel. The page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Worker } from '../../src/lanes/index.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { pollUntil } from '../support/lanes.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console workers panel — SKIPPED: ${CHROMIUM} is not installed`
    : 'console workers panel in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('lists the live workers as Redis holds them, and drops one that closes', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-workers');
      let worker: Worker | null = null;
      try {
        const q = server.server.engine.queue(queue);
        await q.enqueue('acme', { n: 1 });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        const panel = page.getByTestId('workers');
        await waitText(page.getByTestId('no-workers'), /No worker is connected/);

        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        worker = new Worker(q, () => held, { id: 'e2e-worker', concurrency: 2, heartbeatMs: 500 });
        await pollUntil('the job held', async () => (await q.workers())[0]?.active === 1);
        await q.workerHeartbeat({ id: 'api-client', heartbeatMs: 60_000 });

        const row = panel.locator('tr[data-worker="e2e-worker"]');
        await waitText(row.locator('[data-field="active"]'), /^1$/);
        // What the page shows is what the heartbeat wrote in Redis.
        const stored = JSON.parse(
          (await q.redis.hget(q.keys.workerInfo, 'e2e-worker')) as string,
        ) as { hostname: string; pid: number; concurrency: number; version: string };
        expect(stored).toMatchObject({ hostname: hostname(), pid: process.pid, concurrency: 2 });
        expect(await row.locator('[data-field="hostname"]').textContent()).toBe(stored.hostname);
        expect(await row.locator('[data-field="pid"]').textContent()).toBe(
          stored.pid.toLocaleString('en-US'),
        );
        expect(await row.locator('[data-field="concurrency"]').textContent()).toBe('2');
        expect(await row.locator('[data-field="version"]').textContent()).toBe(stored.version);
        await waitText(row.locator('[data-field="last-seen"]'), /ago|just now/);

        const client = panel.locator('tr[data-worker="api-client"]');
        await waitText(client.locator('[data-field="hostname"]'), /^–$/);
        expect(await client.locator('[data-field="pid"]').textContent()).toBe('–');
        expect(await client.textContent()).toContain('(API client)');
        await waitText(page.getByTestId('workers-count'), /^2 live · 1 job held$/);
        await shot(page, 'workers-01-two');

        release();
        await worker.close();
        worker = null;
        expect(await q.redis.zscore(q.keys.workers, 'e2e-worker')).toBeNull();
        await pollUntil('the row gone', async () => (await row.count()) === 0);
        await waitText(page.getByTestId('workers-count'), /^1 live · 0 jobs held$/);
        expect(errors).toEqual([]);
      } finally {
        await worker?.close({ timeoutMs: 1 });
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
