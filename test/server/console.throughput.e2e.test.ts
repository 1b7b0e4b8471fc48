/**
 * The console's Throughput chart opens with the server's history (DESIGN.md §3 "Throughput
 * history", `Queue.throughput`), in headless Chromium against the real server: minutes counted
 * before the page was opened are drawn at once, from the first busy minute of the last hour, and
 * the live rates go on after them. The page must log no error.
 *
 * Needs /usr/bin/chromium; without it the file is skipped, except under CI, where it fails.
 */
import { describe, expect, it } from 'vitest';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser } from '../support/console.js';
import { redisNow } from '../support/lanes.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer } from '../support/server.js';

const skip = skipBrowser;
const MINUTE = 60_000;

describe.skipIf(skip)(
  skip
    ? `console throughput — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console throughput in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();

    it('opens with the last hour from the server, then adds the live rates', async () => {
      const server = await startTestServer(redis.url);
      const { page, errors } = await browser.openPage();
      const queue = queueName('throughput');
      try {
        const q = server.server.engine.queue(queue);
        await q.enqueue('a');
        // Minutes the queue counted before the page opened, as its scripts would have written
        // them (includes/throughput.lua): 40 minutes ago busy, 5 minutes ago less so.
        const r = q.redis;
        const current = Math.floor((await redisNow(r)) / MINUTE);
        const slot = (m: number) => String(m % 1_440);
        await r.hset(q.keys.throughput, slot(current - 40), `${current - 40}:0:1200:600:60`);
        await r.hset(q.keys.throughput, slot(current - 5), `${current - 5}:0:120:120:0`);

        await page.goto(`${server.server.url}/#queue=${queue}`);
        const chart = page.getByTestId('throughput');
        const attr = async (name: string) => Number((await chart.getAttribute(name)) ?? 'NaN');
        await waitFor('the history drawn', async () => (await attr('data-history')) > 0, {
          timeoutMs: 20_000,
          intervalMs: 100,
        });
        // Every complete minute from the busy one 40 minutes ago (41 if a minute turned since).
        expect([40, 41]).toContain(await attr('data-history'));
        // The window reaches back to it: the end of that minute, where its rate is drawn.
        const from = (await attr('data-from')) * 1000;
        expect(from).toBeLessThanOrEqual((current - 39) * MINUTE + 1);
        expect(from).toBeGreaterThanOrEqual((current - 41) * MINUTE);
        await shot(page, 'throughput-01-history');

        // The history is on the canvas: the claimed line (20/s, then 0, then 2/s) is drawn over
        // the left part of the chart, long before any live read.
        const drawn = await chart.evaluate((el) => {
          const canvas = el.querySelector('canvas') as HTMLCanvasElement;
          const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
          const hex = getComputedStyle(document.documentElement)
            .getPropertyValue('--series-1')
            .trim()
            .replace('#', '');
          const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
          const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
          let left = 0;
          for (let y = 0; y < height; y += 1) {
            for (let x = 0; x < width / 2; x += 1) {
              const i = (y * width + x) * 4;
              if (
                Math.abs((data[i] ?? 0) - (r ?? 0)) < 40 &&
                Math.abs((data[i + 1] ?? 0) - (g ?? 0)) < 40 &&
                Math.abs((data[i + 2] ?? 0) - (b ?? 0)) < 40 &&
                (data[i + 3] ?? 0) > 128
              ) {
                left += 1;
              }
            }
          }
          return left;
        });
        expect(drawn).toBeGreaterThan(0);

        // Live rates are added after the history, as before it existed.
        const history = await attr('data-history');
        const job = await q.claim();
        if (job) await q.complete(job.id, job.token as string);
        await waitFor(
          'two live rates after the history',
          async () => (await attr('data-points')) >= history + 2,
          { timeoutMs: 20_000, intervalMs: 100 },
        );
        expect(await attr('data-history')).toBe(history);
        await shot(page, 'throughput-02-live');
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
