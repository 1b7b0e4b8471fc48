/**
 * The console's Schedules view (SchedulesView.tsx; DESIGN.md §3, "Schedules"), in headless
 * Chromium against the real server over a real Redis: the queue's schedules with their timing
 * and next run; a tick the server's reaper fires shows as the last run and its job; an admin
 * pauses a schedule by pausing its group (checked in Redis: the group is in `paused`, and the
 * next tick's job waits in its lane) and resumes it. A schedule whose stored definition was broken
 * by hand in Redis (`ScheduleConnection.unreadable`) is listed as unreadable, with no action, until
 * a repair removes it. The page must log no error.
 *
 * Needs /usr/bin/chromium, as test/server/console.e2e.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { pollUntil, redisNow } from '../support/lanes.js';
import { queueName } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;

describe.skipIf(skip)(
  skip
    ? `console schedules — SKIPPED: ${CHROMIUM} is not installed`
    : 'console schedules in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('lists schedules with their next and last runs, and pauses one by pausing its group', async () => {
      const server = await startTestServer(redis.url, { REAP_INTERVAL_MS: '100' });
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-sched');
      try {
        const q = server.server.engine.queue(queue);
        await q.enqueue('other', null);
        await q.upsertSchedule({
          id: 'nightly',
          group: 'acme',
          cron: '0 30 2 * * *',
          timezone: 'Europe/Berlin',
          payload: { report: 'daily' },
        });
        await q.upsertSchedule({ id: 'ping', group: 'beta', everyMs: 3_600_000 });
        await page.goto(`${server.server.url}/#queue=${queue}&view=schedules`);
        const nightly = page.locator('tr[data-schedule="nightly"]');
        const ping = page.locator('tr[data-schedule="ping"]');
        await waitText(nightly, /acme.*cron 0 30 2 \* \* \* \(Europe\/Berlin\)/);
        await waitText(ping.getByTestId('schedule-last-job'), /^—$/);

        // Due now, as if its hour had come: the server's reaper fires it, the view shows the job.
        await q.redis.zadd(q.keys.schedules, (await redisNow(q.redis)) - 1, 'ping');
        await pollUntil('the tick fired', async () => (await q.counts()).pending === 2);
        const [first] = (await q.jobs({ state: 'PENDING', group: 'beta' })).jobs;
        await waitText(ping.getByTestId('schedule-last-job'), new RegExp(`^${first?.id}$`));
        expect((await q.schedules()).schedules.find((s) => s.id === 'ping')?.lastJobId).toBe(
          first?.id,
        );
        await shot(page, 'schedules-01-fired');

        // Pause it by pausing its group: Redis holds the pause; the next tick's job waits.
        await ping.getByRole('button', { name: 'Pause group' }).click();
        await waitText(page.getByTestId('schedules-outcome'), /Redis shows it paused/);
        expect(await q.redis.sismember(q.keys.paused, 'beta')).toBe(1);
        await waitText(ping, /paused/);
        await q.redis.zadd(q.keys.schedules, (await redisNow(q.redis)) - 1, 'ping');
        await pollUntil('the second tick fired', async () => (await q.counts()).pending === 3);
        expect(await q.claim({ leaseMs: 60_000 })).toMatchObject({ group: 'other' });
        expect(await q.claim()).toBeNull();
        const second = (await q.schedules()).schedules.find((s) => s.id === 'ping')?.lastJobId;
        await waitText(ping.getByTestId('schedule-last-job'), new RegExp(`^${second}$`));

        await ping.getByRole('button', { name: 'Resume group' }).click();
        await waitText(page.getByTestId('schedules-outcome'), /Redis shows it running/);
        expect(await q.redis.sismember(q.keys.paused, 'beta')).toBe(0);
        expect(await q.claim()).toMatchObject({ group: 'beta' });

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('lists a schedule whose stored definition is broken as unreadable, until a repair removes it', async () => {
      const server = await startTestServer(redis.url);
      const { page, errors } = await browser.openPage();
      const queue = queueName('console-sched-broken');
      try {
        const q = server.server.engine.queue(queue);
        await q.upsertSchedule({ id: 'ping', group: 'beta', everyMs: 3_600_000 });
        await q.upsertSchedule({ id: 'broken', group: 'gamma', everyMs: 3_600_000 });
        // Another writer's definition, as test/lanes/schedules.test.ts breaks one.
        await q.redis.hset(q.keys.scheduleDefs, 'broken', 'not JSON');
        expect((await q.schedules()).unreadable).toEqual(['broken']);

        await page.goto(`${server.server.url}/#queue=${queue}&view=schedules`);
        const view = page.getByTestId('schedules-view');
        const broken = page.locator('tr[data-schedule="broken"]');
        await waitText(page.locator('tr[data-schedule="ping"]'), /beta.*every/);
        await waitText(view.locator('h2'), /Schedules · 2/);
        await waitText(
          broken.getByTestId('schedule-unreadable'),
          /^unreadable: its stored definition is broken .*a repair of the queue \(repairQueue\) removes it\.$/,
        );
        expect(await broken.getByRole('button').count()).toBe(0);
        expect(await page.getByTestId('schedules-empty').count()).toBe(0);
        await shot(page, 'schedules-02-unreadable');

        // A repair removes it; the next read shows it gone.
        await q.repair();
        expect((await q.schedules()).unreadable).toEqual([]);
        await waitText(view.locator('h2'), /Schedules · 1/);
        expect(await broken.count()).toBe(0);

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
