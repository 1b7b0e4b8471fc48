/**
 * The console's backlog bound of a group (GroupMaxPending.tsx; DESIGN.md §3, "Backlog bounds"),
 * in headless Chromium against the real server over a real Redis: an admin sets a group's bound
 * beside its limit, sees a bad one refused in words with nothing written, and clears it. Each
 * step is checked in Redis and on the page; the page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console backlog bound — SKIPPED: ${CHROMIUM} is not installed`
    : 'console backlog bound in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('sets and clears a group’s backlog bound, as Redis holds it', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-mp');
      try {
        const q = server.server.engine.queue(queue);
        for (let i = 0; i < 2; i += 1) await q.enqueue('acme', { i });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.locator('table.groups tr[data-group="acme"]').click();
        const value = page.getByTestId('max-pending-value');
        await waitText(value, /^none of its own$/);

        await page.getByLabel('New backlog bound').fill('2');
        await page.getByRole('button', { name: 'Set bound' }).click();
        await waitText(page.getByTestId('max-pending-outcome'), /Redis shows backlog bound 2/);
        await waitText(value, /^2 waiting jobs$/);
        expect(await q.redis.hget(q.keys.maxPending, 'acme')).toBe('2');
        await expect(q.enqueue('acme', 3)).rejects.toMatchObject({ code: 'GROUP_FULL' });
        await shot(page, 'max-pending-01-set');

        // Past the range: refused in words, nothing written.
        await page.getByLabel('New backlog bound').fill('1000000001');
        await page.getByRole('button', { name: 'Set bound' }).click();
        await waitText(page.getByTestId('max-pending-outcome'), /whole number of waiting jobs/);
        expect(await q.redis.hget(q.keys.maxPending, 'acme')).toBe('2');

        await page.getByRole('button', { name: 'Clear bound' }).click();
        await waitText(page.getByTestId('max-pending-outcome'), /Redis shows no backlog bound/);
        await waitText(value, /^none of its own$/);
        expect(await q.redis.hexists(q.keys.maxPending, 'acme')).toBe(0);
        await q.enqueue('acme', 3);

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
