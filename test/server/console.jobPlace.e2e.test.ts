/**
 * The console's job detail says where a job stands (JobDetail.tsx; DESIGN.md §4.2, "Where a
 * job stands"), in headless Chromium against the real server over a real Redis: a pending job's
 * reason, its position (checked against the lane's ZRANK in Redis) and its estimated start, read
 * again while it waits, so its place moves as the jobs ahead of it are claimed; a running job
 * says so and shows no position. The page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { queueKeys } from '../../src/lanes/internal.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console job place — SKIPPED: ${CHROMIUM} is not installed`
    : 'console job place in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it("shows a pending job's reason, position and estimate as Redis holds them, and follows its place", async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '86400000' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-place');
      try {
        const q = server.server.engine.queue(queue);
        const lane = queueKeys(server.server.engine.prefix, queue).lane('acme');
        await q.setLimit('acme', 1);
        const first = await q.enqueue('acme', { n: 1 });
        const second = await q.enqueue('acme', { n: 2 });
        const third = await q.enqueue('acme', { n: 3 });
        const running = await q.claim({ leaseMs: 600_000 });
        expect(running?.id).toBe(first.id);

        await page.goto(`${server.server.url}/#queue=${queue}&group=acme&job=${third.id}`);
        expect(await q.redis.zrank(lane, third.id)).toBe(1);
        await waitText(page.getByTestId('job-position'), /^1 ahead$/);
        await waitText(
          page.getByTestId('job-reason'),
          /^1 ahead of it in its lane \(2 pending\); its group is at its limit \(1 of 1 in flight\): it re-joins the ring when one finishes$/,
        );
        // No completion yet: nothing to estimate from.
        await waitText(page.getByTestId('job-estimate'), /^– \(too little history, or paused\)$/);
        await shot(page, 'place-01-pending');

        // The job ahead of it runs: its place moves without a change of its own.
        await q.complete(first.id, running?.token as string);
        expect((await q.claim({ leaseMs: 600_000 }))?.id).toBe(second.id);
        expect(await q.redis.zrank(lane, third.id)).toBe(0);
        await waitText(page.getByTestId('job-position'), /^0 ahead$/);
        await waitText(
          page.getByTestId('job-reason'),
          /^first in its lane; its group is at its limit/,
        );
        // One completion of the 3 an estimate needs.
        await waitText(page.getByTestId('job-estimate'), /^–/);

        // Running: it says its lease and shows no position.
        const held = await q.claim({ leaseMs: 600_000 });
        expect(held).toBeNull();
        await q.setLimit('acme', 2);
        const mine = await q.claim({ leaseMs: 600_000 });
        expect(mine?.id).toBe(third.id);
        await waitText(
          page.getByTestId('job-reason'),
          /^running: claimed at .*, its lease runs until /,
        );
        expect(await page.getByTestId('job-position').count()).toBe(0);

        // A group with history: its pending job's estimated start, a time and how far ahead.
        for (let i = 0; i < 3; i += 1) {
          await q.enqueue('beta', { i });
          const job = await q.claim({ leaseMs: 600_000 });
          await q.complete(job?.id as string, job?.token as string);
        }
        await q.setLimit('beta', 1);
        await q.enqueue('beta', { busy: true });
        expect((await q.claim({ leaseMs: 600_000 }))?.group).toBe('beta');
        const waiting = await q.enqueue('beta', { waiting: true });
        expect((await q.jobPlace(waiting.id))?.estimatedStartAt).not.toBeNull();
        await page.goto(`${server.server.url}/#queue=${queue}&group=beta&job=${waiting.id}`);
        await waitText(
          page.getByTestId('job-estimate'),
          /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \((in .+|.+ ago)\)$/,
        );
        await shot(page, 'place-02-estimate');
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
