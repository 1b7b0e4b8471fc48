/**
 * The console's Top groups panel (TopGroups.tsx; DESIGN.md §3, "Group rankings") in headless
 * Chromium against the real server over a real Redis: the rows of each ranking are the groups,
 * in the order, with the counts, that Redis holds (read back from the lanes and `gactive`); they
 * follow a claim; a row selects its group. The page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Queue } from '../../src/lanes/index.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { pollUntil } from '../support/lanes.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

/** The panel's rows: [group, pending, in flight], in order. */
async function rowsOf(panel: Locator): Promise<string[][]> {
  return panel
    .locator('tr[data-testid="top-group"]')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-group') ?? '',
        ...[...row.querySelectorAll('td')].slice(2, 4).map((td) => td.textContent ?? ''),
      ]),
    );
}

/** Redis' truth: each group's lane size and active count, ranked as DESIGN.md §3 says. */
async function truth(q: Queue, groups: readonly string[], by: 'PENDING' | 'ACTIVE') {
  const rows = [];
  for (const g of groups) {
    const pending = await q.redis.zcard(q.keys.lane(g));
    const active = Number((await q.redis.hget(q.keys.gactive, g)) ?? 0);
    rows.push({ g, pending, active });
  }
  const key = by === 'PENDING' ? 'pending' : 'active';
  return rows
    .filter((r) => r[key] > 0)
    .sort((a, b) => b[key] - a[key] || (a.g < b.g ? -1 : 1))
    .slice(0, 10)
    .map((r) => [r.g, String(r.pending), String(r.active)]);
}

describe.skipIf(skip)(
  skip
    ? `console top groups — SKIPPED: ${CHROMIUM} is not installed`
    : 'console top groups in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('lists the top groups of each ranking as Redis holds them, and follows a claim', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-top');
      try {
        const q = server.server.engine.queue(queue);
        // 14 groups (more than the panel's 10): group t<i> gets i % 5 + 1 jobs.
        const groups = Array.from({ length: 14 }, (_, i) => `t${String(i).padStart(2, '0')}`);
        for (const [i, g] of groups.entries()) {
          for (let j = 0; j <= i % 5; j++) await q.enqueue(g, { j });
        }
        await page.goto(`${server.server.url}/#queue=${queue}`);
        const panel = page.getByTestId('top-groups');
        await waitText(panel.locator('h2'), /^Top groups$/);

        const expectRows = async (by: 'PENDING' | 'ACTIVE') => {
          const want = await truth(q, groups, by);
          // Waited for, then compared (a timeout shows the difference).
          await pollUntil(
            `the ${by} rows`,
            async () => JSON.stringify(await rowsOf(panel)) === JSON.stringify(want),
            10_000,
          ).catch(() => {});
          expect(await rowsOf(panel)).toEqual(want);
        };
        await expectRows('PENDING');
        await shot(page, 'top-01-pending');

        // Claims change both rankings; the panel reads again with the next snapshot.
        const claimed = [];
        for (let i = 0; i < 3; i++) claimed.push(await q.claim({ leaseMs: 600_000 }));
        await expectRows('PENDING');
        await panel.getByRole('button', { name: 'Most in flight' }).click();
        await expectRows('ACTIVE');
        expect((await rowsOf(panel)).map(([g]) => g)).toEqual(
          claimed.map((j) => j?.group as string).sort(),
        );

        // Oldest waiting: the groups whose oldest pending job has the lowest id, first.
        await panel.getByRole('button', { name: 'Oldest waiting' }).click();
        const oldest = [];
        for (const g of groups) {
          const ids = await q.redis.zrange(q.keys.lane(g), 0, -1);
          if (ids.length > 0) oldest.push({ g, id: Math.min(...ids.map(Number)) });
        }
        const order = oldest
          .sort((a, b) => a.id - b.id)
          .map((o) => o.g)
          .slice(0, 10);
        await pollUntil(
          'the OLDEST_PENDING rows',
          async () =>
            JSON.stringify((await rowsOf(panel)).map(([g]) => g)) === JSON.stringify(order),
          10_000,
        ).catch(() => {});
        expect((await rowsOf(panel)).map(([g]) => g)).toEqual(order);
        await shot(page, 'top-02-oldest');

        // A row selects its group: the detail opens on it.
        const first = order[0] as string;
        await panel.locator(`tr[data-group="${first}"]`).click();
        await pollUntil('the group selected', async () => page.url().includes(`group=${first}`));

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
