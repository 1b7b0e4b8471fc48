/**
 * The console's rate-limit and weight controls (RateLimitControl.tsx, GroupWeight.tsx),
 * in headless Chromium against the real server over a real Redis: an admin sets a group's rate
 * limit from the group panel and sees it, sees it used up once its claims reach it, clears it;
 * sets a weight and sets it back to 1 (which clears it). Each step is checked in Redis (`grate`,
 * `gwindow`, `gweight`) and on the panel; a value out of range is refused (in words, or by the
 * field's own bounds) and sends nothing. The page must log no error.
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
    ? `console rate limit and weight — SKIPPED: ${CHROMIUM} is not installed`
    : 'console rate limit and weight in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('sets, shows and clears a rate limit and a weight, as Redis holds them', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-steering');
      try {
        const q = server.server.engine.queue(queue);
        for (let i = 0; i < 3; i += 1) await q.enqueue('acme', { i });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.locator('table.groups tr[data-group="acme"]').click();
        const rateNow = page.getByTestId('rate-now');
        await waitText(rateNow, /^no rate limit$/);
        const clearRate = page.getByRole('button', { name: 'Clear rate' });
        expect(await clearRate.isDisabled()).toBe(true);

        // Past 1,000,000 claims: refused in words, nothing sent.
        await page.getByLabel('Tokens per window').fill('2000000');
        await page.getByLabel('Window (seconds)').fill('60');
        await page.getByRole('button', { name: 'Set rate' }).click();
        await waitText(
          page.getByTestId('rate-limit').getByRole('status'),
          /^Tokens per window is a whole number, 1 to 1,000,000\./,
        );
        expect(await q.redis.hexists(q.keys.rate, 'acme')).toBe(0);

        // 2 tokens per 60 s, a burst of 2 (the field left empty: max).
        await page.getByLabel('Tokens per window').fill('2');
        await page.getByLabel('Window (seconds)').fill('60');
        await page.getByRole('button', { name: 'Set rate' }).click();
        await waitText(rateNow, /^rate 2 per 1 min 0 s, burst 2$/);
        expect(await q.redis.hget(q.keys.rate, 'acme')).toBe('2:60000:2');
        expect(await q.group('acme')).toMatchObject({
          rateLimit: { max: 2, windowMs: 60_000, burst: 2 },
        });
        // A burst given: 3.
        await page.getByLabel('Tokens per window').fill('2');
        await page.getByLabel('Window (seconds)').fill('60');
        await page.getByLabel('Burst').fill('3');
        await page.getByRole('button', { name: 'Set rate' }).click();
        await waitText(rateNow, /^rate 2 per 1 min 0 s, burst 3$/);
        expect(await q.redis.hget(q.keys.rate, 'acme')).toBe('2:60000:3');

        // Back to a burst of 2 (a full bucket stays full); two claims empty it: the panel says
        // when the next token comes, and the reason why.
        await q.setRateLimit('acme', { max: 2, windowMs: 60_000 });
        await q.claim({ leaseMs: 600_000 });
        await q.claim({ leaseMs: 600_000 });
        expect((await q.group('acme')).state).toBe('RATE_LIMITED');
        await waitText(rateNow, /^rate 2 per 1 min 0 s, burst 2; next token at \d\d:\d\d:\d\d/);
        await waitText(page.getByTestId('reason'), /rate-limited/i);
        await shot(page, 'steering-01-rate-used-up');

        // Cleared: no rate, no window, the group back on the ring.
        await clearRate.click();
        await waitText(rateNow, /^no rate limit$/);
        expect(await q.redis.hexists(q.keys.rate, 'acme')).toBe(0);
        expect(await q.redis.hexists(q.keys.rateWindow, 'acme')).toBe(0);
        expect(await q.group('acme')).toMatchObject({ rateLimit: null, state: 'READY' });
        expect(await clearRate.isDisabled()).toBe(true);

        // Weight: out of range refused, 5 set, then 1 (the default: the field is removed).
        const weight = page.getByTestId('weight-value');
        await waitText(weight, /^1 turn per round$/);
        // 0 is refused by the field itself (min 1): the form is not sent.
        await page.getByLabel('New weight').fill('0');
        await page.getByRole('button', { name: 'Set weight' }).click();
        expect(
          await page
            .getByLabel('New weight')
            .evaluate((el) => (el as HTMLInputElement).validity.valid),
        ).toBe(false);
        expect(await q.redis.hexists(q.keys.weight, 'acme')).toBe(0);

        await page.getByLabel('New weight').fill('5');
        await page.getByRole('button', { name: 'Set weight' }).click();
        await waitText(page.getByTestId('weight-outcome'), /Redis shows weight 5/);
        await waitText(weight, /^5 turns per round$/);
        expect(await q.redis.hget(q.keys.weight, 'acme')).toBe('5');
        await shot(page, 'steering-02-weight');

        await page.getByLabel('New weight').fill('1');
        await page.getByRole('button', { name: 'Set weight' }).click();
        await waitText(page.getByTestId('weight-outcome'), /Redis shows weight 1/);
        await waitText(weight, /^1 turn per round$/);
        expect(await q.redis.hexists(q.keys.weight, 'acme')).toBe(0);
        expect((await q.group('acme')).weight).toBe(1);

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
