/**
 * The console's queue-wide Active and Completed views end to end, in headless Chromium against
 * the real server over a real Redis, checked against what Redis holds: Active lists every
 * group's active jobs in the order of `P:{Q}:active` (lease ending first), 25 a page, with a
 * lease countdown that ticks, the progress reported, no row action, and a job gone from it
 * once its worker completes it; Completed lists the kept jobs newest first, 25 a page, with
 * each result cut to a line, and an admin deletes one job, a page and then every kept job of a
 * group, leaving the rest; a completed job's detail, opened from its row, shows its result
 * whole and deletes it.
 * The page must log no error. Screenshots go to test-results/console/ (names l01…).
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts does.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { openConsole, shot, useConsoleBrowser, waitRows, waitText } from '../support/console.js';
import { useTestRedis } from '../support/redis.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console lists end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console Active and Completed lists end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('Active lists every group’s active jobs lease ending first, pages them, counts their leases down and drops a completed one, as Redis shows', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'active',
      );
      try {
        const groups = ['acme', 'globex', 'initech'];
        for (let i = 0; i < 30; i += 1) await q.enqueue(groups[i % 3] as string, { n: i });
        const tokens = new Map<string, string>();
        for (let i = 0; i < 30; i += 1) {
          // Leases of 40 s upwards, one second apart: the list's order is the claims' order.
          // Even claims name their worker, as a GraphQL client may; odd ones name none.
          const workerId = i % 2 === 0 ? `box-${i}` : undefined;
          const job = await q.claim({ leaseMs: 40_000 + i * 1_000, workerId });
          if (!job?.token) throw new Error('nothing to claim');
          tokens.set(job.id, job.token);
        }
        const byLease = await direct.zrange(k.active, 0, -1);
        expect(byLease).toHaveLength(30);
        const [first, last] = [byLease[0] as string, byLease.at(-1) as string];
        await q.updateJobProgress(first, tokens.get(first) as string, 40);
        await q.updateJobProgress(last, tokens.get(last) as string, { step: 'upload' });

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitText(page.getByTestId('tab-active'), /Active\s*30/);
        await page.getByTestId('tab-active').click();
        expect(new URL(page.url()).hash).toContain('view=active');
        await page.getByLabel('per page').selectOption('25');
        await waitRows(page, 'queue-active-jobs', byLease.slice(0, 25));
        await waitText(page.getByTestId('queue-active-range'), /^1–25 of 30 · lease ending first$/);
        const firstRow = page.locator(
          `[data-testid="queue-active-jobs"] tr[data-job-row="${first}"]`,
        );
        await waitText(firstRow, /attempt 1 of \d+.*40 %/);
        // The worker holding each lease, as the job's hash names it (`worker`), or none.
        for (const id of byLease.slice(0, 25)) {
          const holder = await direct.hget(k.job(id), 'worker');
          const cell = page.locator(
            `[data-testid="queue-active-jobs"] tr[data-job-row="${id}"] [data-testid="worker"]`,
          );
          await waitText(cell.first(), holder === null ? /^–$/ : new RegExp(`^${holder}$`));
        }
        // The countdown ticks on its own, between two reads of the list.
        const lease = firstRow.getByTestId('lease');
        const before = await waitText(lease, /^lease \d+ s left$/);
        await waitText(lease, new RegExp(`^lease (?!${before.match(/\d+/)?.[0]} s)\\d+ s left$`));
        // An active job belongs to its worker: no row action, even for an admin.
        expect(await page.locator('[data-testid="queue-active-jobs"] button').count()).toBe(0);
        await shot(page, 'l01-active');

        await page.getByRole('button', { name: 'Active jobs: next page' }).click();
        await waitRows(page, 'queue-active-jobs', byLease.slice(25));
        await waitText(page.getByTestId('queue-active-range'), /^26–30 of 30/);
        await waitText(
          page.locator(`[data-testid="queue-active-jobs"] tr[data-job-row="${last}"]`),
          /"step":"upload"/,
        );

        // Its worker completes the first: gone from the list at the next snapshot.
        await q.complete(first, tokens.get(first) as string);
        await page.getByRole('button', { name: 'Active jobs: first page' }).click();
        await waitRows(page, 'queue-active-jobs', byLease.slice(1, 26));
        await waitText(page.getByTestId('tab-active'), /Active\s*29/);

        // One group's: its rows, in the same order.
        const acmeRows: string[] = [];
        for (const id of byLease.slice(1)) {
          if ((await direct.hget(k.job(id), 'group')) === 'acme') acmeRows.push(id);
        }
        expect(acmeRows.length).toBeGreaterThanOrEqual(9);
        await page.getByLabel('Filter by group').fill('acme');
        await waitRows(page, 'queue-active-jobs', acmeRows);
        expect(new URL(page.url()).hash).toContain('group=acme');
        await shot(page, 'l02-active-acme');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it('Completed lists the kept jobs newest first with their results, pages them, and deletes one, a page and a group’s, as Redis shows', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'completed',
      );
      try {
        // The two oldest of group globex, the 30 newer of acme.
        const finished: string[] = [];
        for (let i = 0; i < 32; i += 1) {
          await q.enqueue(i < 2 ? 'globex' : 'acme', { n: i });
          const job = await q.claim({ leaseMs: 60_000 });
          if (!job?.token) throw new Error('nothing to claim');
          await q.complete(job.id, job.token, {
            // Longer than the tooltip's preview (2,000 characters): only the detail shows it whole.
            result: { n: i, text: `${job.id}:${'x'.repeat(3_000)}` },
          });
          finished.push(job.id);
          // Distinct finish times, so "newest first" has one answer.
          await new Promise((resolve) => setTimeout(resolve, 3));
        }
        const newestFirst = await direct.zrevrange(k.completed, 0, -1);
        expect(newestFirst).toEqual([...finished].reverse());
        // Every answer to a list read, to check no row carries its result whole.
        const lists: Promise<string>[] = [];
        page.on('response', (response) => {
          if (response.request().postData()?.includes('query QueueJobs'))
            lists.push(response.text().catch(() => ''));
        });

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitText(page.getByTestId('tab-completed'), /Completed\s*32/);
        await page.getByTestId('tab-completed').click();
        expect(new URL(page.url()).hash).toContain('view=completed');
        await page.getByLabel('per page').selectOption('25');
        await waitRows(page, 'completed-jobs', newestFirst.slice(0, 25));
        await waitText(page.getByTestId('completed-range'), /^1–25 of 32 · newest first$/);
        // Its result cut to a line by the server, longer in the cell's tooltip, whole in its detail.
        const newest = newestFirst[0] as string;
        const result = page.locator(
          `[data-testid="completed-jobs"] tr[data-job-row="${newest}"] td[data-result]`,
        );
        await waitText(result, new RegExp(`^\\{"n":31,"text":"${newest}:x+…$`));
        expect(((await result.textContent()) ?? '').length).toBe(60);
        const tip = (await result.getAttribute('title')) ?? '';
        expect(tip).toMatch(new RegExp(`^\\{"n":31,"text":"${newest}:x+…$`));
        expect(tip).toHaveLength(2_000);
        const answers = await Promise.all(lists);
        expect(answers.some((text) => text.includes(`"resultPreview":"{\\"n\\":31`))).toBe(true);
        expect(answers.filter((text) => text.includes('x'.repeat(2_000)))).toEqual([]);
        await shot(page, 'l03-completed');

        await page.getByRole('button', { name: 'Completed jobs: next page' }).click();
        await waitRows(page, 'completed-jobs', newestFirst.slice(25));
        await waitText(page.getByTestId('completed-range'), /^26–32 of 32/);

        // Delete one: its hash and result are gone.
        const one = newestFirst[25] as string;
        await page.getByRole('button', { name: `Delete job ${one}` }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /deleted — confirmed: Redis no longer holds it/,
        );
        expect(await direct.exists(k.job(one))).toBe(0);
        expect(await direct.hexists(k.results, one)).toBe(0);
        expect(await direct.zscore(k.completed, one)).toBeNull();
        const older = newestFirst.slice(26);
        await waitRows(page, 'completed-jobs', older);

        // Delete the first page: the 25 newest, the older ones untouched.
        await page.getByRole('button', { name: 'Completed jobs: first page' }).click();
        await waitRows(page, 'completed-jobs', newestFirst.slice(0, 25));
        await page.getByRole('button', { name: 'Delete page' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /Deleted 25 of 25 — confirmed: the completed list read back holds none of them \(6 kept in this queue now\)/,
        );
        expect(await direct.zrevrange(k.completed, 0, -1)).toEqual(older);
        await waitRows(page, 'completed-jobs', older);

        // Every kept job of one group, after a confirmation: the other group's stay.
        const globex = older.slice(-2);
        expect(await direct.zrange(k.groupCompleted('globex'), 0, -1)).toEqual(
          [...globex].reverse(),
        );
        await page.getByLabel('Filter by group').fill('acme');
        await waitRows(page, 'completed-jobs', older.slice(0, 4));
        await page.getByRole('button', { name: /^Delete all 4/ }).click();
        await waitText(
          page.getByTestId('confirm'),
          /Delete all 4 completed jobs of group “acme”\?/,
        );
        await page.getByRole('button', { name: 'Delete 4 jobs' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /^4 completed jobs of group “acme” deleted in 1 call — confirmed: Redis shows no completed job of group “acme”\.$/,
        );
        expect(await direct.zcard(k.groupCompleted('acme'))).toBe(0);
        expect(await direct.zrevrange(k.completed, 0, -1)).toEqual(globex);
        await waitRows(page, 'completed-jobs', []);
        await page.getByLabel('Filter by group').fill('');
        await waitRows(page, 'completed-jobs', globex);
        await shot(page, 'l04-completed-deleted');

        // A row's link opens the job's detail, its result whole; an admin deletes it there.
        const opened = globex[0] as string;
        await page.getByRole('link', { name: `Job ${opened}` }).click();
        expect(new URL(page.url()).hash).toContain(`job=${opened}`);
        await waitText(page.getByTestId('job-result'), new RegExp(`${opened}:x{3000}"`));
        await page.getByTestId('job-actions').getByRole('button', { name: 'Delete' }).click();
        await waitText(
          page.getByTestId('job-outcome'),
          /Deleted — confirmed: Redis no longer holds it/,
        );
        expect(await direct.exists(k.job(opened))).toBe(0);
        expect(await direct.zrange(k.completed, 0, -1)).toEqual([globex[1]]);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);
  },
);
