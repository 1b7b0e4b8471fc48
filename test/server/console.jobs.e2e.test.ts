/**
 * The console's job views end to end, in headless Chromium against the real server
 * over a real Redis, checked against what Redis holds: the Dead view retries and deletes one
 * job, and retries all of one group's dead jobs after a confirmation, leaving the others; it
 * retries a page and deletes a page, leaving the other pages; it deletes every dead job of the
 * queue in bounded removeJobs(all) calls; a job
 * opened by typing its id shows its error and stack; a running job's progress and log follow
 * live, the log paged 50 lines at a time, and its result shows once completed; the Delayed view's "run now" makes a
 * delayed job pending; an admin pauses and resumes the whole queue (`P:{Q}:settings`), and a
 * read token sees the state but no buttons. A group's detail lists its backlog and active jobs.
 * Each job's priority shows in the backlog, the Delayed, Active and Completed views and its
 * detail, where an admin changes a pending job's.
 * The page must log no error. Screenshots go to test-results/console/ (names j01…).
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts does.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type Queue, queueKeys } from '../../src/lanes/internal.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { openConsole, shot, useConsoleBrowser, waitRows, waitText } from '../support/console.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';

const skip = skipBrowser;

/**
 * Make dead jobs the way production does: enqueued with maxAttempts 1, claimed, and retried by
 * the engine (a failed attempt at its last attempt dies). Returns their ids in the order they
 * died. The queue must hold no other pending job.
 */
async function makeDead(q: Queue, groups: string[], gapMs = 3): Promise<string[]> {
  for (const [i, group] of groups.entries()) {
    await q.enqueue(group, { n: i }, { maxAttempts: 1 });
  }
  const died: string[] = [];
  for (let i = 0; i < groups.length; i += 1) {
    const job = await q.claim({ leaseMs: 60_000 });
    if (!job?.token) throw new Error('nothing to claim');
    await q.retry(job.id, job.token, {
      error: `boom ${job.id}`,
      stack: `Error: boom\n    at step${job.id}`,
    });
    died.push(job.id);
    // Distinct death times, so "newest first" has one answer.
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return died;
}

/** Wait until a group's backlog lists exactly `expected`, in that order. */
async function waitBacklog(page: Page, what: string, expected: string[]): Promise<void> {
  const rows = page.getByTestId('backlog').locator('li[data-job-row]');
  await waitFor(
    what,
    async () =>
      JSON.stringify(
        await rows.evaluateAll((li) => li.map((x) => x.getAttribute('data-job-row'))),
      ) === JSON.stringify(expected),
  );
}

describe.skipIf(skip)(
  skip
    ? `console jobs end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console jobs end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('the Dead view retries and deletes one job, and retries all of one group after a confirmation, as Redis shows', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'dead',
      );
      try {
        const groups = ['acme', 'globex', 'acme', 'globex', 'acme', 'initech'];
        const died = await makeDead(q, groups);
        const groupOf = new Map<string, string>();
        for (const id of died) groupOf.set(id, (await direct.hget(k.job(id), 'group')) ?? '');
        expect(await direct.zcard(k.dead)).toBe(6);

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByTestId('tab-dead').click();
        expect(new URL(page.url()).hash).toContain('view=dead');
        // Newest first, each with its error.
        await waitRows(page, 'dead-jobs', [...died].reverse());
        const first = died.at(-1) as string;
        await waitText(
          page.locator(`[data-testid="dead-jobs"] tr[data-job-row="${first}"]`),
          new RegExp(`boom ${first}`),
        );
        await waitText(page.getByTestId('tab-dead'), /Dead\s*6/);
        await shot(page, 'j02-dead');

        // Retry one: it is pending in its lane again, and the dead count drops.
        const retried = died.find((id) => groupOf.get(id) === 'globex') as string;
        await page.getByRole('button', { name: `Retry job ${retried}` }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /retried — confirmed: Redis shows it (pending|active)/,
        );
        expect(await direct.zscore(k.lane('globex'), retried)).not.toBeNull();
        expect(await direct.hget(k.job(retried), 'state')).toBe('pending');
        expect(await direct.zscore(k.dead, retried)).toBeNull();
        expect(await direct.zcard(k.dead)).toBe(5);
        await waitRows(
          page,
          'dead-jobs',
          [...died].reverse().filter((id) => id !== retried),
        );
        await shot(page, 'j03-dead-retried');

        // Delete one: its hash is gone.
        const deleted = died.find((id) => groupOf.get(id) === 'initech') as string;
        await page.getByRole('button', { name: `Delete job ${deleted}` }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /deleted — confirmed: Redis no longer holds it/,
        );
        expect(await direct.exists(k.job(deleted))).toBe(0);
        expect(await direct.exists(k.errors(deleted))).toBe(0);
        expect(await direct.zscore(k.dead, deleted)).toBeNull();
        expect(await direct.zcard(k.dead)).toBe(4);

        // Filter by group, then retry all of that group's dead jobs after a confirmation.
        const acme = died.filter((id) => groupOf.get(id) === 'acme');
        const others = died.filter((id) => groupOf.get(id) === 'globex' && id !== retried);
        await page.getByLabel('Filter by group').fill('acme');
        await waitRows(page, 'dead-jobs', [...acme].reverse());
        expect(new URL(page.url()).hash).toContain('group=acme');
        await page.getByRole('button', { name: /^Retry all 3/ }).click();
        await waitText(page.getByTestId('confirm'), /Retry all 3 dead jobs of group “acme”\?/);
        await shot(page, 'j04-dead-confirm');
        await page.getByRole('button', { name: 'Retry 3 jobs' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /3 dead jobs of group “acme” retried in 1 call — confirmed: Redis shows no dead job of group “acme”/,
        );
        for (const id of acme) {
          expect(await direct.zscore(k.lane('acme'), id)).not.toBeNull();
          expect(await direct.hget(k.job(id), 'state')).toBe('pending');
        }
        expect(await direct.zcard(k.groupDead('acme'))).toBe(0);
        // The other group's dead job is untouched.
        expect(await direct.zrange(k.dead, 0, -1)).toEqual(others);
        expect(await direct.hget(k.job(others[0] as string), 'state')).toBe('dead');
        await waitRows(page, 'dead-jobs', []);
        await shot(page, 'j05-dead-retried-all');

        // At phone width nothing is wider than the screen.
        await page.getByLabel('Filter by group').fill('');
        await waitRows(page, 'dead-jobs', others);
        await page.setViewportSize({ width: 414, height: 860 });
        await shot(page, 'j06-dead-phone');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
          414,
        );
        // Each row's buttons are on screen, not past the edge of a table scrolled sideways.
        const button = await page
          .getByRole('button', { name: `Retry job ${others[0]}` })
          .boundingBox();
        expect(button).not.toBeNull();
        expect((button?.x ?? 0) + (button?.width ?? 0)).toBeLessThanOrEqual(414);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it('retries and deletes every dead job matching in bounded calls (≤ 1,000 each), showing the progress', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'bulk',
      );
      const other = queueName('bulkdel');
      try {
        const groups = Array.from({ length: 1_001 }, (_, i) => (i % 2 === 0 ? 'north' : 'south'));
        await makeDead(q, groups, 0);
        expect(await direct.zcard(k.dead)).toBe(1_001);

        await page.goto(`${server.server.url}/#queue=${queue}&view=dead`);
        await waitText(page.getByTestId('tab-dead'), /Dead\s*1,001/);
        // Every text the outcome line shows, as it changes.
        await page.evaluate(() => {
          const seen: string[] = [];
          (window as unknown as { outcomes: string[] }).outcomes = seen;
          new MutationObserver(() => {
            const text = document.querySelector('[data-testid="jobs-outcome"]')?.textContent;
            if (text && seen.at(-1) !== text) seen.push(text);
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        });
        await page.getByRole('button', { name: /^Retry all 1,001/ }).click();
        await waitText(page.getByTestId('confirm'), /Retry all 1,001 dead jobs in this queue\?/);
        await page.getByRole('button', { name: 'Retry 1,001 jobs' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /^1,001 dead jobs in this queue retried in 2 calls — confirmed: Redis shows no dead job in this queue\.$/,
          20_000,
        );
        const outcomes = await page.evaluate(
          () => (window as unknown as { outcomes: string[] }).outcomes,
        );
        expect(outcomes).toContain('Retrying: 1,000 retried, 1 left… (99 %)');
        expect(await direct.zcard(k.dead)).toBe(0);
        expect(await direct.zcard(k.lane('north'))).toBe(501);
        expect(await direct.zcard(k.lane('south'))).toBe(500);
        expect(await direct.hget(k.stats, 'requeued')).toBe('1001');
        await shot(page, 'j12-dead-retried-1001');

        // Delete all (no group filter): removeJobs(all: true, state: DEAD), at most 1,000 a
        // call, as the retry above; one history entry per call, each of mode 'all'.
        const q2 = server.server.engine.queue(other);
        const k2 = queueKeys(server.server.engine.prefix, other);
        const died = await makeDead(
          q2,
          Array.from({ length: 1_001 }, () => 'west'),
          0,
        );
        await page.goto(`${server.server.url}/#queue=${other}&view=dead`);
        await waitText(page.getByTestId('tab-dead'), /Dead\s*1,001/);
        await page.evaluate(() => {
          (window as unknown as { outcomes: string[] }).outcomes.length = 0;
        });
        await page.getByRole('button', { name: /^Delete all 1,001/ }).click();
        await waitText(page.getByTestId('confirm'), /Delete all 1,001 dead jobs in this queue\?/);
        await page.getByRole('button', { name: 'Delete 1,001 jobs' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /^1,001 dead jobs in this queue deleted in 2 calls — confirmed: Redis shows no dead job in this queue\.$/,
          20_000,
        );
        expect(
          await page.evaluate(() => (window as unknown as { outcomes: string[] }).outcomes),
        ).toContain('Deleting: 1,000 deleted, 1 left… (99 %)');
        expect(await direct.zcard(k2.dead)).toBe(0);
        expect(await direct.zcard(k2.groupDead('west'))).toBe(0);
        for (const id of [died[0], died[500], died[1_000]] as string[]) {
          expect(await direct.exists(k2.job(id), k2.errors(id))).toBe(0);
        }
        const calls = (await direct.xrange(k2.history, '-', '+')).map(([, fields]) => {
          const entry = new Map<string, string>();
          for (let i = 0; i + 1 < fields.length; i += 2)
            entry.set(fields[i] as string, fields[i + 1] as string);
          return { action: entry.get('action'), detail: JSON.parse(entry.get('detail') ?? '{}') };
        });
        expect(calls).toEqual([
          { action: 'removeJobs', detail: expect.objectContaining({ mode: 'all', count: 1_000 }) },
          { action: 'removeJobs', detail: expect.objectContaining({ mode: 'all', count: 1 }) },
        ]);
        expect(await direct.hget(k2.stats, 'removed')).toBe('1001');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 90_000);

    it('the Dead view retries one page and deletes the next, 25 a page, the older dead jobs untouched, as Redis shows', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'deadpage',
      );
      try {
        const groups = Array.from({ length: 55 }, (_, i) => (i % 2 === 0 ? 'acme' : 'globex'));
        const newestFirst = (await makeDead(q, groups)).reverse();
        const [firstPage, secondPage, rest] = [
          newestFirst.slice(0, 25),
          newestFirst.slice(25, 50),
          newestFirst.slice(50),
        ];
        const groupOf = async (id: string) => (await direct.hget(k.job(id), 'group')) as string;

        await page.goto(`${server.server.url}/#queue=${queue}&view=dead`);
        await waitText(page.getByTestId('tab-dead'), /Dead\s*55/);
        await page.getByTestId('dead-view').locator('select').selectOption('25');
        await waitRows(page, 'dead-jobs', firstPage);

        // Retry page: the 25 jobs drawn go back to their lanes; no other dead job moves.
        await page.getByRole('button', { name: 'Retry page' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /^Retried 25 of 25 — confirmed: the dead list read back holds none of them \(30 dead in this queue now\)\.$/,
        );
        for (const id of firstPage) {
          expect(await direct.hget(k.job(id), 'state')).toBe('pending');
          expect(await direct.zscore(k.lane(await groupOf(id)), id)).not.toBeNull();
          expect(await direct.zscore(k.dead, id)).toBeNull();
        }
        expect(await direct.hget(k.stats, 'requeued')).toBe('25');
        expect(await direct.zrevrange(k.dead, 0, -1)).toEqual([...secondPage, ...rest]);
        await waitRows(page, 'dead-jobs', secondPage);
        await shot(page, 'j13-dead-page-retried');

        // Delete page: the next 25 are gone with their error lists; the 5 oldest stay dead.
        await page.getByRole('button', { name: 'Delete page' }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /^Deleted 25 of 25 — confirmed: the dead list read back holds none of them \(5 dead in this queue now\)\.$/,
        );
        for (const id of secondPage) {
          expect(await direct.exists(k.job(id), k.errors(id))).toBe(0);
        }
        expect(await direct.hget(k.stats, 'removed')).toBe('25');
        expect(await direct.zrevrange(k.dead, 0, -1)).toEqual(rest);
        for (const id of rest) expect(await direct.hget(k.job(id), 'state')).toBe('dead');
        for (const id of firstPage) expect(await direct.hget(k.job(id), 'state')).toBe('pending');
        await waitRows(page, 'dead-jobs', rest);
        await waitText(page.getByTestId('tab-dead'), /Dead\s*5/);
        await shot(page, 'j14-dead-page-deleted');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it('opens a job by typing its id: its error and stack, payload and timeline; follows it live; acts on it', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'jobid',
      );
      try {
        const job = await q.enqueue('acme', { order: 42, items: ['a', 'b'] }, { maxAttempts: 2 });
        for (let attempt = 1; attempt <= 2; attempt += 1) {
          const claimed = await q.claim({ leaseMs: 60_000 });
          expect(claimed?.id).toBe(job.id);
          await q.retry(job.id, claimed?.token ?? '', {
            error: `payment gateway timed out (${attempt})`,
            stack: `Error: payment gateway timed out\n    at charge (billing.ts:${attempt}0:5)`,
          });
        }

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByLabel('Job id').fill(job.id);
        await page.getByRole('button', { name: 'Open job' }).click();
        expect(new URL(page.url()).hash).toContain(`job=${job.id}`);
        const detail = page.getByTestId('job');
        await waitText(detail.locator('.panel-head [data-job-state]'), /dead/);
        await waitText(page.getByTestId('job-last-error'), /payment gateway timed out \(2\)/);
        const errorsShown = await waitText(page.getByTestId('job-errors'), /attempt 2/);
        // Newest first, each with its stack.
        expect(errorsShown.indexOf('(2)')).toBeLessThan(errorsShown.indexOf('(1)'));
        await waitText(page.getByTestId('job-errors'), /at charge \(billing\.ts:20:5\)/);
        expect(await page.getByTestId('job-errors').locator('pre.stack').first().isVisible()).toBe(
          true,
        );
        await waitText(page.getByTestId('job-payload'), /"order": 42/);
        await waitText(page.getByTestId('job-timeline'), /enqueued.*last claimed.*died/);
        await shot(page, 'j01-job-by-id');

        // From its detail an admin retries it: pending again, followed live once more.
        await page.getByTestId('job-actions').getByRole('button', { name: 'Retry' }).click();
        await waitText(
          page.getByTestId('job-outcome'),
          /Retried — confirmed: Redis shows it pending/,
        );
        await waitText(detail.locator('.panel-head [data-job-state]'), /pending/);
        expect(await direct.zscore(k.lane('acme'), job.id)).not.toBeNull();
        const again = await q.claim({ leaseMs: 60_000 });
        expect(again?.id).toBe(job.id);
        await waitText(detail.locator('.panel-head [data-job-state]'), /active/);
        await waitText(page.getByTestId('job-attempts'), /1 of 2/);
        await q.retry(job.id, again?.token ?? '', { error: 'once more', delayMs: 600_000 });
        await waitText(detail.locator('.panel-head [data-job-state]'), /delayed/);
        await waitText(page.getByTestId('job-timeline'), /runs at.*in 9 min/);
        // …and deletes it: gone from Redis, and the detail says so.
        await page.getByTestId('job-actions').getByRole('button', { name: 'Delete' }).click();
        await waitText(
          page.getByTestId('job-outcome'),
          /Deleted — confirmed: Redis no longer holds it/,
        );
        await waitText(page.getByTestId('job-gone'), /No job \d+ in this queue/);
        expect(await direct.exists(k.job(job.id), k.errors(job.id))).toBe(0);

        // An id that names no job says so.
        await page.getByLabel('Job id').fill('999999');
        await page.getByRole('button', { name: 'Open job' }).click();
        await waitText(page.getByTestId('job-gone'), /No job 999999 in this queue/);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it("follows a running job's progress and log, pages the log, and shows the result once completed", async () => {
      const { server, page, errors, queue, q, close } = await openConsole(
        browser,
        redis.url,
        'result',
      );
      try {
        const job = await q.enqueue('acme', { order: 7 });
        const claimed = await q.claim({ leaseMs: 60_000 });
        const token = claimed?.token ?? '';
        for (let i = 1; i <= 52; i += 1) await q.addJobLog(job.id, token, `step ${i} done`);

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByLabel('Job id').fill(job.id);
        await page.getByRole('button', { name: 'Open job' }).click();
        const detail = page.getByTestId('job');
        await waitText(detail.locator('.panel-head [data-job-state]'), /active/);
        // The first page of 50, oldest first with their times; "more" reads the rest.
        await waitText(page.getByTestId('job-log-count'), /50 shown · 52 kept/);
        const firstPage = await waitText(page.getByTestId('job-log'), /step 1 done.*step 50 done/);
        expect(firstPage).not.toContain('step 51');
        expect(firstPage).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}step 1 done/);
        await page.getByRole('button', { name: 'More lines' }).click();
        await waitText(page.getByTestId('job-log'), /step 50 done.*step 52 done$/);
        await waitText(page.getByTestId('job-log-count'), /52 shown · 52 kept/);

        // Live: each report shows as it is made, a number as a bar, an object as JSON; a line
        // added since shows under the others.
        await q.updateJobProgress(job.id, token, 40);
        await waitText(page.getByTestId('job-progress'), /^40 %$/);
        expect(await page.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('40');
        // A worker's text with a right-to-left override: drawn as a marker, never reversing the
        // line on screen.
        await q.addJobLog(job.id, token, 'packing \u202Eok');
        await q.updateJobProgress(job.id, token, { stage: 'ship', parcels: 3 });
        await waitText(page.getByTestId('job-progress'), /"stage": "ship",\s*"parcels": 3/);
        await waitText(page.getByTestId('job-log'), /step 52 done.*packing U\+202Eok$/);
        await shot(page, 'j02-job-progress-log');

        await q.complete(job.id, token, { result: { receipt: 'r-7', total: 99 } });
        await waitText(detail.locator('.panel-head [data-job-state]'), /completed/);
        await waitText(page.getByTestId('job-payload'), /"order": 7/);
        await waitText(page.getByTestId('job-result'), /"receipt": "r-7",\s*"total": 99/);
        await waitText(page.getByTestId('job-progress'), /"stage": "ship"/);
        await waitText(page.getByTestId('job-log-count'), /53 shown · 53 kept/);
        await shot(page, 'j02-job-result');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it('the Delayed view runs a delayed job now: it is pending in its lane', async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'delayed',
      );
      try {
        const later = await q.enqueue('acme', { report: 'weekly' }, { delayMs: 3_600_000 });
        const soon = await q.enqueue('globex', { report: 'daily' }, { delayMs: 600_000 });
        expect(await direct.zcard(k.delayed)).toBe(2);

        await page.goto(`${server.server.url}/#queue=${queue}&view=delayed`);
        // Next to run first.
        await waitRows(page, 'delayed-jobs', [soon.id, later.id]);
        await waitText(page.locator(`tr[data-job-row="${soon.id}"]`), /in 9 min \d+ s/);
        await waitText(page.getByTestId('tab-delayed'), /Delayed\s*2/);
        await shot(page, 'j07-delayed');

        await page.getByRole('button', { name: `Run job ${later.id} now` }).click();
        await waitText(
          page.getByTestId('jobs-outcome'),
          /moved to its lane — confirmed: Redis shows it pending/,
        );
        expect(await direct.zscore(k.delayed, later.id)).toBeNull();
        expect(await direct.zscore(k.lane('acme'), later.id)).not.toBeNull();
        expect(await direct.hget(k.job(later.id), 'state')).toBe('pending');
        expect(await direct.lrange(k.ring, 0, -1)).toEqual(['acme']);
        await waitRows(page, 'delayed-jobs', [soon.id]);
        await shot(page, 'j08-delayed-ran');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it("lists a group's backlog (next first, payload preview) and its jobs in flight (lease, attempt n of m), paged", async () => {
      const { server, page, errors, queue, q, close } = await openConsole(
        browser,
        redis.url,
        'backlog',
      );
      try {
        const ids: string[] = [];
        for (let i = 0; i < 14; i += 1) ids.push((await q.enqueue('acme', { invoice: i })).id);
        const a = await q.claim({ leaseMs: 90_000 });
        const b = await q.claim({ leaseMs: 90_000 });
        expect([a?.id, b?.id]).toEqual(ids.slice(0, 2));

        await page.goto(`${server.server.url}/#queue=${queue}&group=acme`);
        const backlog = page.getByTestId('backlog');
        await waitBacklog(page, 'ten backlog rows, next to run first', ids.slice(2, 12));
        await waitText(backlog.locator('li').first(), /\{"invoice":2\}/);
        await waitText(page.getByTestId('backlog-range'), /1–10 of 12/);
        await waitText(page.getByTestId('active-jobs'), /lease 1 min \d+ s left.*attempt 1 of 3/);
        await shot(page, 'j09-group-jobs');

        await page.getByRole('button', { name: 'Backlog: next page' }).click();
        await waitText(page.getByTestId('backlog-range'), /11–12 of 12/);
        await waitText(backlog, /\{"invoice":13\}/);

        // A job of the list opens its detail (the next to run), which follows it live: claimed,
        // then completed (kept by the default retention); closing it comes back to the group.
        await page.getByRole('button', { name: 'Backlog: first page' }).click();
        await page.locator(`[data-testid="backlog"] a[data-job="${ids[2]}"]`).click();
        const state = page.getByTestId('job').locator('.panel-head [data-job-state]');
        await waitText(state, /pending/);
        const c = await q.claim({ leaseMs: 90_000 });
        expect(c?.id).toBe(ids[2]);
        await waitText(state, /active/);
        await waitText(page.getByTestId('job-timeline'), /lease until.*in 1 min/);
        await q.complete(c?.id ?? '', c?.token ?? '');
        await waitText(state, /completed/);
        await waitText(page.getByTestId('job-follow'), /Final/);
        await shot(page, 'j10-job-followed');
        await page.getByRole('link', { name: 'Close job' }).click();
        await page.getByTestId('backlog').waitFor();
        expect(new URL(page.url()).hash).toBe(`#queue=${queue}&group=acme`);
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it("shows each job's priority in the backlog, the Delayed, Active and Completed views and its detail, and gives a pending job a new one from its detail, as Redis shows", async () => {
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'prio',
      );
      try {
        const a = await q.enqueue('acme', { n: 1 });
        const b = await q.enqueue('acme', { n: 2 }, { priority: 9 });
        const c = await q.enqueue('acme', { n: 3 }, { priority: 2 });
        const later = await q.enqueue('acme', { n: 4 }, { priority: 1, delayMs: 3_600_000 });

        // The backlog in run order, each row with its priority.
        await page.goto(`${server.server.url}/#queue=${queue}&group=acme`);
        const backlog = page.getByTestId('backlog');
        await waitBacklog(page, 'the backlog by priority, then oldest first', [c.id, a.id, b.id]);
        await waitText(backlog.locator(`li[data-job-row="${c.id}"] [data-priority]`), /p2/);
        await waitText(backlog.locator(`li[data-job-row="${b.id}"] [data-priority]`), /p9/);

        // The Delayed view has a priority column.
        await page.goto(`${server.server.url}/#queue=${queue}&view=delayed`);
        await waitRows(page, 'delayed-jobs', [later.id]);
        await waitText(
          page.locator(`tr[data-job-row="${later.id}"] td[data-priority]`),
          /1 \(runs first\)/,
        );

        // The detail shows it; an admin sets b to 1: it runs first now.
        await page.goto(`${server.server.url}/#queue=${queue}&group=acme&job=${b.id}`);
        await waitText(page.getByTestId('job-priority'), /9 \(runs last\)/);
        await page.getByTestId('job-actions').getByLabel('Priority').selectOption('1');
        await page.getByTestId('job-actions').getByRole('button', { name: 'Set priority' }).click();
        await waitText(
          page.getByTestId('job-outcome'),
          /Priority 1 set — confirmed: Redis shows it at priority 1/,
        );
        await waitText(page.getByTestId('job-priority'), /1 \(runs first\)/);
        expect(await direct.zrange(k.lane('acme'), 0, -1)).toEqual([b.id, c.id, a.id]);
        expect(await direct.hget(k.job(b.id), 'priority')).toBe('1');
        await shot(page, 'j15-priority');

        // A debounced job's detail shows its debounce key; the others have no such line.
        const debounced = await q.enqueue(
          'acme',
          { n: 5 },
          { debounce: { key: 'reindex-7', windowMs: 3_600_000 } },
        );
        await page.goto(`${server.server.url}/#queue=${queue}&group=acme&job=${debounced.id}`);
        await waitText(page.getByTestId('job-debounce-key'), /reindex-7/);
        await page.goto(`${server.server.url}/#queue=${queue}&group=acme&job=${a.id}`);
        await waitText(page.getByTestId('job-priority'), /5/);
        expect(await page.getByTestId('job-debounce-key').count()).toBe(0);

        // The Active and Completed views have a priority column too: b (now 1) done, c (2) running.
        const done = await q.claim({ leaseMs: 600_000 });
        expect(done?.id).toBe(b.id);
        await q.complete(b.id, done?.token as string);
        expect((await q.claim({ leaseMs: 600_000 }))?.id).toBe(c.id);
        await page.goto(`${server.server.url}/#queue=${queue}&view=active`);
        await waitRows(page, 'queue-active-jobs', [c.id]);
        await waitText(page.locator(`tr[data-job-row="${c.id}"] td[data-priority]`), /^2$/);
        await page.goto(`${server.server.url}/#queue=${queue}&view=completed`);
        await waitRows(page, 'completed-jobs', [b.id]);
        await waitText(
          page.locator(`tr[data-job-row="${b.id}"] td[data-priority]`),
          /^1 \(runs first\)$/,
        );
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);

    it('pauses and resumes the whole queue as an admin (P:{Q}:settings); a read token sees the state, no buttons', async () => {
      const readToken = 'read-token-for-the-console-jobs-e2e';
      const adminToken = 'admin-token-for-the-console-jobs-e2e';
      const { server, page, errors, queue, q, k, direct, close } = await openConsole(
        browser,
        redis.url,
        'qpause',
        {
          AUTH_TOKENS: `read:${readToken},admin:${adminToken}`,
        },
      );
      try {
        const [dead] = await makeDead(q, ['acme']);
        await q.enqueue('acme', null);

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByLabel('Token').fill(adminToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitText(page.getByTestId('queue-state'), /running/);
        await page.getByRole('button', { name: 'Pause queue' }).click();
        await waitText(page.getByTestId('queue-state'), /queue paused/);
        await waitText(
          page.getByTestId('queue-outcome'),
          /Queue paused — confirmed: Redis shows it at/,
        );
        expect(await direct.hget(k.settings, 'paused')).toBe('1');
        // Claims stop for every group; the group itself is not paused.
        expect(await q.claim({ leaseMs: 1_000 })).toBeNull();
        expect(await direct.sismember(k.paused, 'acme')).toBe(0);
        await shot(page, 'j11-queue-paused');

        await page.getByRole('button', { name: 'Resume queue' }).click();
        await waitText(page.getByTestId('queue-state'), /running/);
        await waitText(page.getByTestId('queue-outcome'), /Queue resumed — confirmed/);
        expect(await direct.hget(k.settings, 'paused')).toBeNull();

        // A read token sees the state but no button, here or in the job views.
        await q.pauseQueue();
        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Token').fill(readToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitText(page.getByTestId('role'), /read-only/);
        await waitText(page.getByTestId('queue-state'), /queue paused/);
        expect(await page.getByRole('button', { name: /queue$/ }).count()).toBe(0);
        await page.getByTestId('tab-dead').click();
        await waitRows(page, 'dead-jobs', [dead as string]);
        expect(await page.getByTestId('dead-actions').count()).toBe(0);
        expect(await page.getByRole('button', { name: /^(Retry|Delete)/ }).count()).toBe(0);
        await shot(page, 'j13-read-only');
        expect(errors).toEqual([]);
      } finally {
        await close();
      }
    }, 60_000);
  },
);
