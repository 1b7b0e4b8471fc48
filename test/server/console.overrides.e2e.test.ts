/**
 * Timed overrides in the console (DESIGN.md §4.8), in headless Chromium against the
 * real server over a real Redis: an admin pauses a group for 12 minutes from the group panel and
 * sees "Paused for 12 more minutes, then resumes" (and the reason's clause), cancels it (still
 * paused, nothing pending), resumes it for 10 minutes and sees "Resumed for 10 more minutes,
 * then paused again" (and cancels that), sets a limit for 5 minutes and sees "Limit 2 for … then no limit",
 * and a duration that does not read is refused in words. The page must log no error.
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
    ? `console timed overrides — SKIPPED: ${CHROMIUM} is not installed`
    : 'console timed overrides in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('pauses for a while, shows the time left, cancels; sets a limit for a while', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-overrides');
      try {
        const q = server.server.engine.queue(queue);
        for (let i = 0; i < 3; i += 1) await q.enqueue('acme', { i });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.locator('table.groups tr[data-group="acme"]').click();
        const reason = page.getByTestId('reason');
        await waitText(reason, /^On the ring/);
        // A group that runs is offered no timed resume (it would change nothing).
        expect(await page.getByRole('button', { name: 'Timed resume' }).count()).toBe(0);

        // A duration that does not read is refused in words, and nothing is sent.
        await page.getByLabel('For how long').fill('soon');
        await page.getByRole('button', { name: 'Timed pause' }).click();
        await waitText(page.getByTestId('override-outcome'), /A duration is like 90s, 10m/);
        expect((await q.group('acme')).paused).toBe(false);

        // Pause for 12 minutes.
        await page.getByLabel('For how long').fill('12m');
        await page.getByRole('button', { name: 'Timed pause' }).click();
        await waitText(
          page.getByTestId('override-pause'),
          /^Paused for 1[12] more minutes, then resumes\./,
        );
        await waitText(reason, /paused for 1[12] more minutes, then resumes\.$/);
        expect((await q.group('acme')).pauseOverride).toMatchObject({ revertTo: false });
        await shot(page, 'overrides-01-paused-for');

        // Cancel: still paused, nothing pending.
        await page.getByRole('button', { name: 'Cancel the timed pause' }).click();
        await page.getByTestId('override-pause').waitFor({ state: 'detached' });
        expect(await q.group('acme')).toMatchObject({ paused: true, pauseOverride: null });
        await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();

        // Resume for 10 minutes: on the ring now, paused again at the deadline; cancel it.
        await page.getByLabel('For how long').fill('10m');
        await page.getByRole('button', { name: 'Timed resume' }).click();
        await waitText(
          page.getByTestId('override-pause'),
          /^Resumed for (9|10) more minutes, then paused again\./,
        );
        await waitText(reason, /resumed for (9|10) more minutes, then paused again\.$/);
        expect(await q.group('acme')).toMatchObject({
          paused: false,
          onRing: true,
          pauseOverride: { revertTo: true },
        });
        await shot(page, 'overrides-01b-resumed-for');
        await page.getByRole('button', { name: 'Cancel the timed resume' }).click();
        await page.getByTestId('override-pause').waitFor({ state: 'detached' });
        expect(await q.group('acme')).toMatchObject({ paused: false, pauseOverride: null });
        await q.pause('acme');
        await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();

        // A limit for 5 minutes.
        await page.getByLabel('For how long').fill('5m');
        await page.getByLabel('Limit for a while').fill('2');
        await page.getByRole('button', { name: 'Timed limit' }).click();
        await waitText(
          page.getByTestId('override-limit'),
          /^Limit 2 for [45] more minutes, then no limit\./,
        );
        expect(await q.group('acme')).toMatchObject({
          limit: 2,
          limitOverride: { revertTo: null },
        });
        await shot(page, 'overrides-02-limit-for');

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
