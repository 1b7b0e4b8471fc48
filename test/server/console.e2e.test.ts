/**
 * The admin console end to end: Debian's headless Chromium, driven by playwright-core,
 * against the real server over a real Redis. It opens the console, sees the ring, pauses a group
 * by clicking and sees it leave the ring and its reason change, resumes it and sees it return,
 * sets a limit below its work in flight and sees "parked", clears it; loses the server and sees
 * "reconnecting…", then the resynced ring once it is back; and, with AUTH_TOKENS set, signs in
 * with a read token (no action buttons) and an admin token. The page must log no error.
 * During a running workload every panel is checked against every other and, with the
 * workload held still, against Redis; the throughput chart breaks across a server outage; at
 * phone width (414 px) nothing overlaps; words, invisible characters in ids, an unknown queue and
 * a server with no queues are shown plainly.
 * Screenshots of every step go to test-results/console/.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; `.ci/run` installs it). Without it the
 * file is skipped, except under CI, where it fails.
 */
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type Queue, Ringmaster, Worker } from '../../src/lanes/index.js';
import { CHROMIUM, skipBrowser } from '../support/chromium.js';
import { shot, useConsoleBrowser, waitText } from '../support/console.js';
import { queueName, waitFor } from '../support/pubsub.js';
import { useTestRedis } from '../support/redis.js';
import { startTestServer, type TestServer } from '../support/server.js';

const skip = skipBrowser;

/** The groups on the ring, in the order drawn (ghosts of groups that left are not counted). */
const ringOf = (page: Page): Promise<string[]> =>
  page
    .locator('[data-testid="ring"] button[data-on-ring="true"]')
    .evaluateAll((chips) => chips.map((c) => c.getAttribute('data-group') ?? ''));

async function waitRing(page: Page, expected: string[], timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  let ring: string[] = [];
  for (;;) {
    ring = await ringOf(page);
    if (JSON.stringify(ring) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) {
      throw new Error(`ring is ${JSON.stringify(ring)}, expected ${JSON.stringify(expected)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One row of the groups table as drawn. */
interface ShownRow {
  id: string;
  standing: string;
  ring: string;
  limit: string;
  active: string;
  pending: string;
  paused: string;
}

/** Everything the console shows about the chosen queue, read in one turn of the page. */
interface Shown {
  asOf: number | null;
  chips: string[];
  ringSize: string;
  kpi: Record<string, string>;
  sidebarOnRing: string | null;
  rows: ShownRow[];
  detail: {
    id: string;
    standing: string | null;
    ring: string | null;
    label: string | null;
    reason: string | null;
  } | null;
  text: string;
}

/** Read every panel at once: one `evaluate` runs in one task, so no render falls between. */
const shown = (page: Page): Promise<Shown> =>
  page.evaluate(() => {
    const text = (el: Element | null): string | null => el?.textContent ?? null;
    const asOf = document.querySelector('[data-testid="as-of"]')?.getAttribute('data-at');
    const kpi: Record<string, string> = {};
    for (const dd of document.querySelectorAll('[data-kpi]')) {
      kpi[dd.getAttribute('data-kpi') ?? ''] = dd.textContent ?? '';
    }
    const detail = document.querySelector('[data-testid="detail"]');
    return {
      asOf: asOf ? Number(asOf) : null,
      chips: [...document.querySelectorAll('[data-testid="ring"] button[data-on-ring="true"]')].map(
        (c) => c.getAttribute('data-group') ?? '',
      ),
      ringSize: text(document.querySelector('[data-testid="ring-size"]')) ?? '',
      kpi,
      sidebarOnRing: text(
        document.querySelector('[data-testid="selected-counts"] [data-count="on-ring"]'),
      ),
      rows: [...document.querySelectorAll('table.groups tbody tr[data-group]')].map((tr) => ({
        id: tr.getAttribute('data-group') ?? '',
        standing: tr.querySelector('[data-standing]')?.getAttribute('data-standing') ?? '',
        ring: tr.querySelector('[data-ring]')?.getAttribute('data-ring') ?? '',
        limit: tr.getAttribute('data-limit') ?? '',
        active: tr.getAttribute('data-active') ?? '',
        pending: tr.getAttribute('data-pending') ?? '',
        paused: tr.getAttribute('data-paused') ?? '',
      })),
      detail: detail
        ? {
            id: detail.querySelector('.detail-id')?.getAttribute('title') ?? '',
            standing:
              detail.querySelector('.panel-head [data-standing]')?.getAttribute('data-standing') ??
              null,
            ring: text(detail.querySelector('[data-testid="detail-ring"]')),
            label: text(detail.querySelector('[data-testid="reason-label"]')),
            reason: text(detail.querySelector('[data-testid="reason"]')),
          }
        : null,
      text: document.querySelector('main')?.textContent ?? '',
    };
  });

/** The standing a row's own numbers give (format.ts' words for the API's state). */
function standingOf(row: ShownRow): string {
  const limit = row.limit === '' ? null : Number(row.limit);
  const active = Number(row.active);
  if (row.paused === 'true') return 'paused';
  if (limit !== null && active >= limit) return limit === 0 || active > limit ? 'parked' : 'limit';
  if (Number(row.pending) > 0) return 'ready';
  return active > 0 ? 'busy' : 'empty';
}

/** Where the panels shown disagree with each other (an empty list when they all agree). */
function disagreements(s: Shown): string[] {
  const problems: string[] = [];
  const size = s.chips.length;
  const say = (what: string, a: unknown, b: unknown) => {
    if (a !== b) problems.push(`${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
  };
  say('KPI on ring vs ring chips', s.kpi['on-ring'], String(size));
  say('ring panel count vs chips', s.ringSize.split(' ')[0], String(size));
  // The queue list names the chosen queue once it has read it (a queue made a moment ago).
  if (s.sidebarOnRing !== null) say('sidebar on ring vs chips', s.sidebarOnRing, String(size));
  for (const row of s.rows) {
    const place = s.chips.indexOf(row.id) + 1;
    say(`row ${row.id} ring column vs chips`, row.ring, place > 0 ? String(place) : '');
    say(`row ${row.id} ready vs on ring`, row.standing === 'ready', place > 0);
    say(`row ${row.id} standing vs its numbers`, row.standing, standingOf(row));
  }
  const d = s.detail;
  const row = d ? s.rows.find((r) => r.id === d.id) : undefined;
  if (d && row) {
    const place = s.chips.indexOf(d.id) + 1;
    say(`detail ${d.id} badge vs its row`, d.standing, row.standing);
    say(`detail ${d.id} ring vs chips`, d.ring, place > 0 ? `#${place} of ${size}` : 'off');
    say(
      `detail ${d.id} heading`,
      d.label,
      place > 0 ? 'When is its next turn?' : 'Why does it get no more turns?',
    );
    const onRingSentence = new RegExp(`^On the ring at position ${place} of ${size}\\b`);
    say(
      `detail ${d.id} reason vs ring`,
      place > 0 ? onRingSentence.test(d.reason ?? '') : !/^On the ring/.test(d.reason ?? ''),
      true,
    );
  }
  if (/idle/i.test(s.text)) problems.push('the word "idle" is shown');
  return problems;
}

/** A number as the console writes it (12,345). */
const num = (text: string | undefined): number => Number((text ?? '').replace(/,/g, ''));

/** A rectangle from `getBoundingClientRect`. */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width - 0.5 &&
  b.x < a.x + a.width - 0.5 &&
  a.y < b.y + b.height - 0.5 &&
  b.y < a.y + a.height - 0.5;

describe.skipIf(skip)(
  skip
    ? `console end to end — SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium)`
    : 'console end to end in headless Chromium',
  () => {
    const redis = useTestRedis();
    const browser = useConsoleBrowser();
    const openPage = () => browser.openPage();

    it('shows the ring live, and steers a group by clicking: pause, resume, park, clear', async () => {
      const server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('console');
      try {
        const q = server.server.engine.queue(queue);
        // acme: 2 jobs in flight and 4 waiting; globex and initech: 3 waiting each.
        for (let i = 0; i < 6; i += 1) await q.enqueue('acme', { i });
        for (let i = 0; i < 2; i += 1) await q.claim({ leaseMs: 600_000 });
        for (const group of ['globex', 'initech']) {
          for (let i = 0; i < 3; i += 1) await q.enqueue(group, { i });
        }
        await server.server.engine.queue(queueName('other')).enqueue('solo', null);

        // Open the console and pick the queue in the list.
        await page.goto(`${server.server.url}/`);
        await page.locator('.queue-item', { hasText: queue }).click();
        await waitRing(page, ['acme', 'globex', 'initech']);
        await waitText(page.getByTestId('link'), /live/);
        const head = page.locator('[data-testid="ring"] .chip-head');
        expect(await head.getAttribute('data-group')).toBe('acme');
        await page.locator('table.groups tr[data-group="initech"]').waitFor();
        await shot(page, '01-ring');

        // The group's detail: why it runs.
        await page.locator('table.groups tr[data-group="acme"]').click();
        const reason = page.getByTestId('reason');
        await waitText(reason, /^On the ring at position \d of 3/);
        await shot(page, '02-detail');

        // Pause: acme leaves the ring (the log says so), the reason changes, and the action is
        // confirmed once a read shows it.
        await page.getByRole('button', { name: 'Pause', exact: true }).click();
        await waitRing(page, ['globex', 'initech']);
        await waitText(
          reason,
          /^Paused: it gets no turns until resumed \(4 pending, 2 in flight\)/,
        );
        await waitText(page.getByTestId('outcome'), /Paused — confirmed: Redis shows it at /);
        await waitText(page.getByTestId('ring-log'), /−acme/);
        await page.locator('table.groups tr[data-group="acme"] .badge-paused').waitFor();
        await shot(page, '03-paused');

        // Resume: it returns to the ring.
        await page.getByRole('button', { name: 'Resume', exact: true }).click();
        await waitRing(page, ['globex', 'initech', 'acme']);
        await waitText(reason, /^On the ring at position 3 of 3/);
        await waitText(page.getByTestId('outcome'), /Resumed — confirmed: Redis shows it at /);
        await shot(page, '04-resumed');

        // A limit below the work in flight (2): parked, off the ring.
        await page.getByLabel('New limit').fill('1');
        await page.getByRole('button', { name: 'Set limit' }).click();
        await waitRing(page, ['globex', 'initech']);
        await waitText(
          reason,
          /^Parked: the limit was lowered below the work in flight, 2 must finish first \(2 in flight, limit 1\)/,
        );
        await waitText(page.getByTestId('outcome'), /Limit 1 — confirmed: Redis shows it at /);
        await page.locator('[data-testid="detail"] .badge-parked').waitFor();
        await shot(page, '05-parked');

        // A refused input is said in words, and changes nothing.
        await page.getByLabel('New limit').fill('2000000');
        await page.getByRole('button', { name: 'Set limit' }).click();
        await waitText(page.getByTestId('outcome'), /failed\. Not accepted: .*limit/i);
        await shot(page, '06-refused');

        // Clear the limit: back on the ring.
        await page.getByRole('button', { name: 'Clear limit' }).click();
        await waitRing(page, ['globex', 'initech', 'acme']);
        await waitText(reason, /^On the ring at position 3 of 3/);
        await shot(page, '07-cleared');

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('shows that it is reconnecting when the server goes away, and resyncs when it is back', async () => {
      let server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('reconnect');
      const direct = new Redis(redis.url);
      try {
        const q = server.server.engine.queue(queue);
        for (const group of ['north', 'south', 'east']) await q.enqueue(group, null);
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitRing(page, ['north', 'south', 'east']);
        await waitText(page.getByTestId('link'), /live/);
        expect(errors).toEqual([]);

        // The server stops: the console says so.
        const port = new URL(server.server.url).port;
        await server.stop();
        await waitText(page.getByTestId('link'), /reconnecting/);
        await shot(page, '08-reconnecting');

        // Meanwhile the ring changes in Redis; then the server is back on the same port.
        await new Ringmaster(direct).queue(queue).pause('south');
        server = await startTestServer(redis.url, { PORT: port });
        await waitText(page.getByTestId('link'), /live/, 20_000);
        await waitRing(page, ['north', 'east'], 20_000);
        await shot(page, '09-resynced');

        // The only errors are the browser's own reports of the refused connections.
        const unexpected = errors.filter(
          (e) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(e),
        );
        expect(unexpected).toEqual([]);
      } finally {
        direct.disconnect();
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('asks for a token once; a read token sees no action buttons, an admin token does', async () => {
      const readToken = 'read-token-for-the-console-e2e';
      const adminToken = 'admin-token-for-the-console-e2e';
      const server = await startTestServer(redis.url, {
        AUTH_TOKENS: `read:${readToken},admin:${adminToken}`,
      });
      const { page, errors } = await openPage();
      const queue = queueName('auth');
      try {
        await server.server.engine.queue(queue).enqueue('tenant-a', null);
        await page.goto(`${server.server.url}/#queue=${queue}&group=tenant-a`);
        await page.getByTestId('token-form').waitFor();
        await shot(page, '10-token');

        await page.getByLabel('Token').fill(readToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitRing(page, ['tenant-a']);
        await waitText(page.getByTestId('role'), /read-only/);
        await waitText(page.getByTestId('reason'), /^On the ring at position 1 of 1/);
        expect(await page.getByTestId('actions').count()).toBe(0);
        await shot(page, '11-read-only');

        // The token is kept for the tab: a reload does not ask again.
        await page.reload();
        await waitRing(page, ['tenant-a']);
        expect(await page.getByTestId('token-form').count()).toBe(0);

        await page.getByRole('button', { name: 'Sign out' }).click();
        await page.getByLabel('Token').fill(adminToken);
        await page.getByRole('button', { name: 'Continue' }).click();
        await waitText(page.getByTestId('role'), /admin/);
        await page.getByTestId('actions').waitFor();
        await page.getByRole('button', { name: 'Pause', exact: true }).click();
        await waitRing(page, []);
        await waitText(page.getByTestId('reason'), /^Paused/);
        await shot(page, '12-admin');

        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('shows one state at a time: during a running workload the panels agree with each other, and with Redis', async () => {
      const server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('agree');
      const direct = new Redis(redis.url);
      const q: Queue = new Ringmaster(direct).queue(queue);
      const groups = Array.from({ length: 10 }, (_, i) => `t${String(i + 1).padStart(2, '0')}`);
      // The demo's shape, smaller: a noisy tenant held to 3, others at 1–2 or unlimited.
      await q.setLimit('noisy', 3);
      for (const [i, g] of groups.entries()) {
        if (i % 3 !== 2) await q.setLimit(g, 1 + (i % 2));
      }
      for (let i = 0; i < 60; i += 1) await q.enqueue('noisy', { i });
      let producing = true;
      const producer = (async () => {
        while (producing) {
          // ~70 jobs/s against ~30/s of capacity: backlogs build, so the ring is never still.
          for (const g of groups) {
            if (Math.random() < 0.7) await q.enqueue(g, null);
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const work = () =>
        new Worker(q, () => new Promise((r) => setTimeout(r, 100 + Math.random() * 300)), {
          concurrency: 8,
          leaseMs: 60_000,
        });
      let worker = work();
      try {
        await page.goto(`${server.server.url}/#queue=${queue}&group=noisy`);
        await page.locator('table.groups tr[data-group="t10"]').waitFor();
        await page.getByTestId('as-of').waitFor();

        // While it runs: every moment shown is one state.
        const checked = new Set<number>();
        const rings = new Set<string>();
        for (let i = 0; i < 200 && checked.size < 12; i += 1) {
          const s = await shown(page);
          if (s.asOf !== null && !checked.has(s.asOf)) {
            expect(disagreements(s), `at ${s.asOf}`).toEqual([]);
            expect(s.sidebarOnRing).not.toBeNull();
            checked.add(s.asOf);
            rings.add(s.chips.join());
          }
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(checked.size).toBeGreaterThanOrEqual(12);
        // The ring moved between the moments checked: they were taken under churn.
        expect(rings.size).toBeGreaterThan(3);
        await shot(page, '13-agree-running');

        // Hold the workload still, then what the console shows is what Redis holds.
        producing = false;
        await producer;
        await worker.close();
        const [seconds, micros] = await direct.time();
        const stillSince = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
        const s = await waitFor('a snapshot read after the workload stood still', async () => {
          const now = await shown(page);
          return now.asOf !== null && now.asOf > stillSince ? now : null;
        });
        expect(disagreements(s)).toEqual([]);
        expect(s.chips).toEqual(await q.ring());
        const counts = await q.counts();
        expect({
          groups: num(s.kpi.groups),
          onRing: num(s.kpi['on-ring']),
          paused: num(s.kpi.paused),
          saturated: num(s.kpi['at-limit']),
          pending: num(s.kpi.pending),
          delayed: num(s.kpi.delayed),
          active: num(s.kpi.active),
          dead: num(s.kpi.dead),
          completed: num(s.kpi.completed),
        }).toEqual(counts);
        for (const row of s.rows) {
          const g = await q.group(row.id);
          expect(row).toMatchObject({
            id: g.id,
            limit: g.limit === null ? '' : String(g.limit),
            active: String(g.active),
            pending: String(g.pending),
            paused: String(g.paused),
          });
        }
        await shot(page, '14-agree-still');

        // And it moves again, still one state at a time.
        worker = work();
        for (let i = 0; i < 20; i += 1) await q.enqueue(groups[i % groups.length] as string, null);
        const after = await waitFor('a snapshot with work in flight again', async () => {
          const now = await shown(page);
          return now.asOf !== null && now.asOf > (s.asOf ?? 0) && num(now.kpi.active) > 0
            ? now
            : null;
        });
        expect(disagreements(after)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        producing = false;
        await producer;
        await worker.close();
        direct.disconnect();
        await page.close();
        await server.stop();
      }
    }, 90_000);

    it('breaks the throughput chart where there was no data: a server outage is a gap, not a slope', async () => {
      let server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('gap');
      // Workers and producer talk to Redis directly: the work goes on while the server is down.
      const direct = new Redis(redis.url);
      const q = new Ringmaster(direct).queue(queue);
      let producing = true;
      const producer = (async () => {
        while (producing) {
          for (const g of ['a', 'b', 'c']) await q.enqueue(g, null);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      })();
      const worker = new Worker(q, () => new Promise((r) => setTimeout(r, 10)), {
        concurrency: 4,
      });
      const points = async (): Promise<number> =>
        Number((await page.getByTestId('throughput').getAttribute('data-points')) ?? 0);
      try {
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitFor('three rates drawn', async () => (await points()) >= 3, {
          timeoutMs: 20_000,
          intervalMs: 100,
        });
        expect(await page.getByTestId('throughput').getAttribute('data-gaps')).toBe('[]');

        const port = new URL(server.server.url).port;
        const downAt = Date.now();
        await server.stop();
        // Down until the console itself says its snapshot is old (no timer of the test's own).
        await waitText(page.getByTestId('as-of'), /not updated for (9|\d\d) s/, 30_000);
        server = await startTestServer(redis.url, { PORT: port });
        const upAt = Date.now();
        const before = await points();
        await waitFor(
          'three more rates drawn after the restart',
          async () => (await points()) >= before + 3,
          {
            timeoutMs: 20_000,
            intervalMs: 100,
          },
        );
        await shot(page, '15-chart-gap');

        const chart = page.getByTestId('throughput');
        const gaps = JSON.parse((await chart.getAttribute('data-gaps')) ?? '[]') as number[][];
        expect(gaps).toHaveLength(1);
        const [from, to] = gaps[0] as [number, number];
        // The break spans the outage: from the last read before it to the first after.
        expect(from * 1000).toBeLessThanOrEqual(downAt + 500);
        expect(to * 1000).toBeGreaterThanOrEqual(upAt - 500);

        // And nothing is drawn inside it: no pixel of a series' colour between its two ends,
        // while the lines are there outside it.
        const [x1, x2] = (
          JSON.parse((await chart.getAttribute('data-gap-px')) ?? '[]') as number[][]
        )[0] as [number, number];
        const pixels = await chart.evaluate(
          (el, [a, b]) => {
            const canvas = el.querySelector('canvas') as HTMLCanvasElement;
            const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
            const style = getComputedStyle(document.documentElement);
            const rgb = (name: string) => {
              const hex = style.getPropertyValue(name).trim().replace('#', '');
              return [0, 2, 4].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
            };
            const colours = ['--series-1', '--series-2'].map(rgb);
            const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
            let inside = 0;
            let outside = 0;
            for (let y = 0; y < height; y += 1) {
              for (let x = 0; x < width; x += 1) {
                const i = (y * width + x) * 4;
                const hit = colours.some(
                  ([r, g, bl]) =>
                    Math.abs((data[i] ?? 0) - (r ?? 0)) < 40 &&
                    Math.abs((data[i + 1] ?? 0) - (g ?? 0)) < 40 &&
                    Math.abs((data[i + 2] ?? 0) - (bl ?? 0)) < 40 &&
                    (data[i + 3] ?? 0) > 128,
                );
                if (!hit) continue;
                if (x > (a as number) + 3 && x < (b as number) - 3) inside += 1;
                else outside += 1;
              }
            }
            return { inside, outside };
          },
          [x1, x2],
        );
        expect(x2 - x1).toBeGreaterThan(10);
        expect(pixels.outside).toBeGreaterThan(0);
        expect(pixels.inside).toBe(0);
        const unexpected = errors.filter(
          (e) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(e),
        );
        expect(unexpected).toEqual([]);
      } finally {
        producing = false;
        await producer;
        await worker.close();
        direct.disconnect();
        await page.close();
        await server.stop();
      }
    }, 90_000);

    it('fits a phone (414 px): the queue list above, the ring log under the ring, nothing overlapping', async () => {
      const server: TestServer = await startTestServer(redis.url);
      const { page, errors } = await openPage();
      const queue = queueName('phone');
      try {
        const q = server.server.engine.queue(queue);
        for (let i = 1; i <= 14; i += 1) {
          await q.enqueue(`tenant-with-a-long-name-${String(i).padStart(2, '0')}`, null);
        }
        await server.server.engine.queue(queueName('second')).enqueue('solo', null);
        await page.setViewportSize({ width: 414, height: 860 });
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await waitFor('14 chips', async () => (await shown(page)).chips.length === 14);
        // Let a leave reach the log, so it has lines to lay out. The log is made of the feed's
        // changes, and a change made before the page's subscription took its first snapshot is
        // in that snapshot, never logged: so once live, pause; and on a busy host, where the
        // subscription can lag the link, resume and pause again until one is logged.
        await waitText(page.getByTestId('link'), /live/, 20_000);
        for (let attempt = 1; ; attempt += 1) {
          await q.pause('tenant-with-a-long-name-03');
          try {
            await waitText(page.getByTestId('ring-log'), /−tenant-with-a-long-name-03/, 5_000);
            break;
          } catch (error) {
            if (attempt === 3) throw error;
            await q.resume('tenant-with-a-long-name-03');
          }
        }
        await shot(page, '16-phone');

        const layout = await page.evaluate(() => {
          const box = (el: Element | null) => {
            const r = (el as Element).getBoundingClientRect();
            return { x: r.x, y: r.y, width: r.width, height: r.height };
          };
          return {
            scrollWidth: document.documentElement.scrollWidth,
            queues: box(document.querySelector('nav.queues')),
            main: box(document.querySelector('main')),
            ring: box(document.querySelector('[data-testid="ring"]')),
            log: box(document.querySelector('[data-testid="ring-log"]')),
            chips: [...document.querySelectorAll('[data-testid="ring"] .chip')].map(box),
            kpis: [...document.querySelectorAll('[data-testid="kpis"] .kpi')].map(box),
          };
        });
        expect(layout.scrollWidth).toBeLessThanOrEqual(414);
        // The queue list is a strip above the queue, not a column beside it.
        expect(layout.queues.height).toBeLessThanOrEqual(860 * 0.2);
        expect(layout.main.y).toBeGreaterThanOrEqual(layout.queues.y + layout.queues.height - 1);
        expect(layout.main.width).toBeGreaterThanOrEqual(380);
        expect(overlap(layout.ring, layout.log)).toBe(false);
        expect(layout.chips).toHaveLength(13);
        for (const chip of layout.chips) {
          // What is drawn of a chip is its part inside the ring's scrolling box; it spans no
          // wider than that box and draws nothing over the log.
          const top = Math.max(chip.y, layout.ring.y);
          const bottom = Math.min(chip.y + chip.height, layout.ring.y + layout.ring.height);
          if (bottom <= top) continue;
          const drawn = { ...chip, y: top, height: bottom - top };
          expect(overlap(drawn, layout.log)).toBe(false);
          expect(chip.x).toBeGreaterThanOrEqual(layout.ring.x);
          expect(chip.x + chip.width).toBeLessThanOrEqual(layout.ring.x + layout.ring.width);
        }
        expect(layout.ring.x + layout.ring.width).toBeLessThanOrEqual(414);
        for (const [i, a] of layout.kpis.entries()) {
          for (const b of layout.kpis.slice(i + 1)) expect(overlap(a, b)).toBe(false);
        }
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);

    it('says things plainly: live with no queues, busy not idle, why no more turns, invisible characters, an unknown queue', async () => {
      // A key prefix of its own: this server has no queue at all.
      const server: TestServer = await startTestServer(redis.url, { KEY_PREFIX: queueName('p') });
      const { page, errors } = await openPage();
      const queue = queueName('words');
      try {
        await page.goto(`${server.server.url}/`);
        await page.getByText('No queues yet').waitFor();
        await waitText(page.getByTestId('link'), /^live$/);
        await shot(page, '17-no-queues');

        const q = server.server.engine.queue(queue);
        // full: 3 of 3 in flight and 1 waiting; working: 2 in flight, none waiting.
        await q.setLimit('full', 3);
        for (let i = 0; i < 4; i += 1) await q.enqueue('full', null);
        for (let i = 0; i < 2; i += 1) await q.enqueue('working', null);
        for (let i = 0; i < 5; i += 1) await q.claim({ leaseMs: 600_000 });
        await q.setLimit('planned', 2);
        for (const id of ['acme', 'acme\u200B', '\uFEFFacme']) await q.enqueue(id, null);

        await page.goto(`${server.server.url}/#queue=${queue}&group=full`);
        await page.locator('table.groups tr[data-group="working"]').waitFor();
        await waitText(page.getByTestId('reason'), /^At its limit \(3 of 3 in flight\)/);
        await waitText(page.getByTestId('reason-label'), /^Why does it get no more turns\?$/);
        const s = await shown(page);
        expect(disagreements(s)).toEqual([]);
        const standingOfRow = (id: string) => s.rows.find((r) => r.id === id)?.standing;
        expect(standingOfRow('full')).toBe('limit');
        expect(standingOfRow('working')).toBe('busy');
        expect(standingOfRow('planned')).toBe('empty');
        expect(s.text).not.toMatch(/idle/i);

        // Three ids that look alike are drawn differently, the invisible characters named.
        const chipText = await page
          .locator('[data-testid="ring"] .chip')
          .evaluateAll((chips) => chips.map((c) => c.textContent ?? ''));
        expect(new Set(chipText).size).toBe(3);
        expect(chipText.some((t) => t.includes('ZWSP'))).toBe(true);
        expect(chipText.some((t) => t.includes('BOM'))).toBe(true);
        await shot(page, '18-words');

        // A queue never used says so, rather than showing zeros like an empty queue.
        await page.goto(`${server.server.url}/#queue=${queueName('ordrs')}`);
        await waitText(page.getByTestId('unknown-queue'), /has ever been used/);
        await shot(page, '19-unknown-queue');
        await page.goto(`${server.server.url}/#queue=${queue}`);
        await page.getByTestId('as-of').waitFor();
        expect(await page.getByTestId('unknown-queue').count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await page.close();
        await server.stop();
      }
    }, 60_000);
  },
);
