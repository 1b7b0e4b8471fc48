/**
 * The console's History panels (DESIGN.md §4.6) in headless Chromium against the real
 * server with named tokens: the queue page's panel lists the queue's steering actions newest
 * first with who did them, and a new action appears live (historyAdded); a group's detail shows
 * that group's actions only. The page must log no error.
 *
 * Needs /usr/bin/chromium; without it the file is skipped, except under CI, where it fails.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;
const ADMIN = 'alice-admin-token-0123456789';

describe.skipIf(skip)(
  skip
    ? `console history — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console history in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('lists who steered the queue, live, and a group’s own actions in its detail', async () => {
      const server = await startTestServer(redis.url, { AUTH_TOKENS: `alice=admin:${ADMIN}` });
      const { page, errors } = await browser.openPage();
      const queue = queueName('history');
      try {
        const q = server.server.engine.queue(queue);
        await q.enqueue('acme');
        await q.enqueue('globex');
        await q.purgeGroup('globex', {}, { actor: 'cleanup-bot' });
        await q.setRetention({ completed: { count: 5 } }, { actor: 'ops' });

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByLabel('Token').fill(ADMIN);
        await page.keyboard.press('Enter');
        const panel = page.getByTestId('history').first();
        await waitText(
          panel,
          /setRetention by ops.*completed\.count: 1000 → 5.*purgeGroup · globex by cleanup-bot.*pending: 1 → 0/s,
        );
        await shot(page, 'history-01-queue');

        // A new action over the API, by the signed-in token's name: it appears on top, live.
        await page.getByRole('button', { name: 'Pause queue' }).click();
        await waitText(panel, /pauseQueue by alice.*paused: false → true.*setRetention/s);
        await shot(page, 'history-02-live');
        // The queue's head counts the queue's entries: the stream's three.
        await waitText(panel.locator('.panel-head'), /every steering action of the queue · 3 kept/);
        // The COMPLETED tile says its count is the jobs the retention keeps.
        const completed = page.locator('.kpi', { has: page.locator('[data-kpi="completed"]') });
        expect(await completed.locator('dt').textContent()).toBe('completed (kept)');

        // A group's detail: its own history only.
        await page.goto(`${server.server.url}/#queue=${queue}&group=globex`);
        const detail = page.getByTestId('detail').getByTestId('history');
        await waitText(detail, /purgeGroup by cleanup-bot/);
        expect(await detail.textContent()).not.toMatch(/setRetention|pauseQueue/);
        // Its head counts its own entries (one), not the queue's three.
        await waitText(detail.locator('.panel-head'), /this group’s · 1 kept/);
        await shot(page, 'history-03-group');
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    });
  },
);
