/**
 * The console's queue cap and group reserve (QueueCap.tsx, GroupReserve.tsx; DESIGN.md §3, "The
 * queue's cap and reserves"), in headless Chromium against the real server over a real Redis:
 * an admin sets the cap beside the queue's controls and sees the jobs in flight against it, sets
 * a group's reserve beside its limit, sees a cap below the reserves refused in words, sees a
 * timed cap's pending revert (`Queue.limitOverride`) until a plain set drops it, and clears both. Each step is checked in Redis and on the page; the page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console queue cap and reserve — SKIPPED: ${CHROMIUM} is not installed`
    : 'console queue cap and reserve in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('sets and clears the queue cap and a group reserve, as Redis holds them', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-cap');
      try {
        const q = server.server.engine.queue(queue);
        for (let i = 0; i < 3; i += 1) await q.enqueue('acme', { i });
        await q.claim({ leaseMs: 600_000 });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        const capValue = page.getByTestId('queue-cap-value');
        await waitText(capValue, /^no cap \(1 in flight\)$/);

        await page.getByLabel('New cap').fill('2');
        await page.getByRole('button', { name: 'Set cap' }).click();
        await waitText(page.getByTestId('queue-cap-outcome'), /Redis shows cap 2/);
        await waitText(capValue, /^cap 1 \/ 2$/);
        expect(await q.redis.hget(q.keys.settings, 'limit')).toBe('2');

        // The reserve, beside the group's limit.
        await page.locator('table.groups tr[data-group="acme"]').click();
        const reserve = page.getByTestId('reserve-value');
        await waitText(reserve, /^none$/);
        await page.getByLabel('New reserve').fill('2');
        await page.getByRole('button', { name: 'Set reserve' }).click();
        await waitText(page.getByTestId('reserve-outcome'), /Redis shows reserve 2/);
        await waitText(reserve, /^2 of the queue's cap$/);
        expect(await q.redis.hget(q.keys.reserve, 'acme')).toBe('2');
        await waitText(capValue, /^cap 1 \/ 2, reserves 2$/);
        await shot(page, 'cap-01-reserve');

        // A cap below the reserves: refused in words, nothing written.
        await page.getByLabel('New cap').fill('1');
        await page.getByRole('button', { name: 'Set cap' }).click();
        await waitText(page.getByTestId('queue-cap-outcome'), /failed.*reserves/i);
        expect(await q.redis.hget(q.keys.settings, 'limit')).toBe('2');

        await page.getByLabel('New reserve').fill('0');
        await page.getByRole('button', { name: 'Set reserve' }).click();
        await waitText(reserve, /^none$/);
        // A timed cap shows its pending revert, as a group's timed limit does; a plain set drops it.
        const revert = page.getByTestId('queue-cap-override');
        expect(await revert.count()).toBe(0);
        await q.setQueueLimit(1, { forMs: 600_000 });
        await waitText(revert, /^Cap 1 for 10 more minutes, then 2\.$/);
        await waitText(capValue, /^cap \d \/ 1$/);
        // At the cap, the group's panel says what holds it (blockedBy QUEUE_LIMIT).
        const detail = page.getByTestId('detail');
        await waitText(detail.locator('[data-standing="capped"]'), /^queue at cap$/);
        await waitText(
          detail.getByTestId('reason'),
          /^Waiting for a permit: the queue is at its cap/,
        );
        await shot(page, 'cap-02-timed');
        await page.getByLabel('New cap').fill('3');
        await page.getByRole('button', { name: 'Set cap' }).click();
        await waitText(capValue, /^cap \d \/ 3$/);
        await waitFor('the revert gone', async () => (await revert.count()) === 0);

        await page.getByRole('button', { name: 'Clear cap' }).click();
        await waitText(capValue, /^no cap \(\d in flight\)$/);
        expect(await q.redis.hexists(q.keys.settings, 'limit')).toBe(0);
        expect(await q.cap()).toMatchObject({ limit: null, reserved: 0 });

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
